#include "distribute/gradient_reducer.h"

#include <cstring>
#include <string>

#include "backend/recording.h"
#include "distribute/communicator.h"
#include "distribute/host_buffer.h"
#include "distribute/nccl_buckets.h"

namespace kiln::distribute {

struct GradientReducer::State : std::enable_shared_from_this<GradientReducer::State> {
  struct Slot {
    std::size_t bucket = 0, offset = 0, bytes = 0;
    bool ready = false;
    Shape shape;
    DType dtype = DType::float32;
    Device device = Device::cpu();
  };
  struct Bucket {
    ElemType type = ElemType::Float32;
    std::size_t count = 0;
    std::vector<std::size_t> slots;
    std::size_t ready = 0;
    std::vector<unsigned char> data;    // host staging (MPI)
    std::unique_ptr<NcclBucket> device;  // or the bucket on the GPU (NCCL)
    Work work;
  };
  std::vector<Slot> slots;
  std::vector<Bucket> buckets;
  std::size_t next_launch = 0;

  void stage(std::size_t i, const Tensor& g);
  void launch_full();
  void launch(Bucket& b, std::size_t index);
  void wait_into(std::vector<Tensor>& outs);
};

namespace {
template <class T>
void scale(unsigned char* p, std::size_t n, double s) {
  T* v = reinterpret_cast<T*>(p);
  for (std::size_t k = 0; k < n; ++k) v[k] = static_cast<T>(v[k] * s);
}
}  // namespace

void GradientReducer::State::stage(std::size_t i, const Tensor& g) {
  Slot& s = slots[i];
  if (s.ready) return;
  Bucket& b = buckets[s.bucket];
  const double share = local_batch_share();
  if (b.device) {
    b.device->stage(g, s.offset / elem_size(b.type), share);
  } else {
    unsigned char* at = b.data.data() + s.offset;
    copy_out(g, at);
    if (b.type == ElemType::Float32) scale<float>(at, s.bytes / 4, share);
    else scale<double>(at, s.bytes / 8, share);
  }
  s.ready = true;
  ++b.ready;
}

void GradientReducer::State::launch(Bucket& b, std::size_t index) {
  const std::string what = "gradient bucket " + std::to_string(index) + " of " + std::to_string(buckets.size()) + ", " +
                           std::to_string(b.count * elem_size(b.type)) + " bytes";
  if (b.device) b.device->launch(what);
  else b.work = Communicator::instance().all_reduce(b.data.data(), b.count, b.type, ReduceKind::Sum, what,
                                                    shared_from_this());
}

void GradientReducer::State::launch_full() {
  while (next_launch < buckets.size() && buckets[next_launch].ready == buckets[next_launch].slots.size()) {
    launch(buckets[next_launch], next_launch);
    ++next_launch;
  }
}

void GradientReducer::State::wait_into(std::vector<Tensor>& outs) {
  // A variable without a gradient on this rank contributes zeros.
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (!slots[i].ready) {
      Slot& s = slots[i];
      Bucket& b = buckets[s.bucket];
      if (b.device) b.device->zero(s.offset / elem_size(b.type), s.bytes / elem_size(b.type));
      else std::memset(b.data.data() + s.offset, 0, s.bytes);
      s.ready = true;
      ++buckets[s.bucket].ready;
    }
  launch_full();
  Communicator& c = Communicator::instance();
  for (auto& b : buckets) b.device ? b.device->join() : c.wait(b.work);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Bucket& b = buckets[slots[i].bucket];
    if (b.device) b.device->read(slots[i].offset / elem_size(b.type), outs[i]);
    else copy_in(b.data.data() + slots[i].offset, outs[i]);
  }
  // Ready for the next step (a replay runs these host nodes again).
  for (auto& s : slots) s.ready = false;
  for (auto& b : buckets) b.ready = 0, b.work.reset();
  next_launch = 0;
}

GradientReducer::GradientReducer(const std::vector<Variable>& vars, const DataParallelOptions& o)
    : state_(std::make_shared<State>()) {
  State& st = *state_;
  st.slots.resize(vars.size());
  const double mb = 1024.0 * 1024.0;
  std::size_t cap = static_cast<std::size_t>(o.first_bucket_cap_mb * mb);
  for (std::size_t k = vars.size(); k-- > 0;) {
    const Tensor v = vars[k].read_value_untracked();
    const ElemType type = elem_type(v.dtype(), ("gradient of variable '" + vars[k].path() + "'").c_str());
    const std::size_t bytes = byte_size(v);
    const bool fits = !st.buckets.empty() && st.buckets.back().type == type &&
                      st.buckets.back().data.size() + bytes <= cap;
    if (!fits) {
      if (!st.buckets.empty()) cap = static_cast<std::size_t>(o.bucket_cap_mb * mb);
      st.buckets.emplace_back();
      st.buckets.back().type = type;
    }
    State::Bucket& b = st.buckets.back();
    st.slots[k] = {st.buckets.size() - 1, b.data.size(), bytes, false, v.shape(), v.dtype(), v.device()};
    b.slots.push_back(k);
    b.data.resize(b.data.size() + bytes);
    b.count += bytes / elem_size(type);
  }
  // NCCL when asked for, or by default for variables on a GPU when the plugin has it.
  const Device device = vars.empty() ? Device::cpu() : vars.front().device();
  const std::string why_not = nccl_unavailable_reason(device);
  if (o.communication == "nccl" && !why_not.empty())
    throw DistributedError("DataParallel: communication \"nccl\" cannot be used: " + why_not);
  if (o.communication == "nccl" || (o.communication == "auto" && why_not.empty())) {
    backend::RecordingPause pause;  // the buckets are the reducer's own buffers, made once
    for (auto& b : st.buckets)
      b.device = std::make_unique<NcclBucket>(b.count, b.type == ElemType::Float32 ? DType::float32 : DType::float64,
                                              device),
      b.data = {};
  }
}

namespace {
thread_local bool t_reduced = false;
}
ReducedGradientsScope::ReducedGradientsScope() : saved_(t_reduced) { t_reduced = true; }
ReducedGradientsScope::~ReducedGradientsScope() { t_reduced = saved_; }
bool ReducedGradientsScope::active() { return t_reduced; }

std::vector<std::optional<Tensor>> GradientReducer::reduce(const std::vector<std::optional<Tensor>>& local) const {
  const auto ready = hook();
  for (std::size_t i = 0; i < local.size(); ++i)
    if (local[i] && local[i]->defined()) ready(i, *local[i]);
  return finish(local);
}

std::size_t GradientReducer::bucket_count() const { return state_->buckets.size(); }

GradientReadyFn GradientReducer::hook() const {
  auto st = state_;
  return [st](std::size_t i, const Tensor& g) {
    if (i >= st->slots.size()) return;
    backend::run_as_host_node(
        [st, i, g] {
          st->stage(i, g);
          st->launch_full();
        },
        {.type = "GradientBucketReady", .reads = {g}, .opaque = false});
  };
}

std::vector<std::optional<Tensor>> GradientReducer::finish(const std::vector<std::optional<Tensor>>&) const {
  auto st = state_;
  std::vector<Tensor> outs;
  {
    backend::RecordingPause pause;  // buffers the host node fills, outside the graph's memory plan
    for (const auto& s : st->slots) outs.push_back(Tensor::empty(s.shape, s.dtype, s.device));
  }
  backend::run_as_host_node([st, outs]() mutable { st->wait_into(outs); },
                            {.type = "GradientAllReduce", .writes = outs, .opaque = false});
  return std::vector<std::optional<Tensor>>(outs.begin(), outs.end());
}

}  // namespace kiln::distribute
