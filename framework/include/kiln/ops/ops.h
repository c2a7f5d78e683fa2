#pragma once
// All tensor ops. Naming follows keras.ops (sum, mean, max, ... not reduce_*).
#include "kiln/ops/array_ops.h"
#include "kiln/ops/clip_ops.h"
#include "kiln/ops/debugging.h"
#include "kiln/ops/einsum.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/fft_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/random.h"
#include "kiln/ops/reduce_ops.h"
