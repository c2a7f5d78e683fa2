#include "kiln/core/tensor.h"

#include "kiln/core/half.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/dispatch.h"
#include "core/tensor_impl.h"
#include "core/op_log.h"
#include "core/tracing.h"
#include "kiln/core/error.h"

namespace kiln {

uint64_t next_tensor_id() {
  static std::atomic<uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.size());
  int64_t acc = 1;
  for (int64_t i = s.rank() - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= s.dims()[i];
  }
  return st;
}

Tensor Tensor::symbolic(const Shape& shape, DType dtype) {
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = shape;
  impl->dtype = dtype;
  return Tensor(impl);
}

Tensor alias_with_shape(const Tensor& t, const Shape& shape) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = t.impl()->storage;
  impl->shape = shape;
  impl->dtype = t.dtype();
  impl->device = t.device();
  return Tensor(impl);
}

Tensor leading_rows_view(const Tensor& t, int64_t start, int64_t stop) {
  if (t.rank() == 0 || start < 0 || stop < start || stop > t.shape()[0])
    throw ValueError("leading_rows_view: rows [" + std::to_string(start) + ", " + std::to_string(stop) +
                     ") of a " + t.shape().to_string() + " tensor");
  // The view's Storage owns nothing (no deleter); the parent's stays alive beside it.
  struct View {
    std::shared_ptr<Storage> parent;
    Storage rows;
  };
  auto v = std::make_shared<View>();
  v->parent = t.impl()->storage;
  const int64_t n = t.shape()[0];
  const std::size_t row_bytes = n == 0 ? 0 : static_cast<std::size_t>(t.size() / n) * dtype_size(t.dtype());
  v->rows.data = static_cast<char*>(v->parent->data) + static_cast<std::size_t>(start) * row_bytes;
  v->rows.nbytes = static_cast<std::size_t>(stop - start) * row_bytes;
  v->rows.device = v->parent->device;
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::shared_ptr<Storage>(v, &v->rows);
  std::vector<int64_t> dims = t.shape().dims();
  dims[0] = stop - start;
  impl->shape = Shape(dims);
  impl->dtype = t.dtype();
  impl->device = t.device();
  return Tensor(impl);
}

namespace {
template <class T>
Tensor from_flat(const std::vector<T>& v, const Shape& shape) {
  Tensor t = Tensor::empty(shape, dtype_of_v<T>);
  if (static_cast<int64_t>(v.size()) != shape.num_elements())
    throw ValueError("Tensor: " + std::to_string(v.size()) + " values do not fill shape " + shape.to_string());
  if constexpr (std::is_same_v<T, bool>) {
    auto* p = t.data<bool>();
    for (std::size_t i = 0; i < v.size(); ++i) p[i] = v[i];
  } else if constexpr (std::is_same_v<T, std::string>) {
    std::copy(v.begin(), v.end(), t.data<std::string>());
    return t;  // strings stay on the host, as TF keeps them whatever the device scope
  } else if (!v.empty()) {
    std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(T));
  }
  // Literals are filled on the host, then placed where a DeviceScope asks.
  return t.to(default_device());
}

template <class L, class T>
void nested(const L& l, std::vector<T>& out, std::vector<int64_t>& dims, std::size_t depth) {
  if constexpr (std::is_arithmetic_v<std::decay_t<decltype(*l.begin())>>) {
    if (dims.size() <= depth) dims.push_back(static_cast<int64_t>(l.size()));
    else if (dims[depth] != static_cast<int64_t>(l.size()))
      throw ValueError("Tensor: ragged nested list (lengths " + std::to_string(dims[depth]) + " and " +
                       std::to_string(l.size()) + " at depth " + std::to_string(depth) + ")");
    for (auto v : l) out.push_back(static_cast<T>(v));
  } else {
    if (dims.size() <= depth) dims.push_back(static_cast<int64_t>(l.size()));
    else if (dims[depth] != static_cast<int64_t>(l.size()))
      throw ValueError("Tensor: ragged nested list (lengths " + std::to_string(dims[depth]) + " and " +
                       std::to_string(l.size()) + " at depth " + std::to_string(depth) + ")");
    for (const auto& sub : l) nested(sub, out, dims, depth + 1);
    if (l.size() == 0) {
      // An empty inner list still fixes the remaining rank to zero-size dims.
    }
  }
}
// The storage a literal's elements are gathered in before conversion: the
// C++ type itself, so a double keeps its digits until the dtype is chosen.
template <class T> struct literal_storage { using type = T; };
template <> struct literal_storage<int> { using type = int32_t; };
template <> struct literal_storage<long> { using type = int64_t; };
template <> struct literal_storage<long long> { using type = int64_t; };
template <class T> DType literal_dtype() {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) return DType::float32;
  else if constexpr (std::is_same_v<T, bool>) return DType::bool_;
  else return dtype_of_v<typename literal_storage<T>::type>;
}

Tensor convert_host(const Tensor& src, DType dtype) {
  if (src.dtype() == dtype) return src;
  if (dtype == DType::string)
    throw TypeError("Tensor: a number literal cannot have dtype string; write the text itself, Tensor(\"1.5\")");
  Tensor out = Tensor::empty(src.shape(), dtype);
  dispatch_any_dtype(src.dtype(), [&](auto from) {
    using S = decltype(from);
    const S* p = static_cast<const S*>(src.raw_data());
    dispatch_any_dtype(dtype, [&](auto to) {
      using D = decltype(to);
      D* q = static_cast<D*>(out.raw_data());
      for (int64_t i = 0; i < src.size(); ++i) q[i] = static_cast<D>(p[i]);
    });
  });
  return out;
}

template <class T, class L>
Tensor from_literal(const L& l, std::optional<DType> dtype) {
  using S = typename literal_storage<T>::type;
  std::vector<S> flat;
  std::vector<int64_t> dims;
  nested(l, flat, dims, 0);
  return convert_host(from_flat<S>(flat, Shape(dims)), dtype.value_or(literal_dtype<T>()));
}
}  // namespace

template <class T>
Tensor::Tensor(const std::vector<T>& data, const Shape& shape) : impl_(from_flat<T>(data, shape).impl_) {}
template Tensor::Tensor(const std::vector<float>&, const Shape&);
template Tensor::Tensor(const std::vector<double>&, const Shape&);
template Tensor::Tensor(const std::vector<float16_t>&, const Shape&);
template Tensor::Tensor(const std::vector<bfloat16_t>&, const Shape&);
template Tensor::Tensor(const std::vector<int32_t>&, const Shape&);
template Tensor::Tensor(const std::vector<int64_t>&, const Shape&);
template Tensor::Tensor(const std::vector<uint8_t>&, const Shape&);
template Tensor::Tensor(const std::vector<int8_t>&, const Shape&);
template Tensor::Tensor(const std::vector<bool>&, const Shape&);
template Tensor::Tensor(const std::vector<std::string>&, const Shape&);

Tensor::Tensor(const char* s) : Tensor(std::string(s)) {}
Tensor::Tensor(const std::string& s) : impl_(from_flat<std::string>({s}, Shape{}).impl_) {}
template <std::same_as<const char*> S>
Tensor::Tensor(std::initializer_list<S> v)
    : impl_(from_flat<std::string>(std::vector<std::string>(v.begin(), v.end()), Shape{static_cast<int64_t>(v.size())})
                .impl_) {}
template <std::same_as<const char*> S>
Tensor::Tensor(std::initializer_list<std::initializer_list<S>> v) {
  std::vector<std::string> flat;
  const int64_t cols = v.size() == 0 ? 0 : static_cast<int64_t>(v.begin()->size());
  for (const auto& row : v) {
    if (static_cast<int64_t>(row.size()) != cols)
      throw ValueError("Tensor: ragged nested list (lengths " + std::to_string(cols) + " and " +
                       std::to_string(row.size()) + " at depth 1); a ragged list of strings needs RaggedTensor");
    flat.insert(flat.end(), row.begin(), row.end());
  }
  impl_ = from_flat<std::string>(flat, Shape{static_cast<int64_t>(v.size()), cols}).impl_;
}
template Tensor::Tensor(std::initializer_list<const char*>);
template Tensor::Tensor(std::initializer_list<std::initializer_list<const char*>>);

Tensor::Tensor(float v) : impl_(from_flat<float>({v}, Shape{}).impl_) {}
Tensor::Tensor(double v) : Tensor(v, DType::float32) {}
Tensor::Tensor(double v, DType dtype) : impl_(convert_host(from_flat<double>({v}, Shape{}), dtype).impl_) {}
Tensor::Tensor(int32_t v) : impl_(from_flat<int32_t>({v}, Shape{}).impl_) {}
Tensor::Tensor(int64_t v) : impl_(from_flat<int64_t>({v}, Shape{}).impl_) {}
Tensor::Tensor(bool v) : impl_(from_flat<bool>({v}, Shape{}).impl_) {}

template <class T> using L1 = std::initializer_list<T>;
template <class T> using L2 = std::initializer_list<L1<T>>;
template <class T> using L3 = std::initializer_list<L2<T>>;
template <class T> using L4 = std::initializer_list<L3<T>>;
template <TensorLiteral T>
Tensor::Tensor(L1<T> v, std::optional<DType> d) : impl_(from_literal<T>(v, d).impl_) {}
template <TensorLiteral T>
Tensor::Tensor(L2<T> v, std::optional<DType> d) : impl_(from_literal<T>(v, d).impl_) {}
template <TensorLiteral T>
Tensor::Tensor(L3<T> v, std::optional<DType> d) : impl_(from_literal<T>(v, d).impl_) {}
template <TensorLiteral T>
Tensor::Tensor(L4<T> v, std::optional<DType> d) : impl_(from_literal<T>(v, d).impl_) {}
#define KILN_INST(T)                                                 \
  template Tensor::Tensor(L1<T>, std::optional<DType>);              \
  template Tensor::Tensor(L2<T>, std::optional<DType>);              \
  template Tensor::Tensor(L3<T>, std::optional<DType>);              \
  template Tensor::Tensor(L4<T>, std::optional<DType>);
KILN_INST(float) KILN_INST(double) KILN_INST(int) KILN_INST(long) KILN_INST(long long) KILN_INST(bool)
#undef KILN_INST

static const TensorImpl& need(const std::shared_ptr<TensorImpl>& p) {
  if (!p) throw ValueError("Operation on an undefined Tensor (default-constructed handle)");
  return *p;
}

bool Tensor::is_symbolic() const { return impl_ && !impl_->storage; }
const Shape& Tensor::shape() const {
  // Sizes read by C++ code outside any op would be frozen into a shape-polymorphic trace.
  if (oplog::logging()) oplog::outside_op("reads a tensor's shape outside an op (Tensor::shape() or size())");
  return need(impl_).shape;
}
int64_t Tensor::rank() const { return need(impl_).shape.rank(); }
DType Tensor::dtype() const { return need(impl_).dtype; }
Device Tensor::device() const { return need(impl_).device; }
int64_t Tensor::size() const {
  const Shape& s = shape();
  // A zero (or unknown) dimension makes the count zero whatever the others are,
  // so it is looked for before any product can overflow.
  for (auto d : s)
    if (d <= 0) return 0;
  int64_t n = 1;
  for (auto d : s)
    if (__builtin_mul_overflow(n, d, &n))
      throw ValueError("Tensor of shape " + s.to_string() + " has more elements than fit in int64");
  return n;
}
uint64_t Tensor::id() const { return need(impl_).id; }

void* Tensor::raw_data() {
  const auto& i = need(impl_);
  if (!i.storage) throw ValueError("Symbolic tensor " + i.shape.to_string() + " has no data: call the model on real inputs");
  return i.storage->data;
}
const void* Tensor::raw_data() const { return const_cast<Tensor*>(this)->raw_data(); }

template <class T>
T* Tensor::data() {
  if (dtype() != dtype_of_v<T>)
    throw TypeError("Tensor::data<" + dtype_name(dtype_of_v<T>) + ">() called on a " + dtype_name(dtype()) + " tensor");
  if (!device().is_cpu()) throw ValueError("Tensor::data(): tensor is on " + device().to_string() + "; call .to(Device::cpu()) first");
  return static_cast<T*>(raw_data());
}
template <class T>
const T* Tensor::data() const {
  return const_cast<Tensor*>(this)->data<T>();
}
#define KILN_INST(T) template T* Tensor::data<T>(); template const T* Tensor::data<T>() const;
KILN_INST(float) KILN_INST(double) KILN_INST(float16_t) KILN_INST(bfloat16_t) KILN_INST(int32_t) KILN_INST(int64_t) KILN_INST(uint8_t) KILN_INST(int8_t) KILN_INST(bool)
KILN_INST(std::string)
#undef KILN_INST

namespace {
// Strings convert to nothing else and nothing converts to them: TF's "Cast string to float is not supported".
void check_string_read(DType have, bool want_string, const char* what) {
  if ((have == DType::string) != want_string)
    throw TypeError(std::string(what) + ": cannot read a " + dtype_name(have) + " tensor as " +
                    (want_string ? "std::string" : "a number") +
                    (want_string ? "; strings::as_string formats numbers" : "; strings::to_number parses strings"));
}
}  // namespace

template <class T>
std::vector<T> Tensor::to_vector() const {
  tracing::check_value_read("Tensor::to_vector() / item()");
  Tensor host = to(Device::cpu());
  check_string_read(host.dtype(), std::is_same_v<T, std::string>, "Tensor::to_vector()");
  if constexpr (std::is_same_v<T, std::string>) {
    const auto* p = static_cast<const std::string*>(host.raw_data());
    return std::vector<std::string>(p, p + host.size());
  }
  std::vector<T> out(static_cast<std::size_t>(host.size()));
  if constexpr (!std::is_same_v<T, std::string>) dispatch_any_dtype(host.dtype(), [&](auto tag) {
    using S = decltype(tag);
    const S* p = static_cast<const S*>(host.raw_data());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(p[i]);
  });
  return out;
}
template <class T>
T Tensor::item() const {
  if (size() != 1)
    throw ValueError("item(): expected a tensor with exactly one element, but received shape " + shape().to_string());
  // Read in place rather than through to_vector(): host logic in a replayed
  // trace (an optimizer's step count) reads scalars without allocating.
  tracing::check_value_read("Tensor::to_vector() / item()");
  const Tensor host = to(Device::cpu());
  check_string_read(host.dtype(), std::is_same_v<T, std::string>, "Tensor::item()");
  if constexpr (std::is_same_v<T, std::string>) return *static_cast<const std::string*>(host.raw_data());
  T out{};
  if constexpr (!std::is_same_v<T, std::string>) dispatch_any_dtype(host.dtype(), [&](auto tag) {
    using S = decltype(tag);
    out = static_cast<T>(*static_cast<const S*>(host.raw_data()));
  });
  return out;
}
#define KILN_INST(T) template std::vector<T> Tensor::to_vector<T>() const; template T Tensor::item<T>() const;
KILN_INST(float) KILN_INST(double) KILN_INST(float16_t) KILN_INST(bfloat16_t) KILN_INST(int32_t) KILN_INST(int64_t) KILN_INST(uint8_t) KILN_INST(int8_t) KILN_INST(bool)
KILN_INST(std::string)
#undef KILN_INST

}  // namespace kiln
