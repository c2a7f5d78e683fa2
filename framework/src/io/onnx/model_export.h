#pragma once
// Private: what exporting a model means, shared by export_onnx and saved_model.
#include <string>
#include <vector>

#include "kiln/io/onnx.h"

namespace kiln::io::onnx {

/// The model's input specs with a dynamic batch: from its symbolic inputs, or the shapes it was built for.
std::vector<TensorSpec> model_signature(Model& model, const std::string& name);
/// The model's inference call, training = false.
OnnxBody model_body(Model& model);

}  // namespace kiln::io::onnx
