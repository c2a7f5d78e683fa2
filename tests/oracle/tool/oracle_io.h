#pragma once
// File exchange between the Keras driver (tests/oracle/*.py) and this tool.
//
// A group directory holds cases.json, {"cases": [{"id": ..., ...}, ...]}, and
// the .npy arrays the cases name by file name. For every case the tool writes
// out/<id>/<name>.npy, and a case that throws is recorded in out/errors.json
// as {id: message} so the driver reports it as a mismatch by name.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/core/tensor.h"

namespace oracle {

namespace fs = std::filesystem;
using json = nlohmann::json;

class Group {
 public:
  explicit Group(fs::path dir);
  const json& cases() const { return cases_; }
  /// The array a case field names (a file name relative to the group directory).
  kiln::Tensor array(const json& file_name) const;
  /// An array, or an undefined Tensor when the field is absent or null.
  kiln::Tensor optional_array(const json& c, const char* key) const;
  std::vector<kiln::Tensor> arrays(const json& file_names) const;
  /// Writes out/<case id>/<name>.npy (float32 and float64 kept, integers widened to int64).
  void save(const json& c, const std::string& name, const kiln::Tensor& t) const;
  const fs::path& dir() const { return dir_; }
  /// Runs `body` on every case, recording exceptions by case id; writes errors.json.
  void for_each_case(const std::function<void(const json&)>& body) const;

 private:
  fs::path dir_;
  json cases_;
};

void write_npy(const fs::path& path, const kiln::Tensor& t);

int run_losses(const Group& g);
int run_metrics(const Group& g);
int run_optimizers(const Group& g);
int run_schedules(const Group& g);
int run_layers(const Group& g);
int run_tensorboard(const Group& g);
int run_files(const Group& g);
int run_models(const Group& g);
int run_layer_files(const Group& g);
int run_activations(const Group& g);
int run_fft(const Group& g);
int run_recurrent(const Group& g);
int run_onnx(const Group& g);
int run_model_files(const Group& g);
int run_lora(const Group& g);
int run_quantize(const Group& g);
/// The text layers (TextVectorization, StringLookup, IntegerLookup, Hashing, HashedCrossing).
int run_text(const Group& g);
/// Every ops_<name> group (tests/oracle/oracle_ops_*.py) runs through the op table.
int run_ops(const Group& g);

}  // namespace oracle
