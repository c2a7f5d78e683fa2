#pragma once
// LoRA, as Keras's `enable_lora` has it on Dense, EinsumDense, Embedding and
// Conv1D/2D/3D: the kernel is frozen and the layer computes with
//   kernel + (alpha / rank) · A · B,
// A (*kernel.shape[:-1], rank) he_uniform and B (rank, kernel.shape[-1]) zeros,
// both float32 and trainable. Files hold the kernel with the delta merged in and
// no adapters, as Keras's save_own_variables writes them; after loading, A and B
// are zero again.
//   L::Dense d(64);
//   d(x);                       // build first
//   d->enable_lora(4);          // or Dense(64, {.lora_rank = 4})
//   d->trainable_weights();     // bias, lora_kernel_a, lora_kernel_b
#include <optional>
#include <string>
#include <vector>

#include "kiln/nn/layer.h"
#include "kiln/nn/stored_variables.h"

namespace kiln::layers {

/// Options of enable_lora (Keras's arguments after rank).
struct LoraOptions {
  std::optional<double> lora_alpha;  ///< The delta is scaled by lora_alpha / rank; defaults to rank.
  InitializerArg a_initializer = "he_uniform";  ///< Initializer of A.
  InitializerArg b_initializer = "zeros";  ///< Initializer of B (zeros: the layer starts as it was).
};

/// A layer whose kernel can take a LoRA adapter; Dense, EinsumDense, Embedding and
/// the convolutions derive from it.
class LoraLayer : public Layer, public CustomVariableStore {
 public:
  /// Freezes the kernel and adds A and B. The layer must be built, have no kernel
  /// constraint and no adapter yet (Keras's errors otherwise).
  void enable_lora(int rank, LoraOptions options = {});
  bool lora_enabled() const { return lora_a_.defined(); }  ///< Whether enable_lora ran.
  std::optional<int> lora_rank() const { return rank_; }  ///< The rank, when set.
  std::optional<double> lora_alpha() const { return alpha_; }  ///< The scale numerator, when set.
  Variable lora_kernel_a() const { return lora_a_; }  ///< A; undefined before enable_lora.
  Variable lora_kernel_b() const { return lora_b_; }  ///< B; undefined before enable_lora.

  /// Keras's save_own_variables: without an adapter, the default entries; with one,
  /// the variables in creation order without A and B, the kernel merged.
  std::vector<StoredVariable> stored_variables() const override;
  /// Zeros A and B: the loaded kernel has them merged.
  void after_load_own_variables() const override;

 protected:
  /// What the adapter attaches to.
  struct LoraBase {
    Variable kernel;  ///< The kernel that the delta is added to.
    regularizers::RegularizerPtr regularizer;  ///< Penalty on A and B (the kernel's, as in Keras).
    bool constrained = false;  ///< Whether the kernel has a constraint (LoRA refuses it).
    const char* kernel_name = "kernel";  ///< "kernel" or "embeddings": names the adapters and errors.
  };

  /// `rank` and `alpha` are the constructor's lora_rank and lora_alpha options.
  LoraLayer(LayerOptions options, std::optional<int> rank, std::optional<double> alpha);
  /// The kernel and its regularizer; called once the layer is built.
  virtual LoraBase lora_base() const = 0;
  /// The kernel's value, with the delta added (and cast to the compute dtype) when enabled.
  Tensor kernel_with_lora() const;
  /// End of build(): enables the adapter the constructor asked for. Keras's Dense and
  /// Embedding pass only the rank there (alpha becomes the rank), EinsumDense and the
  /// convolutions the alpha too.
  void build_lora(bool keep_alpha);
  /// Writes lora_rank and lora_alpha into a config when set, and nothing otherwise.
  void write_lora_config(Config& config) const;

 private:
  /// enable_lora without the built check (build_lora runs inside build()).
  void add_adapter(int rank, LoraOptions options);

  std::optional<int> rank_;
  std::optional<double> alpha_;
  Variable lora_a_, lora_b_;
};

}  // namespace kiln::layers
