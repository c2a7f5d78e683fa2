#pragma once
// Kiln: one umbrella header.
//   #include <kiln/kiln.h>
//   namespace k = kiln;  namespace L = kiln::layers;
#include "kiln/activations.h"
#include "kiln/callback.h"
#include "kiln/constraints.h"
#include "kiln/cpu_kernels.h"
#include "kiln/cuda.h"
#include "kiln/data.h"
#include "kiln/dataset.h"
#include "kiln/error.h"
#include "kiln/gradient_check.h"
#include "kiln/gradient_tape.h"
#include "kiln/initializers.h"
#include "kiln/input_layer.h"
#include "kiln/layer.h"
#include "kiln/layer_registry.h"
#include "kiln/loss.h"
#include "kiln/metric.h"
#include "kiln/model.h"
#include "kiln/ops.h"
#include "kiln/optimizer.h"
#include "kiln/regularizers.h"
#include "kiln/sequential.h"
#include "kiln/tensor.h"
#include "kiln/variable.h"

// The module umbrellas also register their classes by name, so that
// compile("adam"), Dense(64, "relu") and load_model find them.
#if __has_include("kiln/layers.h")
#include "kiln/layers.h"
#endif
#if __has_include("kiln/optimizers.h")
#include "kiln/optimizers.h"
#endif
#if __has_include("kiln/losses.h")
#include "kiln/losses.h"
#endif
#if __has_include("kiln/metrics.h")
#include "kiln/metrics.h"
#endif
#if __has_include("kiln/callbacks.h")
#include "kiln/callbacks.h"
#endif
#if __has_include("kiln/datasets/datasets.h")
#include "kiln/datasets/datasets.h"
#endif
#if __has_include("kiln/saving.h")
#include "kiln/saving.h"
#endif
#if __has_include("kiln/checkpoint.h")
#include "kiln/checkpoint.h"
#endif
#if __has_include("kiln/module.h")
#include "kiln/module.h"
#endif
#if __has_include("kiln/utils/plot.h")
#include "kiln/utils/plot.h"
#endif
