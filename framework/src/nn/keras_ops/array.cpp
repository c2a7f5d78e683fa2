// keras.ops array manipulation, matrix and creation ops by name (kiln/ops/shape_ops.h,
// matrix_ops.h, creation_ops.h); the ops_array oracle group
// (tests/oracle/oracle_ops_array.py) compares them with Keras.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/ops/ops.h"
#include "nn/keras_op_table.h"

namespace kiln::detail::keras_ops_array {

using namespace keras_op_api;

namespace {

namespace k = kiln;

/// An int or a list of ints (Keras's axis arguments), or none.
std::optional<std::vector<int>> array_axes(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  if (p.at(key).is_number()) return std::vector<int>{p.at(key).get<int>()};
  return p.at(key).get<std::vector<int>>();
}

std::vector<int64_t> array_ints(const json& v) {
  if (v.is_number()) return {v.get<int64_t>()};
  return v.get<std::vector<int64_t>>();
}

std::optional<int> array_axis(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<int>();
}

k::DType array_dtype(const json& p, k::DType fallback) {
  return p.contains("dtype") && !p.at("dtype").is_null() ? k::dtype_from_name(p.at("dtype").get<std::string>())
                                                          : fallback;
}

k::SplitSpec array_split_spec(const json& v) {
  if (v.is_number()) return k::SplitSpec(v.get<int64_t>());
  return k::SplitSpec(v.get<std::vector<int64_t>>());
}

/// Keras's pad_width: an int, (before, after), or one pair per axis.
k::PadWidth array_pad_width(const json& v) {
  if (v.is_number()) return {{v.get<int64_t>(), v.get<int64_t>()}};
  if (v.at(0).is_number()) return {{v.at(0).get<int64_t>(), v.at(v.size() - 1).get<int64_t>()}};
  k::PadWidth out;
  for (const json& pw : v) out.emplace_back(pw.at(0).get<int64_t>(), pw.at(pw.size() - 1).get<int64_t>());
  return out;
}

/// Keras's arange dtype rule: Python ints give int32, any float float32.
k::DType arange_dtype(const json& p) {
  bool integral = true;
  for (const char* key : {"start", "stop", "step"})
    if (p.contains(key) && !p.at(key).is_null() && !p.at(key).is_number_integer()) integral = false;
  return array_dtype(p, integral ? k::int32 : k::float32);
}

std::optional<double> array_opt(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<double>();
}

std::optional<int64_t> array_opt_int(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<int64_t>();
}

Outputs all(std::vector<k::Tensor> ts) { return ts; }

const OpEntries shape_entries{
    {"flip", [](const Inputs& x, const json& p) { return Outputs{k::flip(x[0], array_axes(p, "axis"))}; }},
    {"fliplr", [](const Inputs& x, const json&) { return Outputs{k::fliplr(x[0])}; }},
    {"flipud", [](const Inputs& x, const json&) { return Outputs{k::flipud(x[0])}; }},
    {"rot90",
     [](const Inputs& x, const json& p) {
       auto axes = param<std::vector<int>>(p, "axes", {0, 1});
       return Outputs{k::rot90(x[0], param(p, "k", 1), {axes.at(0), axes.at(1)})};
     }},
    {"roll",
     [](const Inputs& x, const json& p) {
       return Outputs{k::roll(x[0], array_ints(p.at("shift")), array_axes(p, "axis"))};
     }},
    {"moveaxis",
     [](const Inputs& x, const json& p) {
       auto s = array_axes(p, "source"), d = array_axes(p, "destination");
       return Outputs{k::moveaxis(x[0], *s, *d)};
     }},
    {"swapaxes",
     [](const Inputs& x, const json& p) {
       return Outputs{k::swapaxes(x[0], p.at("axis1").get<int>(), p.at("axis2").get<int>())};
     }},
    {"ravel", [](const Inputs& x, const json&) { return Outputs{k::ravel(x[0])}; }},
    {"repeat",
     [](const Inputs& x, const json& p) {
       return Outputs{k::repeat(x[0], array_ints(p.at("repeats")), array_axis(p, "axis"))};
     }},
    {"unstack",
     [](const Inputs& x, const json& p) {
       return all(k::unstack(x[0], array_opt_int(p, "num"),
                             param(p, "axis", 0)));
     }},
    {"append", [](const Inputs& x, const json& p) { return Outputs{k::append(x[0], x[1], array_axis(p, "axis"))}; }},
    {"hstack", [](const Inputs& x, const json&) { return Outputs{k::hstack(x)}; }},
    {"vstack", [](const Inputs& x, const json&) { return Outputs{k::vstack(x)}; }},
    {"dstack", [](const Inputs& x, const json&) { return Outputs{k::dstack(x)}; }},
    {"array_split",
     [](const Inputs& x, const json& p) {
       return all(k::array_split(x[0], array_split_spec(p.at("indices_or_sections")), param(p, "axis", 0)));
     }},
    {"hsplit",
     [](const Inputs& x, const json& p) { return all(k::hsplit(x[0], array_split_spec(p.at("indices_or_sections")))); }},
    {"vsplit",
     [](const Inputs& x, const json& p) { return all(k::vsplit(x[0], array_split_spec(p.at("indices_or_sections")))); }},
    {"dsplit",
     [](const Inputs& x, const json& p) { return all(k::dsplit(x[0], array_split_spec(p.at("indices_or_sections")))); }},
    {"pad",
     [](const Inputs& x, const json& p) {
       return Outputs{k::pad(x[0], array_pad_width(p.at("pad_width")), param<std::string>(p, "mode", "constant"),
                             array_opt(p, "constant_values"))};
     }},
    {"take", [](const Inputs& x, const json& p) { return Outputs{k::take(x[0], x[1], array_axis(p, "axis"))}; }},
    {"take_along_axis",
     [](const Inputs& x, const json& p) { return Outputs{k::take_along_axis(x[0], x[1], array_axis(p, "axis"))}; }},
    {"select",
     [](const Inputs& x, const json& p) {
       const std::size_t n = x.size() / 2;
       return Outputs{k::select(Inputs(x.begin(), x.begin() + n), Inputs(x.begin() + n, x.end()),
                                param(p, "default", 0.0))};
     }},
    {"slice_update",
     [](const Inputs& x, const json& p) {
       return Outputs{k::slice_update(x[0], array_ints(p.at("start_indices")), x[1])};
     }},
    {"depth_to_space",
     [](const Inputs& x, const json& p) {
       return Outputs{k::depth_to_space(x[0], p.at("block_size").get<int64_t>(),
                                        param<std::string>(p, "data_format", "channels_last"))};
     }},
    {"space_to_depth",
     [](const Inputs& x, const json& p) {
       return Outputs{k::space_to_depth(x[0], p.at("block_size").get<int64_t>(),
                                        param<std::string>(p, "data_format", "channels_last"))};
     }},
};

const OpEntries matrix_entries{
    {"tril", [](const Inputs& x, const json& p) { return Outputs{k::tril(x[0], param(p, "k", 0))}; }},
    {"triu", [](const Inputs& x, const json& p) { return Outputs{k::triu(x[0], param(p, "k", 0))}; }},
    {"tri",
     [](const Inputs&, const json& p) {
       return Outputs{k::tri(p.at("N").get<int64_t>(), array_opt_int(p, "M"),
                             param(p, "k", 0), array_dtype(p, k::float32))};
     }},
    {"eye",
     [](const Inputs&, const json& p) {
       return Outputs{k::eye(p.at("N").get<int64_t>(), array_opt_int(p, "M"),
                             param<int64_t>(p, "k", 0), array_dtype(p, k::float32))};
     }},
    {"identity",
     [](const Inputs&, const json& p) {
       return Outputs{k::identity(p.at("n").get<int64_t>(), array_dtype(p, k::float32))};
     }},
    {"diag", [](const Inputs& x, const json& p) { return Outputs{k::diag(x[0], param(p, "k", 0))}; }},
    {"diagflat", [](const Inputs& x, const json& p) { return Outputs{k::diagflat(x[0], param(p, "k", 0))}; }},
    {"diagonal",
     [](const Inputs& x, const json& p) {
       return Outputs{k::diagonal(x[0], param(p, "offset", 0), param(p, "axis1", 0),
                                  param(p, "axis2", 1))};
     }},
    {"trace",
     [](const Inputs& x, const json& p) {
       return Outputs{k::trace(x[0], param(p, "offset", 0), param(p, "axis1", 0),
                               param(p, "axis2", 1))};
     }},
    {"vander",
     [](const Inputs& x, const json& p) {
       return Outputs{k::vander(x[0], array_opt_int(p, "N"),
                                param(p, "increasing", false))};
     }},
    {"outer", [](const Inputs& x, const json&) { return Outputs{k::outer(x[0], x[1])}; }},
    {"inner", [](const Inputs& x, const json&) { return Outputs{k::inner(x[0], x[1])}; }},
    {"vdot", [](const Inputs& x, const json&) { return Outputs{k::vdot(x[0], x[1])}; }},
    {"dot", [](const Inputs& x, const json&) { return Outputs{k::dot(x[0], x[1])}; }},
    {"tensordot",
     [](const Inputs& x, const json& p) {
       if (!p.contains("axes") || p.at("axes").is_number())
         return Outputs{k::tensordot(x[0], x[1], param(p, "axes", 2))};
       const json& a = p.at("axes");
       auto side = [](const json& v) { return v.is_number() ? std::vector<int>{v.get<int>()} : v.get<std::vector<int>>(); };
       return Outputs{k::tensordot(x[0], x[1], side(a.at(0)), side(a.at(1)))};
     }},
    {"kron", [](const Inputs& x, const json&) { return Outputs{k::kron(x[0], x[1])}; }},
    {"cross",
     [](const Inputs& x, const json& p) {
       return Outputs{k::cross(x[0], x[1], param(p, "axisa", -1), param(p, "axisb", -1),
                               param(p, "axisc", -1), array_axis(p, "axis"))};
     }},
};

const OpEntries creation_entries{
    {"arange",
     [](const Inputs&, const json& p) {
       return Outputs{k::arange(p.at("start").get<double>(), array_opt(p, "stop"), array_opt(p, "step").value_or(1.0),
                                arange_dtype(p))};
     }},
    {"linspace",
     [](const Inputs&, const json& p) {
       return Outputs{k::linspace(p.at("start").get<double>(), p.at("stop").get<double>(), param<int64_t>(p, "num", 50),
                                  param(p, "endpoint", true), array_dtype(p, k::float32))};
     }},
    {"logspace",
     [](const Inputs&, const json& p) {
       return Outputs{k::logspace(p.at("start").get<double>(), p.at("stop").get<double>(), param<int64_t>(p, "num", 50),
                                  param(p, "endpoint", true), param(p, "base", 10.0),
                                  array_dtype(p, k::float32))};
     }},
    {"geomspace",
     [](const Inputs&, const json& p) {
       return Outputs{k::geomspace(p.at("start").get<double>(), p.at("stop").get<double>(),
                                   param<int64_t>(p, "num", 50), param(p, "endpoint", true),
                                   array_dtype(p, k::float32))};
     }},
    {"full",
     [](const Inputs&, const json& p) {
       return Outputs{k::fill(k::Shape(p.at("shape").get<std::vector<int64_t>>()), p.at("fill_value").get<double>(),
                              array_dtype(p, k::float32))};
     }},
    {"full_like",
     [](const Inputs& x, const json& p) {
       std::optional<k::DType> d;
       if (p.contains("dtype") && !p.at("dtype").is_null()) d = array_dtype(p, k::float32);
       return Outputs{k::full_like(x[0], p.at("fill_value").get<double>(), d)};
     }},
    {"empty_like",
     [](const Inputs& x, const json& p) {
       std::optional<k::DType> d;
       if (p.contains("dtype") && !p.at("dtype").is_null()) d = array_dtype(p, k::float32);
       return Outputs{k::empty_like(x[0], d)};
     }},
    {"meshgrid",
     [](const Inputs& x, const json& p) { return all(k::meshgrid(x, param<std::string>(p, "indexing", "xy"))); }},
};

}  // namespace

}  // namespace kiln::detail::keras_ops_array

namespace kiln::detail {

keras_op_api::OpEntries keras_ops_array_table() {
  keras_op_api::OpEntries all;
  for (const auto* group : {&keras_ops_array::shape_entries,
                             &keras_ops_array::matrix_entries,
                             &keras_ops_array::creation_entries})
    all.insert(all.end(), group->begin(), group->end());
  return all;
}

}  // namespace kiln::detail
