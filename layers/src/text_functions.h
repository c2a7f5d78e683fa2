#pragma once
// Private: the config form of TextVectorization's standardize and split
// (text_functions.cpp), found by argument-dependent lookup.
#include "kiln/layers/text_vectorization.h"
#include "nn/config_io.h"

namespace kiln::layers {

Config config_value(const Standardize& v);
Config config_value(const Split& v);
void read_value(const config_io::ConfigReader& r, const char* key, Standardize& v);
void read_value(const config_io::ConfigReader& r, const char* key, Split& v);

}  // namespace kiln::layers
