#include "kiln/distribute/data_parallel.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "autodiff/autodiff.h"
#include "backend/recording.h"
#include "distribute/communicator.h"
#include "distribute/host_buffer.h"

namespace kiln::distribute {

namespace {
DataParallel* g_current = nullptr;
std::atomic<double> g_share{-1.0};

ReduceKind kind_of(ReduceOp op) {
  return op == ReduceOp::Max ? ReduceKind::Max : op == ReduceOp::Min ? ReduceKind::Min : ReduceKind::Sum;
}

/// Every rank's `x` reduced, as a host node inside a trace so that each
/// replay communicates again.
Tensor reduce_across(const Tensor& x, ReduceOp op) {
  Communicator& c = Communicator::instance();
  if (c.size() == 1) return x;
  const ElemType type = elem_type(x.dtype(), "all_reduce");
  Tensor out;
  {
    backend::RecordingPause pause;  // a buffer the host node fills, outside the graph's memory plan
    out = Tensor::empty(x.shape(), x.dtype(), x.device());
  }
  backend::run_as_host_node(
      [x, out, op, type]() mutable {
        Communicator& comm = Communicator::instance();
        auto held = std::make_shared<std::vector<unsigned char>>(byte_size(x));
        auto& buf = *held;
        copy_out(x, buf.data());
        comm.wait(comm.all_reduce(buf.data(), static_cast<std::size_t>(x.size()), type, kind_of(op),
                                  "all_reduce of a " + x.shape().to_string() + " tensor", held));
        if (op == ReduceOp::Mean) {
          const double n = comm.size();
          if (type == ElemType::Float32)
            for (float* p = reinterpret_cast<float*>(buf.data()), *e = p + x.size(); p != e; ++p) *p /= static_cast<float>(n);
          else if (type == ElemType::Float64)
            for (double* p = reinterpret_cast<double*>(buf.data()), *e = p + x.size(); p != e; ++p) *p /= n;
        }
        copy_in(buf.data(), out);
      },
      {.type = "AllReduce", .reads = {x}, .writes = {out}, .opaque = false});
  if (autodiff::active()) {
    if (op == ReduceOp::Sum || op == ReduceOp::Mean)
      autodiff::record("AllReduce", {x}, {out}, [op](const autodiff::Grads& dys, const autodiff::Needs&) {
        return autodiff::Grads{reduce_across(dys[0], op)};
      });
    else
      autodiff::record_no_gradient("AllReduce", {x}, {out});
  }
  return out;
}

/// "key=value" lines, the form check_same compares.
std::string serialize(const std::vector<std::pair<std::string, std::string>>& facts) {
  std::string s;
  for (const auto& [k, v] : facts) s += k + "=" + v + "\n";
  return s;
}

std::string first_difference(const std::string& mine, const std::string& root, int root_rank) {
  std::size_t a = 0, b = 0;
  while (a < mine.size() || b < root.size()) {
    const auto ea = mine.find('\n', a), eb = root.find('\n', b);
    const std::string la = a < mine.size() ? mine.substr(a, ea - a) : "", lb = b < root.size() ? root.substr(b, eb - b) : "";
    if (la != lb) {
      const auto ka = la.find('='), kb = lb.find('=');
      const std::string key = la.substr(0, ka);
      if (key == lb.substr(0, kb))
        return key + " is " + la.substr(ka + 1) + " here but " + lb.substr(kb + 1) + " on rank " + std::to_string(root_rank);
      return "'" + (la.empty() ? std::string("(nothing)") : la) + "' here but '" + (lb.empty() ? std::string("(nothing)") : lb) +
             "' on rank " + std::to_string(root_rank);
    }
    a = ea == std::string::npos ? mine.size() : ea + 1;
    b = eb == std::string::npos ? root.size() : eb + 1;
  }
  return "";
}
}  // namespace

DataParallel::DataParallel(DataParallelOptions options) : options_(std::move(options)), previous_(g_current) {
  if (options_.communication != "auto" && options_.communication != "mpi" && options_.communication != "nccl")
    throw ValueError("DataParallel: communication must be \"auto\", \"mpi\" or \"nccl\", got \"" + options_.communication + "\"");
  if (!(options_.bucket_cap_mb > 0) || !(options_.first_bucket_cap_mb > 0))
    throw ValueError("DataParallel: bucket_cap_mb and first_bucket_cap_mb must be positive");
  Communicator& c = Communicator::instance();
  if (options_.timeout) c.set_timeout(*options_.timeout);
  g_current = this;
}

DataParallel::~DataParallel() {
  if (g_current == this) g_current = previous_;
}

int DataParallel::rank() const { return Communicator::instance().rank(); }
int DataParallel::num_replicas_in_sync() const { return Communicator::instance().size(); }
std::string DataParallel::describe() const {
  const Communicator& c = Communicator::instance();
  return std::to_string(c.size()) + (c.size() == 1 ? " process (" : " processes over ") + c.describe() +
         (c.size() == 1 ? ")" : "");
}
double DataParallel::communication_wait_seconds() const { return Communicator::instance().seconds_waited(); }

void DataParallel::broadcast_variables(const std::vector<Variable>& vars, int root) const {
  Communicator& c = Communicator::instance();
  if (c.size() == 1 || vars.empty()) return;
  std::size_t total = 0;
  for (const auto& v : vars) total += byte_size(v.read_value_untracked());
  auto held = std::make_shared<std::vector<unsigned char>>(total);
  auto& buf = *held;
  if (c.rank() == root) {
    std::size_t at = 0;
    for (const auto& v : vars) {
      const Tensor t = v.read_value_untracked();
      copy_out(t, buf.data() + at);
      at += byte_size(t);
    }
  }
  c.wait(c.broadcast(buf.data(), total, root, "broadcast of " + std::to_string(vars.size()) + " variables", held));
  if (c.rank() == root) return;
  std::size_t at = 0;
  for (auto v : vars) {
    Tensor t = Tensor::empty(v.shape(), v.dtype(), v.device());
    copy_in(buf.data() + at, t);
    at += byte_size(t);
    v.assign(t);
  }
}

Tensor DataParallel::all_reduce(const Tensor& x, ReduceOp op) const { return reduce_across(x, op); }

void DataParallel::check_same(const std::vector<std::pair<std::string, std::string>>& facts,
                              const std::string& where) const {
  Communicator& c = Communicator::instance();
  if (c.size() == 1) return;
  const std::string mine = serialize(facts);
  const std::string root = broadcast_text(mine, where + ": configuration");
  constexpr std::size_t kSlot = 400;
  auto diff = std::make_shared<std::string>(c.rank() == 0 ? "" : first_difference(mine, root, 0));
  diff->resize(kSlot, '\0');
  auto held = std::make_shared<std::vector<char>>(kSlot * static_cast<std::size_t>(c.size()));
  const std::vector<char>& all = *held;
  c.wait(c.all_gather(diff->data(), held->data(), kSlot, where + ": configuration check",
                      std::make_shared<std::pair<decltype(diff), decltype(held)>>(diff, held)));
  std::string report;
  for (int r = 0; r < c.size(); ++r) {
    const char* s = all.data() + kSlot * static_cast<std::size_t>(r);
    const std::string d(s, strnlen(s, kSlot));
    if (!d.empty()) report += (report.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + ": " + d;
  }
  if (!report.empty())
    throw DistributedError("DataParallel: " + where + ": the ranks were given different configurations (" + report +
                           "). Every rank must build the same model and call it with the same arguments.");
}

std::string broadcast_text(const std::string& text, const std::string& what) {
  Communicator& c = Communicator::instance();
  auto len = std::make_shared<int64_t>(static_cast<int64_t>(text.size()));
  c.wait(c.broadcast(len.get(), sizeof(int64_t), 0, what + " (length)", len));
  auto out = std::make_shared<std::string>(c.rank() == 0 ? text : std::string(static_cast<std::size_t>(*len), '\0'));
  c.wait(c.broadcast(out->data(), out->size(), 0, what, out));
  return *out;
}

DataParallel* current_strategy() { return g_current; }

bool is_chief() { return !g_current || g_current->rank() == 0; }

Tensor all_reduce(const Tensor& x, ReduceOp op) { return g_current ? reduce_across(x, op) : x; }

void set_local_batch_share(double share) { g_share = share; }
double local_batch_share() {
  const double s = g_share;
  return s >= 0 ? s : 1.0 / Communicator::instance().size();
}

}  // namespace kiln::distribute
