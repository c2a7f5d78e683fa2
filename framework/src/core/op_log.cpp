#include "core/op_log.h"

#include "core/tensor_impl.h"

namespace kiln::oplog {

std::atomic<int> g_logging_threads{0};

namespace {
thread_local Log* t_log = nullptr;
thread_local int t_depth = 0;  // logged calls this thread is inside
}  // namespace

bool logging_slow() { return t_log && t_depth == 0; }

Scope::Scope(Log& log) : saved_log_(t_log), saved_depth_(t_depth) {
  if (!saved_log_) g_logging_threads.fetch_add(1, std::memory_order_relaxed);
  t_log = &log;
  t_depth = 0;
}

Scope::~Scope() {
  t_log = saved_log_;
  t_depth = saved_depth_;
  if (!saved_log_) g_logging_threads.fetch_sub(1, std::memory_order_relaxed);
}

Inside::Inside() { ++t_depth; }
Inside::~Inside() { --t_depth; }

void outside_op(const std::string& what) {
  if (logging() && t_log->unusable.empty()) t_log->unusable = what;
}

void append(std::string name, std::function<std::vector<Tensor>()> rerun, std::vector<Tensor> outputs,
            uint64_t first_id) {
  std::vector<bool> fresh;
  for (const auto& t : outputs) fresh.push_back(t.defined() && t.id() >= first_id);
  append(std::move(name), std::move(rerun), std::move(outputs), std::move(fresh));
}

void append(std::string name, std::function<std::vector<Tensor>()> rerun, std::vector<Tensor> outputs,
            std::vector<bool> fresh, std::function<void()> undo) {
  t_log->entries.push_back({std::move(name), std::move(rerun), std::move(outputs), std::move(fresh), std::move(undo)});
}

uint64_t tensor_id_mark() {
  return next_tensor_id();
}

}  // namespace kiln::oplog
