#include "distribute/gradient_reducer.h"

#include <cstring>
#include <string>

#include "backend/recording.h"
#include "distribute/communicator.h"
#include "distribute/host_buffer.h"

namespace kiln::distribute {

struct GradientReducer::State {
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
    std::vector<unsigned char> data;
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
  unsigned char* at = b.data.data() + s.offset;
  copy_out(g, at);
  const double share = local_batch_share();
  if (b.type == ElemType::Float32) scale<float>(at, s.bytes / 4, share);
  else scale<double>(at, s.bytes / 8, share);
  s.ready = true;
  ++b.ready;
}

void GradientReducer::State::launch(Bucket& b, std::size_t index) {
  b.work = Communicator::instance().all_reduce(b.data.data(), b.count, b.type, ReduceKind::Sum,
                                               "gradient bucket " + std::to_string(index) + " of " +
                                                   std::to_string(buckets.size()) + ", " +
                                                   std::to_string(b.data.size()) + " bytes");
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
      std::memset(buckets[s.bucket].data.data() + s.offset, 0, s.bytes);
      s.ready = true;
      ++buckets[s.bucket].ready;
    }
  launch_full();
  Communicator& c = Communicator::instance();
  for (auto& b : buckets) c.wait(b.work);
  for (std::size_t i = 0; i < slots.size(); ++i)
    copy_in(buckets[slots[i].bucket].data.data() + slots[i].offset, outs[i]);
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
