#pragma once
// Private: the message-passing layer under kiln::distribute. A Transport is
// one process's end of a group of `size()` processes. Its collectives are
// non-blocking and in place; every process must start the same collectives
// in the same order (MPI's rule). Only the communicator's own thread calls a
// Transport, so an implementation needs no locking.
//
// Implementations: LocalTransport (one process, no library) and the MPI
// plugin (framework/src/distribute/mpi/, libkiln_mpi.so), which libkiln loads
// at run time so that a program that never distributes never loads MPI.
#include <cstddef>
#include <string>

namespace kiln::distribute {

enum class ElemType : int { Float32 = 0, Float64 = 1, Int64 = 2 };
enum class ReduceKind : int { Sum = 0, Max = 1, Min = 2 };

std::size_t elem_size(ElemType t);

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// The library and version, for messages ("Open MPI v4.1.4").
  virtual std::string describe() const = 0;

  /// Starts an element-wise reduction of `count` elements of `buf` across the
  /// group, in place; returns a request for test().
  virtual int start_all_reduce(void* buf, std::size_t count, ElemType type, ReduceKind op) = 0;
  /// Starts copying `bytes` bytes of `buf` from process `root` to the others.
  virtual int start_broadcast(void* buf, std::size_t bytes, int root) = 0;
  /// Starts gathering `bytes` bytes from each process into `recv` (size() * bytes), in rank order.
  virtual int start_all_gather(const void* send, void* recv, std::size_t bytes) = 0;
  /// Whether the request has finished; a finished request is forgotten.
  /// Throws std::runtime_error when the library reports an error.
  virtual bool test(int request) = 0;

  /// The control channel, separate from the collectives: short text messages
  /// between two processes, sent without waiting for the receiver.
  virtual void post(int to, const std::string& message) = 0;
  /// The next control message that has arrived, if any.
  virtual bool receive(int& from, std::string& message) = 0;
  /// Whether every posted control message has left.
  virtual bool posts_done() = 0;

  /// Ends every process of the group (MPI_Abort); does not return.
  [[noreturn]] virtual void abort(int code) = 0;
  /// Orderly shutdown once every collective has finished (MPI_Finalize).
  virtual void finalize() = 0;
};

/// The one-process transport: every collective is already done.
class LocalTransport final : public Transport {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string describe() const override { return "a single process"; }
  int start_all_reduce(void*, std::size_t, ElemType, ReduceKind) override { return 0; }
  int start_broadcast(void*, std::size_t, int) override { return 0; }
  int start_all_gather(const void* send, void* recv, std::size_t bytes) override;
  bool test(int) override { return true; }
  void post(int, const std::string&) override {}
  bool receive(int&, std::string&) override { return false; }
  bool posts_done() override { return true; }
  [[noreturn]] void abort(int code) override;
  void finalize() override {}
};

/// The entry point of libkiln_mpi.so: a new Transport, or null with `error` set.
using TransportFactory = Transport* (*)(std::string* error);
constexpr const char* kMpiTransportEntry = "kiln_mpi_transport_v1";

}  // namespace kiln::distribute
