#pragma once
// Private: a trace's replay with its GPU work captured. Each run of device
// nodes between host work (an optimizer's bookkeeping, a dropout seed) is
// recorded once as a CUDA Graph and relaunched at later replays, so the host
// queues one launch where it queued a kernel per node.
#include <cstddef>
#include <memory>
#include <vector>

#include "backend/recording.h"

namespace kiln::graph {

class CapturedReplay {
 public:
  CapturedReplay();
  ~CapturedReplay();
  CapturedReplay(const CapturedReplay&) = delete;
  CapturedReplay& operator=(const CapturedReplay&) = delete;

  /// Whether replays of `plan` capture: it has device work that can be
  /// captured and capture is on (kiln::cuda::set_graphs). The graphs keep the
  /// placeholders' addresses, so arguments must then be copied into them.
  bool captures(const backend::Recording& plan);
  /// Runs `plan`'s nodes in order, as plan.replay() does. The first replay
  /// runs uncaptured (it warms up algorithm choices and scratch memory); the
  /// second captures each run; later ones launch it. A run whose buffers have
  /// moved since its capture (a variable replaced by a copy) is captured anew;
  /// one that cannot be captured keeps running uncaptured.
  void replay(backend::Recording& plan);

 private:
  struct Segment;
  void analyse(const backend::Recording& plan);
  /// Captures `s`; false (and `s` marked uncapturable) when it cannot be.
  bool capture(backend::Recording& plan, Segment& s);
  void run_segment(backend::Recording& plan, Segment& s);
  std::vector<Segment> segments_;
  bool analysed_ = false;
  long replays_ = 0;
};

}  // namespace kiln::graph
