#pragma once
// Private: the passes that turn a trace's recording into the nodes its replays run.
#include <vector>

#include "backend/recording.h"

namespace kiln::graph {

/// The buffer behind `t`; whether node `n` writes `t`'s buffer.
const Storage* storage_of(const Tensor& t);
bool writes(const backend::Node& n, const Tensor& t);

/// The recording after every pass, in order:
///  1. variable reads whose snapshot is never needed after a later write to
///     the variable read the variable's buffer itself instead of a copy;
///  2. constants (Fill, and kernels reading only constants) are computed once,
///     by the trace, and dropped from the replays;
///  3. runs of element-wise nodes of one size and dtype become one fused pass;
///  4. a convolution with bias and relu and the max pool reading it become one
///     pass where the backend has the kernel (fuse_conv_pool);
///  5. intermediate buffers share memory by liveness (plan_memory).
/// `outputs` are the trace's results, read after the last node. Constants are
/// folded either way: when the trace did not execute, the folded nodes run once here.
backend::Recording optimize(const backend::Recording& rec, const std::vector<Tensor>& outputs,
                            const std::vector<Tensor>& placeholders, bool executed);

/// Pass 1 alone (in place). Returns how many reads now alias their variable.
int alias_variable_reads(backend::Recording& rec, const std::vector<Tensor>& outputs);
/// Pass 2 alone. Returns how many nodes were dropped (run once first unless the trace `executed`).
int fold_constants(backend::Recording& rec, bool executed = true);
/// Pass 3 alone. Returns how many nodes were folded into fused passes.
int fuse_elementwise(backend::Recording& rec);
/// Pass 4 alone. Returns how many convolution and pool pairs were fused.
int fuse_conv_pool(backend::Recording& rec, const std::vector<Tensor>& outputs);
/// Pass 5: buffers the trace allocated for values that do not outlive the
/// replay share memory by liveness (the trace's inputs and results, variable
/// copies and what opaque host nodes may hold keep their own). Returns the bytes saved.
std::size_t plan_memory(backend::Recording& rec, const std::vector<Tensor>& keep_apart);

}  // namespace kiln::graph
