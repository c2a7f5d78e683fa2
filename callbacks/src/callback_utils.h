#pragma once
// Private helpers shared by the callbacks (not installed).
#include <string>

namespace kiln {
class Model;
class Optimizer;
}  // namespace kiln

namespace kiln::callbacks::detail {

/// Python's repr() of a float: the shortest digits that round-trip, written
/// "0.5", "100.0", "1e-05", "1e+16", "nan", "inf" (Keras's CSV rows and
/// messages go through Python's str(float)).
std::string python_float_repr(double v);

/// The model's optimizer, or a ValueError naming `who` when there is none.
Optimizer& require_optimizer(Model* model, const char* who);

/// The error of with_positional().
[[noreturn]] void throw_path_given_twice(const char* who, const char* name, const std::string& positional,
                                         const std::string& in_options);

/// A callback's options with its positional path (Keras's first argument) put in
/// `field`: a ValueError naming the callback when the options already hold another.
template <class Options>
Options with_positional(const char* who, const char* name, std::string path, Options options,
                        std::string Options::*field) {
  std::string& in_options = options.*field;
  if (!in_options.empty() && in_options != path)
    throw_path_given_twice(who, name, path, in_options);
  in_options = std::move(path);
  return options;
}

}  // namespace kiln::callbacks::detail
