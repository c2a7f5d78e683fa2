// The yardstick header_cost.py times <kiln/kiln.h> against: a short program
// that includes only the standard headers Kiln's public headers include, so
// the ratio of the two compile times is Kiln's own cost, whatever the machine.
#include <array>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

int main() {
  std::map<std::string, std::vector<double>> history;
  std::function<double(double)> square = [](double v) { return v * v; };
  auto shared = std::make_shared<std::vector<std::optional<std::int64_t>>>(4, std::nullopt);
  std::variant<std::string, double> value = 2.0;
  for (int epoch = 0; epoch < 2; ++epoch) history["loss"].push_back(square(std::get<double>(value) + epoch));
  std::ostringstream out;
  out << history.size() << " " << shared->size() << " " << history["loss"].back();
  std::cout << out.str() << "\n";
}
