// Weight files and checkpoints, loaded into a fixed compiled model (so the
// structure matching and the optimizer state get exercised, not only parsing).
#include <filesystem>
#include <memory>

#include "fuzz_targets.h"
#include "fuzz_model.h"
#include "kiln/io/checkpoint.h"
#include "kiln/kiln.h"

namespace kiln_fuzz {

std::shared_ptr<kiln::Model> fixed_model() {
  static std::shared_ptr<kiln::Model> m = [] {
    ensure_registered();
    namespace L = kiln::layers;
    auto s = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{
        L::Input({6}), L::Dense(5, {.activation = "relu", .name = "dense"}), L::BatchNormalization({.name = "bn"}),
        L::Dense(3, {.activation = "softmax", .name = "out"})});
    s->compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy"});
    s->optimizer()->build(s->trainable_variables());
    return s;
  }();
  return m;
}

void weights_h5(const uint8_t* data, std::size_t size) {
  fixed_model()->load_weights(scratch_file(data, size, "model.weights.h5"));  // the default: sandboxed
}

void checkpoint(const uint8_t* data, std::size_t size) {
  if (size < 1) return;
  auto model = fixed_model();
  if (data[0] % 2 == 0) {
    kiln::Checkpoint ckpt({{"model", model}, {"optimizer", model->optimizer()}});
    ckpt.restore(scratch_file(data + 1, size - 1, "ckpt-1.h5"));  // the default: sandboxed
    return;
  }
  // The index file that save() keeps beside the checkpoints.
  const std::string index = scratch_file(data + 1, size - 1, "checkpoint");
  kiln::checkpoint::latest_checkpoint(std::filesystem::path(index).parent_path().string());
}

}  // namespace kiln_fuzz
