// GradientTape::gradient's convenience forms: each flattens its targets and
// sources and calls one of the three forms in gradient_tape.cpp.
#include "kiln/autodiff/gradient_tape.h"

#include <map>
#include <string>

namespace kiln {

std::vector<std::optional<Tensor>> GradientTape::gradient(const Tensor& target, const std::vector<Source>& sources,
                                                          UnconnectedGradients u) {
  return gradient(target, sources, Tensor(), u);
}
std::optional<Tensor> GradientTape::gradient(const Tensor& target, const Source& source, UnconnectedGradients u) {
  return gradient(target, std::vector<Source>{source}, Tensor(), u)[0];
}
std::vector<std::optional<Tensor>> GradientTape::gradient(const Tensor& target, const std::vector<Variable>& sources,
                                                          UnconnectedGradients u) {
  std::vector<Source> s(sources.begin(), sources.end());
  return gradient(target, s, Tensor(), u);
}
std::map<std::string, std::optional<Tensor>> GradientTape::gradient(const Tensor& target,
                                                                    const std::map<std::string, Source>& sources,
                                                                    UnconnectedGradients u) {
  std::vector<Source> s;
  for (const auto& [k, v] : sources) s.push_back(v);
  auto g = gradient(target, s, Tensor(), u);
  std::map<std::string, std::optional<Tensor>> out;
  std::size_t i = 0;
  for (const auto& [k, v] : sources) out[k] = g[i++];
  return out;
}

std::optional<Tensor> GradientTape::gradient(const std::vector<Tensor>& targets, const Source& source,
                                             UnconnectedGradients u) {
  return gradient(targets, std::vector<Source>{source}, u)[0];
}
std::optional<Tensor> GradientTape::gradient(std::initializer_list<Tensor> targets, const Source& source,
                                             UnconnectedGradients u) {
  return gradient(std::vector<Tensor>(targets), std::vector<Source>{source}, u)[0];
}
std::vector<std::optional<Tensor>> GradientTape::gradient(std::initializer_list<Tensor> targets,
                                                          const std::vector<Source>& sources, UnconnectedGradients u) {
  return gradient(std::vector<Tensor>(targets), sources, u);
}
std::vector<std::optional<Tensor>> GradientTape::gradient(const std::map<std::string, Tensor>& targets,
                                                          const std::vector<Source>& sources, UnconnectedGradients u) {
  std::vector<Tensor> flat;
  for (const auto& [name, t] : targets) flat.push_back(t);
  return gradient(flat, sources, u);
}
std::optional<Tensor> GradientTape::gradient(const std::map<std::string, Tensor>& targets, const Source& source,
                                             UnconnectedGradients u) {
  return gradient(targets, std::vector<Source>{source}, u)[0];
}

}  // namespace kiln
