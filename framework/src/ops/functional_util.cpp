#include "ops/functional_util.h"

#include "autodiff/autodiff.h"
#include "backend/recording.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"

namespace kiln::functional {

std::string spec(const Tensor& t) { return dtype_name(t.dtype()) + " " + t.shape().to_string(); }

std::string specs(const std::vector<Tensor>& ts) {
  std::string s = "[";
  for (std::size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + spec(ts[i]);
  return s + "]";
}

void check_same_specs(const char* op, const char* what, const std::vector<Tensor>& before,
                      const std::vector<Tensor>& after) {
  bool same = before.size() == after.size();
  for (std::size_t i = 0; same && i < before.size(); ++i)
    same = after[i].defined() && before[i].shape() == after[i].shape() && before[i].dtype() == after[i].dtype();
  if (!same)
    throw ValueError(std::string(op) + ": " + what + " must keep the number, shapes and dtypes of the tensors: "
                     "expected " + specs(before) + ", but received " + specs(after));
}

int64_t leading_length(const char* op, const std::vector<Tensor>& xs, int axis, std::optional<int64_t> length) {
  if (xs.empty()) {
    if (!length) throw ValueError(std::string(op) + ": `length` must be given when there are no xs to scan over");
    if (*length < 0) throw ValueError(std::string(op) + ": `length` must be >= 0, but received " + std::to_string(*length));
    return *length;
  }
  std::optional<int64_t> n = length;
  for (const auto& x : xs) {
    if (!x.defined() || x.rank() == 0 || axis >= x.rank() || axis < -x.rank())
      throw ValueError(std::string(op) + ": every tensor to scan over needs axis " + std::to_string(axis) +
                       ", but received " + (x.defined() ? spec(x) : std::string("an undefined tensor")));
    const int64_t len = x.shape()[axis];
    if (n && *n != len)
      throw ValueError(std::string(op) + ": every tensor to scan over must have the same length along axis " +
                       std::to_string(axis) + (length ? " (and equal `length`=" + std::to_string(*length) + ")" : "") +
                       ", but received " + specs(xs));
    n = len;
  }
  return *n;
}

std::vector<Tensor> slices_at(const std::vector<Tensor>& xs, int64_t t) {
  std::vector<Tensor> out;
  out.reserve(xs.size());
  for (const auto& x : xs) out.push_back(x[t]);
  return out;
}

std::vector<Tensor> zero_slices(const std::vector<Tensor>& xs) {
  std::vector<Tensor> out;
  for (const auto& x : xs) {
    std::vector<int64_t> dims(x.shape().dims().begin() + 1, x.shape().dims().end());
    out.push_back(zeros(Shape(dims), x.dtype()).to(x.device()));
  }
  return out;
}

std::vector<Tensor> probe_outputs(const std::function<std::vector<Tensor>()>& fn) {
  autodiff::Pause pause;
  backend::RecordingPause unrecorded;
  return fn();
}

std::vector<Tensor> empty_stacks(const std::vector<Tensor>& probe) {
  std::vector<Tensor> out;
  for (const auto& p : probe) {
    std::vector<int64_t> dims{0};
    dims.insert(dims.end(), p.shape().dims().begin(), p.shape().dims().end());
    out.push_back(zeros(Shape(dims), p.dtype()).to(p.device()));
  }
  return out;
}

std::vector<Tensor> stack_steps(const std::vector<std::vector<Tensor>>& steps) {
  std::vector<Tensor> out;
  if (steps.empty()) return out;
  for (std::size_t j = 0; j < steps[0].size(); ++j) {
    std::vector<Tensor> column;
    column.reserve(steps.size());
    for (const auto& s : steps) column.push_back(s.at(j));
    out.push_back(stack(column, 0));
  }
  return out;
}

}  // namespace kiln::functional
