#pragma once
// kiln::function: the tf.function analogue. The first call for each input
// signature runs the callable once while recording its device work (a trace);
// later calls with the same signature replay that record without running the
// C++ body: no op checks, dispatch, allocation or tape bookkeeping.
//
//   auto mse = kiln::function([](const Tensor& y_true, const Tensor& y_pred) {
//     std::cout << "Calculating MSE!\n";      // runs only while tracing
//     return kiln::mean(kiln::square(y_true - y_pred));
//   }, {.name = "get_MSE"});
//   mse(a, b); mse(c, d);                     // prints once: same shapes and dtypes
//
// The signature of a call is every tensor argument's shape, dtype and device,
// and the value of every other argument (int, double, bool, string), so a new
// C++ number means a new trace, as a new Python value does in TensorFlow.
// Variables used by the body are captured by reference: replays read their
// current values, and assignments inside the body happen on every call.
// Reading a tensor's value inside the body (item(), to_vector()) is an error
// while tracing, since the graph would keep that one value.
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/autodiff/variable.h"
#include "kiln/core/tensor.h"
#include "kiln/graph/concrete_function.h"

namespace kiln {

namespace oplog {
struct Log;
}

/// One tensor argument of an input_signature; -1 in the shape is TensorFlow's None.
struct TensorSpec {
  // Constructors rather than an aggregate, so TensorSpec({2, 3}, int32) also
  // compiles where parenthesized aggregate initialization does not (clang 14).
  TensorSpec() = default;
  /// A spec of `shape` (-1 for unknown sizes) and `dtype`, optionally named.
  TensorSpec(Shape shape, DType dtype = DType::float32, std::string name = {})
      : shape(std::move(shape)), dtype(dtype), name(std::move(name)) {}

  Shape shape;  ///< The shape; -1 stands for an unknown size.
  DType dtype = DType::float32;  ///< The element type.
  std::string name;  ///< Optional name, used in signatures and messages.
  /// "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)", as TensorFlow prints it.
  std::string to_string() const;
};

/// Options of kiln::function() (tf.function's keywords).
struct FunctionOptions {
  /// Used in warnings and errors.
  std::string name = "function";
  /// When given, each call's tensor arguments must match these specs. With
  /// unknown sizes (-1) the body runs once, and every shape the specs admit is
  /// served from that trace (re-running the op calls it logged, not the body).
  std::vector<TensorSpec> input_signature;
  /// Replays run the traced graph after its passes (variable reads without
  /// copies, element-wise chains fused into single passes); false replays it as traced.
  bool optimize = true;
  /// Called just before each trace that runs the body (a first call for a
  /// signature; not get_concrete_function's), e.g. to save state a failed trace would change.
  std::function<void()> before_trace;
  /// Called with true just before each replay runs the traced graph and with
  /// false just after it (binding the arguments and copying the outputs out
  /// happen outside), to time or profile replays.
  std::function<void(bool starting)> replay_observer;
};

namespace config {
/// Makes every kiln::function run its body eagerly (for debugging).
void run_functions_eagerly(bool run_eagerly);
bool functions_run_eagerly();  ///< Whether run_functions_eagerly(true) is in effect.
}  // namespace config

/// tf.executing_eagerly(): false while this thread traces a kiln::function's
/// body (ops build its graph, and their values are not known), true otherwise.
/// A layer checks values on the host only when it is true.
bool executing_eagerly();

namespace graph {

/// The untyped part of a kiln::function: its traces, keyed by signature.
class FunctionCore {
 public:
  /// Traces with these options.
  explicit FunctionCore(FunctionOptions options);
  ~FunctionCore();
  /// One trace: its record, plan and placeholders (defined by the graph layer).
  struct Trace;
  /// A traced body: the tensor arguments in, the flattened outputs out.
  using Body = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
  /// The arguments described for messages; called only when tracing.
  using Describe = std::function<std::vector<std::string>()>;
  /// Runs `body` for these tensor arguments: traced on the first call with
  /// `key`, replayed after. `described` lists the arguments for warnings.
  /// `body_key` is pointed at the key of the call whose body made the outputs
  /// (a shape-polymorphic trace serves other keys from one body run).
  std::vector<Tensor> call(const std::vector<Tensor>& args, const std::string& key, const Describe& described,
                           const Body& body, const std::string** body_key = nullptr);
  /// The graph traced for these arguments, traced now if it is new: a trace
  /// that records without running the body's device work, so nothing changes.
  ConcreteFunction concrete_function(const std::vector<Tensor>& args, const std::string& key,
                                     const Describe& described, const Body& body);
  /// How many times a body has been traced.
  int tracing_count() const;
  /// The options given.
  const FunctionOptions& options() const;
  /// One line per trace: its argument signature and its outputs' specs.
  std::string pretty_printed_concrete_signatures() const;
  /// The tensor specs of each trace whose arguments are all tensors, in tracing order.
  std::vector<std::vector<TensorSpec>> traced_signatures() const;

 private:
  struct State;
  class Arguments;
  ConcreteFunction describe(const Trace& t) const;
  /// Records the body for these arguments without running its device work, and optimizes the record.
  Trace& trace(const std::vector<Tensor>& args, const std::string& key, const Describe& described, const Body& body);
  /// Makes `t` (traced for a signature with unknown dimensions) the trace other shapes are served from.
  void start_polymorphic(Trace& t, oplog::Log&& log, const std::string& shape_free_key);
  /// The trace for a new shape made from `base` without running the body, or
  /// null when its op log cannot serve other shapes (the body must trace again).
  Trace* specialize(Trace& base, const std::vector<Tensor>& args, const std::string& key);
  /// Moves a specialization's tensors into the handles its polymorphic trace shares.
  void activate(Trace& t);
  std::unique_ptr<State> s_;
};

/// From now on this thread collects the graph of every kiln::function call
/// (once per trace), for summary::trace_export.
void start_collecting();
/// Stops collecting and hands back what was collected.
std::vector<ConcreteFunction> stop_collecting();

/// How each kind of argument enters the signature, and what the body receives.
template <class A>
struct ArgTraits {
  static_assert(std::is_arithmetic_v<A> || std::is_convertible_v<A, std::string>,
                "kiln::function arguments are tensors, vectors of tensors, variables, numbers, bools and strings");
  /// What the body receives for an argument of type `A`.
  using Passed = const A&;
  /// @name Signature hooks
  //@{
  /// Hooks for an argument of type `A`: text() writes the value; key() and describe()
  /// add it to the signature key and to messages; collect() gathers its tensors;
  /// substitute() hands the body the value (or its placeholder).
  static std::string text(const A& a) {
    std::ostringstream s;
    if constexpr (std::is_same_v<A, bool>) s << (a ? "True" : "False");
    else if constexpr (std::is_convertible_v<A, std::string>) s << '"' << std::string(a) << '"';
    else s << +a;
    return s.str();
  }
  static void key(const A& a, std::string& key) { key += "L" + text(a) + ";"; }
  static void describe(const A& a, std::vector<std::string>& described) { described.push_back("Literal[" + text(a) + "]"); }
  static void collect(const A&, std::vector<Tensor>&) {}
  static const A& substitute(const A& a, const std::vector<Tensor>&, std::size_t&) { return a; }
  //@}
};

/// A tensor argument: its shape, dtype and device enter the signature.
template <>
struct ArgTraits<Tensor> {
  /// What the body receives for a tensor argument.
  using Passed = const Tensor&;
  /// @name Signature hooks
  //@{
  /// Hooks as in the primary ArgTraits, for a tensor argument.
  static void key(const Tensor& t, std::string& key);
  static void describe(const Tensor& t, std::vector<std::string>& described);
  static void collect(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
  static const Tensor& substitute(const Tensor&, const std::vector<Tensor>& placeholders, std::size_t& i) {
    return placeholders[i++];
  }
  //@}
};

/// A TensorSpec stands for a tensor argument of that shape and dtype (get_concrete_function).
template <>
struct ArgTraits<TensorSpec> {
  /// What the body receives for a TensorSpec argument.
  using Passed = const Tensor&;
  /// @name Signature hooks
  //@{
  /// Hooks as in the primary ArgTraits, for a TensorSpec argument.
  static void key(const TensorSpec& s, std::string& key);
  static void describe(const TensorSpec& s, std::vector<std::string>& described);
  static void collect(const TensorSpec& s, std::vector<Tensor>& out);
  static const Tensor& substitute(const TensorSpec&, const std::vector<Tensor>& placeholders, std::size_t& i) {
    return placeholders[i++];
  }
  //@}
};

/// A vector of tensors: each tensor enters the signature.
template <>
struct ArgTraits<std::vector<Tensor>> {
  /// What the body receives for a vector of tensors.
  using Passed = std::vector<Tensor>;
  /// @name Signature hooks
  //@{
  /// Hooks as in the primary ArgTraits, for a vector of tensors.
  static void key(const std::vector<Tensor>& v, std::string& key);
  static void describe(const std::vector<Tensor>& v, std::vector<std::string>& described);
  static void collect(const std::vector<Tensor>& v, std::vector<Tensor>& out) { out.insert(out.end(), v.begin(), v.end()); }
  static std::vector<Tensor> substitute(const std::vector<Tensor>& v, const std::vector<Tensor>& placeholders,
                                        std::size_t& i) {
    std::vector<Tensor> out(placeholders.begin() + static_cast<std::ptrdiff_t>(i),
                            placeholders.begin() + static_cast<std::ptrdiff_t>(i + v.size()));
    i += v.size();
    return out;
  }
  //@}
};

/// A variable, captured by reference: its identity enters the signature.
template <>
struct ArgTraits<Variable> {
  /// What the body receives for a variable.
  using Passed = const Variable&;
  /// @name Signature hooks
  //@{
  /// Hooks as in the primary ArgTraits, for a variable.
  static void key(const Variable& v, std::string& key);
  static void describe(const Variable& v, std::vector<std::string>& described);
  static void collect(const Variable&, std::vector<Tensor>&) {}
  static const Variable& substitute(const Variable& v, const std::vector<Tensor>&, std::size_t&) { return v; }
  //@}
};

/// Outputs: a tensor, a vector of tensors, a name -> tensor map, or nothing.
template <class R>
struct ResultTraits;
/// A single-tensor result.
template <>
struct ResultTraits<Tensor> {
  /// @name Flattening
  //@{
  /// flatten() lists a result's tensors; unflatten() rebuilds the result from them.
  static std::vector<Tensor> flatten(const Tensor& t) { return {t}; }
  static Tensor unflatten(std::vector<Tensor> v, const Tensor&) { return v.at(0); }
  //@}
};
/// A result of several tensors.
template <>
struct ResultTraits<std::vector<Tensor>> {
  /// @name Flattening
  //@{
  /// flatten() lists a result's tensors; unflatten() rebuilds the result from them.
  static std::vector<Tensor> flatten(const std::vector<Tensor>& v) { return v; }
  static std::vector<Tensor> unflatten(std::vector<Tensor> v, const std::vector<Tensor>&) { return v; }
  //@}
};
/// A result of named tensors (keys in sorted order).
template <>
struct ResultTraits<std::map<std::string, Tensor>> {
  /// @name Flattening
  //@{
  /// flatten() lists a result's tensors; unflatten() rebuilds the result from them.
  static std::vector<Tensor> flatten(const std::map<std::string, Tensor>& m);
  static std::map<std::string, Tensor> unflatten(std::vector<Tensor> v, const std::map<std::string, Tensor>& like);
  //@}
};

}  // namespace graph

/// The callable kiln::function returns. Copies share the traces.
template <class F>
class Function {
 public:
  /// Wraps the callable `f`.
  Function(F f, FunctionOptions options)
      : f_(std::make_shared<F>(std::move(f))), core_(std::make_shared<graph::FunctionCore>(std::move(options))) {}

  /// Calls the function: traces the body for a new signature, replays the trace otherwise.
  // Constrained, so that asking whether a Function converts to another
  // callable type (a std::function) answers false instead of failing.
  template <class... Args>
    requires std::is_invocable_v<F&, typename graph::ArgTraits<std::decay_t<Args>>::Passed...>
  auto operator()(const Args&... args) const {
    using R = Result<Args...>;
    Call<Args...> c(args...);
    if constexpr (std::is_void_v<R>) {
      core_->call(c.tensors, c.key, c.describe(args...), body<Args...>(c, args...));
    } else {
      const std::string* body_key = &c.key;
      auto outs = core_->call(c.tensors, c.key, c.describe(args...), body<Args...>(c, args...), &body_key);
      return graph::ResultTraits<R>::unflatten(std::move(outs),
                                               *std::static_pointer_cast<R>(structures_->at(*body_key)));
    }
  }

  /// The graph for these arguments (tensors, or TensorSpecs standing for them):
  /// traced now, without running anything, when the signature is new.
  template <class... Args>
  ConcreteFunction get_concrete_function(const Args&... args) const {
    Call<Args...> c(args...);
    return core_->concrete_function(c.tensors, c.key, c.describe(args...), body<Args...>(c, args...));
  }

  /// How many times the body has been traced (one per new signature).
  int tracing_count() const { return core_->tracing_count(); }
  /// One line per trace: its argument signature and its outputs' specs.
  std::string pretty_printed_concrete_signatures() const { return core_->pretty_printed_concrete_signatures(); }
  /// The name from the options.
  const std::string& name() const { return core_->options().name; }
  /// The input_signature from the options.
  const std::vector<TensorSpec>& input_signature() const { return core_->options().input_signature; }
  /// The tensor specs of each trace whose arguments are all tensors, in tracing order.
  std::vector<std::vector<TensorSpec>> traced_signatures() const { return core_->traced_signatures(); }

 private:
  template <class... Args>
  using Result =
      std::decay_t<std::invoke_result_t<F&, typename graph::ArgTraits<std::decay_t<Args>>::Passed...>>;

  /// A call's signature key and its tensors; describe() makes the arguments'
  /// descriptions for messages, which only a trace needs.
  template <class... Args>
  struct Call {
    std::string key;
    std::vector<Tensor> tensors;
    explicit Call(const Args&... args) {
      (graph::ArgTraits<std::decay_t<Args>>::key(args, key), ...);
      (graph::ArgTraits<std::decay_t<Args>>::collect(args, tensors), ...);
    }
    static graph::FunctionCore::Describe describe(const Args&... args) {
      return [&args...] {
        std::vector<std::string> described;
        (graph::ArgTraits<std::decay_t<Args>>::describe(args, described), ...);
        return described;
      };
    }
  };

  /// The body a trace runs: the callable on the placeholders, its result flattened.
  template <class... Args>
  graph::FunctionCore::Body body(const Call<Args...>& c, const Args&... args) const {
    using R = Result<Args...>;
    return [&, f = f_, structures = structures_](const std::vector<Tensor>& placeholders) {
      std::size_t i = 0;
      // Braced initialization runs the substitutions left to right.
      std::tuple<typename graph::ArgTraits<std::decay_t<Args>>::Passed...> subst{
          graph::ArgTraits<std::decay_t<Args>>::substitute(args, placeholders, i)...};
      if constexpr (std::is_void_v<R>) {
        std::apply(*f, subst);
        return std::vector<Tensor>{};
      } else {
        R r = std::apply(*f, subst);
        // The output structure of each trace (a map's keys), for its replays.
        (*structures)[c.key] = std::make_shared<R>(r);
        return graph::ResultTraits<R>::flatten(r);
      }
    };
  }

  std::shared_ptr<F> f_;
  std::shared_ptr<graph::FunctionCore> core_;
  std::shared_ptr<std::map<std::string, std::shared_ptr<void>>> structures_ =
      std::make_shared<std::map<std::string, std::shared_ptr<void>>>();
};

/// Wraps a callable as a kiln::function (see the top of this header).
template <class F>
Function<F> function(F f, FunctionOptions options = {}) {
  return Function<F>(std::move(f), std::move(options));
}

}  // namespace kiln
