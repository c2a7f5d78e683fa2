// Printing follows TF's tf.Tensor text on one line: NumPy's array text with
// rows separated by a space, then shape and dtype.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include "kiln/ops/ops.h"
#include "kiln/core/tensor.h"

namespace k = kiln;

TEST_CASE("printing: TF-style text") {
  k::Tensor a({{1.f, 2.f}, {3.f, 4.f}});
  k::Tensor c = k::matmul(a, k::ones({2, 2})) + 1.0;
  CHECK(k::to_string(c) == "Tensor([[4. 4.] [8. 8.]], shape=(2, 2), dtype=float32)");
  CHECK(k::to_string(a) == "Tensor([[1. 2.] [3. 4.]], shape=(2, 2), dtype=float32)");
  std::ostringstream os;
  os << c;
  CHECK(os.str() == k::to_string(c));

  CHECK(k::to_string(k::Tensor({{1, 2}, {3, 4}})) == "Tensor([[1 2] [3 4]], shape=(2, 2), dtype=int32)");
  CHECK(k::to_string(k::Tensor({0.5, 1.5})) == "Tensor([0.5 1.5], shape=(2,), dtype=float64)");
  CHECK(k::to_string(k::reshape(k::range(8), {2, 2, 2})) ==
        "Tensor([[[0 1] [2 3]] [[4 5] [6 7]]], shape=(2, 2, 2), dtype=int32)");
  CHECK(k::to_string(k::range(3, k::int64)) == "Tensor([0 1 2], shape=(3,), dtype=int64)");
  CHECK(k::to_string(k::ones({2}, k::uint8)) == "Tensor([1 1], shape=(2,), dtype=uint8)");
  CHECK(k::to_string(k::zeros({0, 3})) == "Tensor([], shape=(0, 3), dtype=float32)");
}

TEST_CASE("printing: scalars print like Python numbers") {
  CHECK(k::to_string(k::Tensor(3.0f)) == "Tensor(3.0, shape=(), dtype=float32)");
  CHECK(k::to_string(k::Tensor(2.5f)) == "Tensor(2.5, shape=(), dtype=float32)");
  CHECK(k::to_string(k::Tensor(-4.0)) == "Tensor(-4.0, shape=(), dtype=float64)");
  CHECK(k::to_string(k::Tensor(int32_t{3})) == "Tensor(3, shape=(), dtype=int32)");
  CHECK(k::to_string(k::Tensor(true)) == "Tensor(True, shape=(), dtype=bool)");
}

TEST_CASE("printing: floats use the shortest text that reads back, and always a point") {
  CHECK(k::to_string(k::Tensor({0.5f, 1.f})) == "Tensor([0.5 1.], shape=(2,), dtype=float32)");
  CHECK(k::to_string(k::Tensor({0.1f, -2.25f})) == "Tensor([0.1 -2.25], shape=(2,), dtype=float32)");
  CHECK(k::to_string(k::Tensor({1e-5f, 0.5f})) == "Tensor([1.e-05 0.5], shape=(2,), dtype=float32)");
  CHECK(k::to_string(k::Tensor({1.0 / 3, 0.5})) == "Tensor([0.33333333 0.5], shape=(2,), dtype=float64)");
  CHECK(k::to_string(k::Tensor({-0.f, 1.f})) == "Tensor([-0. 1.], shape=(2,), dtype=float32)");
  CHECK(k::to_string(k::Tensor(0.1f)) == "Tensor(0.1, shape=(), dtype=float32)");
  // The golden softmax prints its float32 values to 8 significant digits.
  std::string sm = k::to_string(k::softmax(k::Tensor({{4.f, 5.f}, {10.f, 1.f}})));
  CHECK(sm.find("0.26894143") != std::string::npos);
  CHECK(sm.find("0.7310586") != std::string::npos);
}

TEST_CASE("printing: non-integer, boolean and special values") {
  std::string third = k::to_string(k::Tensor({1.f / 3.f, 2.f}));
  CHECK(third.find("0.33333334") != std::string::npos);
  CHECK(third.find("shape=(2,), dtype=float32") != std::string::npos);
  std::string b = k::to_string(k::Tensor({1.f, 2.f}) > 1.5);
  CHECK(b.find("False") != std::string::npos);
  CHECK(b.find("True") != std::string::npos);
  CHECK(b.find("dtype=bool") != std::string::npos);
  std::string s = k::to_string(
      k::Tensor({std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), -1.0}));
  CHECK(s.find("nan") != std::string::npos);
  CHECK(s.find("inf") != std::string::npos);
}

TEST_CASE("printing: large tensors are summarised") {
  // NumPy summarises above 1000 elements, keeping 3 items at each edge.
  CHECK(k::to_string(k::range(2000)) == "Tensor([0 1 2 ... 1997 1998 1999], shape=(2000,), dtype=int32)");
  // 1000 elements exactly is printed in full.
  std::string full = k::to_string(k::range(1000));
  CHECK(full.find("...") == std::string::npos);
  CHECK(full.find(" 500 ") != std::string::npos);

  std::string m = k::to_string(k::zeros({100, 100}));
  CHECK(m.find("...") != std::string::npos);
  CHECK(m.rfind("Tensor([[0. 0. 0. ... 0. 0. 0.] [0. 0. 0. ... 0. 0. 0.] [0. 0. 0. ... 0. 0. 0.] ... [", 0) == 0);
  CHECK(m.find("shape=(100, 100), dtype=float32)") != std::string::npos);
  // Six rows are shown (3 at each edge), each with six values.
  CHECK(std::count(m.begin(), m.end(), '[') == 7);
  CHECK(m.size() < 400);
}

TEST_CASE("printing: undefined and symbolic tensors, shapes") {
  CHECK(k::to_string(k::Tensor()) == "Tensor(undefined)");
  CHECK(k::to_string(k::Tensor::symbolic({k::None, 3})) == "KerasTensor(shape=(None, 3), dtype=float32)");
  CHECK(k::Shape{k::None, 26, 26, 32}.to_string() == "(None, 26, 26, 32)");
  CHECK(k::Shape{}.to_string() == "()");
  CHECK(k::Shape{5}.to_string() == "(5,)");
}
