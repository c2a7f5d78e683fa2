#pragma once
// GradientTape: records differentiable ops while it is in scope, in the
// TensorFlow 2 sense. Trainable variables read inside it are watched
// automatically; tensors are watched with watch().
//
//   kiln::Variable x(kiln::Tensor(3.0f));
//   kiln::GradientTape tape;
//   kiln::Tensor y = x * x;
//   auto dy_dx = tape.gradient(y, x);   // 6.0
//
// Gradient rules are written with differentiable ops, so nested tapes give
// higher-order gradients. Recording costs nothing when no tape is active.
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace kiln {

/// What gradient() gives for a source the target does not depend on (tf.UnconnectedGradients).
/// None gives std::nullopt (TensorFlow's None); Zero gives zeros of the source's shape.
enum class UnconnectedGradients { None, Zero };

/// A gradient source: a tensor or a variable.
class Source {
 public:
  /// A tensor source (watch() it, or it must be a tape-recorded op's input).
  Source(const Tensor& t) : tensor_(t) {}
  /// A variable source.
  Source(const Variable& v) : tensor_(v.read_value_untracked()), variable_(v) {}
  /// The source's value.
  const Tensor& tensor() const { return tensor_; }
  /// The variable, for variable sources.
  const std::optional<Variable>& variable() const { return variable_; }

 private:
  Tensor tensor_;
  std::optional<Variable> variable_;
};

/// Options of GradientTape (tf.GradientTape's arguments).
struct GradientTapeOptions {
  bool persistent = false;  ///< Whether gradient() may be called more than once.
  bool watch_accessed_variables = true;  ///< Whether trainable variables read in scope are watched automatically.
};

struct TapeState;

/// Called during a backward pass as soon as source `index`'s gradient is
/// final (no op left to run adds to it), in the order the pass finishes them:
/// roughly reverse layer order. Data-parallel training starts each bucket's
/// all-reduce from here while the pass goes on. Unconnected sources get no call.
using GradientReadyFn = std::function<void(std::size_t index, const Tensor& gradient)>;

/// Records differentiable ops while in scope (tf.GradientTape). Trainable variables
/// read inside it are watched automatically; tensors are watched with watch().
/// Gradient rules use differentiable ops, so nested tapes give higher-order gradients.
class GradientTape {
 public:
  /// Starts recording on this thread.
  explicit GradientTape(GradientTapeOptions options = {});
  ~GradientTape();
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  /// Records operations on `t` so gradients with respect to it can be taken.
  void watch(const Tensor& t);
  /// Watches a variable (needed for non-trainable ones or with watch_accessed_variables off).
  void watch(const Variable& v);
  /// Watches each variable.
  void watch(const std::vector<Variable>& vs);
  /// Variables watched so far, in the order they were first watched.
  std::vector<Variable> watched_variables() const;

  /// d target / d source. A non-scalar target differentiates its sum. An
  /// unconnected source gives nullopt, or zeros with UnconnectedGradients::Zero.
  std::optional<Tensor> gradient(const Tensor& target, const Source& source,
                                 UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// d target / d each source.
  std::vector<std::optional<Tensor>> gradient(const Tensor& target, const std::vector<Source>& sources,
                                              UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// d target / d each variable.
  std::vector<std::optional<Tensor>> gradient(const Tensor& target, const std::vector<Variable>& sources,
                                              UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// d target / d each named source, by name.
  std::map<std::string, std::optional<Tensor>> gradient(
      const Tensor& target, const std::map<std::string, Source>& sources,
      UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// The same, calling `on_ready` for each source as its gradient becomes final.
  std::vector<std::optional<Tensor>> gradient(const Tensor& target, const std::vector<Variable>& sources,
                                              const GradientReadyFn& on_ready,
                                              UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// Gradient with an explicit upstream gradient for the target.
  std::vector<std::optional<Tensor>> gradient(const Tensor& target, const std::vector<Source>& sources,
                                              const Tensor& output_gradient,
                                              UnconnectedGradients unconnected = UnconnectedGradients::None);

  /// Structured targets, as TF's tape.gradient([y0, y1], x) and
  /// tape.gradient({'y0': y0, 'y1': y1}, x): the gradient of the sum of all
  /// targets (each non-scalar target counting as its sum).
  ///   kiln::Variable x(kiln::Tensor(2.0f));
  ///   ... y0 = x * x; y1 = 1.0 / x; ...
  ///   tape.gradient({{"y0", y0}, {"y1", y1}}, x)   // 2x - 1/x² = 3.75
  std::optional<Tensor> gradient(const std::vector<Tensor>& targets, const Source& source,
                                 UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// d (sum of targets) / d each source.
  std::vector<std::optional<Tensor>> gradient(const std::vector<Tensor>& targets, const std::vector<Source>& sources,
                                              UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// Braced lists of targets, tape.gradient({y0, y1}, x) (a std::map would also take two tensors as iterators).
  std::optional<Tensor> gradient(std::initializer_list<Tensor> targets, const Source& source,
                                 UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// d (sum of targets) / d each source.
  std::vector<std::optional<Tensor>> gradient(std::initializer_list<Tensor> targets,
                                              const std::vector<Source>& sources,
                                              UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// d (sum of the named targets) / d source.
  std::optional<Tensor> gradient(const std::map<std::string, Tensor>& targets, const Source& source,
                                 UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// d (sum of the named targets) / d each source.
  std::vector<std::optional<Tensor>> gradient(const std::map<std::string, Tensor>& targets,
                                              const std::vector<Source>& sources,
                                              UnconnectedGradients unconnected = UnconnectedGradients::None);

  /// The full Jacobian d target[i...] / d source[j...], of shape
  /// target.shape + source.shape (tf.GradientTape.jacobian); one backward pass
  /// per target element. Like gradient(), a non-persistent tape answers once.
  /// An unconnected source gives nullopt, or zeros of that shape with
  /// UnconnectedGradients::Zero.
  ///   x = [1, 2] watched; y = x * x  ->  tape.jacobian(y, x) == [[2, 0], [0, 4]]
  std::optional<Tensor> jacobian(const Tensor& target, const Source& source,
                                 UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// The Jacobian of `target` with respect to each source.
  std::vector<std::optional<Tensor>> jacobian(const Tensor& target, const std::vector<Source>& sources,
                                              UnconnectedGradients unconnected = UnconnectedGradients::None);
  /// Per-example Jacobians stacked over axis 0 (tf.GradientTape.batch_jacobian),
  /// assuming target[i] depends only on source[i]: shape
  /// [batch] + target.shape[1:] + source.shape[1:]. Both need rank >= 2 and the
  /// same first dimension (ValueError otherwise, with TF's text). As in TF, an
  /// unconnected source gives zeros whatever `unconnected` says.
  Tensor batch_jacobian(const Tensor& target, const Source& source,
                        UnconnectedGradients unconnected = UnconnectedGradients::None);

  /// Pauses recording until the returned guard is destroyed.
  class StopRecording {
   public:
    /// Pauses the tape `s` (use GradientTape::stop_recording()).
    explicit StopRecording(TapeState* s);
    ~StopRecording();
    StopRecording(const StopRecording&) = delete;

   private:
    TapeState* state_;
  };
  /// Pauses recording until the returned guard is destroyed (tape.stop_recording()).
  [[nodiscard]] StopRecording stop_recording();
  /// Forgets everything recorded so far.
  void reset();
  /// Whether the tape answers more than one gradient() call.
  bool persistent() const;

 private:
  std::unique_ptr<TapeState> state_;
};

/// The backward function of a custom gradient: upstream gradient -> one gradient per input.
using CustomBackward = std::function<std::vector<Tensor>(const Tensor& upstream)>;
/// What a custom_gradient body returns: the value and its backward function.
struct CustomGradientResult {
  Tensor value;  ///< The forward result.
  CustomBackward grad;  ///< Upstream gradient -> one gradient per input.
};

/// tf.custom_gradient: `f` computes the value and returns the backward function.
/// The ops inside `f` are not recorded; only the returned rule is.
///   auto log1pexp = kiln::custom_gradient([](const std::vector<Tensor>& in) {
///     Tensor e = kiln::exp(in[0]);
///     return CustomGradientResult{kiln::log(1.0 + e),
///         [e](const Tensor& dy) { return std::vector<Tensor>{dy * (1.0 - 1.0 / (1.0 + e))}; }};
///   });
std::function<Tensor(const std::vector<Tensor>&)> custom_gradient(
    std::function<CustomGradientResult(const std::vector<Tensor>&)> f);
/// Single-input convenience form.
std::function<Tensor(const Tensor&)> custom_gradient(std::function<CustomGradientResult(const Tensor&)> f);

/// Whether any tape is recording on this thread.
bool is_recording();

}  // namespace kiln
