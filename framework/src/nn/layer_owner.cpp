// Sublayers tracked by calling them (layer_owner.h).
#include "nn/layer_owner.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "kiln/core/error.h"

namespace kiln::detail {

namespace {
std::atomic<uint64_t> g_layer_serial{0};
// The layer whose call() or build() runs on this thread, and the serial it took on
// entry: layers made after that (temporaries inside call()) are not adopted.
thread_local Layer* t_owner = nullptr;
thread_local uint64_t t_owner_since = 0;
}  // namespace

uint64_t next_layer_serial() { return ++g_layer_serial; }

OwnerScope::OwnerScope(Layer& layer) : previous_(t_owner), previous_since_(t_owner_since) {
  if (t_owner && t_owner != &layer && layer.serial_ < t_owner_since) t_owner->adopt_called_layer(layer);
  t_owner = &layer;
  t_owner_since = next_layer_serial();
}

OwnerScope::~OwnerScope() {
  t_owner = previous_;
  t_owner_since = previous_since_;
}

}  // namespace kiln::detail

namespace kiln {

namespace {
bool reaches(const Layer& from, const Layer& target) {
  if (&from == &target) return true;
  for (const auto& s : from.sublayers())
    if (reaches(*s, target)) return true;
  return false;
}
}  // namespace

void Layer::adopt_called_layer(Layer& callee) {
  for (const auto& s : sublayers_)
    if (s.get() == &callee) return;
  // Only layers a shared_ptr owns can be held; a layer that contains this one
  // (a model calling back into its container) is never made its sublayer.
  std::shared_ptr<Layer> held = callee.weak_from_this().lock();
  if (held && reaches(callee, *this)) return;
  if (!held)
    throw ValueError("Layer '" + name() + "' calls layer '" + callee.name() +
                     "', which no shared_ptr or layer handle holds, so its weights could not be tracked; hold it "
                     "as a handle member (kiln::layers::Dense dense = kiln::layers::Dense(8);, or "
                     "kiln::LayerHandle<T> = kiln::make_layer<T>(...) for a model or custom layer)");
  // Keras tracks sublayers in the order they were assigned; member handles are
  // made in declaration order, so the order they were made in is Keras's.
  auto later = std::find_if(sublayers_.begin(), sublayers_.end(),
                            [&](const std::shared_ptr<Layer>& s) { return s->serial_ > callee.serial_; });
  sublayers_.insert(later, std::move(held));
}

}  // namespace kiln
