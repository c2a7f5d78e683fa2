// Flatten, Reshape, Permute, RepeatVector, ZeroPadding2D.
#include <algorithm>

#include "kiln/ops/array_ops.h"
#include "kiln/layers/reshaping.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {
std::string vec_string(const std::vector<int>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}
}  // namespace

// ---- Flatten ----
FlattenImpl::FlattenImpl(FlattenOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  o_.data_format = check_data_format("Flatten", o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.min_ndim = 1}});
}

Tensor FlattenImpl::call(const Tensor& x, bool) {
  Tensor t = x;
  if (o_.data_format == "channels_first" && t.rank() > 2) {
    std::vector<int> perm{0};
    for (int i = 2; i < t.rank(); ++i) perm.push_back(i);
    perm.push_back(1);
    t = transpose(t, perm);
  }
  int64_t rest = 1;
  for (int64_t i = 1; i < t.rank(); ++i) rest *= t.shape()[i];
  return reshape(t, {t.shape()[0], rest});
}

Shape FlattenImpl::compute_output_shape(const Shape& s) {
  if (s.rank() < 1) throw ShapeError("Layer '" + name() + "' (Flatten) expects inputs of rank >= 1, but received shape " + s.to_string());
  int64_t rest = 1;
  for (int64_t i = 1; i < s.rank(); ++i) rest = (rest < 0 || s[i] < 0) ? None : rest * s[i];
  return Shape{s[0], rest};
}

Config FlattenImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(FlattenImpl, "Flatten")

// ---- Reshape ----
ReshapeImpl::ReshapeImpl(Shape target, ReshapingOptions o)
    : Layer(base_options(o)), target_shape_(std::move(target)), o_(std::move(o)) {
  int unknown = 0;
  for (auto d : target_shape_) {
    if (d == -1) ++unknown;
    else if (d < 0) throw ValueError("Reshape: target_shape entries must be positive or -1, got " + target_shape_.to_string());
  }
  if (unknown > 1)
    throw ValueError("Reshape: there must be at most one unknown dimension (-1) in target_shape, got " + target_shape_.to_string());
  apply_input_shape(*this, o_);
}

Shape ReshapeImpl::compute_output_shape(const Shape& s) {
  Shape out{s.rank() > 0 ? s[0] : None};
  int64_t known_in = 1;
  bool in_known = true;
  for (int64_t i = 1; i < s.rank(); ++i) {
    if (s[i] < 0) in_known = false;
    else known_in *= s[i];
  }
  int64_t known_target = 1, unknown_at = -1;
  for (int64_t i = 0; i < target_shape_.rank(); ++i) {
    if (target_shape_[i] == -1) unknown_at = i;
    else known_target *= target_shape_[i];
  }
  for (auto d : target_shape_) out.push_back(d);
  auto fail = [&] {
    throw ValueError("Layer '" + name() + "' (Reshape): the total size of the new array must be unchanged, input_shape = " +
                     s.slice(1).to_string() + ", output_shape = " + target_shape_.to_string());
  };
  if (!in_known) return out;  // the -1 stays None
  if (unknown_at >= 0) {
    if (known_target == 0 || known_in % known_target != 0) fail();
    out[unknown_at + 1] = known_in / known_target;
  } else if (known_in != known_target) {
    fail();
  }
  return out;
}

Tensor ReshapeImpl::call(const Tensor& x, bool) {
  Shape out = compute_output_shape(x.shape());
  return reshape(x, out);
}

Config ReshapeImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(ReshapeImpl, "Reshape")

// ---- Permute ----
PermuteImpl::PermuteImpl(std::vector<int> dims, ReshapingOptions o)
    : Layer(base_options(o)), dims_(std::move(dims)), o_(std::move(o)) {
  std::vector<int> sorted = dims_;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int>(i) + 1)
      throw ValueError("Permute: invalid permutation argument `dims`, it should be a permutation of 1.." +
                       std::to_string(sorted.size()) + " (the batch axis is not included). Received: dims=" + vec_string(dims_));
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = static_cast<int64_t>(dims_.size()) + 1}});
}

Tensor PermuteImpl::call(const Tensor& x, bool) {
  std::vector<int> perm{0};
  perm.insert(perm.end(), dims_.begin(), dims_.end());
  return transpose(x, perm);
}

Shape PermuteImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != static_cast<int64_t>(dims_.size()) + 1)
    throw ShapeError("Layer '" + name() + "' (Permute): dims " + vec_string(dims_) + " need inputs of rank " +
                     std::to_string(dims_.size() + 1) + ", but received shape " + s.to_string());
  Shape out{s[0]};
  for (int d : dims_) out.push_back(s[d]);
  return out;
}

Config PermuteImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(PermuteImpl, "Permute")

// ---- RepeatVector ----
RepeatVectorImpl::RepeatVectorImpl(int64_t n, ReshapingOptions o) : Layer(base_options(o)), n_(n), o_(std::move(o)) {
  if (n_ <= 0) throw ValueError("RepeatVector: `n` must be a positive integer, got " + std::to_string(n_));
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 2}});
}

Tensor RepeatVectorImpl::call(const Tensor& x, bool) {
  return broadcast_to(expand_dims(x, 1), {x.shape()[0], n_, x.shape()[1]});
}

Shape RepeatVectorImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 2)
    throw ShapeError("Layer '" + name() + "' (RepeatVector) expects inputs of rank 2, but received shape " + s.to_string());
  return Shape{s[0], n_, s[1]};
}

Config RepeatVectorImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RepeatVectorImpl, "RepeatVector")

// ---- ZeroPadding2D ----
ZeroPadding2DImpl::ZeroPadding2DImpl(Size2 padding, ZeroPadding2DOptions o)
    : ZeroPadding2DImpl(Size2(padding.first), Size2(padding.second), std::move(o)) {}

ZeroPadding2DImpl::ZeroPadding2DImpl(Size2 h, Size2 w, ZeroPadding2DOptions o)
    : Layer(base_options(o)), h_(h), w_(w), o_(std::move(o)) {
  if (h_.first < 0 || h_.second < 0 || w_.first < 0 || w_.second < 0)
    throw ValueError("ZeroPadding2D: padding must be non-negative");
  o_.data_format = check_data_format("ZeroPadding2D", o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 4}});
}

Tensor ZeroPadding2DImpl::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = input;
  const int ha = cf ? 2 : 1, wa = cf ? 3 : 2;
  // Concatenating zero blocks keeps the op differentiable (the gradient is a slice).
  auto pad = [&](Tensor t, int axis, int before, int after) {
    std::vector<Tensor> parts;
    Shape zs = t.shape();
    if (before > 0) {
      zs[axis] = before;
      parts.push_back(zeros(zs, t.dtype()));
    }
    parts.push_back(t);
    if (after > 0) {
      zs[axis] = after;
      parts.push_back(zeros(zs, t.dtype()));
    }
    return parts.size() == 1 ? t : concat(parts, axis);
  };
  x = pad(x, ha, h_.first, h_.second);
  x = pad(x, wa, w_.first, w_.second);
  return x;
}

Shape ZeroPadding2DImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 4)
    throw ShapeError("Layer '" + name() + "' (ZeroPadding2D) expects inputs of rank 4, but received shape " + s.to_string());
  const bool cf = o_.data_format == "channels_first";
  Shape out = s;
  const int ha = cf ? 2 : 1, wa = cf ? 3 : 2;
  if (out[ha] >= 0) out[ha] += h_.first + h_.second;
  if (out[wa] >= 0) out[wa] += w_.first + w_.second;
  return out;
}

Config ZeroPadding2DImpl::get_config() const {
  Config c = base_config();
  c["padding"] = Config::array({size2_json(h_), size2_json(w_)});
  write_fields(c, o_);
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<ZeroPadding2DImpl> ZeroPadding2DImpl::from_config(const Config& config) {
  ConfigReader r("ZeroPadding2D", config);
  ZeroPadding2DOptions o;
  r.base(o);
  read_fields(r, o);
  Size2 h = 1, w = 1;
  if (r.has("padding")) {
    const auto& p = config["padding"];
    if (p.is_number_integer()) {
      h = w = Size2(p.get<int>());
    } else if (p.is_array() && p.size() == 2 && p[0].is_number_integer() && p[1].is_number_integer()) {
      h = Size2(p[0].get<int>());
      w = Size2(p[1].get<int>());
    } else if (p.is_array() && p.size() == 2 && p[0].is_array() && p[1].is_array() && p[0].size() == 2 &&
               p[1].size() == 2) {
      h = Size2(p[0][0].get<int>(), p[0][1].get<int>());
      w = Size2(p[1][0].get<int>(), p[1][1].get<int>());
    } else {
      r.fail("padding", "an int, (ph, pw) or ((top, bottom), (left, right))");
    }
  }
  return std::make_shared<ZeroPadding2DImpl>(h, w, std::move(o));
}

KILN_REGISTER_LAYER(ZeroPadding2DImpl, "ZeroPadding2D")

}  // namespace kiln::layers
