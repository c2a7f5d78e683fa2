#pragma once
// Kiln: one umbrella header for the framework and the whole built-in catalogue.
//   #include <kiln/kiln.h>
//   namespace k = kiln;  namespace L = kiln::layers;
//
// The framework's headers mirror its folders, lowest first: core, backend,
// autodiff, ops, nn, training, io, data, utils.
#include "kiln/core/config.h"
#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/error.h"

#include "kiln/core/profiler.h"
#include "kiln/core/registry.h"
#include "kiln/core/shape.h"
#include "kiln/core/tensor.h"

#include "kiln/backend/cpu_convolutions.h"
#include "kiln/backend/cpu_kernels.h"
#include "kiln/backend/cuda.h"
#include "kiln/backend/device_scope.h"
#include "kiln/backend/physical_device.h"

#include "kiln/autodiff/gradient_check.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/autodiff/variable.h"

#include "kiln/ops/ops.h"

#include "kiln/graph/control_flow.h"
#include "kiln/graph/function.h"

#include "kiln/nn/activations.h"
#include "kiln/nn/constraints.h"
#include "kiln/nn/dtype_policy.h"
#include "kiln/nn/initializers.h"
#include "kiln/nn/input_layer.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_handle.h"
#include "kiln/nn/layer_registry.h"
#include "kiln/nn/module.h"
#include "kiln/nn/operation_layer.h"
#include "kiln/nn/regularizers.h"

#include "kiln/training/callback.h"
#include "kiln/training/logs.h"
#include "kiln/training/loss.h"
#include "kiln/training/metric.h"
#include "kiln/distribute/data_parallel.h"
#include "kiln/training/model.h"
#include "kiln/training/multi_output_model.h"
#include "kiln/training/optimizer.h"
#include "kiln/training/loss_scale_optimizer.h"
#include "kiln/training/sequential.h"

#include "kiln/io/checkpoint.h"
#include "kiln/io/event_file.h"
#include "kiln/io/onnx.h"
#include "kiln/io/saved_model.h"
#include "kiln/io/saving.h"
#include "kiln/io/summary.h"

#include "kiln/data/data.h"
#include "kiln/data/dataset.h"
#include "kiln/data/text_line_dataset.h"

#include "kiln/utils/numerical.h"
#include "kiln/utils/plot.h"
#include "kiln/utils/sequence.h"

// The catalogue. Its classes register their names when the library loads, so
// compile("adam"), Dense(64, "relu") and load_model find them.
#include "kiln/callbacks.h"
#include "kiln/datasets/datasets.h"
#include "kiln/layers.h"
#include "kiln/losses.h"
#include "kiln/metrics.h"
#include "kiln/optimizers.h"
