"""Writes half_datasets.h5 as Keras 3.15 writes 16-bit weights (saving_lib's
H5Entry.__setitem__): float16 as h5py's IEEE binary16 dataset, bfloat16 as
2-byte opaque values with the attribute dtype = "bfloat16". Run with the
oracle venv (h5py 3, ml_dtypes):
    build/oracle-venv/bin/python tests/saving/data/keras_half/make.py"""
import os

import h5py
import ml_dtypes
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
values = np.array([[1.0, -2.5, 0.1], [65504.0, 6.1e-5, -0.0]], dtype=np.float32)
with h5py.File(os.path.join(here, "half_datasets.h5"), "w") as f:
    f.create_dataset("vars/float16", data=values.astype(np.float16))
    d = f.create_dataset("vars/bfloat16", data=values.astype(ml_dtypes.bfloat16))
    d.attrs["dtype"] = "bfloat16"
    for name in ("float16", "bfloat16"):
        print(name, f["vars/" + name][...].view(np.uint16).tolist())
