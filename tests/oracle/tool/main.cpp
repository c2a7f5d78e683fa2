// kiln_oracle: the Kiln side of the Keras oracle (tests/oracle/README.md).
//   kiln_oracle <group> <dir>   run every case in <dir>/cases.json
//   kiln_oracle list <kind>     print the registered names (losses, metrics,
//                               layers, activations), one a line
//   kiln_oracle known <kind> <name>...  print the names Kiln can build
//                               (optimizers, schedules), one a line
#include <iostream>
#include <map>

#include "kiln/kiln.h"
#include "oracle_io.h"

namespace {

using oracle::json;

int list(const std::string& kind) {
  std::vector<std::string> names;
  if (kind == "losses") names = kiln::losses::names();
  else if (kind == "metrics") names = kiln::metrics::names();
  else if (kind == "layers") names = kiln::registered_layer_classes();
  else if (kind == "activations") names = kiln::activations::names();
  else throw std::runtime_error("unknown kind '" + kind + "'");
  for (const auto& n : names) std::cout << n << "\n";
  return 0;
}

// The optimizer and schedule registries have no public list of names, so the
// driver offers Keras's class names and Kiln says which it knows: an unknown
// name is a NotFoundError, while a known schedule may throw for its empty config.
int known(const std::string& kind, const std::vector<std::string>& names) {
  for (const auto& n : names) {
    try {
      if (kind == "optimizers") kiln::optimizers::get(n);
      else if (kind == "schedules") kiln::optimizers::schedule_from_config({{"class_name", n}, {"config", json::object()}});
      else throw std::runtime_error("unknown kind '" + kind + "'");
    } catch (const kiln::NotFoundError&) {
      continue;
    } catch (const kiln::Error&) {
    }
    std::cout << n << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, int (*)(const oracle::Group&)> groups = {
      {"losses", oracle::run_losses},         {"metrics", oracle::run_metrics},
      {"optimizers", oracle::run_optimizers}, {"schedules", oracle::run_schedules},
      {"layers", oracle::run_layers},         {"tensorboard", oracle::run_tensorboard},
      {"policies", oracle::run_layers},       {"lora", oracle::run_lora},
      {"quantize", oracle::run_quantize},    {"text", oracle::run_text},
      {"files", oracle::run_files},           {"models", oracle::run_models},
      {"layer_files", oracle::run_layer_files}, {"activations", oracle::run_activations},
      {"fft", oracle::run_fft},
      {"recurrent", oracle::run_recurrent},   {"onnx", oracle::run_onnx},
      {"functional", oracle::run_model_files}, {"applications", oracle::run_model_files}};
  if (argc >= 3 && std::string(argv[1]) == "known") {
    try {
      return known(argv[2], std::vector<std::string>(argv + 3, argv + argc));
    } catch (const std::exception& e) {
      std::cerr << "kiln_oracle: " << e.what() << "\n";
      return 1;
    }
  }
  if (argc != 3) {
    std::cerr << "usage: kiln_oracle <group> <dir> | kiln_oracle list <kind>\n";
    return 2;
  }
  try {
    const std::string what = argv[1];
    if (what == "list") return list(argv[2]);
    if (what.rfind("ops_", 0) == 0) return oracle::run_ops(oracle::Group(argv[2]));
    auto it = groups.find(what);
    if (it == groups.end()) throw std::runtime_error("unknown group '" + what + "'");
    return it->second(oracle::Group(argv[2]));
  } catch (const std::exception& e) {
    std::cerr << "kiln_oracle: " << e.what() << "\n";
    return 1;
  }
}
