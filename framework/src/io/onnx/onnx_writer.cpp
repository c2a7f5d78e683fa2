#include "io/onnx/onnx_writer.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/tensor_impl.h"
#include "kiln/core/error.h"

namespace kiln::io::onnx {

namespace {

const Storage* key_of(const Tensor& t) { return t.impl()->storage.get(); }

/// A size as k times a product of dynamic dimensions, from its values in the two traces.
struct DimExpr {
  int64_t k = 1;
  std::vector<std::size_t> symbols;
};

std::optional<DimExpr> solve(int64_t a, int64_t b, const std::vector<Symbol>& symbols) {
  DimExpr e;
  if (a == b) {
    e.k = a;
    return e;
  }
  if (a <= 0 || b % a != 0) return std::nullopt;
  int64_t ratio = b / a, div = 1;
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    const int64_t r = symbols[s].large / symbols[s].small;
    while (ratio % r == 0) {
      ratio /= r;
      div *= symbols[s].small;
      e.symbols.push_back(s);
    }
  }
  if (ratio != 1 || a % div != 0) return std::nullopt;
  e.k = a / div;
  return e;
}

std::string describe(const DimExpr& e, const std::vector<Symbol>& symbols) {
  std::string s = e.k == 1 ? "" : std::to_string(e.k);
  for (std::size_t i : e.symbols) s += (s.empty() ? "" : "*") + symbols[i].name;
  return s;
}

/// What the exporter writes one at a time: a node, or a composite standing for its nodes.
struct Item {
  const backend::Node* node = nullptr;
  const backend::Composite* composite = nullptr;
};

std::vector<Item> items_of(const backend::Recording& rec) {
  std::vector<const backend::Composite*> cs;
  for (const auto& c : rec.composites())
    if (c.end > c.begin) cs.push_back(&c);
  // Outermost first where they nest.
  std::sort(cs.begin(), cs.end(), [](auto* x, auto* y) { return x->begin != y->begin ? x->begin < y->begin : x->end > y->end; });
  std::vector<Item> items;
  std::size_t next = 0;
  for (std::size_t i = 0; i < rec.nodes().size();) {
    while (next < cs.size() && cs[next]->begin < i) ++next;
    if (next < cs.size() && cs[next]->begin == i) {
      items.push_back({nullptr, cs[next]});
      i = cs[next++]->end;
    } else {
      items.push_back({&rec.nodes()[i++], nullptr});
    }
  }
  return items;
}

}  // namespace

GraphWriter::GraphWriter(const Trace& a, const Trace& b, std::vector<Symbol> symbols, Settings settings)
    : ta_(a), tb_(b), symbols_(std::move(symbols)), settings_(std::move(settings)) {}

void GraphWriter::fail(const std::string& why) const {
  std::string where = "export_onnx('" + settings_.function + "')";
  if (current_) {
    where += ": op '" + current_->type + "'";
    if (!current_->layer.empty()) where += " of layer '" + current_->layer + "'";
  }
  throw ValueError(where + ": " + why);
}

int64_t GraphWriter::fixed(int64_t a, int64_t b, const std::string& what) const {
  if (a != b)
    fail(what + " depends on the input's dynamic dimensions (" + std::to_string(a) + " and " + std::to_string(b) +
         " in two traces), which ONNX cannot express here; give fixed sizes in input_signature");
  return a;
}

std::vector<std::string> GraphWriter::node(const std::string& op, std::vector<std::string> inputs,
                                           std::vector<Attribute> attrs, int outputs) {
  int& n = counts_[op];
  const std::string name = n == 0 ? op : op + "_" + std::to_string(n);
  ++n;
  NodeProto np{op, std::move(inputs), {}, name, std::move(attrs)};
  for (int k = 0; k < outputs; ++k) np.outputs.push_back(k == 0 ? name : name + ":" + std::to_string(k));
  g_.nodes.push_back(np);
  return np.outputs;
}

std::string GraphWriter::ints(const std::vector<int64_t>& v) {
  TensorData t{"", DType::int64, {static_cast<int64_t>(v.size())}, {}};
  t.raw.resize(v.size() * 8);
  if (!v.empty()) std::memcpy(t.raw.data(), v.data(), t.raw.size());  // an empty vector's data() may be null
  int& n = counts_["const_ints"];
  t.name = "const_ints_" + std::to_string(n++);
  g_.initializers.push_back(t);
  return t.name;
}

std::string GraphWriter::initializer(TensorData t) {
  int& n = counts_["const_tensor"];
  t.name = "const_tensor_" + std::to_string(n++);
  g_.initializers.push_back(t);
  return t.name;
}

std::string GraphWriter::scalar(double v, DType dtype) {
  TensorData t{"", dtype, {}, std::string(dtype_size(dtype), '\0')};
  auto put = [&](auto x) { std::memcpy(t.raw.data(), &x, sizeof x); };
  switch (dtype) {
    case DType::float32: put(static_cast<float>(v)); break;
    case DType::float64: put(v); break;
    case DType::int32: put(static_cast<int32_t>(v)); break;
    case DType::int64: put(static_cast<int64_t>(v)); break;
    case DType::uint8: put(static_cast<uint8_t>(v)); break;
    case DType::int8: put(static_cast<int8_t>(v)); break;
    case DType::bool_: put(static_cast<uint8_t>(v != 0)); break;
  }
  int& n = counts_["const_scalar"];
  t.name = "const_scalar_" + std::to_string(n++);
  g_.initializers.push_back(t);
  return t.name;
}

std::string GraphWriter::cast(const std::string& value, DType to) {
  return node1("Cast", {value}, {int_attr("to", onnx_dtype(to))});
}

std::string GraphWriter::symbol_tensor(std::size_t s) {
  auto it = symbol_values_.find(s);
  if (it != symbol_values_.end()) return it->second;
  const Symbol& sym = symbols_[s];
  const std::string shape = node1("Shape", {g_.inputs.at(static_cast<std::size_t>(sym.input)).name});
  return symbol_values_[s] = node1("Gather", {shape, ints({sym.axis})}, {int_attr("axis", 0)});
}

std::string GraphWriter::dim_tensor(int64_t a, int64_t b) {
  auto e = solve(a, b, symbols_);
  if (!e || e->symbols.empty())
    fail("a size of " + std::to_string(a) + " (and " + std::to_string(b) +
         " in a trace with larger dynamic dimensions) is not a multiple of the dynamic dimensions; give fixed "
         "sizes in input_signature");
  std::string v = symbol_tensor(e->symbols[0]);
  for (std::size_t i = 1; i < e->symbols.size(); ++i) v = node1("Mul", {v, symbol_tensor(e->symbols[i])});
  return e->k == 1 ? v : node1("Mul", {v, ints({e->k})});
}

std::string GraphWriter::shape_tensor(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) fail("the rank of a shape differs between traces (" + a.to_string() + ", " + b.to_string() + ")");
  if (a == b) return ints(a.dims());
  std::vector<std::string> parts;
  std::vector<int64_t> run;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a[i] == b[i]) {
      run.push_back(a[i]);
      continue;
    }
    if (!run.empty()) parts.push_back(ints(run));
    run.clear();
    parts.push_back(dim_tensor(a[i], b[i]));
  }
  if (!run.empty()) parts.push_back(ints(run));
  return parts.size() == 1 ? parts[0] : node1("Concat", parts, {int_attr("axis", 0)});
}

std::vector<Dim> GraphWriter::dims_of(const Shape& a, const Shape& b) const {
  std::vector<Dim> dims;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a[i] == b[i]) {
      dims.push_back({a[i], {}});
      continue;
    }
    auto e = solve(a[i], b[i], symbols_);
    dims.push_back({-1, e ? describe(*e, symbols_) : "d" + std::to_string(i)});
  }
  return dims;
}

std::string GraphWriter::capture(const Tensor& t, const Tensor& tb) {
  if (t.shape() != tb.shape())
    fail("a constant's shape depends on the input's dynamic dimensions (" + t.shape().to_string() + " and " +
         tb.shape().to_string() + "); give fixed sizes in input_signature");
  const bool variable = current_ && current_->type == "ReadVariableOp" && !current_->label.empty();
  const std::string base = variable ? current_->label : "const";
  int& n = counts_[base];
  TensorData d{n == 0 && variable ? base : base + "_" + std::to_string(n), t.dtype(), t.shape().dims(), {}};
  ++n;
  const Tensor host = t.device().is_cpu() ? t : t.to(Device::cpu());
  if (t.size() > 0) d.raw.assign(static_cast<const char*>(host.raw_data()), static_cast<std::size_t>(t.size()) * dtype_size(t.dtype()));
  g_.initializers.push_back(d);
  values_[key_of(t)] = {d.name, t.shape(), t.shape(), t.dtype()};
  return d.name;
}

std::string GraphWriter::reshape(const Value& v, const Shape& sa, const Shape& sb) {
  if (v.a == sa && v.b == sb) return v.name;
  if (v.a.num_elements() != sa.num_elements() || v.b.num_elements() != sb.num_elements())
    fail("a buffer holding " + v.a.to_string() + " is read as " + sa.to_string());
  return node1("Reshape", {v.name, shape_tensor(sa, sb)});
}

std::string GraphWriter::value_of(const Tensor& ta, const Tensor& tb, const Shape& sa, const Shape& sb) {
  const Storage* key = key_of(ta);
  if (pending_.count(key)) values_[key] = resolve(key);
  auto it = values_.find(key);
  if (it == values_.end()) {
    if (auto w = written_by_.find(key); w != written_by_.end())
      fail("it reads a buffer that op '" + w->second + "' writes only later or as a value ONNX has no output for");
    capture(ta, tb);
    it = values_.find(key);
  }
  return reshape(it->second, sa, sb);
}

std::string GraphWriter::in(const Pair& p, std::size_t i) {
  return value_of(p.a.inputs.at(i), p.b.inputs.at(i), p.a.inputs[i].shape(), p.b.inputs[i].shape());
}

std::string GraphWriter::in_as(const Pair& p, std::size_t i, const Shape& sa, const Shape& sb) {
  return value_of(p.a.inputs.at(i), p.b.inputs.at(i), sa, sb);
}

void GraphWriter::set(const Pair& p, std::size_t i, const std::string& value, DType dtype, const Shape& sa,
                      const Shape& sb) {
  const Tensor& out = p.a.outputs.at(i);
  const std::string v = dtype == out.dtype() ? value : cast(value, out.dtype());
  pending_.erase(key_of(out));
  values_[key_of(out)] = {v, sa, sb, out.dtype()};
}

void GraphWriter::set(const Pair& p, std::size_t i, const std::string& value, DType dtype) {
  set(p, i, value, dtype, p.a.outputs.at(i).shape(), p.b.outputs.at(i).shape());
}

void GraphWriter::write_piece(const Pair& p, Piece piece) {
  const Tensor& out = p.a.outputs.at(0);
  const Storage* key = key_of(out);
  auto [it, fresh] = pending_.try_emplace(key);
  if (fresh) {
    it->second.a = out.shape();
    it->second.b = p.b.outputs.at(0).shape();
    it->second.dtype = out.dtype();
    if (auto v = values_.find(key); v != values_.end()) {
      it->second.base = v->second;
      values_.erase(v);
    }
  }
  it->second.pieces.push_back(std::move(piece));
}

std::string GraphWriter::pad(const Pending& pd, const Piece& piece, const std::string& block) {
  std::vector<int64_t> pads(static_cast<std::size_t>(2 * pd.a.rank()));
  for (int64_t d = 0; d < pd.a.rank(); ++d) {
    const auto i = static_cast<std::size_t>(d);
    pads[i] = fixed(piece.start_a[i], piece.start_b[i], "where a slice is written");
    pads[i + pads.size() / 2] = fixed(pd.a[d] - piece.start_a[i] - piece.len_a[i],
                                      pd.b[d] - piece.start_b[i] - piece.len_b[i], "where a slice is written");
  }
  return node1("Pad", {block, ints(pads)});
}

GraphWriter::Value GraphWriter::resolve(const Storage* key) {
  Pending pd = std::move(pending_.at(key));
  pending_.erase(key);
  const auto rank = static_cast<std::size_t>(pd.a.rank());
  // Pieces that tile one axis in order, each whole along the others: a Concat.
  std::vector<const Piece*> order;
  for (const auto& pc : pd.pieces) order.push_back(&pc);
  for (std::size_t axis = 0; axis < rank && !pd.base; ++axis) {
    std::sort(order.begin(), order.end(), [&](const Piece* x, const Piece* y) { return x->start_a[axis] < y->start_a[axis]; });
    int64_t at_a = 0, at_b = 0;
    bool tiles = true;
    for (const Piece* pc : order) {
      for (std::size_t d = 0; d < rank; ++d)
        if (d != axis && (pc->start_a[d] != 0 || pc->start_b[d] != 0 || pc->len_a[d] != pd.a[static_cast<int64_t>(d)] ||
                          pc->len_b[d] != pd.b[static_cast<int64_t>(d)]))
          tiles = false;
      tiles = tiles && pc->start_a[axis] == at_a && pc->start_b[axis] == at_b;
      at_a += pc->len_a[axis];
      at_b += pc->len_b[axis];
    }
    if (!tiles || at_a != pd.a[static_cast<int64_t>(axis)] || at_b != pd.b[static_cast<int64_t>(axis)]) continue;
    if (order.size() == 1) return {order[0]->block, pd.a, pd.b, pd.dtype};
    std::vector<std::string> blocks;
    for (const Piece* pc : order) blocks.push_back(pc->block);
    return {node1("Concat", blocks, {int_attr("axis", static_cast<int64_t>(axis))}), pd.a, pd.b, pd.dtype};
  }
  // Otherwise each piece padded to the whole buffer; where none wrote, the buffer's earlier value.
  std::string sum, mask;
  for (const auto& pc : pd.pieces) {
    const std::string padded = pad(pd, pc, pc.block);
    sum = sum.empty() ? padded : node1("Add", {sum, padded});
    if (!pd.base) continue;
    const std::string ones = node1("Expand", {scalar(1, DType::float32), node1("Shape", {pc.block})});
    const std::string m = pad(pd, pc, ones);
    mask = mask.empty() ? m : node1("Add", {mask, m});
  }
  if (pd.base) {
    const std::string written = node1("Greater", {mask, scalar(0.5, DType::float32)});
    sum = node1("Where", {written, sum, reshape(*pd.base, pd.a, pd.b)});
  }
  return {sum, pd.a, pd.b, pd.dtype};
}

void GraphWriter::emit(const Pair& p) {
  current_ = &p.a;
  if ((p.a.type == "If" && p.a.branches.size() == 2 && p.b.branches.size() == 2) ||
      (p.a.type == "While" && p.a.branches.size() >= 4 && p.b.branches.size() == p.a.branches.size())) {
    if (p.a.type == "If") emit_if(p);
    else emit_while(p);
    current_ = nullptr;
    return;
  }
  // Dropout's seed draw is host logic too, but what to say about it is that it trains.
  if (p.a.host && p.a.type != "Dropout")
    fail("it runs host logic at every call, which an ONNX graph cannot hold; export an inference function "
         "without it");
  emit_op(*this, p);
  current_ = nullptr;
}

void GraphWriter::emit(const backend::Recording& ra, const backend::Composite& a, const backend::Recording& rb,
                       const backend::Composite& b) {
  current_ = &a.op;
  if (emit_composite(*this, Pair{a.op, b.op})) {
    current_ = nullptr;
    return;
  }
  // Written as the ops it is made of, which must then be the same in both traces.
  if (a.end - a.begin != b.end - b.begin)
    fail("ONNX has no op for it with these options, and its ops change with the size of the dynamic dimensions; "
         "give fixed sizes in input_signature");
  for (std::size_t k = 0; k < a.end - a.begin; ++k) emit(Pair{ra.nodes()[a.begin + k], rb.nodes()[b.begin + k]});
}

void GraphWriter::emit_all(const backend::Recording& a, const backend::Recording& b) {
  const auto ia = items_of(a), ib = items_of(b);
  bool same = ia.size() == ib.size();
  for (std::size_t i = 0; same && i < ia.size(); ++i) {
    const auto& x = ia[i].node ? *ia[i].node : ia[i].composite->op;
    const auto& y = ib[i].node ? *ib[i].node : ib[i].composite->op;
    same = !ia[i].node == !ib[i].node && x.type == y.type && x.inputs.size() == y.inputs.size() &&
           x.outputs.size() == y.outputs.size();
  }
  if (!same)
    fail("its graph changes with the size of the dynamic dimensions (" + std::to_string(ia.size()) + " ops when traced "
         "with them at " + std::to_string(symbols_.empty() ? 0 : symbols_[0].small) + ", " + std::to_string(ib.size()) +
         " at larger sizes); give fixed sizes in input_signature");
  for (std::size_t i = 0; i < ia.size(); ++i) {
    if (ia[i].node) emit(Pair{*ia[i].node, *ib[i].node});
    else emit(a, *ia[i].composite, b, *ib[i].composite);
  }
}

GraphProto GraphWriter::build() {
  const auto& na = ta_.rec.nodes();
  for (const auto& n : na)
    for (const auto& o : n.outputs) written_by_.try_emplace(key_of(o), n.type);
  for (std::size_t i = 0; i < ta_.inputs.size(); ++i) {
    const Tensor& x = ta_.inputs[i];
    ValueInfo vi{i < settings_.input_names.size() ? settings_.input_names[i] : "args_" + std::to_string(i), x.dtype(),
                 dims_of(x.shape(), tb_.inputs[i].shape())};
    g_.inputs.push_back(vi);
    values_[key_of(x)] = {vi.name, x.shape(), tb_.inputs[i].shape(), x.dtype()};
    written_by_.erase(key_of(x));
  }
  emit_all(ta_.rec, tb_.rec);
  for (std::size_t i = 0; i < ta_.outputs.size(); ++i) {
    const Tensor& y = ta_.outputs[i];
    const Tensor& yb = tb_.outputs[i];
    const std::string v = value_of(y, yb, y.shape(), yb.shape());
    ValueInfo vi{i < settings_.output_names.size() ? settings_.output_names[i] : "output_" + std::to_string(i),
                 y.dtype(), dims_of(y.shape(), yb.shape())};
    g_.nodes.push_back({"Identity", {v}, {vi.name}, vi.name, {}});
    g_.outputs.push_back(vi);
  }
  g_.name = settings_.function;
  return std::move(g_);
}

}  // namespace kiln::io::onnx
