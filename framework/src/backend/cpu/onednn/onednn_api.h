#pragma once
// Private: the interface between libkiln and its oneDNN plugin
// (libkiln_onednn.so, onednn_plugin.cpp). libkiln loads the plugin the first
// time a convolution goes to oneDNN, so a program that never needs it never
// loads oneDNN or its OpenMP runtime. Every call returns null on success, or
// a message saying what failed (valid until the calling thread's next call):
// no exception crosses the boundary.
#include "backend/backend.h"

namespace kiln::cpu::onednn {

struct PluginV1 {
  const char* version;  ///< oneDNN's version, e.g. "2.6.3"
  /// out = conv(x, w) (+ bias) (then relu), on `threads` OpenMP threads; bias may be null.
  /// With `winograd`, Winograd's algorithm where oneDNN has it for the shape, else direct.
  const char* (*forward)(const float* x, const float* w, const float* bias, bool relu,
                         const backend::Conv2DParams& p, float* out, bool winograd, int threads);
  const char* (*backward_input)(const float* dy, const float* w, const backend::Conv2DParams& p, float* dx,
                                bool winograd, int threads);
  const char* (*backward_filter)(const float* x, const float* dy, const backend::Conv2DParams& p, float* dw,
                                 bool winograd, int threads);
};

/// The plugin's entry point, by this name.
inline constexpr const char* kPluginEntry = "kiln_onednn_plugin_v1";
using PluginEntry = const PluginV1* (*)();

}  // namespace kiln::cpu::onednn
