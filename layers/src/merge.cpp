// Merge layers. Shapes are checked in build() (so functional graphs fail at
// construction, naming the layer and the shapes) and again at every call.
#include "kiln/layers/merge.h"

#include <algorithm>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {

std::string shapes_string(const std::vector<Shape>& shapes) {
  std::string s = "[";
  for (std::size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].to_string();
  return s + "]";
}

std::vector<Shape> shapes_of(const std::vector<Tensor>& xs) {
  std::vector<Shape> out;
  for (const auto& x : xs) out.push_back(x.shape());
  return out;
}

[[noreturn]] void not_a_list(const Layer& l, const Shape& s) {
  throw ValueError("Layer '" + l.name() + "' (" + l.class_name() +
                   ") should be called on a list of inputs, but received a single input with shape " + s.to_string());
}

}  // namespace

// ---- element-wise merges ----
MergeImpl::MergeImpl(MergeOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  apply_input_shape(*this, o_);
  set_supports_masking(true);
}

Tensor MergeImpl::compute_list_mask(const std::vector<Tensor>&, const std::vector<Tensor>& masks) {
  for (const auto& m : masks)
    if (!m.defined()) return Tensor();
  Tensor out = masks.at(0);
  for (std::size_t i = 1; i < masks.size(); ++i) out = logical_or(out, masks[i]);
  return out;
}

Shape MergeImpl::check_shapes(const std::vector<Shape>& shapes) {
  const std::string who = "Layer '" + name() + "' (" + class_name() + ")";
  if (shapes.empty()) throw ValueError(who + ": a merge layer should be called on a list of at least 1 input. Got 0 inputs.");
  if (exact_inputs() && shapes.size() != exact_inputs())
    throw ValueError(who + ": a `" + class_name() + "` layer should be called on exactly " + std::to_string(exact_inputs()) +
                     " inputs. Received: input_shape=" + shapes_string(shapes));
  int64_t batch = None;
  for (const auto& s : shapes) {
    if (s.rank() == 0) throw ShapeError(who + ": inputs must have a batch axis, but received shapes " + shapes_string(shapes));
    if (s[0] >= 0) {
      if (batch >= 0 && batch != s[0])
        throw ShapeError(who + ": cannot merge tensors with different batch sizes. Received tensors with shapes " +
                         shapes_string(shapes));
      batch = s[0];
    }
  }
  // Trailing axes pair up; a 1 (or None) stretches, as in Keras's _compute_elemwise_op_output_shape.
  Shape out = shapes[0];
  for (std::size_t k = 1; k < shapes.size(); ++k) {
    const Shape& s = shapes[k];
    const Shape& longer = out.rank() >= s.rank() ? out : s;
    const Shape& shorter = out.rank() >= s.rank() ? s : out;
    Shape merged = longer.slice(0, longer.rank() - shorter.rank() + 1);  // includes the batch axis
    merged[0] = batch;
    for (int64_t i = 1; i < shorter.rank(); ++i) {
      const int64_t a = longer[longer.rank() - shorter.rank() + i], b = shorter[i];
      if (a < 0 || b < 0) merged.push_back(None);
      else if (a == 1) merged.push_back(b);
      else if (b == 1) merged.push_back(a);
      else if (a != b)
        throw ShapeError(who + ": Inputs have incompatible shapes. Received shapes " + out.to_string() + " and " + s.to_string());
      else merged.push_back(a);
    }
    out = merged;
  }
  out[0] = batch;
  return out;
}

void MergeImpl::build(const std::vector<Shape>& shapes) { check_shapes(shapes); }

std::vector<Shape> MergeImpl::compute_output_shape(const std::vector<Shape>& shapes) { return {check_shapes(shapes)}; }
Shape MergeImpl::compute_output_shape(const Shape& s) { not_a_list(*this, s); }
Tensor MergeImpl::call(const Tensor& x, bool) { not_a_list(*this, x.shape()); }

std::vector<Tensor> MergeImpl::call(const std::vector<Tensor>& xs, bool) {
  check_shapes(shapes_of(xs));
  // Inputs of lower rank gain axes right after the batch axis, as in Keras's
  // Merge.call, so that the batch axis never pairs with a feature axis.
  int64_t rank = 0;
  for (const auto& x : xs) rank = std::max(rank, x.rank());
  std::vector<Tensor> cast_xs = merge_inputs(xs, compute_dtype());
  for (auto& v : cast_xs)
    while (v.rank() < rank) v = expand_dims(v, 1);
  return {merge(cast_xs)};
}

Config MergeImpl::get_config() const { return layer_config(*this); }

Tensor AddImpl::merge(const std::vector<Tensor>& xs) const {
  Tensor y = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) y = y + xs[i];
  return y;
}
Tensor SubtractImpl::merge(const std::vector<Tensor>& xs) const { return xs[0] - xs[1]; }
Tensor MultiplyImpl::merge(const std::vector<Tensor>& xs) const {
  Tensor y = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) y = y * xs[i];
  return y;
}
Tensor AverageImpl::merge(const std::vector<Tensor>& xs) const {
  Tensor y = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) y = y + xs[i];
  return y / static_cast<double>(xs.size());
}
Tensor MaximumImpl::merge(const std::vector<Tensor>& xs) const {
  Tensor y = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) y = maximum(y, xs[i]);
  return y;
}
Tensor MinimumImpl::merge(const std::vector<Tensor>& xs) const {
  Tensor y = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) y = minimum(y, xs[i]);
  return y;
}

// ---- Concatenate ----
ConcatenateImpl::ConcatenateImpl(ConcatenateOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  apply_input_shape(*this, o_);
  set_supports_masking(true);
}

Tensor ConcatenateImpl::compute_list_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& masks) {
  if (std::none_of(masks.begin(), masks.end(), [](const Tensor& m) { return m.defined(); })) return Tensor();
  std::vector<Tensor> full;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const Tensor m = i < masks.size() ? masks[i] : Tensor();
    if (!m.defined()) full.push_back(ones(xs[i].shape(), DType::bool_));
    else if (m.rank() < xs[i].rank()) full.push_back(logical_or(expand_dims(m, -1), zeros(xs[i].shape(), DType::bool_)));
    else full.push_back(m);
  }
  const Tensor c = cast(concat(full, o_.axis), DType::float32);
  return greater(max(c, Axes{-1}), zeros({}, DType::float32));
}

std::vector<Shape> ConcatenateImpl::compute_output_shape(const std::vector<Shape>& shapes) {
  const std::string who = "Layer '" + name() + "' (Concatenate)";
  if (shapes.empty()) throw ValueError(who + ": a `Concatenate` layer should be called on a list of at least 1 input");
  const int64_t rank = shapes[0].rank();
  const int64_t axis = o_.axis < 0 ? o_.axis + rank : o_.axis;
  auto mismatch = [&] {
    throw ShapeError(who + ": a `Concatenate` layer requires inputs with matching shapes except for the concatenation axis " +
                     std::to_string(o_.axis) + ". Received: input_shape=" + shapes_string(shapes));
  };
  if (axis < 0 || axis >= rank)
    throw ValueError(who + ": axis " + std::to_string(o_.axis) + " is out of range for inputs of rank " + std::to_string(rank) +
                     ". Received: input_shape=" + shapes_string(shapes));
  Shape out = shapes[0];
  for (std::size_t k = 1; k < shapes.size(); ++k) {
    const Shape& s = shapes[k];
    if (s.rank() != rank) mismatch();
    for (int64_t i = 0; i < rank; ++i) {
      if (i == axis) {
        out[i] = (out[i] < 0 || s[i] < 0) ? None : out[i] + s[i];
      } else if (out[i] >= 0 && s[i] >= 0 && out[i] != s[i]) {
        mismatch();
      } else if (out[i] < 0) {
        out[i] = s[i];
      }
    }
  }
  return {out};
}

void ConcatenateImpl::build(const std::vector<Shape>& shapes) { compute_output_shape(shapes); }
Shape ConcatenateImpl::compute_output_shape(const Shape& s) { not_a_list(*this, s); }
Tensor ConcatenateImpl::call(const Tensor& x, bool) { not_a_list(*this, x.shape()); }

std::vector<Tensor> ConcatenateImpl::call(const std::vector<Tensor>& xs, bool) {
  compute_output_shape(shapes_of(xs));
  return {concat(merge_inputs(xs, compute_dtype()), o_.axis)};
}

Config ConcatenateImpl::get_config() const { return layer_config(*this); }

// ---- Dot ----
DotImpl::DotImpl(Size2 axes, DotOptions o)
    : Layer(base_options(o)), axes_(axes), o_(std::move(o)) {
  apply_input_shape(*this, o_);
  set_supports_masking(true);
}

Tensor DotImpl::compute_list_mask(const std::vector<Tensor>&, const std::vector<Tensor>&) { return Tensor(); }

std::pair<int, int> DotImpl::resolve_axes(const Shape& a, const Shape& b) const {
  const int a0 = axes_.first < 0 ? axes_.first + static_cast<int>(a.rank()) : axes_.first;
  const int a1 = axes_.second < 0 ? axes_.second + static_cast<int>(b.rank()) : axes_.second;
  return {a0, a1};
}

std::vector<Shape> DotImpl::compute_output_shape(const std::vector<Shape>& shapes) {
  const std::string who = "Layer '" + name() + "' (Dot)";
  if (shapes.size() != 2)
    throw ValueError(who + ": a `Dot` layer should be called on a list of 2 inputs. Received: input_shape=" + shapes_string(shapes));
  const Shape &a = shapes[0], &b = shapes[1];
  if (a.rank() < 2 || b.rank() < 2)
    throw ShapeError(who + ": inputs must have rank >= 2 (a batch axis and at least one more). Received: input_shape=" +
                     shapes_string(shapes));
  auto [a0, a1] = resolve_axes(a, b);
  if (a0 < 1 || a0 >= a.rank() || a1 < 1 || a1 >= b.rank())
    throw ValueError(who + ": axes (" + std::to_string(axes_.first) + ", " + std::to_string(axes_.second) +
                     ") are out of range (or the batch axis) for input shapes " + shapes_string(shapes));
  if (a[a0] >= 0 && b[a1] >= 0 && a[a0] != b[a1])
    throw ShapeError(who + ": Incompatible input shapes: axis values " + std::to_string(a[a0]) + " (at axis " +
                     std::to_string(a0) + ") != " + std::to_string(b[a1]) + " (at axis " + std::to_string(a1) +
                     "). Full input shapes: " + a.to_string() + ", " + b.to_string());
  if (a[0] >= 0 && b[0] >= 0 && a[0] != b[0])
    throw ShapeError(who + ": the batch sizes differ. Full input shapes: " + a.to_string() + ", " + b.to_string());
  Shape out{a[0] >= 0 ? a[0] : b[0]};
  for (int64_t i = 1; i < a.rank(); ++i)
    if (i != a0) out.push_back(a[i]);
  for (int64_t i = 1; i < b.rank(); ++i)
    if (i != a1) out.push_back(b[i]);
  if (out.rank() == 1) out.push_back(1);
  return {out};
}

void DotImpl::build(const std::vector<Shape>& shapes) { compute_output_shape(shapes); }
Shape DotImpl::compute_output_shape(const Shape& s) { not_a_list(*this, s); }
Tensor DotImpl::call(const Tensor& x, bool) { not_a_list(*this, x.shape()); }

namespace {
// x / sqrt(max(sum(x^2, axis), 1e-12)), as keras.utils.normalize / ops.normalize.
Tensor l2_normalize(const Tensor& x, int axis) {
  Tensor ss = sum(square(x), axis, true);
  return x * rsqrt(maximum(ss, scalar_like(1e-12, ss)));
}
}  // namespace

std::vector<Tensor> DotImpl::call(const std::vector<Tensor>& xs, bool) {
  Shape out_shape = compute_output_shape(shapes_of(xs))[0];
  Tensor a = cast_input(xs[0], compute_dtype()), b = cast_input(xs[1], compute_dtype());
  auto [a0, a1] = resolve_axes(a.shape(), b.shape());
  if (o_.normalize) {
    a = l2_normalize(a, a0);
    b = l2_normalize(b, a1);
  }
  // a -> (batch, P, K) with the contracted axis last; b -> (batch, K, Q) with it first.
  const int64_t n = a.shape()[0], k = a.shape()[a0];
  std::vector<int> pa{0}, pb{0, a1};
  for (int i = 1; i < a.rank(); ++i)
    if (i != a0) pa.push_back(i);
  pa.push_back(a0);
  for (int i = 1; i < b.rank(); ++i)
    if (i != a1) pb.push_back(i);
  Tensor a3 = reshape(transpose(a, pa), {n, -1, k});
  Tensor b3 = reshape(transpose(b, pb), {n, k, -1});
  Tensor y = matmul(a3, b3);  // (batch, P, Q)
  out_shape[0] = n;
  return {reshape(y, out_shape)};
}

Config DotImpl::get_config() const {
  Config c = layer_config(*this);
  if (axes_.first == axes_.second) c["axes"] = axes_.first;
  return c;
}

KILN_REGISTER_LAYER(AddImpl, "Add")
KILN_REGISTER_LAYER(SubtractImpl, "Subtract")
KILN_REGISTER_LAYER(MultiplyImpl, "Multiply")
KILN_REGISTER_LAYER(AverageImpl, "Average")
KILN_REGISTER_LAYER(MaximumImpl, "Maximum")
KILN_REGISTER_LAYER(MinimumImpl, "Minimum")
KILN_REGISTER_LAYER(ConcatenateImpl, "Concatenate")
KILN_REGISTER_LAYER(DotImpl, "Dot")

Tensor add(const std::vector<Tensor>& inputs, MergeOptions options) { return Add(std::move(options))(inputs); }

Tensor subtract(const std::vector<Tensor>& inputs, MergeOptions options) {
  return Subtract(std::move(options))(inputs);
}

Tensor multiply(const std::vector<Tensor>& inputs, MergeOptions options) {
  return Multiply(std::move(options))(inputs);
}

Tensor average(const std::vector<Tensor>& inputs, MergeOptions options) { return Average(std::move(options))(inputs); }

Tensor maximum(const std::vector<Tensor>& inputs, MergeOptions options) { return Maximum(std::move(options))(inputs); }

Tensor minimum(const std::vector<Tensor>& inputs, MergeOptions options) { return Minimum(std::move(options))(inputs); }

Tensor concatenate(const std::vector<Tensor>& inputs, int axis, ConcatenateOptions options) {
  options.axis = axis;
  return Concatenate(std::move(options))(inputs);
}

Tensor dot(const std::vector<Tensor>& inputs, Size2 axes, bool normalize, DotOptions options) {
  options.normalize = normalize;
  return Dot(axes, std::move(options))(inputs);
}

}  // namespace kiln::layers
