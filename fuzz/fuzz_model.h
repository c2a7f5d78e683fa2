#pragma once
// The fixed model the weight and checkpoint targets load into:
// Input(6) -> Dense(5, relu) "dense" -> BatchNormalization "bn" -> Dense(3, softmax) "out",
// compiled with Adam (slots built). fuzz_replay --write-seeds saves its files as seeds.
#include <memory>

#include "kiln/training/model.h"

namespace kiln_fuzz {
std::shared_ptr<kiln::Model> fixed_model();
}  // namespace kiln_fuzz
