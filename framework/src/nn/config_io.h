#pragma once
// Reading and writing config objects: ConfigReader (errors name the class and
// the key), the value codecs for the types options structs hold, and
// write_fields/read_fields, which serialise a struct through its field table
// (kiln/core/fields.h). Private to the library: .cpp files include it, since
// it pulls in nlohmann/json.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/dtype.h"
#include "kiln/nn/dtype_policy.h"
#include "kiln/core/fields.h"
#include "kiln/core/shape.h"
#include "kiln/nn/constraints.h"
#include "kiln/nn/initializers.h"
#include "kiln/nn/regularizers.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::config_io {

/// A shape as Keras writes it: None as null.
Config shape_to_json(const Shape& s);
Shape shape_from_json(const Config& j, const std::string& where);

/// Reads a config object with errors naming the class and the key.
class ConfigReader {
 public:
  ConfigReader(std::string cls, const Config& c);
  bool has(const char* key) const;
  /// The key is present and null (Keras's None).
  bool is_null(const char* key) const;
  /// Throws "missing required key" unless the key is present and not null.
  void require(const char* key) const;
  int64_t integer(const char* key, int64_t def) const;
  int64_t required_integer(const char* key) const;
  std::optional<int64_t> optional_integer(const char* key) const;
  double number(const char* key, double def) const;
  std::optional<double> optional_number(const char* key) const;
  bool boolean(const char* key, bool def) const;
  std::string string(const char* key, const std::string& def) const;
  /// One int from an int or a 1-element list (Conv1D's kernel_size: [3]).
  int64_t int_or_first(const char* key, int64_t def) const;
  /// An integer, a whole float (2.0) or a one-element list of either.
  int64_t integer_or_first(const char* key, int64_t def) const;
  std::vector<int64_t> int_list(const char* key) const;
  Axes axes(const char* key, Axes def) const;
  /// A name, a {"class_name", "config"} object, or null (keeps the default).
  InitializerArg initializer(const char* key, const InitializerArg& def) const;
  regularizers::RegularizerPtr regularizer(const char* key) const;
  constraints::ConstraintPtr constraint(const char* key) const;
  /// An activation name (or Keras's serialized function object); null is "linear".
  std::string activation(const char* key, const std::string& def) const;
  /// Fills name, trainable, dtype and input_shape (from batch_input_shape,
  /// batch_shape or input_shape) of any layer options struct.
  template <class O>
  void base(O& o) const {
    o.name = string("name", "");
    o.trainable = boolean("trainable", true);
    o.dtype = dtype_policy();
    o.input_shape = input_shape();
  }
  /// "dtype" as a policy: a dtype or policy name, or a DTypePolicy object (Keras 3)
  /// or Policy object (tf.keras 2); absent or null is the global policy, as in Keras.
  DTypePolicy dtype_policy() const;
  /// "dtype" as one dtype (InputLayer's); absent is float32.
  DType dtype() const;
  std::optional<Shape> input_shape() const;
  const Config& raw() const { return c_; }
  const std::string& class_name() const { return cls_; }
  [[noreturn]] void fail(const char* key, const std::string& what) const;

 private:
  DTypePolicy policy_named(const std::string& name) const;
  std::string cls_;
  const Config& c_;
};

// ---- one value to JSON ----
inline Config config_value(const std::string& v) { return v; }
inline Config config_value(bool v) { return v; }
inline Config config_value(int v) { return v; }
inline Config config_value(int64_t v) { return v; }
inline Config config_value(uint64_t v) { return v; }
inline Config config_value(double v) { return v; }
Config config_value(const Axes& v);
Config config_value(const InitializerArg& v);
Config config_value(const regularizers::RegularizerPtr& v);
Config config_value(const constraints::ConstraintPtr& v);
Config config_value(const Shape& v);
Config config_value(const std::vector<int>& v);
Config config_value(const std::vector<int64_t>& v);
Config config_value(const std::vector<double>& v);
Config config_value(const std::vector<std::string>& v);
template <class T>
Config config_value(const std::optional<T>& v) {
  return v ? config_value(*v) : Config(nullptr);
}

// ---- one value from JSON; an absent (or null) key keeps the default ----
void read_value(const ConfigReader& r, const char* key, std::string& v);
void read_value(const ConfigReader& r, const char* key, bool& v);
void read_value(const ConfigReader& r, const char* key, int& v);
void read_value(const ConfigReader& r, const char* key, int64_t& v);
void read_value(const ConfigReader& r, const char* key, uint64_t& v);
void read_value(const ConfigReader& r, const char* key, double& v);
void read_value(const ConfigReader& r, const char* key, Axes& v);
void read_value(const ConfigReader& r, const char* key, InitializerArg& v);
void read_value(const ConfigReader& r, const char* key, regularizers::RegularizerPtr& v);
void read_value(const ConfigReader& r, const char* key, constraints::ConstraintPtr& v);
void read_value(const ConfigReader& r, const char* key, Shape& v);
void read_value(const ConfigReader& r, const char* key, std::vector<int>& v);
void read_value(const ConfigReader& r, const char* key, std::vector<int64_t>& v);
/// A list of numbers (a single number is a one-element list).
void read_value(const ConfigReader& r, const char* key, std::vector<double>& v);
/// A list of strings; a single string is the path of a text file with one string a
/// line (Keras's vocabulary files).
void read_value(const ConfigReader& r, const char* key, std::vector<std::string>& v);
template <class T>
void read_value(const ConfigReader& r, const char* key, std::optional<T>& v) {
  // Keras's None is the option's none, even where the option defaults to a value
  // (TextVectorization's standardize, Bidirectional's merge_mode).
  if (r.is_null(key)) v.reset();
  if (!r.has(key)) return;
  T value{};
  read_value(r, key, value);
  v = std::move(value);
}

template <class F>
std::string key_of(const F& f) {
  return std::string(f.key());
}

/// Writes every field of `o` under its key.
template <class O>
void write_fields(Config& c, const O& o);
template <class O>
void read_fields(const ConfigReader& r, O& o);

/// A member that has a field table of its own (an optimizer's shared
/// OptimizerOptions) is written flat, into the same object, as Keras does.
template <class M>
void write_field(Config& c, const std::string& key, const M& v) {
  if constexpr (requires { M::fields(); }) write_fields(c, v);
  else c[key] = config_value(v);
}
template <class M>
void read_field(const ConfigReader& r, const std::string& key, M& v) {
  if constexpr (requires { M::fields(); }) read_fields(r, v);
  else read_value(r, key.c_str(), v);
}

template <class O>
void write_fields(Config& c, const O& o) {
  std::apply([&](const auto&... f) { (write_field(c, key_of(f), o.*(f.member)), ...); }, O::fields());
}

/// Reads every field present in the config; absent ones keep o's defaults.
template <class O>
void read_fields(const ConfigReader& r, O& o) {
  std::apply([&](const auto&... f) { (read_field(r, key_of(f), o.*(f.member)), ...); }, O::fields());
}

/// The base config with the options' own fields added.
template <class O>
Config with_fields(Config base, const O& o) {
  write_fields(base, o);
  return base;
}

/// T::Options when the class names one, else Default (a class whose options
/// are only the base ones).
template <class T, class Default>
struct OptionsOr {
  using type = Default;
};
template <class T, class Default>
  requires requires { typename T::Options; }
struct OptionsOr<T, Default> {
  using type = typename T::Options;
};

}  // namespace kiln::config_io
