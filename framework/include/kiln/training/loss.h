#pragma once
// Loss base (Keras semantics): call() gives per-sample losses, operator()
// applies sample weights and the reduction. Argument order: y_true, y_pred.
// To add a loss: derive from Loss, implement call(), class_name(),
// get_config(); built-ins register with KILN_REGISTER_LOSS (kiln/losses/losses.h).
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"

namespace kiln {

/// Options every loss takes (Keras's base-loss kwargs).
struct LossOptions {
  /// How per-sample losses are reduced: "sum_over_batch_size" (default, the mean),
  /// "sum", "mean_with_sample_weight" or "none".
  std::string reduction = "sum_over_batch_size";
  std::string name;  ///< Loss name; empty uses the class's default (e.g. "mean_squared_error").
};

/// Base of every loss (Keras's keras.losses.Loss): call() gives per-sample losses,
/// operator() applies sample weights and the reduction. Argument order: y_true, y_pred.
class Loss {
 public:
  /// `default_name` is used when options.name is empty.
  Loss(std::string default_name, LossOptions options);
  virtual ~Loss() = default;
  /// Weighted, reduced loss. sample_weight broadcasts against the per-sample losses.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) const;
  /// Per-sample losses (the last axis reduced where the loss does so).
  virtual Tensor call(const Tensor& y_true, const Tensor& y_pred) const = 0;
  /// Keras class name ("MeanSquaredError"), used in saved configs.
  virtual std::string class_name() const = 0;
  /// Loss config as JSON (Keras's get_config(): name, reduction, ...).
  virtual Config get_config() const;
  /// Optional per-sample mask (1 = keep) merged into the sample weights before
  /// the reduction, like Keras's `_keras_mask` on the losses. An undefined
  /// tensor (the default) means no mask. SparseCategoricalCrossentropy's
  /// ignore_class uses it, so the mean divides by the number of kept entries.
  virtual Tensor compute_mask(const Tensor& y_true, const Tensor& y_pred) const;
  /// The loss name.
  const std::string& name() const { return name_; }
  /// The reduction (see LossOptions::reduction).
  const std::string& reduction() const { return reduction_; }

 protected:
  /// Common config entries (name, reduction) that get_config() starts from.
  Config base_config() const;

 private:
  std::string name_;
  std::string reduction_;
};
using LossPtr = std::shared_ptr<Loss>;  ///< A shared loss.
/// A loss function: (y_true, y_pred) -> per-sample losses.
using LossFn = std::function<Tensor(const Tensor& y_true, const Tensor& y_pred)>;

/// Applies Keras's reduction to per-sample losses with optional sample weights.
///   "sum_over_batch_size" / "mean": sum(values * sw) / num_elements(values)
///   "sum": sum(values * sw);  "none": values * sw
///   "mean_with_sample_weight": sum(values * sw) / sum(sw)  (0 when sum(sw) == 0)
/// sample_weight is squeezed or expanded by one trailing axis to the rank of
/// `values` (Keras's squeeze_or_expand_to_same_rank), then broadcast.
/// Scalar and empty `values` are returned as they are (Keras does the same).
Tensor reduce_weighted_loss(const Tensor& values, const Tensor& sample_weight, const std::string& reduction);
/// As above with a mask (1 = keep, 0 = drop) merged into the sample weights;
/// for the mean reductions the kept entries are rescaled by total/kept so the
/// mean is over the kept entries only (keras.losses.loss.apply_mask).
Tensor reduce_weighted_loss(const Tensor& values, const Tensor& sample_weight, const std::string& reduction,
                            const Tensor& mask);
/// Keras's squeeze_or_expand_to_same_rank: when the ranks differ by exactly one
/// and the longer tensor's last axis is 1, squeeze it (or, if the shorter one
/// has rank 1 and expand_rank_1, expand the shorter one instead).
std::pair<Tensor, Tensor> squeeze_or_expand_to_same_rank(const Tensor& x1, const Tensor& x2, bool expand_rank_1 = true);
/// "none" for "" (Keras's None); throws ValueError for unknown reductions.
std::string standardize_reduction(const std::string& reduction);

namespace losses {
/// By Keras name ("mse", "sparse_categorical_crossentropy", "huber", ...) or class name.
LossPtr get(const std::string& name);
LossPtr from_config(const Config& c);  ///< From {"class_name", "config"} (or Keras's serialize format, or a name).
/// Registers a loss factory under `name` (for get() and from_config()).
void register_loss(const std::string& name, std::function<LossPtr(const Config&)> factory);
/// Wraps a function (y_true, y_pred) -> per-sample loss as a Loss.
LossPtr from_function(LossFn fn, const std::string& name = "custom_loss");
/// Keras's serialize format: {"module", "class_name", "config", "registered_name"}.
/// from_config accepts it (and a bare name string).
Config serialize(const Loss& loss);
/// Every registered name (class names, snake_case names and aliases).
std::vector<std::string> names();

namespace detail {
/// Called once by get()/from_config()/names() before the first lookup. The
/// losses module points it at kiln::losses::register_builtins() (kiln::init
/// and losses::register_builtins() itself set it), so the registry fills
/// itself even when the linker dropped the static registration objects.
extern void (*builtins_hook)();
}  // namespace detail
}  // namespace losses

/// One loss: a name, a Loss object or a function.
class LossArg {
 public:
  LossArg() = default;
  /// A loss by name, resolved by losses::get() ("mse").
  LossArg(const char* name) : name_(name) {}
  /// A loss by name, resolved by losses::get().
  LossArg(std::string name) : name_(std::move(name)) {}
  /// A loss object.
  LossArg(LossPtr p) : ptr_(std::move(p)) {}
  /// A loss object, copied.
  template <class L>
    requires std::is_base_of_v<Loss, L>
  LossArg(L l) : ptr_(std::make_shared<L>(std::move(l))) {}
  /// A function (y_true, y_pred) -> per-sample losses.
  LossArg(LossFn fn) : ptr_(losses::from_function(std::move(fn))) {}
  /// True when no loss was given.
  bool empty() const { return !ptr_ && name_.empty(); }
  /// The name given, empty for objects and functions.
  const std::string& name() const { return name_; }
  /// The loss object; throws when the name is unknown.
  LossPtr resolve() const { return ptr_ ? ptr_ : losses::get(name_); }

 private:
  std::string name_;
  LossPtr ptr_;
};

/// compile()'s loss: one for all outputs, one per output by name, or by position.
class LossConfig {
 public:
  LossConfig();  ///< No loss given.
  ~LossConfig();  ///< Out of line: every includer would otherwise instantiate the map code.
  LossConfig(const LossConfig&);  ///< Copies the arguments.
  LossConfig(LossConfig&&) noexcept;  ///< Moves the arguments.
  LossConfig& operator=(const LossConfig&);  ///< Copies the arguments.
  LossConfig& operator=(LossConfig&&) noexcept;  ///< Moves the arguments.
  /// One loss by name for all outputs.
  LossConfig(const char* name);
  /// One loss by name for all outputs.
  LossConfig(std::string name);
  /// One loss object for all outputs.
  LossConfig(LossPtr p);
  /// One loss object for all outputs, copied.
  template <class L>
    requires std::is_base_of_v<Loss, L>
  LossConfig(L l) : single_(std::move(l)) {}
  /// One loss function for all outputs.
  LossConfig(LossFn fn);
  /// One loss per output, by output name: {{"out_a", "mse"}, {"out_b", "mae"}}.
  LossConfig(std::initializer_list<std::pair<const std::string, LossArg>> by_name);
  /// One loss per output, by output name.
  LossConfig(std::map<std::string, LossArg> by_name);
  /// One loss per output, by position.
  LossConfig(std::vector<LossArg> by_position);

  /// The loss for all outputs (empty when given per output).
  const LossArg& single() const { return single_; }
  /// The losses by output name.
  const std::map<std::string, LossArg>& by_name() const { return by_name_; }
  /// The losses by output position.
  const std::vector<LossArg>& by_position() const { return by_position_; }
  /// True when no loss was given.
  bool empty() const { return single_.empty() && by_name_.empty() && by_position_.empty(); }

 private:
  LossArg single_;
  std::map<std::string, LossArg> by_name_;
  std::vector<LossArg> by_position_;
};

}  // namespace kiln
