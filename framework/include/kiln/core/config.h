#pragma once
// Configs are JSON values (nlohmann::json). Only the forward declaration is
// included here so headers stay light; .cpp files that build configs include
// <nlohmann/json.hpp>.
#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace kiln {
/// A config: a JSON value (nlohmann::json), as Keras's get_config() dicts.
using Config = nlohmann::json;

/// Parses JSON read from a file or a user string. Like Config::parse, but a
/// value nested deeper than kMaxJsonDepth (kiln/core/limits.h) or a text over
/// max_read_bytes() throws nlohmann::json::out_of_range instead of being built,
/// so recursive copies and dump() never see it. Use it for every untrusted text.
Config parse_json(std::string_view text);
}
