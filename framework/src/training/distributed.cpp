#include "training/distributed.h"

#include <cstring>
#include <vector>

#include "distribute/communicator.h"
#include "kiln/ops/random.h"

namespace kiln::training {

using distribute::Communicator;

namespace {
std::vector<std::pair<std::string, std::string>> fit_facts(const Model& model, const FitOptions& o, int steps) {
  std::vector<std::pair<std::string, std::string>> facts{
      {"batch_size", o.batch_size ? std::to_string(*o.batch_size) : "default"},
      {"epochs", std::to_string(o.epochs)},
      {"steps_per_epoch", std::to_string(steps)},
      {"optimizer", model.optimizer() ? model.optimizer()->class_name() : "none"},
      {"optimizer built", model.optimizer() && model.optimizer()->built() ? "yes" : "no"}};
  const auto vars = model.weights();
  facts.emplace_back("variables", std::to_string(vars.size()));
  for (std::size_t i = 0; i < vars.size(); ++i)
    facts.emplace_back("variable " + std::to_string(i) + " (" + vars[i].name() + ")",
                       vars[i].shape().to_string() + " " + dtype_name(vars[i].dtype()));
  return facts;
}
}  // namespace

distribute::DataParallel* active_strategy() {
  distribute::DataParallel* s = distribute::current_strategy();
  return s && (s->num_replicas_in_sync() > 1 || s->options().communication == "nccl") ? s : nullptr;
}

void sync_at_fit_start(Model& model, const FitOptions& options, int steps_per_epoch, int& first_epoch) {
  distribute::DataParallel* s = active_strategy();
  if (!s) return;
  s->check_same(fit_facts(model, options, steps_per_epoch), "fit()");
  s->broadcast_variables(model.weights());
  if (model.optimizer() && model.optimizer()->built()) s->broadcast_variables(model.optimizer()->variables());
  Communicator& c = Communicator::instance();
  // The same generator everywhere gives every rank the same shuffled order, so
  // the ranks' shares of each global batch never overlap.
  random::set_state(distribute::broadcast_text(random::get_state(), "fit(): the random generator's state"));
  auto epoch = std::make_shared<int64_t>(first_epoch);
  c.wait(c.broadcast(epoch.get(), sizeof(int64_t), 0, "fit(): the first epoch", epoch));
  first_epoch = static_cast<int>(*epoch);
}

bool batch_usable(const Batch& global) {
  if (!active_strategy() || global.x.empty()) return true;
  return global.x[0].shape()[0] >= Communicator::instance().size();
}

Batch local_shard(const Batch& global) {
  if (!active_strategy() || global.x.empty()) return global;
  const Communicator& c = Communicator::instance();
  const int64_t n = global.x[0].shape()[0], ranks = c.size(), r = c.rank();
  // Contiguous rows, the first n % ranks ranks taking one more.
  const int64_t base = n / ranks, extra = n % ranks;
  const int64_t lo = r * base + std::min(r, extra), hi = lo + base + (r < extra ? 1 : 0);
  distribute::set_local_batch_share(static_cast<double>(hi - lo) / static_cast<double>(n));
  auto rows = [&](const Tensor& t) { return t.defined() ? t[{Slice(lo, hi)}] : t; };
  Batch b;
  for (const auto& t : global.x) b.x.push_back(rows(t));
  for (const auto& t : global.y) b.y.push_back(rows(t));
  b.sample_weight = rows(global.sample_weight);
  return b;
}

Logs global_logs(Model& model, const Logs& local) {
  if (!active_strategy()) return local;
  const auto metrics = model.metrics();
  auto held = std::make_shared<std::vector<double>>();
  std::vector<double>& buf = *held;
  for (const auto& m : metrics)
    for (const auto& v : m->variables()) {
      const auto vals = v.read_value_untracked().to_vector<double>();
      buf.insert(buf.end(), vals.begin(), vals.end());
    }
  std::vector<std::string> others;
  for (const auto& [k, v] : local) {
    bool is_metric = false;
    for (const auto& m : metrics) is_metric = is_metric || m->name() == k;
    if (!is_metric) others.push_back(k), buf.push_back(v);
  }
  Communicator& c = Communicator::instance();
  c.wait(c.all_reduce(buf.data(), buf.size(), distribute::ElemType::Float64, distribute::ReduceKind::Sum,
                      "the metrics' states", held));
  // Each metric's result from the summed states; its own state stays local.
  std::size_t at = 0;
  Logs out;
  for (const auto& m : metrics) {
    std::vector<Tensor> saved;
    for (auto v : m->variables()) {
      const Tensor mine = v.read_value_untracked();
      saved.push_back(mine.clone());
      const std::vector<double> summed(buf.begin() + static_cast<long>(at), buf.begin() + static_cast<long>(at + mine.size()));
      at += static_cast<std::size_t>(mine.size());
      v.assign(Tensor(summed, mine.shape()).cast(mine.dtype()).to(mine.device()));
    }
    out.set(m->name(), m->result().to(Device::cpu()).item<double>());
    for (std::size_t i = 0; i < saved.size(); ++i) {
      Variable v = m->variables()[i];
      v.assign(saved[i]);
    }
  }
  for (const auto& k : others) out.set(k, buf[at++] / c.size());
  // Keep the local logs' order of keys.
  Logs ordered;
  for (const auto& [k, v] : local) ordered.set(k, out.get(k).value_or(v));
  return ordered;
}

void report_failure(const std::exception& e) {
  if (!active_strategy() || dynamic_cast<const distribute::DistributedError*>(&e)) return;
  Communicator::instance().report_failure(e.what());
}

}  // namespace kiln::training
