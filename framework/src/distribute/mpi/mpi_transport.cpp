// libkiln_mpi.so: the Transport over MPI (Debian's Open MPI). Collectives run
// on a duplicate of MPI_COMM_WORLD; control messages on a second duplicate, so
// they never match a collective's traffic. Errors return codes
// (MPI_ERRORS_RETURN) instead of ending the process, so a failed peer becomes
// an exception with the library's own text.
// The C API only: Open MPI and MPICH otherwise pull in their deprecated C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "distribute/transport.h"

namespace kiln::distribute {
namespace {

constexpr int kControlTag = 7;

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(len)));
}

MPI_Datatype mpi_type(ElemType t) {
  switch (t) {
    case ElemType::Float32: return MPI_FLOAT;
    case ElemType::Float64: return MPI_DOUBLE;
    case ElemType::Int64: return MPI_INT64_T;
  }
  return MPI_BYTE;
}

MPI_Op mpi_op(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum: return MPI_SUM;
    case ReduceKind::Max: return MPI_MAX;
    case ReduceKind::Min: return MPI_MIN;
  }
  return MPI_SUM;
}

int checked_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error(std::string(what) + ": " + std::to_string(n) + " elements is more than MPI's int count");
  return static_cast<int>(n);
}

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
      int provided = 0;
      // Only the communicator's thread calls MPI, and it is the thread that initialises it.
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Comm_dup(MPI_COMM_WORLD, &data_), "MPI_Comm_dup");
    check(MPI_Comm_dup(MPI_COMM_WORLD, &control_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(data_, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(control_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(data_, &rank_);
    MPI_Comm_size(data_, &size_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string describe() const override {
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    std::string s(v, static_cast<std::size_t>(len));
    const auto cut = s.find_first_of(",\n");
    return cut == std::string::npos ? s : s.substr(0, cut);
  }

  int start_all_reduce(void* buf, std::size_t count, ElemType type, ReduceKind op) override {
    MPI_Request r;
    check(MPI_Iallreduce(MPI_IN_PLACE, buf, checked_count(count, "all_reduce"), mpi_type(type), mpi_op(op), data_, &r),
          "MPI_Iallreduce");
    return keep(r);
  }
  int start_broadcast(void* buf, std::size_t bytes, int root) override {
    MPI_Request r;
    check(MPI_Ibcast(buf, checked_count(bytes, "broadcast"), MPI_BYTE, root, data_, &r), "MPI_Ibcast");
    return keep(r);
  }
  int start_all_gather(const void* send, void* recv, std::size_t bytes) override {
    MPI_Request r;
    const int n = checked_count(bytes, "all_gather");
    check(MPI_Iallgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, data_, &r), "MPI_Iallgather");
    return keep(r);
  }
  bool test(int request) override {
    auto it = requests_.find(request);
    if (it == requests_.end()) return true;
    int done = 0;
    check(MPI_Test(&it->second, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) requests_.erase(it);
    return done != 0;
  }

  void post(int to, const std::string& message) override {
    sends_.push_back({std::vector<char>(message.begin(), message.end()), MPI_REQUEST_NULL});
    auto& s = sends_.back();
    check(MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_CHAR, to, kControlTag, control_, &s.request),
          "MPI_Isend");
  }
  bool receive(int& from, std::string& message) override {
    int flag = 0;
    MPI_Status st;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kControlTag, control_, &flag, &st), "MPI_Iprobe");
    if (!flag) return false;
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::vector<char> buf(static_cast<std::size_t>(n));
    check(MPI_Recv(buf.data(), n, MPI_CHAR, st.MPI_SOURCE, kControlTag, control_, MPI_STATUS_IGNORE), "MPI_Recv");
    from = st.MPI_SOURCE;
    message.assign(buf.begin(), buf.end());
    return true;
  }
  bool posts_done() override {
    while (!sends_.empty()) {
      int done = 0;
      check(MPI_Test(&sends_.front().request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) return false;
      sends_.pop_front();
    }
    return true;
  }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::abort();
  }
  void finalize() override {
    MPI_Comm_free(&control_);
    MPI_Comm_free(&data_);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }

 private:
  int keep(MPI_Request r) {
    requests_[next_] = r;
    return next_++;
  }

  struct Send {
    std::vector<char> bytes;
    MPI_Request request;
  };
  MPI_Comm data_ = MPI_COMM_NULL, control_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  int next_ = 1;
  std::map<int, MPI_Request> requests_;
  std::deque<Send> sends_;
};

}  // namespace
}  // namespace kiln::distribute

extern "C" __attribute__((visibility("default"))) kiln::distribute::Transport* kiln_mpi_transport_v1(
    std::string* error) {
  try {
    return new kiln::distribute::MpiTransport();
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return nullptr;
  }
}
