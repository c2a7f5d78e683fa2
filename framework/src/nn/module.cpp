#include "kiln/nn/module.h"

#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/nn/layer.h"
#include "kiln/core/registry.h"

namespace kiln {

Module::Module(std::string name) : name_(name.empty() ? unique_name("module") : std::move(name)) {}

Variable Module::add_variable(const Tensor& init, VariableOptions o) {
  Variable v(init, o);
  v.set_path(name_ + "/" + o.name);
  variables_.push_back(v);
  return v;
}

Variable Module::track(Variable v) {
  if (!v.defined()) throw ValueError("Module '" + name_ + "': cannot track an undefined variable");
  variables_.push_back(v);
  return v;
}

void Module::track_module(std::shared_ptr<Module> m) {
  if (!m) throw ValueError("Module '" + name_ + "': cannot track a null submodule");
  if (m.get() == this) throw ValueError("Module '" + name_ + "' cannot track itself");
  if (std::find(modules_.begin(), modules_.end(), m) == modules_.end()) modules_.push_back(std::move(m));
}

void Module::collect(std::vector<Variable>& out, std::vector<const void*>& seen) const {
  for (const auto& v : variables_)
    if (std::find(seen.begin(), seen.end(), v.impl().get()) == seen.end()) {
      seen.push_back(v.impl().get());
      out.push_back(v);
    }
  for (const auto& m : modules_) m->collect(out, seen);
}

std::vector<Variable> Module::variables() const {
  std::vector<Variable> out;
  std::vector<const void*> seen;
  collect(out, seen);
  return out;
}

std::vector<Variable> Module::trainable_variables() const {
  std::vector<Variable> out;
  for (const auto& v : variables())
    if (v.trainable()) out.push_back(v);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::submodules() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& m : modules_) {
    if (std::find(out.begin(), out.end(), m) != out.end()) continue;
    out.push_back(m);
    for (const auto& s : m->submodules())
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

}  // namespace kiln
