// kiln::export_onnx: traces the callable twice without running it (its
// dynamic dimensions at two sizes), writes the graph, and saves it atomically.
#include "kiln/io/onnx.h"

#include "backend/portable_trace.h"
#include "backend/recording.h"
#include "core/tracing.h"
#include "io/atomic_file.h"
#include "io/onnx/model_export.h"
#include "io/onnx/onnx_writer.h"
#include "kiln/nn/input_layer.h"
#include "kiln/training/model.h"
#include "kiln/training/sequential.h"

namespace kiln {

namespace {

using io::onnx::Symbol;

/// One symbol per axis given as -1 in any spec; each is 2 in the first trace
/// and 2 times its own prime in the second, so every size in the graph can be
/// factored back into the symbols it was made of.
std::vector<Symbol> symbols_of(const std::vector<TensorSpec>& specs) {
  static constexpr int64_t primes[] = {3, 5, 7, 11, 13, 17, 19, 23, 29, 31};
  std::vector<Symbol> symbols;
  for (std::size_t i = 0; i < specs.size(); ++i)
    for (int64_t k = 0; k < specs[i].shape.rank(); ++k) {
      if (specs[i].shape[k] >= 0) continue;
      bool known = false;
      for (const auto& s : symbols) known = known || s.axis == k;
      if (known) continue;
      if (symbols.size() == std::size(primes))
        throw ValueError("export_onnx: at most " + std::to_string(std::size(primes)) + " axes may be dynamic");
      symbols.push_back({k == 0 ? "batch" : "dim" + std::to_string(k), static_cast<int>(k), static_cast<int>(i), 2,
                         2 * primes[symbols.size()]});
    }
  return symbols;
}

io::onnx::Trace trace(const OnnxBody& body, const std::vector<TensorSpec>& specs, const std::vector<Symbol>& symbols,
                      bool large, const std::string& name) {
  io::onnx::Trace t;
  for (const auto& spec : specs) {
    Shape s = spec.shape;
    for (int64_t k = 0; k < s.rank(); ++k)
      if (s[k] < 0)
        for (const auto& sym : symbols)
          if (sym.axis == k) s[k] = large ? sym.large : sym.small;
    t.inputs.push_back(zeros(s, spec.dtype));
  }
  backend::RecordingScope recording(t.rec, /*execute=*/false);
  backend::PortableTraceScope portable;
  tracing::Scope scope(&name, true);
  t.outputs = body(t.inputs);
  return t;
}

}  // namespace

std::string onnx_model_bytes(const OnnxBody& body, const OnnxExportOptions& options) {
  const std::string name = options.name.empty() ? "function" : options.name;
  if (options.opset < 13 || options.opset > 21)
    throw ValueError("export_onnx('" + name + "'): opset " + std::to_string(options.opset) +
                     " is not supported; use 13 to 21");
  if (options.input_signature.empty())
    throw ValueError("export_onnx('" + name + "'): an input_signature is required (the inputs' shapes and dtypes)");
  const auto symbols = symbols_of(options.input_signature);
  const io::onnx::Trace small = trace(body, options.input_signature, symbols, false, name);
  const io::onnx::Trace large = trace(body, options.input_signature, symbols, true, name);
  io::onnx::Settings settings{options.opset, name, options.input_names, options.output_names};
  for (std::size_t i = 0; i < options.input_signature.size(); ++i) {
    if (settings.input_names.size() <= i) settings.input_names.push_back("args_" + std::to_string(i));
    if (!options.input_signature[i].name.empty()) settings.input_names[i] = options.input_signature[i].name;
  }
  io::onnx::GraphWriter writer(small, large, symbols, settings);
  const io::onnx::GraphProto graph = writer.build();
  return io::onnx::encode_model(graph, options.opset, "0.2");
}

void export_onnx(const OnnxBody& body, const std::string& path, const OnnxExportOptions& options) {
  const std::string bytes = onnx_model_bytes(body, options);
  io::atomic_write_bytes(path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

namespace io::onnx {

std::vector<TensorSpec> model_signature(Model& model, const std::string& name) {
  std::vector<TensorSpec> specs;
  for (const auto& x : model.inputs()) {
    Shape s = x.shape();
    if (s.rank() > 0) s[0] = -1;
    specs.push_back(TensorSpec(s, x.dtype()));
  }
  if (!specs.empty()) return specs;
  std::vector<Shape> shapes;
  if (model.build_input_shapes()) shapes = *model.build_input_shapes();
  else if (model.build_input_shape()) shapes.push_back(*model.build_input_shape());
  else
    throw ValueError("export_onnx('" + name +
                     "'): the model is not built, so its input shapes are unknown; call it once or give "
                     "input_signature");
  // A Sequential model keeps its Input's dtype (integer token ids, say) on its input layer.
  const auto* seq = dynamic_cast<const Sequential*>(&model);
  const DType dtype = seq && seq->input_layer() ? seq->input_layer()->dtype() : DType::float32;
  for (auto s : shapes) {
    if (s.rank() > 0) s[0] = -1;
    specs.push_back(TensorSpec(s, dtype));
  }
  return specs;
}

OnnxBody model_body(Model& model) {
  Model* m = &model;
  return [m](const std::vector<Tensor>& xs) { return (*m)(xs, false); };
}

}  // namespace io::onnx

void export_onnx(Model& model, const std::string& path, const OnnxExportOptions& options) {
  OnnxExportOptions o = options;
  if (o.name.empty()) o.name = model.name();
  if (o.input_signature.empty()) o.input_signature = io::onnx::model_signature(model, o.name);
  for (std::size_t i = o.input_names.size(); i < o.input_signature.size(); ++i)
    o.input_names.push_back("input_" + std::to_string(i));
  export_onnx(io::onnx::model_body(model), path, o);
}

}  // namespace kiln
