#pragma once
// The learning_rate value codec: a float, or a schedule as Keras's serialized
// {"module", "class_name", "config", "registered_name"} object. Declared in
// namespace kiln beside LearningRate, so the field-table writers and readers
// (nn/config_io.h) find it by argument-dependent lookup.
#include "kiln/training/optimizer.h"
#include "nn/config_io.h"

namespace kiln {

Config config_value(const LearningRate& lr);
/// A number, or a serialized schedule (rebuilt through schedule_from_config).
void read_value(const config_io::ConfigReader& r, const char* key, LearningRate& lr);

}  // namespace kiln
