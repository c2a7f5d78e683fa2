// Where a tensor's memory comes from: the backend of its device allocates,
// fills and copies it. (The Tensor class itself is core; these members are
// the part of it that needs a backend.)
#include <algorithm>
#include <limits>
#include <string>

#include "backend/backend.h"
#include "core/file_load_scope.h"
#include "core/op_log.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"

namespace kiln {

namespace {
/// The bytes a tensor of `shape` and `dtype` needs; a count that overflows, or
/// that no allocator could serve, is an error rather than a wrapped small buffer.
std::size_t checked_nbytes(const Shape& shape, DType dtype) {
  auto fail = [&](const char* why) {
    return ValueError("cannot allocate a tensor of shape " + shape.to_string() + " and dtype " + dtype_name(dtype) +
                      ": " + why);
  };
  if (!shape.is_fully_defined()) throw fail("the shape is not fully defined");
  int64_t n = 0;
  try {
    n = shape.num_elements();
  } catch (const ValueError&) {
    throw fail("it has more elements than fit in int64");
  }
  int64_t nbytes = 0;
  if (__builtin_mul_overflow(n, static_cast<int64_t>(dtype_size(dtype)), &nbytes) ||
      nbytes > std::numeric_limits<int64_t>::max() / 2)
    throw fail("its size in bytes exceeds what can be addressed");
  detail::check_load_allocation(nbytes, "a tensor of shape " + shape.to_string() + " and dtype " + dtype_name(dtype));
  return static_cast<std::size_t>(nbytes);
}
}  // namespace

namespace {
// String elements are std::string objects: constructed here, destroyed with the
// storage, never in a backend's byte pool.
void delete_strings(void* data, std::size_t, Device) { delete[] static_cast<std::string*>(data); }

std::shared_ptr<Storage> allocate_strings(const Shape& shape, Device device) {
  if (!device.is_cpu())
    throw TypeError("string tensors live on the CPU: a string tensor of shape " + shape.to_string() +
                    " cannot be placed on " + device.to_string());
  const std::size_t nbytes = checked_nbytes(shape, DType::string);
  auto s = std::make_shared<Storage>();
  s->data = new std::string[std::max<std::size_t>(nbytes / sizeof(std::string), 1)];
  s->nbytes = nbytes;
  s->device = device;
  s->deleter = &delete_strings;
  return s;
}
}  // namespace

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = shape;
  impl->dtype = dtype;
  impl->device = device;
  impl->storage = dtype == DType::string ? allocate_strings(shape, device)
                                         : backend::backend_for(device).allocate(checked_nbytes(shape, dtype));
  return Tensor(impl);
}

Tensor Tensor::clone() const {
  if (oplog::logging()) return oplog::run_logged("clone", [](const Tensor& t) { return t.clone(); }, *this);
  Tensor out = Tensor::empty(shape(), dtype(), device());
  if (size() > 0) {
    auto& be = backend::backend_for(device());
    be.copy_from(*this, out);
  }
  return out;
}

Tensor Tensor::to(Device d) const {
  if (oplog::logging()) return oplog::run_logged("to", [](const Tensor& t, Device dev) { return t.to(dev); }, *this, d);
  if (device() == d) return *this;
  Tensor out = Tensor::empty(shape(), dtype(), d);
  auto& be = backend::backend_for(d.is_cpu() ? device() : d);
  be.copy_from(*this, out);
  return out;
}

Tensor fill(const Shape& shape, double value, DType dtype) {
  KILN_LOG_OP(fill, shape, value, dtype);
  Tensor t = Tensor::empty(shape, dtype, default_device());
  backend::backend_for(t.device()).fill(t, value);
  return t;
}
Tensor zeros(const Shape& shape, DType dtype) {
  KILN_LOG_OP(zeros, shape, dtype);
  return fill(shape, 0.0, dtype);
}
Tensor ones(const Shape& shape, DType dtype) {
  KILN_LOG_OP(ones, shape, dtype);
  return fill(shape, 1.0, dtype);
}
Tensor zeros_like(const Tensor& t) {
  KILN_LOG_OP(zeros_like, t);
  Tensor o = Tensor::empty(t.shape(), t.dtype(), t.device());
  backend::backend_for(o.device()).fill(o, 0.0);
  return o;
}
Tensor ones_like(const Tensor& t) {
  KILN_LOG_OP(ones_like, t);
  Tensor o = Tensor::empty(t.shape(), t.dtype(), t.device());
  backend::backend_for(o.device()).fill(o, 1.0);
  return o;
}
Tensor scalar_like(double v, const Tensor& like) {
  KILN_LOG_OP(scalar_like, v, like);
  Tensor o = Tensor::empty(Shape{}, like.dtype(), like.device());
  backend::backend_for(o.device()).fill(o, v);
  return o;
}

}  // namespace kiln
