#pragma once
// Private: a kiln::function called under a recording GradientTape, replayed
// instead of running its body, with one op on the tape for the whole call.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/graph/function.h"

namespace kiln::graph {

/// A function's traces for calls under a tape, by signature.
struct GradientTraces;
std::shared_ptr<GradientTraces> make_gradient_traces();

/// The call's outputs, with the outer tape holding one op for it; nullopt
/// when the call must run eagerly instead (see function_gradient.cpp).
/// `tracing_count` counts a new trace; `first_trace` says whether it may create variables.
std::optional<std::vector<Tensor>> differentiable_call(GradientTraces& traces, const FunctionOptions& options,
                                                       int& tracing_count, const std::vector<Tensor>& args,
                                                       const std::string& key, const FunctionCore::Body& body);

}  // namespace kiln::graph
