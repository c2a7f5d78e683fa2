// kiln::utils::read_csv and make_csv_dataset: RFC 4180 quoting, TSV, headers and
// column names, selected columns, defaults for missing values, integer dtypes,
// text columns (inferred or declared), errors naming the file, line and column,
// and a two-input model trained on a file with a text column.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/utils/csv.h"
#include "test_util.h"

namespace test_csv {

namespace k = kiln;
namespace U = kiln::utils;
namespace L = kiln::layers;
namespace fs = std::filesystem;
using kiln_test::contains;
using kiln_test::message_of;

namespace {

// Writes `text` to a fresh file under the temporary directory; removes it at the end.
struct CsvFile {
  std::string path;
  explicit CsvFile(const std::string& text) {
    static int n = 0;
    path = (fs::temp_directory_path() / ("kiln_csv_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".csv")).string();
    std::ofstream(path, std::ios::binary) << text;
  }
  ~CsvFile() { fs::remove(path); }
};

}  // namespace

TEST_CASE("read_csv: header, quoted fields with delimiters, quotes and line breaks, CRLF and blank lines") {
  CsvFile f("a,\"b, quoted\",c\r\n1,2.5,-3e2\r\n\r\n\"4\",\"5\",\"6\"\n7,  8 ,+9\n");
  const U::CsvColumns t = U::read_csv(f.path);
  CHECK(t.names == std::vector<std::string>{"a", "b, quoted", "c"});
  CHECK(t["a"].dtype() == k::DType::float32);
  CHECK(t["a"].to_vector<float>() == std::vector<float>{1, 4, 7});
  CHECK(t["b, quoted"].to_vector<float>() == std::vector<float>{2.5f, 5, 8});
  CHECK(t["c"].to_vector<float>() == std::vector<float>{-300, 6, 9});
  CsvFile g("\"x\"\"y\",\"multi\nline\"\n1,2\n");
  const U::CsvColumns q = U::read_csv(g.path);
  CHECK(q.names == std::vector<std::string>{"x\"y", "multi\nline"});
  CHECK(q["multi\nline"].to_vector<float>() == std::vector<float>{2});
  CHECK(contains(message_of<k::ValueError>([&] { (void)q["z"]; }), "no column 'z'"));
}

TEST_CASE("read_csv: TSV without a header, selected columns, defaults, na_value and integer dtypes") {
  CsvFile f("1\t10\t100\n2\tNA\t200\n3\t\t300\n");
  const U::CsvColumns t = U::read_csv(f.path, {.delimiter = '\t', .header = false,
                                               .column_names = std::vector<std::string>{"id", "score", "total"},
                                               .select_columns = std::vector<std::string>{"total", "score"},
                                               .column_defaults = std::vector<U::CsvDefault>{-1, std::nullopt},
                                               .na_value = "NA", .dtype = k::DType::int64});
  // Kept columns stay in file order: score, then total.
  CHECK(t.names == std::vector<std::string>{"score", "total"});
  CHECK(t["total"].dtype() == k::DType::int64);
  CHECK(t["score"].to_vector<int64_t>() == std::vector<int64_t>{10, -1, -1});
  CHECK(t["total"].to_vector<int64_t>() == std::vector<int64_t>{100, 200, 300});
}

TEST_CASE("read_csv: text columns, inferred from the first records as make_csv_dataset does, or declared") {
  // "name" is text in the first records; "note" is missing in all of them, which
  // make_csv_dataset also reads as text; "code" and "x" are numbers.
  CsvFile f("code,name,note,x\n1,alice,,0.5\n2,\"bob, jr\",,1.5\n3,\"\"\"c\"\"\",,2.5\n");
  const U::CsvColumns t = U::read_csv(f.path, {.column_defaults = std::vector<U::CsvDefault>{
                                                   k::DType::string, std::nullopt, "n/a", k::DType::float64}});
  CHECK(t["code"].dtype() == k::DType::string);
  CHECK(t["code"].to_vector<std::string>() == std::vector<std::string>{"1", "2", "3"});
  CHECK(t["name"].dtype() == k::DType::string);
  CHECK(t["name"].to_vector<std::string>() == std::vector<std::string>{"alice", "bob, jr", "\"c\""});
  CHECK(t["note"].to_vector<std::string>() == std::vector<std::string>{"n/a", "n/a", "n/a"});
  CHECK(t["x"].dtype() == k::DType::float64);
  CHECK(t["x"].to_vector<double>() == std::vector<double>{0.5, 1.5, 2.5});
  // Inferred: "code" and "x" numeric (dtype), "name" and the all-missing "note" text.
  CsvFile filled("code,name,note\n1,alice,\n2,bob,\n");
  const std::string m = message_of<k::ValueError>([&] { U::read_csv(filled.path); });
  CHECK(contains(m, "line 2, column 'note': the value is missing and the column has no default"));
  const U::CsvColumns i = U::read_csv(filled.path, {.column_defaults = std::vector<U::CsvDefault>{
                                                        std::nullopt, std::nullopt, ""}});
  CHECK(i["code"].dtype() == k::DType::float32);
  CHECK(i["name"].dtype() == k::DType::string);
  CHECK(i["note"].to_vector<std::string>() == std::vector<std::string>{"", ""});
}

TEST_CASE("read_csv: errors name the file, the line and the column") {
  CsvFile text("x,name\n1,alice\n");
  const U::CsvColumns inferred = U::read_csv(text.path);
  CHECK(inferred["x"].to_vector<float>() == std::vector<float>{1});
  CHECK(inferred["name"].to_vector<std::string>() == std::vector<std::string>{"alice"});
  const std::string m = message_of<k::ValueError>([&] {
    U::read_csv(text.path, {.column_defaults = std::vector<U::CsvDefault>{0, 0}});
  });
  CHECK(contains(m, text.path));
  CHECK(contains(m, "line 2, column 'name': \"alice\" is not a number, and the column is float32; give it "
                    "DType::string in column_defaults to read it as text"));
  // Text after the inference rows in a column read as numeric.
  CsvFile late("a\n1\n2\nthree\n");
  CHECK(contains(message_of<k::ValueError>([&] { U::read_csv(late.path, {.num_rows_for_inference = 2}); }),
                 "line 4, column 'a': \"three\" is not a number, and the column is float32 (inferred from its first "
                 "2 records)"));
  CHECK(U::read_csv(late.path)["a"].dtype() == k::DType::string);
  CHECK(contains(message_of<k::ValueError>([&] {
                   U::read_csv(late.path, {.column_defaults = std::vector<U::CsvDefault>{0, 1}});
                 }),
                 "column_defaults holds 2 entries for 1 kept columns"));
  CHECK(contains(message_of<k::ValueError>([&] {
                   U::read_csv(late.path, {.column_defaults = std::vector<U::CsvDefault>{k::DType::bool_}});
                 }),
                 "column 'a': a column's dtype must be string, float32, float64, int32 or int64; received bool"));
  CsvFile missing("a,b\n1,2\n3,\n");
  CHECK(contains(message_of<k::ValueError>([&] { U::read_csv(missing.path); }),
                 "line 3, column 'b': the value is missing and the column has no default"));
  CsvFile ragged("a,b\n1,2\n3,4,5\n");
  CHECK(contains(message_of<k::ValueError>([&] { U::read_csv(ragged.path); }), "line 3: 3 fields, but there are 2 columns"));
  CsvFile open_quote("a,b\n1,\"2\n");
  CHECK(contains(message_of<k::ValueError>([&] { U::read_csv(open_quote.path); }), "line 2: a quoted field is not closed"));
  CsvFile after_quote("a\n\"1\"2\n");
  CHECK(contains(message_of<k::ValueError>([&] { U::read_csv(after_quote.path); }), "text after the closing quote"));
  CsvFile fraction("a\n1.5\n");
  CHECK(contains(message_of<k::ValueError>([&] { U::read_csv(fraction.path, {.dtype = k::DType::int32}); }),
                 "\"1.5\" is not an integer"));
  CHECK(contains(message_of<k::ValueError>([&] {
                   U::read_csv(fraction.path, {.select_columns = std::vector<std::string>{"b"}});
                 }),
                 "select_columns names 'b', which is not a column"));
  CHECK(contains(message_of<k::IOError>([] { U::read_csv("/nonexistent/kiln.csv"); }), "/nonexistent/kiln.csv"));
}

TEST_CASE("make_csv_dataset: (features, label) batches, every record once per epoch") {
  std::string text = "f1,label,f2\n";
  for (int i = 0; i < 10; ++i) text += std::to_string(i) + "," + std::to_string(i % 2) + "," + std::to_string(i * 10) + "\n";
  CsvFile f(text);
  const k::Dataset ds = U::make_csv_dataset(f.path, 4, {.label_name = "label", .shuffle_seed = 3, .num_epochs = 2});
  std::multiset<int> seen;
  std::vector<int64_t> sizes;
  for (auto [x, y] : ds) {
    REQUIRE(x.shape().dims().size() == 2);
    CHECK(x.shape().dims()[1] == 2);
    sizes.push_back(x.shape().dims()[0]);
    const auto xv = x.to_vector<float>(), yv = y.to_vector<float>();
    for (std::size_t r = 0; r < yv.size(); ++r) {
      CHECK(xv[2 * r + 1] == 10 * xv[2 * r]);  // a record's fields stay together
      CHECK(yv[r] == float(int(xv[2 * r]) % 2));
      seen.insert(int(xv[2 * r]));
    }
  }
  CHECK(sizes == std::vector<int64_t>{4, 4, 4, 4, 4});
  for (int i = 0; i < 10; ++i) CHECK(seen.count(i) == 2);
  CHECK(contains(message_of<k::ValueError>([&] { U::make_csv_dataset(f.path, 4, {.label_name = "y"}); }),
                 "label_name 'y' is not one of the columns ['f1', 'label', 'f2']"));
}

TEST_CASE("make_csv_dataset: a text column, one tensor per column, trains a model with an Input per column") {
  k::clear_session();
  k::random::set_seed(7);
  // The label is 1 exactly for breed "terrier"; age is noise.
  const std::vector<std::string> breeds{"terrier", "collie", "poodle, toy"};
  std::string text = "age,breed,label\n";
  for (int i = 0; i < 60; ++i)
    text += std::to_string(i % 7) + ",\"" + breeds[i % 3] + "\"," + (i % 3 == 0 ? "1" : "0") + "\n";
  CsvFile f(text);
  CHECK(contains(message_of<k::ValueError>([&] { U::make_csv_dataset(f.path, 8, {.label_name = "label"}); }),
                 "column 'breed' of '" + f.path + "' is text, which cannot be stacked into one float32 feature tensor; "
                 "set stack_features = false"));
  const k::Dataset ds = U::make_csv_dataset(f.path, 8, {.label_name = "label", .shuffle_seed = 1, .num_epochs = 1,
                                                        .stack_features = false});
  int64_t records = 0;
  for (const k::Element& e : ds) {
    REQUIRE(e.size() == 3);
    CHECK(e[0].dtype() == k::DType::float32);
    CHECK(e[1].dtype() == k::DType::string);
    const auto breed = e[1].to_vector<std::string>();
    const auto label = e[2].to_vector<float>();
    for (std::size_t r = 0; r < breed.size(); ++r) CHECK(label[r] == (breed[r] == "terrier" ? 1.f : 0.f));
    records += e[0].shape().dims()[0];
  }
  CHECK(records == 60);

  k::Tensor age = L::Input({1}, {.name = "age"});
  k::Tensor breed = L::Input({1}, {.name = "breed", .dtype = k::string_});
  k::Tensor onehot = L::StringLookup({.vocabulary = std::vector<std::string>(breeds), .output_mode = "multi_hot"})(breed);
  k::Model model({age, breed}, L::Dense(1, {.activation = "sigmoid"})(L::concatenate({age, onehot})));
  // String lookups run outside a traced step (their tables are host data), as Keras's JAX backend keeps them in tf.data.
  model.compile({.optimizer = k::optimizers::Adam({.learning_rate = 0.1}), .loss = "binary_crossentropy",
                 .metrics = {"accuracy"}, .jit_compile = false});
  auto h = model.fit(ds.repeat(), {.epochs = 15, .verbose = 0, .steps_per_epoch = 8});
  CAPTURE(h["loss"].front());
  CAPTURE(h["loss"].back());
  CHECK(h["loss"].back() < 0.5 * h["loss"].front());
  CHECK(h["accuracy"].back() == 1.0);
}

}  // namespace test_csv
