#pragma once
// CSV and TSV files as named columns, numeric or text, and as a Dataset of
// (features, label) batches (tf.data.experimental.make_csv_dataset).
//
//   // data.csv:  age,weight,"label"\n 31,70.5,1\n 45,,0\n
//   auto t = kiln::utils::read_csv("data.csv", {.column_defaults = {{0, 60, 0}}});
//   t["weight"];                           // float32 (2,): [70.5, 60]
//   auto ds = kiln::utils::make_csv_dataset("data.csv", 32, {.label_name = "label", .num_epochs = 1});
//   model.fit(ds);                         // elements: (features (batch, 2), label (batch,))
//
//   // pets.csv:  Type,Age,Breed1,AdoptionSpeed  (Breed1 holds words)
//   auto pets = kiln::utils::make_csv_dataset("pets.csv", 32, {.label_name = "AdoptionSpeed",
//                                             .stack_features = false});
//   // elements: (Type (batch,), Age (batch,), Breed1 (batch,) string, label (batch,)),
//   // one tensor per column in file order for a model with one Input per column
//
// Parsing follows RFC 4180: fields separated by `delimiter`, optionally in double
// quotes, inside which the delimiter and line breaks are literal and "" is a quote;
// CRLF and LF line ends; blank lines are skipped. A field that is empty or equal
// to na_value is missing: it takes its column's default from column_defaults, and
// without one it is an error (as TF's decode_csv: the column is required).
// A column is text (DType::string) when its column_defaults entry says so (a text
// default, or DType::string); without such an entry it is text when a field of
// its first num_rows_for_inference records is not a number, as make_csv_dataset
// infers it, and numeric (`dtype`) otherwise.
// Every error is a kiln::ValueError (kiln::IOError for an unreadable file) naming
// the file, the line and the column.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/core/dtype.h"
#include "kiln/core/tensor.h"
#include "kiln/data/dataset.h"

namespace kiln::utils {

/// One column's entry in column_defaults, as TF's entries are a value or a dtype:
/// a number or a text to fill its missing fields (a text makes it a text column),
/// a DType (the column has that dtype, and is required), or std::nullopt (the
/// column is required, its kind inferred).
///   .column_defaults = {{0, "unknown", k::DType::string, std::nullopt}}
struct CsvDefault {
  /// Required, of the inferred kind.
  CsvDefault(std::nullopt_t) {}
  /// Fills missing fields of a numeric column with `v`.
  template <class T>
    requires std::is_arithmetic_v<T>
  CsvDefault(T v) : number(static_cast<double>(v)) {}
  /// Fills missing fields with `v` when set; required when empty.
  CsvDefault(std::optional<double> v) : number(v) {}
  /// Fills missing fields of a text column with `s`.
  CsvDefault(std::string s) : text(std::move(s)), dtype(DType::string) {}
  /// Fills missing fields of a text column with `s`.
  CsvDefault(const char* s) : CsvDefault(std::string(s)) {}
  /// A required column of dtype `d` (string, float32, float64, int32 or int64).
  CsvDefault(DType d) : dtype(d) {}
  std::optional<double> number;     ///< The numeric fill value.
  std::optional<std::string> text;  ///< The text fill value.
  std::optional<DType> dtype;       ///< The column's dtype, when this entry fixes it.
};

/// read_csv's options (tf.data.experimental.make_csv_dataset's names where it has them).
struct CsvOptions {
  /// The field separator: ',' for CSV, a tab for TSV (TF's field_delim).
  char delimiter = ',';
  /// Whether the first record holds the column names.
  bool header = true;
  /// The column names; required without a header, and they replace the header's when given.
  std::optional<std::vector<std::string>> column_names = std::nullopt;
  /// The columns to keep, by name, in the file's order of them (default: all).
  std::optional<std::vector<std::string>> select_columns = std::nullopt;
  /// One entry per kept column: its default for missing values and/or its dtype
  /// (see CsvDefault). Without it every column is required and its kind inferred.
  std::optional<std::vector<CsvDefault>> column_defaults = std::nullopt;
  /// A field equal to this is missing too (TF's na_value).
  std::string na_value = "";
  /// The dtype of the numeric columns whose entry names none: float32, float64,
  /// int32 or int64 (integer columns refuse fractional values).
  DType dtype = DType::float32;
  /// Records read to tell text columns from numeric ones (make_csv_dataset's
  /// default); std::nullopt reads them all.
  std::optional<int64_t> num_rows_for_inference = 100;
};

/// The kept columns of a CSV file: names and one rank-1 tensor (one value per
/// record) each, numeric or DType::string.
struct CsvColumns {
  std::vector<std::string> names;  ///< The kept columns' names, in file order.
  std::vector<Tensor> columns;     ///< One (num_records,) tensor per name.
  /// The column called `name`; ValueError listing the names if there is none.
  const Tensor& operator[](const std::string& name) const;
};

/// Reads a whole CSV/TSV file into columns.
CsvColumns read_csv(const std::string& path, const CsvOptions& options = {});

/// make_csv_dataset's options.
struct CsvDatasetOptions {
  /// How the file is parsed.
  CsvOptions csv = {};
  /// The label column; without one the elements are (features) only.
  std::optional<std::string> label_name = std::nullopt;
  /// Shuffle the records (make_csv_dataset's default) with a buffer of shuffle_buffer_size.
  bool shuffle = true;
  /// Records in the shuffle buffer (make_csv_dataset's default, 10000).
  int64_t shuffle_buffer_size = 10000;
  /// The shuffle seed (random when absent).
  std::optional<uint64_t> shuffle_seed = std::nullopt;
  /// Passes over the file; std::nullopt repeats forever (make_csv_dataset's num_epochs=None).
  std::optional<int64_t> num_epochs = std::nullopt;
  /// Stack the feature columns into one (batch, num_features) tensor of dtype
  /// csv.dtype; false gives one (batch,) tensor per feature column, in file
  /// order (TF's features dict as a list, for a model with one Input per
  /// column), which text columns need.
  bool stack_features = true;
};

/// A Dataset of batches from a CSV file: (features, label), features the kept
/// non-label columns (stacked, or one per column: see stack_features) and label
/// (batch,), or features only without label_name. The file is read once, here.
Dataset make_csv_dataset(const std::string& path, int64_t batch_size, const CsvDatasetOptions& options = {});

}  // namespace kiln::utils
