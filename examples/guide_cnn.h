#pragma once
// The TensorFlow guide's MNIST CNN, as the guide writes it in Keras:
//
//   model = tf.keras.Sequential([
//       tf.keras.layers.Conv2D(32, 3, activation='relu',
//                              kernel_regularizer=tf.keras.regularizers.l2(0.02),
//                              input_shape=(28, 28, 1)),
//       tf.keras.layers.MaxPooling2D(),
//       tf.keras.layers.Flatten(),
//       tf.keras.layers.Dropout(0.1),
//       tf.keras.layers.Dense(64, activation='relu'),
//       tf.keras.layers.BatchNormalization(),
//       tf.keras.layers.Dense(10)])
//
// The main job (mnist_cnn.cpp) trains it; the tests and the benchmark build
// the same model from here. kernel_l2 = 0 leaves the regularizer out (the
// benchmark's peers have none).
#include <kiln/kiln.h>

#include <vector>

namespace kiln::examples {

inline std::vector<LayerPtr> guide_cnn_layers(double kernel_l2 = 0.02) {
  namespace L = kiln::layers;
  L::Conv2DOptions conv{.activation = "relu"};
  if (kernel_l2 > 0) conv.kernel_regularizer = regularizers::L2(kernel_l2);
  return {
      L::Input({28, 28, 1}),
      L::Conv2D(32, 3, conv),
      L::MaxPooling2D(),
      L::Flatten(),
      L::Dropout(0.1),
      L::Dense(64, {.activation = "relu"}),
      L::BatchNormalization(),
      L::Dense(10),
  };
}

inline Sequential guide_cnn(double kernel_l2 = 0.02) { return Sequential(guide_cnn_layers(kernel_l2)); }

}  // namespace kiln::examples
