// kiln_oracle: the Kiln side of the Keras oracle (tests/oracle/README.md).
//   kiln_oracle <group> <dir>   run every case in <dir>/cases.json
//   kiln_oracle list <kind>     print the registered names (losses, metrics,
//                               optimizers, schedules, layers), one a line
#include <iostream>
#include <map>

#include "kiln/kiln.h"
#include "oracle_io.h"

namespace {

int list(const std::string& kind) {
  std::vector<std::string> names;
  if (kind == "losses") names = kiln::losses::names();
  else if (kind == "metrics") names = kiln::metrics::names();
  else if (kind == "layers") names = kiln::registered_layer_classes();
  else throw std::runtime_error("unknown kind '" + kind + "'");
  for (const auto& n : names) std::cout << n << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, int (*)(const oracle::Group&)> groups = {
      {"losses", oracle::run_losses},         {"metrics", oracle::run_metrics},
      {"optimizers", oracle::run_optimizers}, {"schedules", oracle::run_schedules},
      {"layers", oracle::run_layers},         {"tensorboard", oracle::run_tensorboard}};
  if (argc != 3) {
    std::cerr << "usage: kiln_oracle <group> <dir> | kiln_oracle list <kind>\n";
    return 2;
  }
  try {
    const std::string what = argv[1];
    if (what == "list") return list(argv[2]);
    auto it = groups.find(what);
    if (it == groups.end()) throw std::runtime_error("unknown group '" + what + "'");
    return it->second(oracle::Group(argv[2]));
  } catch (const std::exception& e) {
    std::cerr << "kiln_oracle: " << e.what() << "\n";
    return 1;
  }
}
