// A first program, as a user writes it: what header_cost.py compiles to hold
// <kiln/kiln.h> to its compile-time budget.
#include <kiln/kiln.h>

#include <iostream>
namespace k = kiln;
namespace L = kiln::layers;

int main() {
  k::Sequential model({L::Input({28, 28, 1}), L::Conv2D(32, 3, {.activation = "relu"}), L::MaxPooling2D(),
                       L::Flatten(), L::Dropout(0.1), L::Dense(10)});
  model.compile({.optimizer = "adam", .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .metrics = {"accuracy"}});
  k::Tensor x = k::random::uniform({256, 28, 28, 1});
  k::Tensor y = k::cast(k::random::uniform({256}, 0.0f, 10.0f), k::int64);
  k::History history = model.fit(x, y, {.batch_size = 64, .epochs = 2, .validation_split = 0.25});
  std::cout << x.shape() << " -> " << model.predict(x).shape() << ", accuracy " << model.evaluate(x, y)[1] << "\n";
  model.save("first.keras");
}
