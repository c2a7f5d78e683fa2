#!/usr/bin/env python3
"""Checks that #include lines follow Kiln's dependency direction.

  framework <- {layers, optimizers, losses, metrics, callbacks, datasets} <- applications
            <- {examples, tests, bench}

Inside framework/ the folders are ordered, lowest first:

  core <- backend <- autodiff <- ops <- graph <- data <- nn <- distribute <- training <- io <- utils

and a file may include its own folder and lower ones. The catalogue folders
include the framework and themselves, never each other; the framework includes
no catalogue header (but the umbrella kiln/kiln.h). Heavy third-party headers
stay where they belong: xtensor, BLAS and FFTW in the CPU backend, HDF5 in io, CUDA
in the CUDA backend, MPI in the MPI transport plugin. Public headers include only the standard library, other
Kiln headers and nlohmann/json_fwd.hpp.

Usage: check_includes.py SOURCE_DIR   (exit 1 and a list of violations, or 0)
"""
import os
import re
import sys

LAYERS = ["core", "backend", "autodiff", "ops", "graph", "data", "nn", "distribute", "training", "io", "utils"]
RANK = {name: i for i, name in enumerate(LAYERS)}
CATALOGUE = ["layers", "optimizers", "losses", "metrics", "callbacks", "datasets"]
# keras.applications' models, built from the framework and the layers; only
# examples, tests and bench use them (kiln/kiln.h does not include them).
APPLICATIONS = "applications"

# The backward pass and the gradient checker compute gradients with the
# differentiable ops themselves, so that nested tapes give higher-order
# gradients: autodiff's engine sits above the ops it drives, while its
# recording side (autodiff/autodiff.h) stays below them.
ALLOWED_UPWARD = {
    ("framework/src/autodiff/gradient_tape.cpp", "ops"),
    ("framework/src/autodiff/gradient_check.cpp", "ops"),
    ("framework/src/autodiff/jacobian.cpp", "ops"),
}

HEAVY = [  # (pattern on the include path, folder prefix where it may appear, what)
    (re.compile(r"^(xtensor|xtl|xtensor-blas)/|^(cblas|openblas_config|f77blas)\.h$"), "framework/src/backend/cpu/",
     "xtensor/BLAS"),
    (re.compile(r"^(hdf5|H5[A-Za-z]*)\.h$"), "framework/src/io/", "HDF5"),
    (re.compile(r"^fftw3\.h$"), "framework/src/backend/cpu/", "FFTW"),
    (re.compile(r"^(cuda_runtime(_api)?|cuda|cublas(Lt)?(_v2)?|cudnn(_[a-z_]+)?|curand[a-z_]*|cuda_fp16|cuda_bf16|nccl)\.h$"
                r"|^(thrust|cub|cuda)/"), "framework/src/backend/cuda/", "CUDA"),
    (re.compile(r"^mpi\.h$"), "framework/src/distribute/mpi/", "MPI"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SOURCE_EXT = (".h", ".hpp", ".cpp", ".cu", ".cuh")


def framework_layer_of_file(rel):
    parts = rel.split("/")
    if rel.startswith("framework/src/") and len(parts) > 3:
        return parts[2]
    if rel.startswith("framework/include/kiln/") and len(parts) > 4:
        return parts[3]
    return None


def included_layer(inc):
    """('framework', layer) / ('catalogue', name) / (None, None) for an include path."""
    parts = inc.split("/")
    if parts[0] == "kiln" and len(parts) >= 3 and parts[1] in RANK:
        return "framework", parts[1]
    if parts[0] == "kiln" and len(parts) >= 2:
        name = parts[1][:-2] if parts[1].endswith(".h") else parts[1]
        if name in CATALOGUE:
            return "catalogue", name
        if name == APPLICATIONS:
            return "applications", name
    if parts[0] in RANK and len(parts) >= 2:  # a private framework header, relative to framework/src
        return "framework", parts[0]
    return None, None


def is_std_header(inc):
    return "/" not in inc and "." not in inc


def check_file(rel, text):
    problems = []
    top = rel.split("/")[0]
    is_public = "/include/kiln/" in "/" + rel
    own = framework_layer_of_file(rel)
    for quote, inc in INCLUDE.findall(text):
        kind, target = included_layer(inc)
        where = f"{rel}: #include {quote}{inc}{'>' if quote == '<' else quote}"
        if top == "framework" and own is not None and kind == "framework":
            if RANK[target] > RANK[own] and (rel, target) not in ALLOWED_UPWARD:
                problems.append(f"{where}: framework/{own} may not include the higher folder framework/{target}")
        if top == "framework" and kind == "catalogue" and rel != "framework/include/kiln/kiln.h":
            problems.append(f"{where}: the framework may not include the catalogue folder {target}/")
        if top in CATALOGUE and kind == "catalogue" and target != top:
            problems.append(f"{where}: {top}/ may not include its sibling {target}/")
        if kind == "applications" and top not in (APPLICATIONS, "examples", "tests", "bench", "fuzz"):
            problems.append(f"{where}: only examples, tests and bench may use applications/")
        if top == APPLICATIONS and kind == "catalogue" and target != "layers":
            problems.append(f"{where}: applications/ builds from the framework and layers/ only")
        for pattern, home, what in HEAVY:
            if pattern.search(inc) and not rel.startswith(home):
                problems.append(f"{where}: {what} headers belong in {home} only")
        if is_public and not (inc.startswith("kiln/") or inc == "nlohmann/json_fwd.hpp" or is_std_header(inc)):
            problems.append(f"{where}: a public header may include only std, kiln/ and nlohmann/json_fwd.hpp")
    return problems


SELF_TEST = [  # (file, include line, must be flagged)
    ("framework/src/core/shape.cpp", '#include "kiln/training/model.h"', True),
    ("framework/src/core/shape.cpp", '#include "backend/backend.h"', True),
    ("framework/include/kiln/nn/layer.h", '#include "kiln/io/saving.h"', True),
    ("framework/src/ops/math_ops.cpp", '#include "autodiff/autodiff.h"', False),
    ("framework/src/autodiff/variable.cpp", '#include "kiln/ops/math_ops.h"', True),
    ("framework/src/autodiff/gradient_tape.cpp", '#include "kiln/ops/math_ops.h"', False),
    ("framework/src/training/model.cpp", '#include "kiln/layers/dense.h"', True),
    ("framework/include/kiln/kiln.h", '#include "kiln/layers.h"', False),
    ("layers/src/dense.cpp", '#include "kiln/optimizers/adam.h"', True),
    ("metrics/src/auc.cpp", '#include "kiln/losses.h"', True),
    ("layers/src/dense.cpp", '#include "kiln/layers/dense.h"', False),
    ("framework/include/kiln/kiln.h", '#include "kiln/applications.h"', True),
    ("layers/src/dense.cpp", '#include "kiln/applications.h"', True),
    ("applications/src/resnet.cpp", '#include "kiln/layers.h"', False),
    ("applications/src/resnet.cpp", '#include "kiln/losses.h"', True),
    ("examples/transfer_learning.cpp", '#include "kiln/applications.h"', False),
    ("framework/src/ops/nn_ops.cpp", "#include <xtensor/xarray.hpp>", True),
    ("framework/src/backend/cpu/nn.cpp", "#include <xtensor/xarray.hpp>", False),
    ("framework/src/training/model.cpp", "#include <hdf5.h>", True),
    ("framework/src/io/hdf5_file.cpp", "#include <hdf5.h>", False),
    ("framework/src/backend/cpu/matmul.cpp", "#include <cudnn.h>", True),
    ("framework/src/backend/cpu/fft.cpp", "#include <fftw3.h>", False),
    ("framework/src/ops/fft_ops.cpp", "#include <fftw3.h>", True),
    ("framework/src/backend/cuda/cuda_nn.cpp", "#include <cudnn.h>", False),
    ("framework/src/backend/cuda_loader.cpp", '#include "kiln/backend/cuda.h"', False),
    ("framework/include/kiln/core/tensor.h", "#include <nlohmann/json.hpp>", True),
    ("framework/include/kiln/core/config.h", "#include <nlohmann/json_fwd.hpp>", False),
    ("layers/include/kiln/layers/dense.h", "#include <Eigen/Core>", True),
    ("tests/framework/test_tensor.cpp", "#include <cblas.h>", True),
]


def self_test():
    wrong = [(f, line) for f, line, bad in SELF_TEST if bool(check_file(f, line + "\n")) != bad]
    for f, line in wrong:
        print(f"self-test: {f}: '{line}' was judged wrongly")
    return not wrong


def main():
    if not self_test():
        return 1
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    problems, checked = [], 0
    for top in ["framework", *CATALOGUE, APPLICATIONS, "examples", "bench", "tests", "fuzz"]:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = [d for d in dirnames if d != "data"] if top == "tests" else dirnames
            for f in sorted(filenames):
                if not f.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                with open(path, encoding="utf-8") as fh:
                    problems += check_file(rel, fh.read())
                checked += 1
    for p in problems:
        print(p)
    print(f"include direction: {checked} files checked, {len(problems)} violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
