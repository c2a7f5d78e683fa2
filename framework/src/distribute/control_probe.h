#pragma once
// Private: the control messages peers exchange outside the collectives. When
// a collective overruns its timeout, the waiting rank asks every peer where it
// is ("ping"); live peers answer from their communicator thread ("pong") even
// while their training thread is busy, so the ones that do not answer within
// the probe window are the failed, killed or stopped ones. A rank whose
// training throws sends "fail" with its message.
#include <chrono>
#include <map>
#include <string>

namespace kiln::distribute {

class ControlProbe {
 public:
  struct Reply {
    bool failed_peer = false;  // the message reported the sender's failure (text: its message)
    std::string text;          // else a message to send back, or nothing
  };
  /// Handles one message from `from`; `position` says where this rank is.
  Reply on_message(int from, const std::string& message, const std::string& position);
  /// Starts a probe of `size` ranks; returns the message to send each peer.
  std::string start(int size);
  bool running() const { return running_; }
  /// Whether every peer answered, or the probe window passed.
  bool finished(int size, int rank) const;
  /// What the probe found, for an error message.
  std::string report(int size, int rank) const;
  static std::string failure_message(const std::string& what);

  /// How long peers get to answer.
  static constexpr std::chrono::milliseconds kWindow{3000};

 private:
  int id_ = 0;
  bool running_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::map<int, std::string> answers_;
};

}  // namespace kiln::distribute
