// The profiler's trace: events from the hooks (core/profiler_events.h),
// written in the Chrome trace event format and summed per layer.
#include "kiln/core/profiler.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "core/profiler_events.h"
#include "kiln/core/error.h"

namespace kiln::profiler {
namespace detail {

std::atomic<bool> g_recording{false};

namespace {

struct Event {
  Kind kind;
  std::string name, layer;
  int64_t begin, end;
  uint32_t thread;
  uint64_t replay;  // ops: which run of a compiled step they belong to
};

struct Trace {
  std::mutex mu;
  std::vector<Event> events;
  std::string logdir;
  std::string last_summary;
};

Trace& trace() {
  static Trace* t = new Trace;  // leaked: hooks may run during static destruction
  return *t;
}

uint32_t this_thread_number() {
  static std::atomic<uint32_t> next{1};
  thread_local const uint32_t n = next.fetch_add(1);
  return n;
}

std::atomic<uint64_t> g_replay{0};
thread_local int t_replay_depth = 0;
thread_local uint64_t t_replay = 0;

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void add(Kind kind, std::string name, std::string layer, int64_t begin_ns, int64_t end_ns) {
  Trace& t = trace();
  std::lock_guard<std::mutex> l(t.mu);
  if (!recording()) return;
  t.events.push_back({kind, std::move(name), std::move(layer), begin_ns, end_ns, this_thread_number(),
                      kind == Kind::op ? t_replay : 0});
}

ReplayScope::ReplayScope() {
  if (t_replay_depth++ == 0) t_replay = g_replay.fetch_add(1) + 1;
}
ReplayScope::~ReplayScope() { --t_replay_depth; }

}  // namespace detail

namespace {

using detail::Event;
using detail::Kind;

/// `s` as a JSON string literal; bytes that are not UTF-8 (a layer named so) become U+FFFD.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const char* category(Kind k) { return k == Kind::step ? "step" : k == Kind::layer ? "layer" : "op"; }

void write_trace(const std::string& path, const std::vector<Event>& events) {
  std::ofstream f(path);
  if (!f) throw IOError("profiler: cannot write the trace file '" + path + "'");
  const int64_t origin = events.empty() ? 0 : std::min_element(events.begin(), events.end(), [](auto& a, auto& b) {
                                                return a.begin < b.begin;
                                              })->begin;
  f << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  for (const auto& e : events) {
    f << (first ? "" : ",\n") << "{\"name\":" << quoted(e.name) << ",\"cat\":\"" << category(e.kind)
      << "\",\"ph\":\"X\",\"pid\":1,\"tid\":" << e.thread << ",\"ts\":" << (e.begin - origin) / 1e3
      << ",\"dur\":" << (e.end - e.begin) / 1e3;
    if (e.kind != Kind::step) f << ",\"args\":{\"layer\":" << quoted(e.layer) << "}";
    f << "}";
    first = false;
  }
  f << "\n]}\n";
  if (!f.flush()) throw IOError("profiler: cannot write the trace file '" + path + "'");
}

/// "model/block/dense" -> "model/block": the model's own layers are the table's rows.
std::string row_of(const std::string& path) {
  const auto a = path.find('/');
  if (a == std::string::npos) return path;
  const auto b = path.find('/', a + 1);
  return b == std::string::npos ? path : path.substr(0, b);
}

int depth(const std::string& path) { return path.empty() ? 0 : 1 + static_cast<int>(std::count(path.begin(), path.end(), '/')); }

struct Row {
  double ns = 0;
  std::set<uint64_t> calls;  // replays (ops) or event indices (layer calls)
};

std::string make_summary(const std::vector<Event>& events) {
  double steps_ns = 0;
  int steps = 0;
  std::map<std::string, Row> rows;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const double d = static_cast<double>(e.end - e.begin);
    if (e.kind == Kind::step) {
      steps_ns += d;
      ++steps;
    } else if (e.kind == Kind::op) {
      Row& r = rows[e.layer.empty() ? "(outside layers)" : row_of(e.layer)];
      r.ns += d;
      r.calls.insert(e.replay);
    } else if (depth(e.layer) == 2) {  // an eager call (or backward pass) of one of the model's own layers
      Row& r = rows[e.layer];
      r.ns += d;
      if (e.name != "backward") r.calls.insert(~static_cast<uint64_t>(i));
    }
  }
  double in_rows = 0;
  for (const auto& [name, r] : rows) in_rows += r.ns;
  std::vector<std::pair<std::string, const Row*>> order;
  for (const auto& [name, r] : rows) order.emplace_back(name, &r);
  std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second->ns > b.second->ns; });
  const double total = steps_ns > 0 ? steps_ns : in_rows;
  std::ostringstream s;
  char line[256];
  std::snprintf(line, sizeof line, "Profile: %d steps, %.3f ms in steps; %.3f ms in ops and layer calls\n", steps,
                steps_ns / 1e6, in_rows / 1e6);
  s << line;
  std::size_t w = 24;
  for (const auto& [name, r] : order) w = std::max(w, name.size());
  std::snprintf(line, sizeof line, "%-*s %12s %7s %7s\n", static_cast<int>(w), "layer", "time (ms)", "share", "calls");
  s << line;
  auto put = [&](const std::string& name, double ns, std::size_t calls) {
    std::snprintf(line, sizeof line, "%-*s %12.3f %6.1f%% %7zu\n", static_cast<int>(w), name.c_str(), ns / 1e6,
                  total > 0 ? 100.0 * ns / total : 0.0, calls);
    s << line;
  };
  for (const auto& [name, r] : order) put(name, r->ns, r->calls.size());
  if (steps_ns > in_rows) put("(between ops)", steps_ns - in_rows, 0);
  return s.str();
}

std::string run_folder_name() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y_%m_%d_%H_%M_%S", &tm);
  return buf;
}

}  // namespace

void start(const std::string& logdir) {
  auto& t = detail::trace();
  std::lock_guard<std::mutex> l(t.mu);
  if (detail::recording())
    throw ValueError("profiler::start('" + logdir + "'): a trace is already being recorded (into '" + t.logdir +
                     "'); call profiler::stop() first");
  t.events.clear();
  t.logdir = logdir;
  detail::g_recording.store(true);
}

std::string stop() {
  auto& t = detail::trace();
  std::vector<Event> events;
  std::string logdir;
  {
    std::lock_guard<std::mutex> l(t.mu);
    if (!detail::recording()) throw ValueError("profiler::stop(): no trace is being recorded");
    detail::g_recording.store(false);
    events.swap(t.events);
    logdir = t.logdir;
    t.last_summary = make_summary(events);
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(logdir.empty() ? "." : logdir) / "plugins" / "profile" / run_folder_name();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw IOError("profiler: cannot create the folder '" + dir.string() + "': " + ec.message());
  const std::string path = (dir / "kiln.trace.json").string();
  write_trace(path, events);
  return path;
}

bool active() { return detail::recording(); }

std::string summary() {
  auto& t = detail::trace();
  std::lock_guard<std::mutex> l(t.mu);
  return t.last_summary;
}

}  // namespace kiln::profiler
