#include "distribute/communicator.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/plugin_loader.h"
#include "distribute/control_probe.h"
#include "kiln/distribute/data_parallel.h"

namespace kiln::distribute {

using Clock = std::chrono::steady_clock;

std::size_t elem_size(ElemType t) { return t == ElemType::Float32 ? 4 : 8; }

int LocalTransport::start_all_gather(const void* send, void* recv, std::size_t bytes) {
  if (bytes) std::memcpy(recv, send, bytes);
  return 0;
}
void LocalTransport::abort(int code) { std::_Exit(code); }

struct WorkState {
  enum Kind { AllReduce, Broadcast, AllGather } kind = AllReduce;
  void* buf = nullptr;
  const void* send = nullptr;
  std::size_t count = 0;
  ElemType type = ElemType::Float32;
  ReduceKind op = ReduceKind::Sum;
  int root = 0;
  std::string what;
  uint64_t seq = 0;
  int request = -1;
  Clock::time_point started;
  bool done = false;
  std::string error;
  std::shared_ptr<const void> keep;
};

namespace {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

std::unique_ptr<Transport> make_transport() {
  if (!launched_by_mpi()) return std::make_unique<LocalTransport>();
#if defined(KILN_MPI_PLUGIN_FILE)
  std::string why;
  auto entry = reinterpret_cast<TransportFactory>(
      plugins::load_entry("KILN_MPI_PLUGIN", KILN_MPI_PLUGIN_FILE, kMpiTransportEntry, why));
  if (entry) {
    std::string error;
    if (Transport* t = entry(&error)) return std::unique_ptr<Transport>(t);
    why = "MPI could not start: " + error;
  }
  throw DistributedError("DataParallel: this process was started by an MPI launcher, but " + why);
#else
  throw DistributedError(
      "DataParallel: this process was started by an MPI launcher, but this Kiln was built without MPI "
      "(install libopenmpi-dev and reconfigure a shared build)");
#endif
}

double env_timeout() {
  const char* v = std::getenv("KILN_COLLECTIVE_TIMEOUT");
  if (!v || !*v) return 300.0;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (end == v || s <= 0) throw ValueError(std::string("KILN_COLLECTIVE_TIMEOUT must be a positive number of seconds, got '") + v + "'");
  return s;
}

}  // namespace

struct Communicator::Impl {
  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  std::deque<Work> queued;
  std::vector<Work> active;
  std::vector<Work> abandoned;  // started, then cut short by a failure: their memory stays until exit
  std::unique_ptr<Transport> transport;
  std::thread thread;
  bool stop = false, ready = false;
  std::string start_error;
  std::string broken;  // why the communicator failed; empty while healthy
  std::string failure_to_report;
  bool failure_reported = false;
  int rank = 0, size = 1;
  std::string description;
  double timeout = 300.0;
  uint64_t started = 0, finished = 0;
  double waited = 0.0;
  int waiters = 0;  // threads blocked in wait(): the communicator thread then polls without pause
  ControlProbe probe;

  void run();
  void fail_all(const std::string& why);   // with mu held
  bool step(std::vector<Work>& fresh);     // one round of progress; true when something finished
  std::string position() const;            // with mu held: where this rank is, for a peer's probe
};

void Communicator::Impl::fail_all(const std::string& why) {
  if (broken.empty()) {
    broken = why;
    std::cerr << "kiln.distribute: rank " << rank << ": " << why << "\n" << std::flush;
  }
  for (auto& w : active) w->done = true, w->error = broken, abandoned.push_back(w);
  for (auto& w : queued) w->done = true, w->error = broken;
  active.clear();
  queued.clear();
  done_cv.notify_all();
}

std::string Communicator::Impl::position() const {
  if (active.empty()) return "is not in it: it is computing, after collective #" + std::to_string(finished);
  return "waits in collective #" + std::to_string(active.front()->seq) + " (" + active.front()->what + ")";
}

bool Communicator::Impl::step(std::vector<Work>& fresh) {
  bool progressed = false;
  for (auto& w : fresh) {
    w->started = Clock::now();
    switch (w->kind) {
      case WorkState::AllReduce: w->request = transport->start_all_reduce(w->buf, w->count, w->type, w->op); break;
      case WorkState::Broadcast: w->request = transport->start_broadcast(w->buf, w->count, w->root); break;
      case WorkState::AllGather: w->request = transport->start_all_gather(w->send, w->buf, w->count); break;
    }
  }
  std::lock_guard<std::mutex> lock(mu);
  for (auto& w : fresh) active.push_back(w);
  fresh.clear();
  // MPI finishes collectives in the order they started; test them in that order.
  while (!active.empty() && transport->test(active.front()->request)) {
    active.front()->done = true;
    active.erase(active.begin());
    ++finished;
    progressed = true;
  }
  if (progressed) done_cv.notify_all();
  int from = 0;
  std::string msg;
  while (transport->receive(from, msg)) {
    const auto reply = probe.on_message(from, msg, position());
    if (reply.failed_peer) fail_all("rank " + std::to_string(from) + " failed: " + reply.text);
    else if (!reply.text.empty()) transport->post(from, reply.text);
  }
  if (!active.empty() && broken.empty()) {
    const double age = std::chrono::duration<double>(Clock::now() - active.front()->started).count();
    if (age > timeout && !probe.running()) {
      for (int r = 0; r < size; ++r)
        if (r != rank) transport->post(r, probe.start(size));
    }
    if (probe.running() && probe.finished(size, rank)) {
      const auto& w = *active.front();
      fail_all("collective #" + std::to_string(w.seq) + " (" + w.what + ") did not finish within " +
               std::to_string(static_cast<int>(timeout)) + " s (DataParallelOptions::timeout, KILN_COLLECTIVE_TIMEOUT). " +
               probe.report(size, rank));
    }
  }
  if (!failure_to_report.empty() && !failure_reported) {
    for (int r = 0; r < size; ++r)
      if (r != rank) transport->post(r, ControlProbe::failure_message(failure_to_report));
    failure_reported = true;
    done_cv.notify_all();
  }
  transport->posts_done();
  return progressed;
}

void Communicator::Impl::run() {
  try {
    transport = make_transport();
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mu);
    start_error = e.what();
    ready = true;
    done_cv.notify_all();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    rank = transport->rank();
    size = transport->size();
    description = transport->describe();
    ready = true;
    done_cv.notify_all();
  }
  // MPI moves data only while a process calls into it, so a collective needs
  // both sides polling. While the training thread waits for a result this
  // thread polls without pause (yielding the core); while it computes, every
  // 50 us, so the backward pass keeps the cores; idle, every 10 ms, to answer probes.
  std::vector<Work> fresh;
  for (;;) {
    bool spin = false;
    {
      std::unique_lock<std::mutex> lock(mu);
      spin = !active.empty() && waiters > 0;
      if (!spin) {
        const auto pause = active.empty() ? std::chrono::microseconds(10000) : std::chrono::microseconds(50);
        work_cv.wait_for(lock, pause, [&] { return stop || !queued.empty() || (waiters > 0 && !active.empty()); });
      }
      if (stop && queued.empty() && (active.empty() || !broken.empty())) break;
      for (auto& w : queued) w->seq = ++started, fresh.push_back(w);
      queued.clear();
    }
    try {
      step(fresh);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu);
      fresh.clear();
      fail_all(std::string("the transport failed: ") + e.what());
    }
    if (spin) std::this_thread::yield();
  }
  if (!broken.empty()) transport->abort(1);
  transport->finalize();
}

Communicator::Communicator() : impl_(std::make_unique<Impl>()) {
  impl_->timeout = env_timeout();
  impl_->thread = std::thread([this] { impl_->run(); });
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->done_cv.wait(lock, [&] { return impl_->ready; });
  if (!impl_->start_error.empty()) {
    const std::string why = impl_->start_error;
    lock.unlock();
    impl_->thread.join();
    throw DistributedError(why);
  }
}

Communicator::~Communicator() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->work_cv.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

Communicator& Communicator::instance() {
  // Never destroyed before exit: MPI_Finalize (or MPI_Abort) runs from its destructor.
  static Communicator c;
  return c;
}

int Communicator::rank() const { return impl_->rank; }
int Communicator::size() const { return impl_->size; }
std::string Communicator::describe() const { return impl_->description; }
void Communicator::set_timeout(double s) {
  if (!(s > 0)) {
    std::ostringstream got;
    got << s;
    throw ValueError("DataParallel: timeout must be a positive number of seconds, got " + got.str());
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->timeout = s;
}
double Communicator::timeout() const { return impl_->timeout; }

namespace {
Work queue_work(Communicator::Impl& im, Work w) {
  std::lock_guard<std::mutex> lock(im.mu);
  if (!im.broken.empty()) {
    w->done = true;
    w->error = im.broken;
    return w;
  }
  im.queued.push_back(w);
  im.work_cv.notify_all();
  return w;
}
}  // namespace

Work Communicator::all_reduce(void* buf, std::size_t count, ElemType type, ReduceKind op, std::string what,
                              std::shared_ptr<const void> keep) {
  auto w = std::make_shared<WorkState>();
  w->kind = WorkState::AllReduce, w->buf = buf, w->count = count, w->type = type, w->op = op;
  w->what = std::move(what), w->keep = std::move(keep);
  return queue_work(*impl_, w);
}
Work Communicator::broadcast(void* buf, std::size_t bytes, int root, std::string what, std::shared_ptr<const void> keep) {
  auto w = std::make_shared<WorkState>();
  w->kind = WorkState::Broadcast, w->buf = buf, w->count = bytes, w->root = root;
  w->what = std::move(what), w->keep = std::move(keep);
  return queue_work(*impl_, w);
}
Work Communicator::all_gather(const void* send, void* recv, std::size_t bytes, std::string what,
                              std::shared_ptr<const void> keep) {
  auto w = std::make_shared<WorkState>();
  w->kind = WorkState::AllGather, w->send = send, w->buf = recv, w->count = bytes;
  w->what = std::move(what), w->keep = std::move(keep);
  return queue_work(*impl_, w);
}

void Communicator::wait(const Work& w) {
  const auto t0 = Clock::now();
  std::unique_lock<std::mutex> lock(impl_->mu);
  if (!w->done) {
    ++impl_->waiters;
    impl_->work_cv.notify_all();
    impl_->done_cv.wait(lock, [&] { return w->done; });
    --impl_->waiters;
  }
  impl_->waited += std::chrono::duration<double>(Clock::now() - t0).count();
  if (!w->error.empty()) throw DistributedError("DataParallel (rank " + std::to_string(impl_->rank) + "): " + w->error);
}

void Communicator::report_failure(const std::string& what) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  if (impl_->size == 1 || !impl_->failure_to_report.empty()) return;
  impl_->failure_to_report = what.empty() ? "unknown error" : what;
  impl_->work_cv.notify_all();
  // The messages leave from the thread's next round; give it a moment, then fail locally.
  impl_->done_cv.wait_for(lock, std::chrono::milliseconds(200), [&] { return impl_->failure_reported; });
  lock.unlock();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  lock.lock();
  impl_->fail_all("this rank failed: " + impl_->failure_to_report);
}

bool Communicator::failed() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return !impl_->broken.empty();
}

double Communicator::seconds_waited() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->waited;
}

}  // namespace kiln::distribute
