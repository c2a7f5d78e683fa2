#pragma once
// Private: the ONNX ops for each family of recorded backend calls.
#include "io/onnx/onnx_writer.h"

namespace kiln::io::onnx {

/// StridedCopy / StridedAdd: slicing, transposes, broadcasts, concatenation and padding.
void emit_strided_copy(GraphWriter& w, const Pair& p);
/// MatMul / BatchMatMulV2.
void emit_matmul(GraphWriter& w, const Pair& p);
/// DotProductAttention: the one-pass kernel's node, as the ops it stands for.
void emit_attention(GraphWriter& w, const Pair& p);
/// Conv2D, Conv2DBias(Relu): NHWC in Kiln, NCHW in ONNX, so transposed around the Conv.
void emit_conv2d(GraphWriter& w, const Pair& p);
/// MaxPoolWithArgmax (its argmax output is not exported) and AvgPool.
void emit_pool2d(GraphWriter& w, const Pair& p);
/// FusedBatchNormV3Inference, composed from element-wise ops.
void emit_batch_norm(GraphWriter& w, const Pair& p);
/// A recurrence (a composite of its loop's ops) as ONNX's RNN, LSTM or GRU; false when ONNX's op cannot express it.
bool emit_recurrence(GraphWriter& w, const Pair& p);

}  // namespace kiln::io::onnx
