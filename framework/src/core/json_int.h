#pragma once
// Integers read from JSON configs and metadata. nlohmann's get<int64_t>() on a
// float such as 3.3e65 is an out-of-range float-to-integer conversion
// (undefined behaviour), and files are untrusted, so every integer read where
// a float may stand goes through here.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "kiln/core/error.h"

namespace kiln::detail {

/// j as an integer in [lo, hi]; ValueError naming `where` and the value otherwise.
inline int64_t json_int(const nlohmann::json& j, const std::string& where, int64_t lo = INT64_MIN,
                        int64_t hi = INT64_MAX) {
  if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    throw ValueError(where + ": expected an integer, but received " + j.dump().substr(0, 100));
  if (!j.is_number_integer()) throw ValueError(where + ": expected an integer, but received " + j.dump().substr(0, 100));
  const int64_t v = j.get<int64_t>();
  if (v < lo || v > hi)
    throw ValueError(where + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], but received " + std::to_string(v));
  return v;
}

}  // namespace kiln::detail
