#pragma once
// SavedModel: a module's or model's functions and variables in a directory,
// loadable without the C++ class that defined them, as tf.saved_model's
// save / load are. The graphs are ONNX files, so other runtimes run them too.
//
//   struct Seq : kiln::Module { ...; kiln::Function<...> call = kiln::function(...); };
//   Seq m;  m.call(x);                                  // traced for x's signature
//   kiln::saved_model::save(m, "the_saved_model", {.functions = {kiln::saved_model::function("__call__", m.call)}});
//   auto loaded = kiln::saved_model::load("the_saved_model");
//   loaded->call("__call__", {x});                      // the same values, without Seq
//
// A model is saved with a "serve" function (its inference call, batch
// dimension dynamic) besides any given. Layout of the directory:
//   saved_model.json          functions, their signatures and files; the variables
//   variables.onnx            every variable's value (an ONNX graph returning them)
//   functions/<name>_<k>.onnx one graph per traced signature, runnable on its own
// Loaded variables are trainable where the originals were, shared by every
// function, and GradientTape differentiates through loaded functions, so they
// can be fine-tuned. Saving writes a new directory and then swaps it in, so a
// failed save leaves the previous one intact.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/io/onnx.h"
#include "kiln/nn/module.h"

namespace kiln {
class Model;
namespace io::onnx {
class GraphRunner;
}

namespace saved_model {

/// One function to save: its name and body, traced once per signature.
struct SavedFunction {
  std::string name;  ///< The name calls use ("__call__", "serve").
  OnnxBody body;  ///< The function's body, flattened to tensors in and out.
  std::vector<std::vector<TensorSpec>> signatures;  ///< The input signatures to save, one graph each.
};

/// A kiln::function saved under `name` for each signature it was traced for
/// (tensor arguments only), and for its input_signature when it has one.
template <class F>
SavedFunction function(std::string name, const Function<F>& f) {
  SavedFunction s{std::move(name), detail::flat_body(f), f.traced_signatures()};
  if (!f.input_signature().empty()) s.signatures.insert(s.signatures.begin(), f.input_signature());
  return s;
}

/// Options of save() (tf.saved_model.save's arguments).
struct SaveOptions {
  std::vector<SavedFunction> functions;  ///< Functions to save (make them with function()).
  int opset = 17;  ///< The ONNX opset of the saved graphs.
};

/// Saves the module's variables and the given functions. The directory is
/// replaced atomically: after a failure or a kill at any point, `dir` holds the
/// previous save or this one, whole. Throws IOError if `dir` is a file, or a
/// non-empty directory without saved_model.json (one save() did not write).
void save(const Module& module, const std::string& dir, const SaveOptions& options);
/// Saves the model's weights, a "serve" function (its inference call) and the given functions.
void save(Model& model, const std::string& dir, const SaveOptions& options = {});

/// A loaded function: one graph per saved signature; a call runs the one its inputs fit.
class LoadedFunction {
 public:
  /// A function named `name` running one of `graphs` per call.
  LoadedFunction(std::string name, std::vector<std::shared_ptr<io::onnx::GraphRunner>> graphs);
  /// Runs the graph whose signature `args` fit; throws ValueError when none does.
  std::vector<Tensor> operator()(const std::vector<Tensor>& args) const;
  /// One saved signature per line: "(float32[batch, 3]) -> (float32[batch, 2])".
  std::string pretty_printed_signatures() const;
  /// The function's name.
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<std::shared_ptr<io::onnx::GraphRunner>> graphs_;
};

/// What load() returns: functions callable by name, and the variables they share.
class Loaded {
 public:
  /// The function saved as `name`; throws ValueError when there is none.
  const LoadedFunction& function(const std::string& name) const;
  /// The names of the saved functions.
  std::vector<std::string> function_names() const;
  /// Calls function `name` on `args`.
  std::vector<Tensor> call(const std::string& name, const std::vector<Tensor>& args) const { return function(name)(args); }
  /// A single-input, single-output call of "__call__", or of "serve" when there is none.
  Tensor operator()(const Tensor& x) const;
  /// Every loaded variable, shared by the functions.
  const std::vector<Variable>& variables() const { return variables_; }
  /// The loaded variables that are trainable.
  std::vector<Variable> trainable_variables() const;

 private:
  friend std::shared_ptr<Loaded> load(const std::string& dir);
  std::map<std::string, LoadedFunction> functions_;
  std::vector<Variable> variables_;
};

/// Loads a directory saved by save(); errors name the file at fault (and the
/// graph node). Checks each file's SHA-256 (recorded since format version 2),
/// that variables are finite, that no file is a symbolic link, and every
/// graph node against its op's signature; throws IOError otherwise.
std::shared_ptr<Loaded> load(const std::string& dir);

}  // namespace saved_model
}  // namespace kiln
