// keras.ops.rearrange (kiln/ops/layout_ops.h): an einops pattern becomes a
// reshape that splits the input's groups, a transpose into the output's order
// and a reshape that merges the output's groups, as Keras does it.
#include <algorithm>
#include <cctype>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/layout_ops.h"

namespace kiln {

namespace {

using AxisGroup = std::vector<std::string>;  // one name, or a parenthesised group's names

ValueError pattern_error(const std::string& pattern, const std::string& why) {
  return ValueError("rearrange: " + why + " in pattern '" + pattern + "'");
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<AxisGroup> parse_side(const std::string& side, const std::string& pattern) {
  std::vector<AxisGroup> groups;
  std::size_t i = 0;
  auto read_name = [&] {
    std::string name;
    while (i < side.size() && is_name_char(side[i])) name += side[i++];
    return name;
  };
  while (i < side.size()) {
    const char c = side[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '(') {
      AxisGroup g;
      ++i;
      while (i < side.size() && side[i] != ')') {
        if (std::isspace(static_cast<unsigned char>(side[i]))) { ++i; continue; }
        std::string name = read_name();
        if (name.empty()) throw pattern_error(pattern, std::string("unexpected '") + side[i] + "' inside a group");
        g.push_back(name);
      }
      if (i >= side.size()) throw pattern_error(pattern, "an unclosed '('");
      ++i;
      if (g.empty()) throw pattern_error(pattern, "an empty group '()'");
      groups.push_back(g);
    } else if (is_name_char(c)) {
      groups.push_back({read_name()});
    } else {
      throw pattern_error(pattern, std::string("unexpected '") + c + "' (names, spaces and '( )' groups only)");
    }
  }
  return groups;
}

/// Each input name's length: from the shape, or from axes_lengths inside a group
/// (one name of a group may be left out; the axis's length gives it).
std::map<std::string, int64_t> axis_lengths(const std::vector<AxisGroup>& in, const Shape& shape,
                                            const std::map<std::string, int64_t>& given, const std::string& pattern) {
  std::map<std::string, int64_t> lengths;
  for (std::size_t a = 0; a < in.size(); ++a) {
    const int64_t dim = shape[static_cast<int64_t>(a)];
    if (in[a].size() == 1) {
      lengths[in[a][0]] = dim;
      continue;
    }
    int64_t known = 1;
    std::string unknown;
    for (const auto& name : in[a]) {
      auto it = given.find(name);
      if (it != given.end()) known *= it->second;
      else if (unknown.empty()) unknown = name;
      else throw pattern_error(pattern, "more than one length of a group unknown ('" + unknown + "' and '" + name +
                                            "'; pass the lengths as axes_lengths)");
    }
    for (const auto& name : in[a]) {
      auto it = given.find(name);
      if (it != given.end()) lengths[name] = it->second;
    }
    if (!unknown.empty()) {
      if (known <= 0 || dim % known != 0)
        throw pattern_error(pattern, "axis " + std::to_string(a) + " of length " + std::to_string(dim) +
                                         " cannot be split into groups of " + std::to_string(known));
      lengths[unknown] = dim / known;
      known = dim;
    }
    if (known != dim)
      throw pattern_error(pattern, "axis " + std::to_string(a) + " has length " + std::to_string(dim) +
                                       " but its group's lengths multiply to " + std::to_string(known));
  }
  return lengths;
}

}  // namespace

Tensor rearrange(const Tensor& x, const std::string& pattern, const std::map<std::string, int64_t>& axes_lengths) {
  const auto arrow = pattern.find("->");
  if (arrow == std::string::npos) throw pattern_error(pattern, "no '->'");
  const auto in = parse_side(pattern.substr(0, arrow), pattern);
  const auto out = parse_side(pattern.substr(arrow + 2), pattern);
  if (static_cast<int64_t>(in.size()) != x.rank())
    throw pattern_error(pattern, "the input side names " + std::to_string(in.size()) +
                                     " axes but the tensor has shape " + x.shape().to_string());
  const auto lengths = axis_lengths(in, x.shape(), axes_lengths, pattern);
  std::vector<std::string> in_names;
  std::vector<int64_t> split_shape;
  for (const auto& g : in)
    for (const auto& name : g) {
      if (std::find(in_names.begin(), in_names.end(), name) != in_names.end())
        throw pattern_error(pattern, "'" + name + "' twice on the input side");
      in_names.push_back(name);
      split_shape.push_back(lengths.at(name));
    }
  std::vector<int> perm;
  std::vector<int64_t> out_shape;
  for (const auto& g : out) {
    int64_t size = 1;
    for (const auto& name : g) {
      auto it = std::find(in_names.begin(), in_names.end(), name);
      if (it == in_names.end()) throw pattern_error(pattern, "'" + name + "' on the output side only");
      const int p = static_cast<int>(it - in_names.begin());
      if (std::find(perm.begin(), perm.end(), p) != perm.end())
        throw pattern_error(pattern, "'" + name + "' twice on the output side");
      perm.push_back(p);
      size *= lengths.at(name);
    }
    out_shape.push_back(size);
  }
  if (perm.size() != in_names.size()) throw pattern_error(pattern, "input names missing from the output side");
  Tensor y = Shape(split_shape) == x.shape() ? x : reshape(x, Shape(split_shape));
  return reshape(transpose(y, perm), Shape(out_shape));
}

}  // namespace kiln
