// Strided copies as ONNX ops. A copy reads its source through an offset and
// per-dimension strides; when those walk the source's own axes (a slice, a
// transpose, a broadcast, or a mix) it becomes Slice, Transpose, Reshape and
// Expand. Otherwise, for fixed shapes, it becomes a Gather of the listed
// elements. A copy into part of its destination (concatenation, padding) is a
// piece the writer assembles when the destination is next read.
#include <algorithm>
#include <cstring>
#include <limits>

#include "core/tensor_impl.h"
#include "io/onnx/onnx_emitters.h"

namespace kiln::io::onnx {

namespace {

/// How a strided walk of `shape` over a buffer shaped `s` maps onto its axes.
struct View {
  std::vector<int64_t> start, len, step;  // per buffer axis
  std::vector<int> order;           // buffer axes in walk order, then the axes it holds still
  std::vector<int> axis_of;         // per walked dimension: a buffer axis, -1 broadcast, -2 size one
  bool operator==(const View& o) const = default;
};

std::optional<View> decompose(const Shape& s, int64_t offset, const std::vector<int64_t>& strides, const Shape& shape) {
  const std::vector<int64_t> cs = contiguous_strides(s);
  const auto rank = static_cast<std::size_t>(s.rank());
  View v{std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1), std::vector<int64_t>(rank, 1), {}, {}};
  std::vector<bool> used(rank, false);
  for (int64_t j = 0; j < shape.rank(); ++j) {
    const int64_t st = strides[static_cast<std::size_t>(j)];
    if (shape[j] == 1) {
      v.axis_of.push_back(-2);
      continue;
    }
    if (st == 0) {
      v.axis_of.push_back(-1);
      continue;
    }
    int found = -1;
    for (std::size_t i = 0; i < rank && found < 0; ++i)
      if (!used[i] && s[static_cast<int64_t>(i)] > 1 && cs[i] == st) found = static_cast<int>(i);
    // A strided slice: every step-th element of the axis with the largest stride that divides it.
    for (std::size_t i = 0; i < rank && found < 0; ++i)
      if (!used[i] && s[static_cast<int64_t>(i)] > 1 && cs[i] < st && st % cs[i] == 0) found = static_cast<int>(i);
    if (found < 0) return std::nullopt;
    used[static_cast<std::size_t>(found)] = true;
    v.len[static_cast<std::size_t>(found)] = shape[j];
    v.step[static_cast<std::size_t>(found)] = st / cs[static_cast<std::size_t>(found)];
    v.axis_of.push_back(found);
    v.order.push_back(found);
  }
  int64_t rem = offset;
  for (std::size_t i = 0; i < rank; ++i) {
    const int64_t n = s[static_cast<int64_t>(i)];
    if (n == 1) continue;
    v.start[i] = rem / cs[i];
    rem -= v.start[i] * cs[i];
    if (v.start[i] + (v.len[i] - 1) * v.step[i] + 1 > n) return std::nullopt;
  }
  if (rem != 0) return std::nullopt;
  for (std::size_t i = 0; i < rank; ++i)
    if (!used[i]) v.order.push_back(static_cast<int>(i));
  return v;
}

/// Slice bounds the two traces agree on: constants, or counted from the end.
int64_t bound(GraphWriter& w, int64_t a, int64_t b, int64_t na, int64_t nb, bool end) {
  if (end && a == na && b == nb) return std::numeric_limits<int64_t>::max();
  if (a == b) return a;
  if (a - na == b - nb) return a - na;
  return w.fixed(a, b, end ? "where a slice ends" : "where a slice starts");
}

/// The source's elements that the walk reads, shaped `shape` (Slice, Transpose, Reshape, Expand).
std::string read_view(GraphWriter& w, const Pair& p, const View& va, const View& vb, const Shape& sa, const Shape& sb,
                      const Shape& ca, const Shape& cb) {
  std::string v = w.in_as(p, 0, sa, sb);
  std::vector<int64_t> starts, ends, axes, steps;
  Shape held_a = sa, held_b = sb;
  for (std::size_t i = 0; i < va.start.size(); ++i) {
    const auto d = static_cast<int64_t>(i);
    if (va.start[i] == 0 && vb.start[i] == 0 && va.len[i] == sa[d] && vb.len[i] == sb[d] && va.step[i] == 1) continue;
    const int64_t step = w.fixed(va.step[i], vb.step[i], "a strided slice's step");
    starts.push_back(bound(w, va.start[i], vb.start[i], sa[d], sb[d], false));
    ends.push_back(bound(w, va.start[i] + (va.len[i] - 1) * step + 1, vb.start[i] + (vb.len[i] - 1) * step + 1, sa[d],
                         sb[d], true));
    axes.push_back(d);
    steps.push_back(step);
    held_a[d] = va.len[i];
    held_b[d] = vb.len[i];
  }
  if (!axes.empty()) v = w.node1("Slice", {v, w.ints(starts), w.ints(ends), w.ints(axes), w.ints(steps)});
  std::vector<int64_t> perm(va.order.begin(), va.order.end());
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (!identity) {
    v = w.node1("Transpose", {v}, {ints_attr("perm", perm)});
    Shape ta = held_a, tb = held_b;
    for (std::size_t i = 0; i < perm.size(); ++i) {
      ta[static_cast<int64_t>(i)] = held_a[perm[i]];
      tb[static_cast<int64_t>(i)] = held_b[perm[i]];
    }
    held_a = ta, held_b = tb;
  }
  Shape ka = ca, kb = cb;  // the walk's shape with broadcast dimensions still 1
  bool broadcast = false;
  for (std::size_t j = 0; j < va.axis_of.size(); ++j)
    if (va.axis_of[j] == -1) {
      ka[static_cast<int64_t>(j)] = kb[static_cast<int64_t>(j)] = 1;
      broadcast = true;
    }
  if (held_a != ka || held_b != kb) v = w.node1("Reshape", {v, w.shape_tensor(ka, kb)});
  if (broadcast) v = w.node1("Expand", {v, w.shape_tensor(ca, cb)});
  return v;
}

/// A walk that matches no axes: the listed elements of the flattened source.
std::string gather_view(GraphWriter& w, const Pair& p, const Shape& sa, const Shape& sb, const Shape& ca,
                        const Shape& cb) {
  const auto& pa = p.a.params;
  w.fixed(sa.num_elements(), sb.num_elements(), "the size of a strided read that follows no axis of its source");
  w.fixed(ca.num_elements(), cb.num_elements(), "the size of a strided read that follows no axis of its source");
  std::vector<int64_t> idx(static_cast<std::size_t>(ca.num_elements()));
  const std::vector<int64_t> cs = contiguous_strides(ca);
  for (std::size_t e = 0; e < idx.size(); ++e) {
    int64_t at = pa.src_offset, rem = static_cast<int64_t>(e);
    for (std::size_t j = 0; j < cs.size(); ++j) {
      at += (rem / cs[j]) * pa.src_strides[j];
      rem %= cs[j];
    }
    idx[e] = at;
  }
  const std::string flat = w.in_as(p, 0, Shape{sa.num_elements()}, Shape{sb.num_elements()});
  return w.node1("Gather", {flat, w.node1("Reshape", {w.ints(idx), w.ints(ca.dims())})}, {int_attr("axis", 0)});
}

bool contiguous_whole(const backend::NodeParams& q, const Shape& dst) {
  return q.dst_offset == 0 && q.dst_strides == contiguous_strides(q.copy_shape) &&
         q.copy_shape.num_elements() == dst.num_elements();
}

}  // namespace

void emit_strided_copy(GraphWriter& w, const Pair& p) {
  const auto& qa = p.a.params;
  const auto& qb = p.b.params;
  const Shape sa = p.a.inputs[0].shape(), sb = p.b.inputs[0].shape();
  const Shape& ca = qa.copy_shape;
  const Shape& cb = qb.copy_shape;
  auto ra = decompose(sa, qa.src_offset, qa.src_strides, ca);
  auto rb = decompose(sb, qb.src_offset, qb.src_strides, cb);
  const bool follows = ra && rb && ra->order == rb->order && ra->axis_of == rb->axis_of && ra->step == rb->step;
  const std::string v = follows ? read_view(w, p, *ra, *rb, sa, sb, ca, cb) : gather_view(w, p, sa, sb, ca, cb);
  const DType dtype = p.a.outputs[0].dtype();
  const Shape& da = p.a.outputs[0].shape();
  const Shape& db = p.b.outputs[0].shape();
  if (contiguous_whole(qa, da) && contiguous_whole(qb, db)) {
    // A StridedAdd's second input is the destination it adds to.
    const std::string out = qa.flag_a ? w.node1("Add", {w.in_as(p, 1, ca, cb), v}) : v;
    w.set(p, 0, out, dtype, ca, cb);
    return;
  }
  if (qa.flag_a) w.fail("it adds into part of a buffer (the gradient of a slice or concatenation), which inference does not do");
  auto wa = decompose(da, qa.dst_offset, qa.dst_strides, ca);
  auto wb = decompose(db, qb.dst_offset, qb.dst_strides, cb);
  auto unit_steps = [](const View& v) { return std::all_of(v.step.begin(), v.step.end(), [](int64_t s) { return s == 1; }); };
  if (!wa || !wb || wa->order != wb->order || wa->axis_of != wb->axis_of || !unit_steps(*wa) ||
      std::count(wa->axis_of.begin(), wa->axis_of.end(), -1) > 0)
    w.fail("it writes " + ca.to_string() + " into " + da.to_string() + " along strides that follow no axes");
  // The block in the destination's axis order: the walked dimensions, transposed, then 1 for the axes held still.
  std::vector<int64_t> walked;  // destination axes of the copy's non-unit dimensions, in walk order
  Shape squeezed_a{std::vector<int64_t>{}}, squeezed_b{std::vector<int64_t>{}};
  for (std::size_t j = 0; j < wa->axis_of.size(); ++j)
    if (wa->axis_of[j] >= 0) {
      walked.push_back(wa->axis_of[j]);
      squeezed_a.dims().push_back(ca[static_cast<int64_t>(j)]);
      squeezed_b.dims().push_back(cb[static_cast<int64_t>(j)]);
    }
  std::string block = squeezed_a == ca && squeezed_b == cb
                          ? v
                          : w.node1("Reshape", {v, w.shape_tensor(squeezed_a, squeezed_b)});
  std::vector<int64_t> perm(walked.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) { return walked[static_cast<std::size_t>(x)] < walked[static_cast<std::size_t>(y)]; });
  if (!std::is_sorted(walked.begin(), walked.end())) block = w.node1("Transpose", {block}, {ints_attr("perm", perm)});
  Shape la{wa->len}, lb{wb->len};
  block = w.node1("Reshape", {block, w.shape_tensor(la, lb)});
  w.write_piece(p, GraphWriter::Piece{block, wa->start, wb->start, wa->len, wb->len});
}

}  // namespace kiln::io::onnx
