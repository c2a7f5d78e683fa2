// JSON errors in Kiln's words (json_errors.h).
#include "core/json_errors.h"

#include <string_view>

#include "core/json_int.h"

namespace kiln::detail {

namespace {

/// nlohmann's type names ("boolean", "number", ...) as json_type_text says them.
std::string type_word(std::string_view t) {
  if (t == "boolean") return "a bool";
  if (t == "string") return "a string";
  if (t == "number") return "a number";
  if (t == "array") return "a list";
  if (t == "object") return "an object";
  if (t == "binary") return "binary data";
  return std::string(t);  // "null", "discarded"
}

std::string without_prefix(const std::string& what) {
  if (what.rfind("[json.exception.", 0) != 0) return what;
  const auto end = what.find("] ");
  return end == std::string::npos ? what : what.substr(end + 2);
}

/// The text between `before` and `after` in `s`, or "" when either is absent.
std::string between(const std::string& s, std::string_view before, std::string_view after) {
  const auto a = s.find(before);
  if (a == std::string::npos) return "";
  const auto from = a + before.size();
  const auto b = after.empty() ? s.size() : s.find(after, from);
  return b == std::string::npos ? "" : s.substr(from, b - from);
}

[[noreturn]] void wrong_type(const std::string& where, const std::string& key, const char* expected,
                             const nlohmann::json& got) {
  throw ValueError(where + ": '" + key + "' must be " + expected + ", got " + json_type_text(got) +
                   (got.is_null() || got.is_structured() ? "" : " (" + got.dump().substr(0, 80) + ")"));
}

}  // namespace

std::string json_type_text(const nlohmann::json& j) {
  if (j.is_number()) return "a number";
  return type_word(j.type_name());
}

std::string json_error_text(const nlohmann::json::exception& e) {
  const std::string text = without_prefix(e.what());
  switch (e.id) {
    case 101:  // parse error at line 1, column 7: syntax error while parsing value - ...
    case 102:
    case 103:
      return "not valid JSON: " + text;
    case 302: {  // type must be boolean, but is null
      const std::string want = between(text, "type must be ", ", but is ");
      const std::string got = between(text, ", but is ", "");
      if (!want.empty() && !got.empty()) return "a value must be " + type_word(want) + ", got " + type_word(got);
      return text;
    }
    case 304:  // cannot use at() with array
    case 305:  // cannot use operator[] with a string argument with array
    case 306: {
      const auto at = text.rfind(" with ");
      if (at != std::string::npos) return "expected an object, got " + type_word(text.substr(at + 6));
      return text;
    }
    case 401:  // array index 3 is out of range
      return "a list is too short: " + text;
    case 403: {  // key 'path' not found
      const std::string key = between(text, "key '", "' not found");
      if (!key.empty()) return "key '" + key + "' is missing";
      return text;
    }
    default:
      return text;
  }
}

const nlohmann::json& json_member(const nlohmann::json& obj, const std::string& key, const std::string& where) {
  if (!obj.is_object()) throw ValueError(where + ": expected an object with key '" + key + "', got " + json_type_text(obj));
  const auto it = obj.find(key);
  if (it == obj.end()) throw ValueError(where + ": key '" + key + "' is missing");
  return *it;
}

template <>
bool json_field<bool>(const nlohmann::json& obj, const std::string& key, const std::string& where) {
  const auto& v = json_member(obj, key, where);
  if (!v.is_boolean()) wrong_type(where, key, "a bool", v);
  return v.get<bool>();
}

template <>
std::string json_field<std::string>(const nlohmann::json& obj, const std::string& key, const std::string& where) {
  const auto& v = json_member(obj, key, where);
  if (!v.is_string()) wrong_type(where, key, "a string", v);
  return v.get<std::string>();
}

template <>
double json_field<double>(const nlohmann::json& obj, const std::string& key, const std::string& where) {
  const auto& v = json_member(obj, key, where);
  if (!v.is_number()) wrong_type(where, key, "a number", v);
  return v.get<double>();
}

template <>
int64_t json_field<int64_t>(const nlohmann::json& obj, const std::string& key, const std::string& where) {
  const auto& v = json_member(obj, key, where);
  if (!v.is_number_integer()) wrong_type(where, key, "an integer", v);
  return json_int(v, where + ": '" + key + "'");
}

template <>
std::vector<std::string> json_field<std::vector<std::string>>(const nlohmann::json& obj, const std::string& key,
                                                              const std::string& where) {
  const auto& v = json_member(obj, key, where);
  if (!v.is_array()) wrong_type(where, key, "a list of strings", v);
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (!s.is_string()) wrong_type(where, key, "a list of strings", v);
    out.push_back(s.get<std::string>());
  }
  return out;
}

}  // namespace kiln::detail
