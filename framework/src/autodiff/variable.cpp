#include "kiln/autodiff/variable.h"

#include "autodiff/autodiff.h"
#include "backend/backend.h"
#include "backend/recording.h"
#include "core/op_log.h"
#include "core/tracing.h"
#include "core/tensor_impl.h"
#include "kiln/core/error.h"

namespace kiln {

struct VariableImpl {
  Tensor value;  // its id stays fixed: assign writes in place, so tapes can key on it
  std::string name;
  std::string path;
  bool trainable = true;
  std::function<Tensor(const Tensor&)> constraint;
  bool autocast = true;
};

static VariableImpl& need(const std::shared_ptr<VariableImpl>& p) {
  if (!p) throw ValueError("Operation on an undefined Variable (default-constructed handle)");
  return *p;
}

Variable::Variable(const Tensor& initial, VariableOptions o) : impl_(std::make_shared<VariableImpl>()) {
  if (!initial.defined() || initial.is_symbolic())
    throw ValueError("Variable '" + o.name + "': the initial value must be a concrete tensor");
  tracing::check_variable_creation();
  // Created once, on the first trace: a re-run of a shape-polymorphic trace's op log keeps this variable.
  oplog::Inside created_once;
  // Created inside a trace, a variable is initialized once, now, not on every replay.
  backend::materialize(initial);
  backend::RecordingPause once;
  // Inside a DeviceScope the variable lives on the scope's device, wherever its initial value is.
  const Tensor placed = initial.to(scoped_device().value_or(initial.device()));
  impl_->value = placed.same_as(initial) ? initial.clone() : placed;
  impl_->name = o.name;
  impl_->path = o.name;
  impl_->trainable = o.trainable;
  impl_->constraint = std::move(o.constraint);
  impl_->autocast = o.autocast;
}

const std::string& Variable::name() const { return need(impl_).name; }
const std::string& Variable::path() const { return need(impl_).path; }
void Variable::set_path(const std::string& p) { need(impl_).path = p; }
bool Variable::trainable() const { return need(impl_).trainable; }
bool Variable::autocast() const { return need(impl_).autocast; }
void Variable::set_trainable(bool t) { need(impl_).trainable = t; }
const std::function<Tensor(const Tensor&)>& Variable::constraint() const { return need(impl_).constraint; }
Shape Variable::shape() const { return need(impl_).value.shape(); }
DType Variable::dtype() const { return need(impl_).value.dtype(); }
Device Variable::device() const { return need(impl_).value.device(); }
uint64_t Variable::id() const { return need(impl_).value.id(); }

namespace {
// The dtype of the innermost AutocastScope on this thread, if it casts.
thread_local std::optional<DType> autocast_dtype;
}  // namespace

AutocastScope::AutocastScope(std::optional<DType> dtype) : saved_(autocast_dtype) { autocast_dtype = dtype; }
AutocastScope::~AutocastScope() { autocast_dtype = saved_; }
std::optional<DType> AutocastScope::current() { return autocast_dtype; }

namespace {
// The VariableValueScopes alive on this thread, innermost last.
thread_local std::vector<std::pair<const VariableImpl*, Tensor>> value_scopes;

const Tensor* scoped_value(const VariableImpl* v) {
  for (auto it = value_scopes.rbegin(); it != value_scopes.rend(); ++it)
    if (it->first == v) return &it->second;
  return nullptr;
}
}  // namespace

VariableValueScope::VariableValueScope(const Variable& variable, const Tensor& value) {
  const VariableImpl& v = need(variable.impl());
  if (!(value.shape() == v.value.shape()) || value.dtype() != v.value.dtype())
    throw ValueError("VariableValueScope: variable '" + v.path + "' holds " + dtype_name(v.value.dtype()) + " " +
                     v.value.shape().to_string() + ", but the value is " + dtype_name(value.dtype()) + " " +
                     value.shape().to_string());
  value_scopes.emplace_back(&v, value);
}

VariableValueScope::~VariableValueScope() { value_scopes.pop_back(); }

Tensor Variable::value() const {
  if (autocast_dtype) {
    const VariableImpl& v = need(impl_);
    if (v.autocast && is_floating(v.value.dtype()) && v.value.dtype() != *autocast_dtype) {
      const DType to = *autocast_dtype;
      AutocastScope uncast(std::nullopt);
      return value().cast(to);
    }
  }
  if (!value_scopes.empty())
    if (const Tensor* t = scoped_value(impl_.get())) return *t;
  if (oplog::logging()) {
    // The snapshot is a new handle with the variable's id, so it is marked as this read's own output.
    Tensor out;
    {
      oplog::Inside inside;
      out = value();
    }
    oplog::append("ReadVariableOp", [var = *this] { return std::vector<Tensor>{var.value()}; }, {out}, {true});
    return out;
  }
  const Tensor& v = need(impl_).value;
  if (autodiff::active()) autodiff::variable_read(*this);
  // A new handle on the same buffer with the variable's id (tapes key on it).
  // Holding the buffer is what makes it a snapshot: see unique_storage().
  auto snap = std::make_shared<TensorImpl>(*v.impl());
  if (backend::active_recording()) {
    // Replays must see the variable's current value: a traced read is a
    // recorded copy into the snapshot's own buffer.
    Tensor fresh = Tensor::empty(v.shape(), v.dtype(), v.device());
    backend::backend_for(v.device()).copy_from(v, fresh);
    snap->storage = fresh.impl()->storage;
    if (auto* rec = backend::active_recording(); rec && rec->size()) {
      rec->nodes().back().type = "ReadVariableOp";
      rec->nodes().back().label = need(impl_).path;
    }
  }
  return Tensor(snap);
}
Tensor Variable::read_value_untracked() const { return need(impl_).value; }

namespace {
bool shared(const Tensor& t) { return t.impl()->storage.use_count() > 1; }

// Copy-on-write: when a snapshot holds the buffer, give the variable a fresh one
// (with the current contents when keep is set), so the snapshot keeps its values.
void unique_storage(Tensor& value, bool keep) {
  if (!shared(value)) return;
  // Inside a trace the copy happens once, now; replays make their own when
  // needed (Recording::replay), so the recorded writes all target `value`.
  backend::RecordingPause once;
  Tensor fresh = Tensor::empty(value.shape(), value.dtype(), value.device());
  if (keep) backend::backend_for(value.device()).copy_from(value, fresh);
  value.impl()->storage = fresh.impl()->storage;
}

/// Inside a trace, a write to the variable's buffer is a write the replays repeat in place.
void note_in_place_write(const Tensor& value) {
  if (auto* rec = backend::active_recording()) rec->writes_in_place(value);
}
}  // namespace

Tensor Variable::value_for_update() {
  auto& v = need(impl_);
  unique_storage(v.value, true);
  note_in_place_write(v.value);
  return v.value;
}

static void check_assign(const VariableImpl& v, const Tensor& t, const char* op) {
  if (!(t.shape() == v.value.shape()))
    throw ShapeError(std::string(op) + ": cannot assign a tensor of shape " + t.shape().to_string() +
                     " to variable '" + v.path + "' of shape " + v.value.shape().to_string());
  if (t.device() != v.value.device())
    throw ValueError(std::string(op) + ": variable '" + v.path + "' is on " + v.value.device().to_string() +
                     " but the value is on " + t.device().to_string());
}

Variable& Variable::assign(const Tensor& t) {
  if (oplog::logging()) {
    oplog::run_logged("assign", [var = *this](const Tensor& x) { Variable(var).assign(x); }, t);
    return *this;
  }
  auto& v = need(impl_);
  check_assign(v, t, "assign");
  Tensor src = t.dtype() == v.value.dtype() ? t : t.cast(v.value.dtype());
  if (src.same_as(v.value) || src.raw_data() == v.value.raw_data()) return *this;
  unique_storage(v.value, false);
  note_in_place_write(v.value);
  backend::backend_for(v.value.device()).copy_from(src, v.value);
  return *this;
}

namespace {
void update_in_place(VariableImpl& v, const Tensor& t, backend::BinaryOp op, const char* name) {
  check_assign(v, t, name);
  Tensor src = t.dtype() == v.value.dtype() ? t : t.cast(v.value.dtype());
  if (backend::active_recording()) unique_storage(v.value, true);
  note_in_place_write(v.value);
  auto& be = backend::backend_for(v.value.device());
  const bool half = is_half_float(v.value.dtype());
  // 16-bit values are added in float32 and rounded once, as the ops compute them.
  auto apply = [&](Tensor& out) {
    if (!half) return be.binary(op, v.value, src, out);
    Tensor a = Tensor::empty(v.value.shape(), DType::float32, v.value.device());
    Tensor b = Tensor::empty(src.shape(), DType::float32, src.device());
    be.cast(v.value, a);
    be.cast(src, b);
    be.binary(op, a, b, a);
    be.cast(a, out);
  };
  if (shared(v.value)) {  // a snapshot holds the buffer: write the result to a fresh one
    Tensor fresh = Tensor::empty(v.value.shape(), v.value.dtype(), v.value.device());
    apply(fresh);
    v.value.impl()->storage = fresh.impl()->storage;
    return;
  }
  apply(v.value);
}
}  // namespace

Variable& Variable::assign_add(const Tensor& t) {
  if (oplog::logging()) {
    oplog::run_logged("assign_add", [var = *this](const Tensor& x) { Variable(var).assign_add(x); }, t);
    return *this;
  }
  update_in_place(need(impl_), t, backend::BinaryOp::add, "assign_add");
  return *this;
}
Variable& Variable::assign_sub(const Tensor& t) {
  if (oplog::logging()) {
    oplog::run_logged("assign_sub", [var = *this](const Tensor& x) { Variable(var).assign_sub(x); }, t);
    return *this;
  }
  update_in_place(need(impl_), t, backend::BinaryOp::sub, "assign_sub");
  return *this;
}

void Variable::move_to(Device d) {
  auto& v = need(impl_);
  if (v.value.device() == d) return;
  // Keep the same TensorImpl (and id) so tapes and optimizers keep working.
  Tensor moved = v.value.to(d);
  v.value.impl()->storage = moved.impl()->storage;
  v.value.impl()->device = d;
}

}  // namespace kiln
