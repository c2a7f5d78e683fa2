// The keras.ops groups: every case calls one op through the table (op_table.h),
// saves its outputs with their dtypes, and the gradient of
// sum_i(output_i · cotangent_i) with respect to every floating input.
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/backend/device_scope.h"
#include "kiln/ops/ops.h"
#include "op_table.h"

namespace oracle {

namespace {

std::map<std::string, OpFn>& table() {
  static std::map<std::string, OpFn> t;
  return t;
}

}  // namespace

OpEntries::OpEntries(std::initializer_list<std::pair<const char*, OpFn>> entries) {
  for (const auto& [name, fn] : entries) {
    if (!table().emplace(name, fn).second) throw std::logic_error(std::string("op table: '") + name + "' twice");
  }
}

const OpFn* find_op(const std::string& keras_name) {
  auto it = table().find(keras_name);
  return it == table().end() ? kiln::detail::find_keras_op(keras_name) : &it->second;
}

// {"name", "params", "inputs": [npy...], "cotangents": [npy or null per output] or null}.
// Writes out_<i>, grad_<j> for each floating input j, and dtypes.json (the outputs' dtypes).
int run_ops(const Group& g) {
  // KILN_ORACLE_DEVICE=cuda runs every op on cuda:0 (with KILN_EMULATE_CUDA=1, the
  // emulated device, which catches code that leaves the inputs' device).
  const char* on = std::getenv("KILN_ORACLE_DEVICE");
  const kiln::Device device = on && std::string(on) == "cuda" ? kiln::Device::cuda(0) : kiln::Device::cpu();
  g.for_each_case([&](const json& c) {
    const std::string name = c.at("name");
    const OpFn* fn = find_op(name);
    if (!fn) throw std::runtime_error("kiln_oracle has no table entry for keras.ops." + name);
    Inputs xs = g.arrays(c.at("inputs"));
    for (auto& x : xs) x = x.to(device);
    const bool grads = c.contains("cotangents") && !c.at("cotangents").is_null();
    kiln::GradientTape tape;
    std::vector<kiln::Source> sources;
    std::vector<std::size_t> watched;
    for (std::size_t j = 0; j < xs.size(); ++j) {
      if (!grads || !kiln::is_floating(xs[j].dtype())) continue;
      tape.watch(xs[j]);
      sources.emplace_back(xs[j]);
      watched.push_back(j);
    }
    // An op without tensor inputs (arange, eye, the windows) places its result
    // as a DeviceScope says, as under `with tf.device(...)`.
    std::optional<kiln::DeviceScope> scope;
    if (xs.empty() && device != kiln::Device::cpu()) scope.emplace(device);
    const Outputs outs = (*fn)(xs, c.at("params"));
    json dtypes = json::array();
    kiln::Tensor target;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].device() != device)
        throw std::runtime_error("output " + std::to_string(i) + " is on " + outs[i].device().to_string() + ", not " +
                                 device.to_string());
      g.save(c, "out_" + std::to_string(i), outs[i].to(kiln::Device::cpu()));
      dtypes.push_back(kiln::dtype_name(outs[i].dtype()));
      if (!grads || c.at("cotangents").at(i).is_null()) continue;
      kiln::Tensor t = kiln::sum(outs[i] * g.array(c.at("cotangents").at(i)).to(device));
      target = target.defined() ? target + t : t;
    }
    std::ofstream(g.dir() / "out" / c.at("id").get<std::string>() / "dtypes.json") << dtypes.dump();
    if (!grads || !target.defined() || sources.empty()) return;
    auto gs = tape.gradient(target, sources, kiln::UnconnectedGradients::Zero);
    for (std::size_t k = 0; k < gs.size(); ++k)
      g.save(c, "grad_" + std::to_string(watched[k]),
             (gs[k] ? *gs[k] : kiln::zeros_like(xs[watched[k]])).to(kiln::Device::cpu()));
  });
  return 0;
}

}  // namespace oracle
