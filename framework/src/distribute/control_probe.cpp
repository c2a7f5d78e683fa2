#include "distribute/control_probe.h"

#include <vector>

namespace kiln::distribute {

namespace {
/// Splits "kind\nfield\nrest" into at most three fields.
std::vector<std::string> fields(const std::string& m) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (out.size() < 2) {
    const auto nl = m.find('\n', pos);
    if (nl == std::string::npos) break;
    out.push_back(m.substr(pos, nl - pos));
    pos = nl + 1;
  }
  out.push_back(m.substr(pos));
  return out;
}
}  // namespace

std::string ControlProbe::failure_message(const std::string& what) { return "fail\n" + what; }

ControlProbe::Reply ControlProbe::on_message(int from, const std::string& message, const std::string& position) {
  const auto f = fields(message);
  if (f[0] == "fail") return {true, f.size() > 1 ? f.back() : ""};
  if (f[0] == "ping" && f.size() >= 2) return {false, "pong\n" + f[1] + "\n" + position};
  if (f[0] == "pong" && f.size() == 3 && running_ && f[1] == std::to_string(id_)) answers_[from] = f[2];
  return {};
}

std::string ControlProbe::start(int /*size*/) {
  ++id_;
  running_ = true;
  answers_.clear();
  deadline_ = std::chrono::steady_clock::now() + kWindow;
  return "ping\n" + std::to_string(id_);
}

bool ControlProbe::finished(int size, int /*rank*/) const {
  if (!running_) return false;
  return static_cast<int>(answers_.size()) >= size - 1 || std::chrono::steady_clock::now() >= deadline_;
}

std::string ControlProbe::report(int size, int rank) const {
  std::string silent, others;
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    auto it = answers_.find(r);
    if (it == answers_.end()) silent += (silent.empty() ? "" : ", ") + std::to_string(r);
    else others += " Rank " + std::to_string(r) + " " + it->second + ".";
  }
  const int window = static_cast<int>(kWindow.count() / 1000);
  std::string out;
  if (!silent.empty())
    out = "Ranks that did not answer within " + std::to_string(window) + " s (failed, killed or stopped): " + silent + ".";
  else
    out = "Every other rank answered.";
  return out + others;
}

}  // namespace kiln::distribute
