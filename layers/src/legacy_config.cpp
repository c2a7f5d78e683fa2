// Keras 1 config keys and legacy kernel layouts for the layers' upgrade hooks.
#include "legacy_config.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace kiln::layers::detail {

Config keras1_base_config(const Config& c) {
  Config n = Config::object();
  for (const char* k : {"name", "trainable", "batch_input_shape", "activation"})
    if (c.contains(k)) n[k] = c[k];
  if (c.contains("input_dtype")) n["dtype"] = c["input_dtype"];
  else if (c.contains("dtype")) n["dtype"] = c["dtype"];
  return n;
}

std::string keras1_data_format(const Config& c) {
  return c.value("dim_ordering", "default") == "th" ? "channels_first" : "channels_last";
}

Config replace_entry(const Config& entry, const std::string& class_name, Config config) {
  Config out = entry;
  out["class_name"] = class_name;
  out["config"] = std::move(config);
  return out;
}

Tensor transpose4(const Tensor& t, std::array<int, 4> perm) {
  const auto& d = t.shape().dims();
  std::vector<float> in = t.to_vector<float>();
  std::array<int64_t, 4> od{d[perm[0]], d[perm[1]], d[perm[2]], d[perm[3]]};
  std::array<int64_t, 4> is{d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
  std::vector<float> out(in.size());
  std::size_t k = 0;
  for (int64_t a = 0; a < od[0]; ++a)
    for (int64_t b = 0; b < od[1]; ++b)
      for (int64_t c = 0; c < od[2]; ++c)
        for (int64_t e = 0; e < od[3]; ++e) {
          std::array<int64_t, 4> idx{};
          idx[perm[0]] = a;
          idx[perm[1]] = b;
          idx[perm[2]] = c;
          idx[perm[3]] = e;
          out[k++] = in[idx[0] * is[0] + idx[1] * is[1] + idx[2] * is[2] + idx[3] * is[3]];
        }
  return Tensor(out, Shape({od[0], od[1], od[2], od[3]}));
}

Tensor flip_spatial(const Tensor& t, int spatial) {
  const auto& d = t.shape().dims();
  std::vector<float> in = t.to_vector<float>();
  std::vector<float> out(in.size());
  int64_t inner = 1;
  for (std::size_t i = static_cast<std::size_t>(spatial); i < d.size(); ++i) inner *= d[i];
  if (spatial == 2) {
    for (int64_t y = 0; y < d[0]; ++y)
      for (int64_t x = 0; x < d[1]; ++x)
        for (int64_t r = 0; r < inner; ++r)
          out[(y * d[1] + x) * inner + r] = in[((d[0] - 1 - y) * d[1] + (d[1] - 1 - x)) * inner + r];
  } else {
    for (int64_t y = 0; y < d[0]; ++y)
      for (int64_t r = 0; r < inner; ++r) out[y * inner + r] = in[(d[0] - 1 - y) * inner + r];
  }
  return Tensor(out, t.shape());
}

}  // namespace kiln::layers::detail
