#pragma once
// ONNX export: a model's inference call, or any kiln::function, as an ONNX
// file that ONNX Runtime, TensorRT or OpenVINO can run.
//
//   kiln::export_onnx(model, "mnist.onnx");              // input shapes from the model, batch dynamic
//   auto f = kiln::function([](const Tensor& x) { return kiln::tanh(x) * 2.0; });
//   kiln::export_onnx(f, "f.onnx", {.input_signature = {kiln::TensorSpec({-1, 3})}});
//
// The callable is traced (not run) into a graph of the device calls it makes;
// each becomes standard ONNX ops (opset 13 and later), weights become
// initializers named by their variable paths, and -1 in the signature becomes
// a symbolic dimension ("batch" for axis 0, "dim<k>" for axis k, shared by
// every input with -1 on that axis). An op with no ONNX form (a training-mode
// op, a gradient, host logic) is an error naming the op and its layer. The
// file is written atomically: a failed export leaves any earlier file intact.
#include <cstddef>
#include <functional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/graph/function.h"

namespace kiln {

class Model;

/// Options of the ONNX export functions.
struct OnnxExportOptions {
  /// The default domain's opset: 13 to 21.
  int opset = 17;
  /// Shapes and dtypes of the inputs; -1 marks a dynamic dimension. For a model,
  /// defaults to its input shapes with a dynamic batch; a kiln::function's own
  /// input_signature is used when it has one.
  std::vector<TensorSpec> input_signature;
  /// Graph input names (a TensorSpec's name wins); default "input_<i>" for a model, "args_<i>" otherwise.
  std::vector<std::string> input_names;
  /// Graph output names; default "output_<i>".
  std::vector<std::string> output_names;
  /// The graph's name; default the model's or function's.
  std::string name;
};

/// The traced body: tensors in, tensors out.
using OnnxBody = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// Writes the model's inference call (training = false) to `path`.
void export_onnx(Model& model, const std::string& path, const OnnxExportOptions& options = {});
/// Writes `body` traced for options.input_signature (required) to `path`.
void export_onnx(const OnnxBody& body, const std::string& path, const OnnxExportOptions& options);
/// The ONNX bytes export_onnx would write.
std::string onnx_model_bytes(const OnnxBody& body, const OnnxExportOptions& options);

namespace detail {
template <class F, std::size_t... I>
constexpr bool takes_tensors(std::index_sequence<I...>) {
  return std::is_invocable_v<F&, decltype((void)I, std::declval<const Tensor&>())...>;
}
template <class F, std::size_t... I>
std::vector<Tensor> call_flat(const Function<F>& f, const std::vector<Tensor>& xs, std::index_sequence<I...>) {
  return graph::ResultTraits<std::decay_t<decltype(f(xs[I]...))>>::flatten(f(xs[I]...));
}
/// The function as an OnnxBody: called with as many tensors as it is given (up to 8).
template <class F>
OnnxBody flat_body(const Function<F>& f) {
  return [f](const std::vector<Tensor>& xs) {
    std::vector<Tensor> out;
    bool called = false;
    auto attempt = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      if constexpr (takes_tensors<F>(std::make_index_sequence<K>{})) {
        if (!called && xs.size() == K) {
          out = call_flat(f, xs, std::make_index_sequence<K>{});
          called = true;
        }
      }
    };
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (attempt(std::integral_constant<std::size_t, K + 1>{}), ...);
    }(std::make_index_sequence<8>{});
    if (!called)
      throw ValueError("export_onnx('" + f.name() + "'): the function does not take " + std::to_string(xs.size()) +
                       " tensors, as many as input_signature gives");
    return out;
  };
}
}  // namespace detail

/// Writes a kiln::function's graph for options.input_signature (default: the function's own).
template <class F>
void export_onnx(const Function<F>& f, const std::string& path, OnnxExportOptions options = {}) {
  if (options.input_signature.empty()) options.input_signature = f.input_signature();
  if (options.name.empty()) options.name = f.name();
  export_onnx(detail::flat_body(f), path, options);
}

}  // namespace kiln
