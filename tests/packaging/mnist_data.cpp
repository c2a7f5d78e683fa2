// Installed from the Debian packages, the library finds its bundled MNIST
// digits in /usr/share/kiln/data without being told where they are.
#include <kiln/kiln.h>

#include <iostream>

int main() {
  auto data = kiln::datasets::mnist::load_data();
  std::cout << "mnist from the package: train.x " << data.train.x.shape() << ", test.x " << data.test.x.shape() << "\n";
  const kiln::Shape& s = data.train.x.shape();
  return s.rank() == 3 && s[0] > 0 && s[1] == 28 && s[2] == 28 ? 0 : 1;
}
