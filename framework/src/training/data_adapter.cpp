// Data adapters: arrays and Datasets as passes of Batches.
#include "training/data_adapter.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/number_text.h"
#include "core/tensor_impl.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/training/model.h"
#include "kiln/training/sequential.h"
#include "kiln/ops/random.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::training {

namespace {

// The row indices are made on the host; arrays may live on a device.
Tensor take_rows(const Tensor& t, const Tensor& idx) {
  return gather(t, idx.device() == t.device() ? idx : idx.to(t.device()), 0);
}

Tensor row_range(int64_t start, int64_t stop) {
  return range(static_cast<double>(start), static_cast<double>(stop), 1.0, DType::int64);
}

Arrays take_rows(const Arrays& a, const Tensor& idx) {
  Arrays r;
  for (const auto& t : a.x) r.x.push_back(take_rows(t, idx));
  for (const auto& t : a.y) r.y.push_back(take_rows(t, idx));
  if (a.sample_weight.defined()) r.sample_weight = take_rows(a.sample_weight, idx);
  r.n = idx.shape()[0];
  return r;
}

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (auto d : v) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return s;
}

/// Splits an element into x, y and sample weight: the first components feed
/// the model's inputs, the next its outputs, and one more is the sample weight.
Batch element_to_batch(const Element& e, const Model& m) {
  Batch b;
  const std::size_t nin = std::max<std::size_t>(m.inputs().size(), 1);
  const std::size_t nout = static_cast<std::size_t>(m.num_outputs());
  if (e.empty()) throw ValueError("Dataset produced an empty element");
  if (e.size() <= nin) {
    b.x.assign(e.begin(), e.end());
    return b;
  }
  b.x.assign(e.begin(), e.begin() + nin);
  const std::size_t rest = e.size() - nin;
  const std::size_t ny = std::min(rest, nout);
  b.y.assign(e.begin() + nin, e.begin() + nin + ny);
  if (rest > ny) b.sample_weight = e[nin + ny];
  return b;
}

/// Keras's check (input_spec.assert_input_compatibility): a model is called
/// with exactly as many arrays as it has inputs. Subclassed models declare no
/// inputs, so only functional and Sequential models are checked.
void check_input_count(const Model& m, const std::vector<Tensor>& x) {
  std::size_t expected = 0;
  if (m.is_functional()) expected = m.inputs().size();
  else if (dynamic_cast<const Sequential*>(&m)) expected = 1;
  if (expected == 0 || x.size() == expected) return;
  std::string received;
  for (const auto& t : x) received += (received.empty() ? "" : ", ") + std::string("Tensor(shape=") + t.shape().to_string() + ")";
  throw ValueError("Layer \"" + m.name() + "\" expects " + std::to_string(expected) + " input(s), but it received " +
                   std::to_string(x.size()) + " input tensors. Inputs received: [" + received + "]");
}

}  // namespace

std::vector<Tensor> order_by_names(const Data& d, const std::vector<std::string>& names, const char* what) {
  if (d.names().empty()) return d.tensors();
  std::vector<Tensor> out;
  for (const auto& n : names) {
    auto it = std::find(d.names().begin(), d.names().end(), n);
    if (it == d.names().end()) {
      std::string given;
      for (const auto& g : d.names()) given += (given.empty() ? "" : ", ") + g;
      throw ValueError(std::string("No data provided for ") + what + " '" + n + "'. Expected names: received {" + given + "}");
    }
    out.push_back(d.tensors()[static_cast<std::size_t>(it - d.names().begin())]);
  }
  return out;
}

Arrays make_arrays(const Model& m, const Data& x, const Data& y, const Tensor& sw, const std::string& where) {
  Arrays a;
  a.x = order_by_names(x, m.input_names(), "input");
  a.y = order_by_names(y, m.output_names(), "output");
  a.sample_weight = sw;
  if (a.x.empty()) throw ValueError(where + ": no input data (x) was given");
  check_input_count(m, a.x);
  for (const auto& t : a.x)
    if (!t.defined() || t.is_symbolic()) throw ValueError(where + ": x must hold concrete tensors");
  auto samples = [](const Tensor& t) -> int64_t { return t.rank() ? t.shape()[0] : 1; };
  std::vector<int64_t> xs, ys, sws;
  for (const auto& t : a.x) xs.push_back(samples(t));
  for (const auto& t : a.y) ys.push_back(samples(t));
  if (sw.defined()) sws.push_back(samples(sw));
  std::set<int64_t> all(xs.begin(), xs.end());
  all.insert(ys.begin(), ys.end());
  all.insert(sws.begin(), sws.end());
  // Keras's check_data_cardinality: every array is listed, so the odd one out is visible.
  if (all.size() > 1) {
    std::string msg = where + ": Data cardinality is ambiguous. Make sure all arrays contain the same number of "
                              "samples. 'x' sizes: " + join(xs);
    if (!ys.empty()) msg += "; 'y' sizes: " + join(ys);
    if (!sws.empty()) msg += "; 'sample_weight' sizes: " + join(sws);
    throw ValueError(msg);
  }
  a.n = xs[0];
  if (a.n == 0) throw ValueError(where + ": the input data is empty (0 samples)");
  return a;
}

Arrays make_input_arrays(const Model& m, const Data& x) {
  Arrays a;
  a.x = order_by_names(x, m.input_names(), "input");
  if (a.x.empty()) throw ValueError("predict(): no input data was given");
  check_input_count(m, a.x);
  a.n = a.x[0].shape()[0];
  for (const auto& t : a.x)
    if (t.shape()[0] != a.n) throw ValueError("predict(): all inputs must have the same number of samples");
  if (a.n == 0) throw ValueError("predict(): the input data is empty (0 samples)");
  return a;
}

void apply_class_weight(Arrays& a, const std::map<int, double>& class_weight) {
  if (class_weight.empty()) return;
  if (a.y.size() != 1) throw ValueError("fit(): class_weight is only supported for single-output models");
  const Tensor& y = a.y[0];
  Tensor labels = y;
  if (y.rank() >= 2 && y.shape()[-1] > 1) labels = argmax(y, -1);
  std::vector<int64_t> lv = labels.to_vector<int64_t>();
  std::vector<float> w(lv.size(), 1.0f);
  for (std::size_t i = 0; i < lv.size(); ++i) {
    auto it = class_weight.find(static_cast<int>(lv[i]));
    if (it != class_weight.end()) w[i] = static_cast<float>(it->second);
  }
  Tensor cw(w, Shape{static_cast<int64_t>(w.size())});
  a.sample_weight = a.sample_weight.defined() ? multiply(a.sample_weight, cw.cast(a.sample_weight.dtype())) : cw;
}

std::pair<Arrays, Arrays> split_tail(const Arrays& all, double fraction) {
  const auto split_at = static_cast<int64_t>(std::floor(static_cast<double>(all.n) * (1.0 - fraction)));
  if (split_at <= 0 || split_at >= all.n)
    throw ValueError("fit(): validation_split=" + kiln::detail::number_text(fraction) +
                     " leaves no training or no validation samples out of " + std::to_string(all.n));
  return {take_rows(all, row_range(0, split_at)), take_rows(all, row_range(split_at, all.n))};
}

int checked_batch_size(std::optional<int> requested, const std::string& where, const char* option) {
  const int bs = requested.value_or(32);
  if (bs <= 0) throw ValueError(where + ": " + option + " must be positive, got " + std::to_string(bs));
  return bs;
}

// ---------------- arrays ----------------
ArrayDataAdapter::ArrayDataAdapter(Arrays arrays, int batch_size, bool shuffle)
    : arrays_(std::make_shared<const Arrays>(std::move(arrays))), batch_size_(batch_size), shuffle_(shuffle) {}

BatchPull ArrayDataAdapter::start_pass() const {
  const int64_t n = arrays_->n, bs = batch_size_;
  Tensor order = shuffle_ ? random::permutation(n) : Tensor();
  return [a = arrays_, order, n, bs, start = int64_t(0)]() mutable -> std::optional<Batch> {
    if (start >= n) return std::nullopt;
    const int64_t stop = std::min(start + bs, n);
    Tensor idx = order.defined() ? slice(order, {Slice(start, stop)}) : row_range(start, stop);
    start = stop;
    Batch b;
    for (const auto& t : a->x) b.x.push_back(take_rows(t, idx));
    for (const auto& t : a->y) b.y.push_back(take_rows(t, idx));
    if (a->sample_weight.defined()) b.sample_weight = take_rows(a->sample_weight, idx);
    return b;
  };
}

BatchPull ArrayDataAdapter::start_pass_for_upload() const {
  const Arrays& a = *arrays_;
  bool host = true;
  for (const auto& t : a.x) host = host && t.device().is_cpu();
  for (const auto& t : a.y) host = host && t.device().is_cpu();
  if (a.sample_weight.defined()) host = host && a.sample_weight.device().is_cpu();
  if (shuffle_ || !host) return start_pass();
  return [a = arrays_, n = a.n, bs = int64_t(batch_size_), start = int64_t(0)]() mutable -> std::optional<Batch> {
    if (start >= n) return std::nullopt;
    const int64_t stop = std::min(start + bs, n);
    Batch b;
    for (const auto& t : a->x) b.x.push_back(leading_rows_view(t, start, stop));
    for (const auto& t : a->y) b.y.push_back(leading_rows_view(t, start, stop));
    if (a->sample_weight.defined()) b.sample_weight = leading_rows_view(a->sample_weight, start, stop);
    start = stop;
    return b;
  };
}

int ArrayDataAdapter::steps(std::optional<int> requested) const {
  const int per_pass = static_cast<int>((arrays_->n + batch_size_ - 1) / batch_size_);
  return requested ? std::min(per_pass, *requested) : per_pass;
}

// ---------------- Dataset ----------------
DatasetAdapter::DatasetAdapter(Dataset dataset, const Model& model) : dataset_(std::move(dataset)), model_(&model) {}

BatchPull DatasetAdapter::start_pass() const {
  return [next = dataset_.make_iterator(), m = model_]() -> std::optional<Batch> {
    auto e = next();
    if (!e) return std::nullopt;
    return element_to_batch(*e, *m);
  };
}

int DatasetAdapter::steps(std::optional<int> requested) const {
  // A Dataset's cardinality may be unknown: the steps asked for are taken at
  // their word, and an epoch still ends early if the data runs out.
  if (requested) return *requested;
  const int64_t card = dataset_.cardinality();
  return card >= 0 ? static_cast<int>(card) : 0;
}

}  // namespace kiln::training
