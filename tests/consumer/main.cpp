// Uses Kiln as an installed package: tensors and the tape, then a model whose
// optimizer, loss, metric and layers are found by name, saved and reloaded
// (in a static build, this proves the name registrations are linked in).
#include <kiln/kiln.h>

#include <cmath>
#include <filesystem>
#include <iostream>

int main() {
  namespace k = kiln;
  namespace L = kiln::layers;
  k::Tensor a({{1.f, 2.f}, {3.f, 4.f}});
  k::Tensor c = k::matmul(a, k::ones({2, 2})) + 1.0f;
  std::cout << c << "\n";
  k::Variable x(k::Tensor(3.0f), {.name = "x"});
  k::GradientTape tape;
  k::Tensor y = x * x;
  auto g = tape.gradient(y, x);
  if (!g || g->item<float>() != 6.0f) return 1;

  k::random::set_seed(1);
  k::Sequential model({L::Input({4}), L::Dense(8, {.activation = "relu"}), L::Dense(3)});
  model.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  k::Tensor xs = k::random::normal({32, 4});
  k::Tensor ys = k::cast(k::argmax(xs[{k::Slice(), k::Slice(0, 3)}], -1), k::int64);
  model.fit(xs, ys, {.epochs = 2, .verbose = 0});
  const auto path = std::filesystem::temp_directory_path() / "kiln_consumer.keras";
  model.save(path.string());
  auto restored = k::models::load_model(path.string());
  const float diff = k::max(k::abs(restored->predict(xs) - model.predict(xs))).item<float>();
  std::filesystem::remove(path);
  std::cout << "reloaded model predicts the same: max |difference| = " << diff << "\n";
  return diff == 0.0f && std::isfinite(diff) ? 0 : 1;
}
