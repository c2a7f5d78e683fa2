// Whole-model files: .keras archives, legacy .h5 models and JSON configs.
#include <string>

#include "fuzz_targets.h"
#include "kiln/kiln.h"

namespace kiln_fuzz {

void keras_archive(const uint8_t* data, std::size_t size) {
  ensure_registered();
  kiln::models::load_model(scratch_file(data, size, "model.keras"));  // the default: sandboxed
}

void h5_model(const uint8_t* data, std::size_t size) {
  ensure_registered();
  kiln::models::load_model(scratch_file(data, size, "model.h5"));  // the default: sandboxed
}

void json_config(const uint8_t* data, std::size_t size) {
  ensure_registered();
  kiln::models::model_from_json(std::string(reinterpret_cast<const char*>(data), size));
}

}  // namespace kiln_fuzz
