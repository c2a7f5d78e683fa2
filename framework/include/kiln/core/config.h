#pragma once
// Configs are JSON values (nlohmann::json). Only the forward declaration is
// included here so headers stay light; .cpp files that build configs include
// <nlohmann/json.hpp>.
#include <nlohmann/json_fwd.hpp>

namespace kiln {
using Config = nlohmann::json;
}
