#include "kiln/training/logs.h"

#include <cmath>

#include "kiln/core/error.h"

namespace kiln {

std::size_t Logs::index_of(const std::string& key) {
  for (std::size_t i = 0; i < items_.size(); ++i)
    if (items_[i].first == key) return i;
  items_.emplace_back(key, std::nan(""));
  return items_.size() - 1;
}

void Logs::set(const std::string& key, double v) {
  items_[index_of(key)].second = v;
  for (auto it = pending_.begin(); it != pending_.end(); ++it)
    if (it->first == key) {
      pending_.erase(it);
      break;
    }
}

void Logs::set(const std::string& key, const Tensor& v) {
  if (!v.defined() || v.size() != 1)
    throw ValueError("Logs: the value of '" + key + "' must be a one-element tensor, received " +
                     (v.defined() ? "shape " + v.shape().to_string() : std::string("an undefined tensor")));
  index_of(key);
  for (auto& p : pending_)
    if (p.first == key) {
      p.second = v;
      return;
    }
  pending_.emplace_back(key, v);
}

void Logs::resolve() const {
  for (const auto& [key, t] : pending_)
    for (auto& kv : items_)
      if (kv.first == key) kv.second = t.to(Device::cpu()).item<double>();
  pending_.clear();
}

std::optional<double> Logs::get(const std::string& key) const {
  for (const auto& kv : items())
    if (kv.first == key) return kv.second;
  return std::nullopt;
}

double Logs::at(const std::string& key) const {
  auto v = get(key);
  if (!v) throw ValueError("Logs: no entry '" + key + "'");
  return *v;
}

void Logs::erase(const std::string& key) {
  for (auto it = items_.begin(); it != items_.end(); ++it)
    if (it->first == key) {
      items_.erase(it);
      break;
    }
  for (auto it = pending_.begin(); it != pending_.end(); ++it)
    if (it->first == key) {
      pending_.erase(it);
      break;
    }
}

std::vector<Tensor> Logs::tensor_values() const {
  std::vector<Tensor> out;
  for (const auto& p : pending_) out.push_back(p.second);
  return out;
}

Logs Logs::with_tensor_values(const std::vector<Tensor>& values) const {
  if (values.size() != pending_.size())
    throw ValueError("Logs: " + std::to_string(values.size()) + " values for " + std::to_string(pending_.size()) +
                     " tensor entries");
  Logs out = *this;
  for (std::size_t i = 0; i < values.size(); ++i) out.pending_[i].second = values[i];
  return out;
}

}  // namespace kiln
