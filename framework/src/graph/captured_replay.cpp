// Captured replays: runs of device nodes recorded once as CUDA Graphs.
#include "graph/captured_replay.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "backend/backend.h"
#include "kiln/backend/cuda.h"

namespace kiln {

namespace cuda {
namespace {
std::atomic<bool>& graphs_flag() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("KILN_CUDA_GRAPHS");
    return !(v && (std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0));
  }()};
  return on;
}
std::atomic<int64_t> g_captures{0}, g_launches{0}, g_failures{0};
}  // namespace

void set_graphs(bool enable) { graphs_flag() = enable; }
bool graphs_enabled() { return graphs_flag().load(std::memory_order_relaxed); }
GraphStats graph_stats() { return {g_captures.load(), g_launches.load(), g_failures.load()}; }
}  // namespace cuda

namespace graph {

struct CapturedReplay::Segment {
  std::size_t begin = 0, end = 0;
  Device device;
  std::unique_ptr<backend::CapturedWork> work;
  std::vector<const void*> addresses;  // every buffer the nodes touch, as captured
  bool uncapturable = false;
};

CapturedReplay::CapturedReplay() = default;
CapturedReplay::~CapturedReplay() = default;

namespace {

/// A node a graph can hold: device work on one GPU whose parameters are all
/// fixed at capture. Host work, control flow (its predicate is read on the
/// host) and copies between devices run uncaptured.
bool capturable(const backend::Node& n, Device& device) {
  if (n.host || n.live || !n.branches.empty()) return false;
  bool first = true;
  for (const auto* list : {&n.inputs, &n.outputs})
    for (const auto& t : *list) {
      if (!t.defined() || !t.impl()->storage) return false;
      if (!t.device().is_cuda() || (!first && !(t.device() == device))) return false;
      device = t.device();
      first = false;
    }
  return !first;
}

std::vector<const void*> addresses_of(const backend::Recording& plan, std::size_t begin, std::size_t end) {
  std::vector<const void*> out;
  for (std::size_t i = begin; i < end; ++i) {
    const auto& n = plan.nodes()[i];
    for (const auto* list : {&n.inputs, &n.outputs})
      for (const auto& t : *list) out.push_back(t.impl()->storage->data);
  }
  return out;
}

/// Whether the nodes' buffers are still at `captured`, checked in place:
/// it runs before every launch, so it allocates nothing.
bool same_addresses(const backend::Recording& plan, std::size_t begin, std::size_t end,
                    const std::vector<const void*>& captured) {
  std::size_t k = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const auto& n = plan.nodes()[i];
    for (const auto* list : {&n.inputs, &n.outputs})
      for (const auto& t : *list)
        if (k >= captured.size() || captured[k++] != t.impl()->storage->data) return false;
  }
  return k == captured.size();
}

}  // namespace

void CapturedReplay::analyse(const backend::Recording& plan) {
  analysed_ = true;
  const auto& nodes = plan.nodes();
  for (std::size_t i = 0; i < nodes.size();) {
    Device device;
    if (!capturable(nodes[i], device)) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    for (Device d; j < nodes.size() && capturable(nodes[j], d) && d == device;) ++j;
    // A single node gains nothing from a graph launch.
    if (j - i >= 2) {
      Segment s;
      s.begin = i;
      s.end = j;
      s.device = device;
      segments_.push_back(std::move(s));
    }
    i = j;
  }
}

bool CapturedReplay::captures(const backend::Recording& plan) {
  if (!cuda::graphs_enabled()) return false;
  if (!analysed_) analyse(plan);
  for (const auto& s : segments_)
    if (!s.uncapturable) return true;
  return false;
}

bool CapturedReplay::capture(backend::Recording& plan, Segment& s) {
  backend::Backend& be = backend::backend_for(s.device);
  if (!be.begin_capture()) {
    s.uncapturable = true;
    return false;
  }
  try {
    plan.run(s.begin, s.end);
    s.work = be.end_capture();
  } catch (...) {
    // Something the capture forbids (a wait for the device, a host copy).
    (void)be.end_capture();
  }
  if (!s.work) {
    // Nothing ran: the caller runs the nodes uncaptured, now and later.
    s.uncapturable = true;
    ++cuda::g_failures;
    return false;
  }
  s.addresses = addresses_of(plan, s.begin, s.end);
  ++cuda::g_captures;
  return true;
}

void CapturedReplay::run_segment(backend::Recording& plan, Segment& s) {
  if (s.uncapturable || replays_ < 2) return plan.run(s.begin, s.end);
  if (s.work && !same_addresses(plan, s.begin, s.end, s.addresses)) s.work.reset();
  if (!s.work && !capture(plan, s)) return plan.run(s.begin, s.end);
  s.work->launch();
  ++cuda::g_launches;
}

void CapturedReplay::replay(backend::Recording& plan) {
  if (!captures(plan)) return plan.replay();
  ++replays_;
  plan.replay(0, 0);  // variables replaced by copies first: that moves buffers
  std::size_t at = 0;
  for (auto& s : segments_) {
    plan.run(at, s.begin);
    run_segment(plan, s);
    at = s.end;
  }
  plan.run(at, plan.size());
}

}  // namespace graph
}  // namespace kiln
