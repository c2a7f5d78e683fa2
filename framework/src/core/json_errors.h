#pragma once
// Private: errors about JSON documents (configs, metadata, indexes) in Kiln's
// words. nlohmann's exceptions read "[json.exception.type_error.302] type must
// be boolean, but is null", which names neither the key nor the fix; readers
// catch them and rethrow with json_error_text(), or read fields through
// json_field(), which names the key.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/core/error.h"

namespace kiln::detail {

/// "a bool", "a string", "a number", "a list", "an object" or "null": how
/// messages name the type of a JSON value.
std::string json_type_text(const nlohmann::json& j);

/// nlohmann's message without its "[json.exception...]" prefix, reworded:
/// "key 'path' is missing", "a value must be a bool, got null", "expected an
/// object, got a list", "not valid JSON: syntax error at line 1, column 7 ...".
std::string json_error_text(const nlohmann::json::exception& e);

/// `obj[key]`; ValueError "<where>: key 'path' is missing" when `obj` is not an
/// object or has no such key.
const nlohmann::json& json_member(const nlohmann::json& obj, const std::string& key, const std::string& where);

/// `obj[key]` as T (bool, std::string, double, int64_t or a vector of
/// strings); ValueError "<where>: key 'path' is missing" or "<where>:
/// 'trainable' must be a bool, got null" otherwise. Integers must be whole
/// and in range.
template <class T>
T json_field(const nlohmann::json& obj, const std::string& key, const std::string& where);

template <>
bool json_field<bool>(const nlohmann::json& obj, const std::string& key, const std::string& where);
template <>
std::string json_field<std::string>(const nlohmann::json& obj, const std::string& key, const std::string& where);
template <>
double json_field<double>(const nlohmann::json& obj, const std::string& key, const std::string& where);
template <>
int64_t json_field<int64_t>(const nlohmann::json& obj, const std::string& key, const std::string& where);
template <>
std::vector<std::string> json_field<std::vector<std::string>>(const nlohmann::json& obj, const std::string& key,
                                                              const std::string& where);

}  // namespace kiln::detail
