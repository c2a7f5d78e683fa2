// Keras-style automatic names (dense, dense_1, ...) and clear_session().
#include <map>
#include <mutex>
#include <string>

#include "kiln/nn/layer.h"

namespace kiln {

namespace {
std::mutex g_names_mu;
std::map<std::string, int>& name_counts() {
  static std::map<std::string, int> m;
  return m;
}
}  // namespace

std::string unique_name(const std::string& base) {
  std::lock_guard<std::mutex> l(g_names_mu);
  int& c = name_counts()[base];
  std::string n = c == 0 ? base : base + "_" + std::to_string(c);
  ++c;
  return n;
}

void clear_session() {
  std::lock_guard<std::mutex> l(g_names_mu);
  name_counts().clear();
}

}  // namespace kiln
