#pragma once
// CSV and TSV files as numeric columns, and as a Dataset of (features, label)
// batches (the numeric part of tf.data.experimental.make_csv_dataset).
//
//   // data.csv:  age,weight,"label"\n 31,70.5,1\n 45,,0\n
//   auto t = kiln::utils::read_csv("data.csv", {.column_defaults = {{0, 60, 0}}});
//   t["weight"];                           // float32 (2,): [70.5, 60]
//   auto ds = kiln::utils::make_csv_dataset("data.csv", 32, {.label_name = "label", .num_epochs = 1});
//   model.fit(ds);                         // elements: (features (batch, 2), label (batch,))
//
// Parsing follows RFC 4180: fields separated by `delimiter`, optionally in double
// quotes, inside which the delimiter and line breaks are literal and "" is a quote;
// CRLF and LF line ends; blank lines are skipped. A field that is empty or equal
// to na_value is missing: it takes its column's default from column_defaults, and
// without one it is an error (as TF's decode_csv: the column is required).
// Every error is a kiln::ValueError (kiln::IOError for an unreadable file) naming
// the file, the line and the column. Text columns are refused: strings need a
// string dtype, which Kiln does not have; leave them out with select_columns.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/dtype.h"
#include "kiln/core/tensor.h"
#include "kiln/data/dataset.h"

namespace kiln::utils {

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
  /// One default per kept column for its missing values (std::nullopt: the column is required).
  std::optional<std::vector<std::optional<double>>> column_defaults = std::nullopt;
  /// A field equal to this is missing too (TF's na_value).
  std::string na_value = "";
  /// The dtype of every column: float32, float64, int32 or int64 (integer
  /// columns refuse fractional values).
  DType dtype = DType::float32;
};

/// The kept columns of a CSV file: names and one rank-1 tensor (one value per record) each.
struct CsvColumns {
  std::vector<std::string> names;  ///< The kept columns' names, in file order.
  std::vector<Tensor> columns;     ///< One (num_records,) tensor per name.
  /// The column called `name`; ValueError listing the names if there is none.
  const Tensor& operator[](const std::string& name) const;
};

/// Reads a whole CSV/TSV file into numeric columns.
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
};

/// A Dataset of batches from a CSV file: (features, label), features the kept
/// non-label columns stacked as (batch, num_features) in file order and label
/// (batch,), or (features) without label_name. The file is read once, here.
Dataset make_csv_dataset(const std::string& path, int64_t batch_size, const CsvDatasetOptions& options = {});

}  // namespace kiln::utils
