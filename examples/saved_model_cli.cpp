// saved_model_cli: inspects and runs a directory written by
// kiln::saved_model::save, without the C++ classes that defined it (the
// analogue of TensorFlow's saved_model_cli).
//
//   saved_model_cli show the_saved_model
//   saved_model_cli run the_saved_model __call__ 1,3 2 2 2     # one float32 input of shape (1, 3)
#include <iostream>
#include <sstream>

#include "kiln/kiln.h"

namespace {

kiln::Shape parse_shape(const std::string& text) {
  std::vector<int64_t> dims;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) dims.push_back(std::stoll(part));
  return kiln::Shape(dims);
}

int usage() {
  std::cerr << "usage: saved_model_cli show DIR\n"
               "       saved_model_cli run DIR FUNCTION SHAPE VALUE...   (SHAPE like 1,3; one float32 input)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string command = argv[1];
  try {
    auto loaded = kiln::saved_model::load(argv[2]);
    if (command == "show") {
      for (const auto& name : loaded->function_names())
        std::cout << "function " << name << ":\n" << loaded->function(name).pretty_printed_signatures();
      for (const auto& v : loaded->variables())
        std::cout << "variable " << v.path() << " " << kiln::dtype_name(v.dtype()) << v.shape().to_string()
                  << (v.trainable() ? "" : " (not trainable)") << "\n";
      return 0;
    }
    if (command != "run" || argc < 5) return usage();
    const kiln::Shape shape = parse_shape(argv[4]);
    std::vector<double> values;
    for (int i = 5; i < argc; ++i) values.push_back(std::stod(argv[i]));
    if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
      std::cerr << "saved_model_cli: shape " << shape.to_string() << " needs " << shape.num_elements() << " values, got "
                << values.size() << "\n";
      return 2;
    }
    const kiln::Tensor x = kiln::cast(kiln::Tensor(values, shape), kiln::float32);
    for (const auto& y : loaded->call(argv[3], {x})) std::cout << y << "\n";
    return 0;
  } catch (const kiln::Error& e) {
    std::cerr << "saved_model_cli: " << e.what() << "\n";
    return 1;
  }
}
