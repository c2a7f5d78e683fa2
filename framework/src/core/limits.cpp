#include "kiln/core/limits.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "kiln/core/config.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {
constexpr int64_t kDefaultMaxReadBytes = int64_t{8} << 30;

int64_t from_environment() {
  const char* v = std::getenv("KILN_MAX_ALLOC_BYTES");
  if (!v || !*v) return kDefaultMaxReadBytes;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  if (*end != '\0' || n <= 0)
    throw ValueError(std::string("KILN_MAX_ALLOC_BYTES must be a positive byte count, but is '") + v + "'");
  return n;
}

std::atomic<int64_t>& ceiling() {
  static std::atomic<int64_t> c{from_environment()};
  return c;
}
}  // namespace

int64_t max_read_bytes() { return ceiling().load(std::memory_order_relaxed); }

void set_max_read_bytes(int64_t bytes) {
  if (bytes <= 0) throw ValueError("set_max_read_bytes: the ceiling must be positive, but received " + std::to_string(bytes));
  ceiling().store(bytes, std::memory_order_relaxed);
}

void check_declared_size(uint64_t declared, uint64_t available, const std::string& what) {
  if (declared > available)
    throw IOError(what + ": declares " + std::to_string(declared) + " bytes, but the file can hold at most " +
                  std::to_string(available) + " (corrupt or hostile file)");
  if (declared > static_cast<uint64_t>(max_read_bytes()))
    throw IOError(what + ": declares " + std::to_string(declared) + " bytes, more than the limit of " +
                  std::to_string(max_read_bytes()) + " bytes (set KILN_MAX_ALLOC_BYTES or kiln::set_max_read_bytes "
                  "to allow it)");
}

Config parse_json(std::string_view text) {
  if (text.size() > static_cast<uint64_t>(max_read_bytes()))
    throw nlohmann::json::out_of_range::create(
        406, "the JSON text is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                 std::to_string(max_read_bytes()) + " bytes", nullptr);
  // The callback sees each value's depth as the (iterative) parser reaches it,
  // so a hostile nesting is refused before any recursive code touches it.
  const nlohmann::json::parser_callback_t limit_depth = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth)
      throw nlohmann::json::out_of_range::create(
          406, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", nullptr);
    return true;
  };
  return nlohmann::json::parse(text.begin(), text.end(), limit_depth);
}

}  // namespace kiln
