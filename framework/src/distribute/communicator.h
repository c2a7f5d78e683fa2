#pragma once
// Private: the process's communicator. One thread owns the Transport (and so
// every MPI call); the training thread queues collectives on it and waits
// only where it needs a result, so communication overlaps computation.
//
// It never hangs. A collective that has not finished within the timeout makes
// the communicator ask every peer where it is, over the control channel, and
// fail with an error that names the ranks that did not answer, or answered
// from elsewhere. A rank whose training throws tells its peers, which then
// fail at once with its message. Once failed, a communicator stays failed,
// and the process ends through MPI_Abort rather than MPI_Finalize, which
// would wait for the lost peer.
#include <cstddef>
#include <memory>
#include <string>

#include "distribute/transport.h"

namespace kiln::distribute {

struct WorkState;
/// One queued collective; wait() for it before touching its buffers.
using Work = std::shared_ptr<WorkState>;

class Communicator {
 public:
  /// The process's communicator, made on first use: over MPI when the process
  /// was started by mpirun (or srun with PMIx), else a group of one.
  static Communicator& instance();
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const;
  int size() const;
  std::string describe() const;
  /// Seconds a collective may take before the peers are probed (default 300,
  /// or KILN_COLLECTIVE_TIMEOUT).
  void set_timeout(double seconds);
  double timeout() const;

  /// Queues a collective over caller-owned memory, which must stay valid and
  /// untouched until wait() returns. `what` names it in errors. `keep` owns
  /// that memory: a collective cut short by a failure may still be written
  /// into by the library, so the communicator then keeps `keep` until exit.
  Work all_reduce(void* buf, std::size_t count, ElemType type, ReduceKind op, std::string what,
                  std::shared_ptr<const void> keep = nullptr);
  Work broadcast(void* buf, std::size_t bytes, int root, std::string what, std::shared_ptr<const void> keep = nullptr);
  Work all_gather(const void* send, void* recv, std::size_t bytes, std::string what,
                  std::shared_ptr<const void> keep = nullptr);
  /// Blocks until `w` finished; throws DistributedError when it failed.
  void wait(const Work& w);

  /// Tells every peer that this rank failed with `what` and marks this
  /// communicator failed. Returns once the messages left (or after 2 s).
  void report_failure(const std::string& what);
  bool failed() const;
  /// Seconds the calling thread spent blocked in wait(), since the start.
  double seconds_waited() const;

  struct Impl;

 private:
  Communicator();
  std::unique_ptr<Impl> impl_;
};

/// Rank 0's `text` on every rank.
std::string broadcast_text(const std::string& text, const std::string& what);

}  // namespace kiln::distribute
