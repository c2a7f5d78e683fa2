// String tensors and kiln::strings against TensorFlow 2.21: every expected text
// and number below is what TF printed or returned for the same input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/core/tensor.h"
#include "kiln/data/dataset.h"
#include "kiln/data/text_line_dataset.h"
#include "kiln/graph/function.h"
#include "kiln/ops/ops.h"
#include "kiln/ops/ragged.h"
#include "kiln/ops/strings.h"

namespace k = kiln;
namespace ks = kiln::strings;

TEST_CASE("strings: the TF basics guide's string tensors") {
  k::Tensor scalar("Gray wolf");
  CHECK(k::to_string(scalar) == "tf.Tensor(b'Gray wolf', shape=(), dtype=string)");
  k::Tensor strs({"Gray wolf", "Quick brown fox", "Lazy dog"});
  CHECK(strs.shape() == k::Shape{3});
  CHECK(k::to_string(strs) == "tf.Tensor([b'Gray wolf' b'Quick brown fox' b'Lazy dog'], shape=(3,), dtype=string)");
  CHECK(k::to_string(k::Tensor("🥳👍")) == "tf.Tensor(b'\\xf0\\x9f\\xa5\\xb3\\xf0\\x9f\\x91\\x8d', shape=(), dtype=string)");
  CHECK(k::to_string(ks::split(scalar, " ")) == "tf.Tensor([b'Gray' b'wolf'], shape=(2,), dtype=string)");
  CHECK(k::to_string(ks::split(strs)) ==
        "<tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], [b'Lazy', b'dog']]>");
  CHECK(k::to_string(ks::to_number(ks::split(k::Tensor("1 10 100"), " "))) ==
        "tf.Tensor([  1.  10. 100.], shape=(3,), dtype=float32)");
  CHECK(k::to_string(ks::bytes_split(k::Tensor("Duck"))) == "tf.Tensor([b'D' b'u' b'c' b'k'], shape=(4,), dtype=string)");
  CHECK(k::to_string(k::io::decode_raw(k::Tensor("Duck"), k::uint8)) ==
        "tf.Tensor([ 68 117  99 107], shape=(4,), dtype=uint8)");
  k::Tensor duck("アヒル 🦆");
  CHECK(k::to_string(duck) ==
        "tf.Tensor(b'\\xe3\\x82\\xa2\\xe3\\x83\\x92\\xe3\\x83\\xab \\xf0\\x9f\\xa6\\x86', shape=(), dtype=string)");
  CHECK(k::to_string(ks::unicode_split(duck, "UTF-8")) ==
        "tf.Tensor([b'\\xe3\\x82\\xa2' b'\\xe3\\x83\\x92' b'\\xe3\\x83\\xab' b' ' b'\\xf0\\x9f\\xa6\\x86'], shape=(5,), "
        "dtype=string)");
  CHECK(k::to_string(ks::unicode_decode(duck, "UTF-8")) ==
        "tf.Tensor([ 12450  12498  12523     32 129414], shape=(5,), dtype=int32)");
  auto ragged = k::ragged::constant({{0, 1, 2, 3}, {4, 5}, {6, 7, 8}, {9}});
  CHECK(k::to_string(ragged) == "<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>");
  CHECK(ragged.shape().to_string() == "(4, None)");
}

TEST_CASE("strings: printing escapes bytes and quotes as Python's bytes repr") {
  CHECK(k::to_string(k::Tensor({{"a'b", "q\"x"}, {"\t\\", "x"}})) ==
        "tf.Tensor(\n[[b\"a'b\" b'q\"x']\n [b'\\t\\\\' b'x']], shape=(2, 2), dtype=string)");
  const std::string a(30, 'a'), b(30, 'b'), c(30, 'c');
  CHECK(k::to_string(k::Tensor({a.c_str(), b.c_str(), c.c_str()})) ==
        "tf.Tensor(\n[b'" + a + "' b'" + b + "'\n b'" + c + "'], shape=(3,), dtype=string)");
}

TEST_CASE("strings: tensor operations that move strings") {
  k::Tensor t({{"a", "b"}, {"c", "d"}});
  CHECK(t.to_vector<std::string>() == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(t[1][0].item<std::string>() == "c");
  CHECK(k::reshape(t, k::Shape{4}).to_vector<std::string>() == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(k::transpose(t).to_vector<std::string>() == std::vector<std::string>{"a", "c", "b", "d"});
  CHECK(k::concat({t, t}, 1).to_vector<std::string>() ==
        std::vector<std::string>{"a", "b", "a", "b", "c", "d", "c", "d"});
  CHECK(k::gather(t, k::Tensor({1, 0, 1}), 0).to_vector<std::string>() ==
        std::vector<std::string>{"c", "d", "a", "b", "c", "d"});
  CHECK(t[{k::Slice(), 1}].to_vector<std::string>() == std::vector<std::string>{"b", "d"});
  k::Tensor copy = t.clone();
  CHECK(copy.to_vector<std::string>() == t.to_vector<std::string>());
  CHECK(k::zeros({2}, k::string_).to_vector<std::string>() == std::vector<std::string>{"", ""});
  CHECK(k::stack({k::Tensor("x"), k::Tensor("y")}).to_vector<std::string>() == std::vector<std::string>{"x", "y"});
  // Comparisons, broadcast as tf.equal does.
  CHECK(((k::Tensor({"a"}) == "a").to_vector<bool>() == std::vector<bool>{true}));
  CHECK((k::equal(k::Tensor({{"a", "b"}}), k::Tensor({{"a"}, {"b"}})).to_vector<bool>() ==
         std::vector<bool>{true, false, false, true}));
  CHECK(((t != "b").to_vector<bool>() == std::vector<bool>{true, false, true, true}));
}

TEST_CASE("strings: arithmetic, casts and numeric reads are clear errors") {
  k::Tensor t({"1", "2"});
  CHECK_THROWS_WITH_AS(t + t, doctest::Contains("add: arithmetic and ordering are not defined for string tensors"),
                       k::TypeError);
  CHECK_THROWS_WITH_AS(k::exp(t), doctest::Contains("exp: expected a numeric tensor"), k::TypeError);
  CHECK_THROWS_WITH_AS(t.cast(k::float32), doctest::Contains("Cast string to float32 is not supported"), k::TypeError);
  CHECK_THROWS_WITH_AS(k::Tensor({1.0}).cast(k::string_), doctest::Contains("Cast float32 to string"), k::TypeError);
  CHECK_THROWS_AS(t.to_vector<float>(), k::TypeError);
  CHECK_THROWS_AS(k::Tensor(1.0f).item<std::string>(), k::TypeError);
  CHECK_THROWS_AS(k::sum(t), k::TypeError);
  CHECK_THROWS_WITH_AS(ks::lower(k::Tensor({1})), doctest::Contains("strings.lower: expected a string tensor"),
                       k::TypeError);
  CHECK_THROWS_WITH_AS(ks::to_number(k::Tensor({"1", "abc"})),
                       doctest::Contains("could not correctly convert string: abc (element 1"), k::ValueError);
  CHECK_THROWS_WITH_AS(ks::unicode_decode(k::Tensor({"ok", "a\xff" "b"}), "UTF-8", "strict"),
                       doctest::Contains("element 1 is not valid UTF-8: the sequence at byte 1"), k::ValueError);
  CHECK_THROWS_WITH_AS(k::Tensor({{"a", "b"}, {"c"}}), doctest::Contains("ragged nested list"), k::ValueError);
}

TEST_CASE("strings: element-wise ops as TF") {
  CHECK(ks::lower(k::Tensor("CamelCase ÄÖ")).item<std::string>() == "camelcase ÄÖ");
  CHECK(ks::upper(k::Tensor("camel äö")).item<std::string>() == "CAMEL äö");
  CHECK(ks::strip(k::Tensor({"  hi \n", "\t x y "})).to_vector<std::string>() == std::vector<std::string>{"hi", "x y"});
  CHECK(ks::length(k::Tensor({"hello", "アヒル"})).to_vector<int32_t>() == std::vector<int32_t>{5, 9});
  CHECK(ks::length(k::Tensor({"hello", "アヒル"}), "UTF8_CHAR").to_vector<int32_t>() == std::vector<int32_t>{5, 3});
  CHECK(ks::length(k::Tensor("\xe3\x82x"), "UTF8_CHAR").item<int32_t>() == 2);
  CHECK(ks::substr(k::Tensor({"Hello", "World"}), 1, 3).to_vector<std::string>() == std::vector<std::string>{"ell", "orl"});
  CHECK(ks::substr(k::Tensor("Hello"), -3, 2).item<std::string>() == "ll");
  CHECK(ks::substr(k::Tensor("アヒル"), 1, 5, "UTF8_CHAR").item<std::string>() == "ヒル");
  CHECK_THROWS_WITH_AS(ks::substr(k::Tensor("Hello"), 9, 1), doctest::Contains("pos 9 out of range"), k::ValueError);
  CHECK(ks::join({k::Tensor("a"), k::Tensor("b")}, "-").item<std::string>() == "a-b");
  CHECK(ks::join({k::Tensor({"a", "b"}), k::Tensor({"c", "d"})}, "/").to_vector<std::string>() ==
        std::vector<std::string>{"a/c", "b/d"});
  CHECK(ks::reduce_join(k::Tensor({{"a", "b"}, {"c", "d"}}), 1, false, " ").to_vector<std::string>() ==
        std::vector<std::string>{"a b", "c d"});
  CHECK(ks::reduce_join(k::Tensor({"a", "b", "c"})).item<std::string>() == "abc");
  k::Tensor r = ks::reduce_join(k::Tensor({{"a", "b"}, {"c", "d"}}), 0, true, ",");
  CHECK(r.shape() == k::Shape{1, 2});
  CHECK(r.to_vector<std::string>() == std::vector<std::string>{"a,c", "b,d"});
  CHECK(ks::regex_replace(k::Tensor({"Hello World", "foo bar"}), "o", "0").to_vector<std::string>() ==
        std::vector<std::string>{"Hell0 W0rld", "f00 bar"});
  CHECK(ks::regex_replace(k::Tensor("aaa"), "a", "b", false).item<std::string>() == "baa");
  CHECK(ks::regex_replace(k::Tensor("abc abc"), "(b)(c)", "\\2\\1").item<std::string>() == "acb acb");
  CHECK(ks::regex_replace(k::Tensor("a.b"), "\\.", "$").item<std::string>() == "a$b");
  CHECK(ks::regex_full_match(k::Tensor({"abc", "abd"}), "ab[c]").to_vector<bool>() == std::vector<bool>{true, false});
}

TEST_CASE("strings: numbers to text and back") {
  CHECK(ks::as_string(k::Tensor({1.5, 2.0, 1e-7})).to_vector<std::string>() ==
        std::vector<std::string>{"1.500000", "2.000000", "0.000000"});
  CHECK(ks::as_string(k::Tensor({1, 22})).to_vector<std::string>() == std::vector<std::string>{"1", "22"});
  CHECK(ks::as_string(k::Tensor({true})).to_vector<std::string>() == std::vector<std::string>{"true"});
  CHECK(ks::as_string(k::Tensor({3.14159, -2.5}), {.precision = 2}).to_vector<std::string>() ==
        std::vector<std::string>{"3.14", "-2.50"});
  CHECK(ks::as_string(k::Tensor({3.14159}), {.scientific = true}).item<std::string>() == "3.141590e+00");
  CHECK(ks::as_string(k::Tensor({0.0001}), {.shortest = true}).item<std::string>() == "0.0001");
  CHECK(ks::as_string(k::Tensor({7}), {.width = 4, .fill = "0"}).item<std::string>() == "0007");
  CHECK(ks::to_number(k::Tensor({"1.5", "-2", "3e2"})).to_vector<float>() == std::vector<float>{1.5f, -2.f, 300.f});
  k::Tensor ints = ks::to_number(k::Tensor({"7", " +12 "}), k::int32);
  CHECK(ints.dtype() == k::int32);
  CHECK(ints.to_vector<int32_t>() == std::vector<int32_t>{7, 12});
  CHECK_THROWS_AS(ks::to_number(k::Tensor({"3000000000"}), k::int32), k::ValueError);
}

TEST_CASE("strings: to_hash_bucket_fast is TF's FarmHash Fingerprint64") {
  CHECK(ks::to_hash_bucket_fast(k::Tensor({"Hello", "TensorFlow", "2.x", ""}), 3).to_vector<int64_t>() ==
        std::vector<int64_t>{0, 2, 2, 2});
  // Prefixes of one text, so every length branch of the hash runs (0-16, 17-32, 33-64, longer):
  // TF's buckets modulo 2^62, which keep all but the two top bits of the fingerprint.
  std::string base;
  for (int i = 0; i < 3; ++i) base += "The quick brown fox jumps over the lazy dog. 0123456789 ÄÖÜ アヒル";
  const std::vector<std::pair<std::size_t, int64_t>> expected = {
      {0, 1936946117179621455}, {1, 1366698271136253306}, {2, 2190563634351826419}, {3, 398699863598724093},
      {4, 3813857490243172005}, {5, 4193446892091626375}, {7, 4268079096047479687}, {8, 491173507650915335},
      {9, 924466740769925203}, {15, 4420331505753548199}, {16, 4320848957565769301}, {17, 550333784831045053},
      {24, 2090655887396268341}, {31, 259718955123041107}, {32, 3916272259504149090}, {33, 3629877152734163926},
      {40, 2669959205246199969}, {72, 787983240144975004}, {73, 707441858530039212}, {74, 624265166197411293},
      {109, 4010378946325649921}, {145, 130867692217040407}, {146, 3387022158422336820}, {147, 3987197173220754973},
      {168, 4536072587436391333}, {216, 1450960522862859908}};
  std::vector<std::string> texts;
  std::vector<int64_t> want;
  for (auto [n, v] : expected) {
    texts.push_back(base.substr(0, n));
    want.push_back(v);
  }
  k::Tensor t(texts, k::Shape{static_cast<int64_t>(texts.size())});
  CHECK(ks::to_hash_bucket_fast(t, int64_t{1} << 62).to_vector<int64_t>() == want);
}

TEST_CASE("strings: split, Unicode and ngrams as TF") {
  CHECK(k::to_string(ks::split(k::Tensor({"a,b,,c", ""}), ",")) == "<tf.RaggedTensor [[b'a', b'b', b'', b'c'], [b'']]>");
  CHECK(k::to_string(ks::split(k::Tensor({"  a  b ", ""}))) == "<tf.RaggedTensor [[b'a', b'b'], []]>");
  CHECK(ks::split(k::Tensor("a b c d"), "", 2).values().to_vector<std::string>() ==
        std::vector<std::string>{"a", "b", "c d"});
  CHECK(ks::split(k::Tensor("  a b  c d  "), "", 2).values().to_vector<std::string>() ==
        std::vector<std::string>{"a", "b", "c d  "});
  CHECK(k::to_string(ks::unicode_decode(k::Tensor({"a\xff" "b", "\xe3\x82x"}), "UTF-8")) ==
        "<tf.RaggedTensor [[97, 65533, 98], [65533, 120]]>");
  CHECK(k::to_string(ks::unicode_decode(k::Tensor({"a\xff" "b", "\xe3\x82x"}), "UTF-8", "ignore")) ==
        "<tf.RaggedTensor [[97, 98], [120]]>");
  CHECK(ks::unicode_encode(k::Tensor({72, 105, 12450}), "UTF-8").item<std::string>() == "Hiア");
  CHECK(ks::unicode_encode(ks::unicode_decode(k::Tensor({"Grüße", "アヒル"}), "UTF-8"), "UTF-8").to_vector<std::string>() ==
        std::vector<std::string>{"Grüße", "アヒル"});
  CHECK_THROWS_AS(ks::unicode_encode(k::Tensor({0xD800}), "UTF-8"), k::ValueError);
  CHECK(ks::ngrams(k::Tensor({"a", "b", "c", "d"}), 2).to_vector<std::string>() ==
        std::vector<std::string>{"a b", "b c", "c d"});
  CHECK(k::to_string(ks::ngrams(k::ragged::constant({{"a", "b", "c"}, {"d"}}), 2, "_")) ==
        "<tf.RaggedTensor [[b'a_b', b'b_c'], []]>");
  CHECK(k::to_string(ks::ngrams(k::ragged::constant({{"a", "b", "c"}, {"d"}}), {1, 2})) ==
        "<tf.RaggedTensor [[b'a', b'b', b'c', b'a b', b'b c'], [b'd']]>");
}

TEST_CASE("ragged: rows, padding and validation") {
  auto r = k::ragged::constant({{1.5, 2.0}, {}, {3.0}});
  CHECK(k::to_string(r) == "<tf.RaggedTensor [[1.5, 2.0], [], [3.0]]>");
  CHECK(r.nrows() == 3);
  CHECK(r.row_lengths().to_vector<int64_t>() == std::vector<int64_t>{2, 0, 1});
  CHECK(r.to_tensor().to_vector<float>() == std::vector<float>{1.5f, 2.f, 0.f, 0.f, 3.f, 0.f});
  CHECK(r.to_tensor(-1, 1).to_vector<float>() == std::vector<float>{1.5f, -1.f, 3.f});
  CHECK(r[0].to_vector<float>() == std::vector<float>{1.5f, 2.f});
  auto words = ks::split(k::Tensor({"a b", "c"}));
  CHECK(words.to_tensor().to_vector<std::string>() == std::vector<std::string>{"a", "b", "c", ""});
  CHECK(words.to_list<std::string>() == std::vector<std::vector<std::string>>{{"a", "b"}, {"c"}});
  CHECK_THROWS_WITH_AS(k::RaggedTensor(k::Tensor({1, 2, 3}), k::Tensor({0, 2})), doctest::Contains("end at the number of values (3)"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(k::RaggedTensor(k::Tensor({1, 2, 3}), k::Tensor({0, 2, 1, 3})), doctest::Contains("must not decrease"),
                       k::ValueError);
}

TEST_CASE("strings: datasets of strings and text_line_dataset") {
  k::Tensor words({"alpha", "beta", "gamma", "delta", "epsilon"});
  k::Tensor labels({0, 1, 0, 1, 0});
  auto ds = k::Dataset::from_tensor_slices({words, labels}).shuffle(5, 7).batch(2);
  std::vector<std::string> seen;
  for (const k::Element& b : ds) {
    CHECK(b[0].dtype() == k::string_);
    for (const auto& w : b[0].to_vector<std::string>()) seen.push_back(w);
  }
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::string>{"alpha", "beta", "delta", "epsilon", "gamma"});
  auto upper = k::Dataset::from_tensor_slices(words).map([](const k::Element& e) {
    return k::Element{ks::upper(e[0])};
  });
  CHECK((*upper.begin())[0].item<std::string>() == "ALPHA");

  const std::string path = "strings_text_lines.txt";
  {
    std::ofstream f(path, std::ios::binary);
    f << "first line\r\nsecond\n\nlast without newline";
  }
  std::vector<std::string> lines;
  for (const k::Element& e : k::text_line_dataset({path, path})) lines.push_back(e[0].item<std::string>());
  CHECK(lines == std::vector<std::string>{"first line", "second", "", "last without newline", "first line", "second", "",
                                          "last without newline"});
  auto batched = k::text_line_dataset({path}).batch(4);
  CHECK((*batched.begin())[0].shape() == k::Shape{4});
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(*k::text_line_dataset({"no/such/file.txt"}).begin(),
                       doctest::Contains("cannot open 'no/such/file.txt'"), k::IOError);
}

TEST_CASE("strings: string ops refuse to run inside a trace, whose graph would keep one call's strings") {
  auto f = k::function([](const k::Tensor& x) { return ks::lower(x); }, {.name = "lower_fn"});
  CHECK_THROWS_AS(f(k::Tensor({"A"})), k::TracingError);
}
