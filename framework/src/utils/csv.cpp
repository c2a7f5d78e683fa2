// kiln::utils::read_csv and make_csv_dataset: records to numeric columns, with
// defaults for missing fields and errors naming the file, line and column.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/utils/csv.h"
#include "utils/csv_parse.h"
#include "utils/image_codec.h"

namespace kiln::utils {
namespace {

std::string quoted_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
  return "[" + s + "]";
}

std::string where(const std::string& path, int64_t line, const std::string& column) {
  return "read_csv: '" + path + "', line " + std::to_string(line) + ", column '" + column + "': ";
}

// The field as a number, or nullopt when it is not one (surrounding spaces allowed).
std::optional<double> parse_number(const std::string& field) {
  const auto first = field.find_first_not_of(" \t"), last = field.find_last_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  const char* begin = field.data() + first;
  const char* end = field.data() + last + 1;
  if (*begin == '+') ++begin;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// The kept columns' indices into each record, in file order.
std::vector<std::size_t> kept_columns(const std::vector<std::string>& names, const CsvOptions& o,
                                      const std::string& path) {
  std::vector<std::size_t> keep;
  if (!o.select_columns) {
    for (std::size_t i = 0; i < names.size(); ++i) keep.push_back(i);
    return keep;
  }
  for (const auto& want : *o.select_columns)
    if (std::find(names.begin(), names.end(), want) == names.end())
      throw ValueError("read_csv: '" + path + "': select_columns names '" + want + "', which is not a column; the "
                       "columns are " + quoted_names(names));
  for (std::size_t i = 0; i < names.size(); ++i)
    if (std::find(o.select_columns->begin(), o.select_columns->end(), names[i]) != o.select_columns->end())
      keep.push_back(i);
  return keep;
}

double field_value(const std::string& field, const std::optional<double>& fallback, const CsvOptions& o,
                   const std::string& at) {
  if (field.empty() || field == o.na_value) {
    if (!fallback)
      throw ValueError(at + "the value is missing and the column has no default (give column_defaults to fill it)");
    return *fallback;
  }
  const auto v = parse_number(field);
  if (!v)
    throw ValueError(at + "\"" + field + "\" is not a number: text columns need a string dtype, which Kiln does not "
                     "have yet; leave the column out with select_columns");
  if (is_integer(o.dtype) && (std::floor(*v) != *v || std::abs(*v) > 9.2e18))
    throw ValueError(at + "\"" + field + "\" is not an integer, and the dtype is " + dtype_name(o.dtype));
  return *v;
}

}  // namespace

const Tensor& CsvColumns::operator[](const std::string& name) const {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw ValueError("CsvColumns: no column '" + name + "'; the columns are " + quoted_names(names));
  return columns[static_cast<std::size_t>(it - names.begin())];
}

CsvColumns read_csv(const std::string& path, const CsvOptions& o) {
  const auto bytes = image_codec::read_file(path);
  auto records = csv_parse::split_records(std::string(bytes.begin(), bytes.end()), o.delimiter, path);
  if (o.dtype == DType::uint8 || o.dtype == DType::bool_)
    throw ValueError("read_csv: dtype must be float32, float64, int32 or int64; received " + dtype_name(o.dtype));
  if (!o.header && !o.column_names)
    throw ValueError("read_csv: '" + path + "': without a header, column_names must name the columns");
  if (o.header && records.empty()) throw ValueError("read_csv: '" + path + "' is empty: it has no header record");
  std::vector<std::string> names = o.column_names ? *o.column_names : records.front().fields;
  const std::size_t first = o.header ? 1 : 0;
  const std::vector<std::size_t> keep = kept_columns(names, o, path);
  if (o.column_defaults && o.column_defaults->size() != keep.size())
    throw ValueError("read_csv: '" + path + "': column_defaults holds " + std::to_string(o.column_defaults->size()) +
                     " entries for " + std::to_string(keep.size()) + " kept columns");
  std::vector<std::vector<double>> values(keep.size());
  for (std::size_t r = first; r < records.size(); ++r) {
    const auto& rec = records[r];
    if (rec.fields.size() != names.size())
      throw ValueError("read_csv: '" + path + "', line " + std::to_string(rec.line) + ": " +
                       std::to_string(rec.fields.size()) + " fields, but there are " + std::to_string(names.size()) +
                       " columns " + quoted_names(names));
    for (std::size_t k = 0; k < keep.size(); ++k) {
      std::optional<double> fallback;
      if (o.column_defaults) fallback = (*o.column_defaults)[k];
      values[k].push_back(field_value(rec.fields[keep[k]], fallback, o, where(path, rec.line, names[keep[k]])));
    }
  }
  CsvColumns out;
  for (std::size_t k = 0; k < keep.size(); ++k) {
    out.names.push_back(names[keep[k]]);
    const auto n = static_cast<int64_t>(values[k].size());
    out.columns.push_back(cast(Tensor(values[k], Shape({n})), o.dtype));
  }
  return out;
}

Dataset make_csv_dataset(const std::string& path, int64_t batch_size, const CsvDatasetOptions& options) {
  if (batch_size < 1) throw ValueError("make_csv_dataset: batch_size must be at least 1; received " + std::to_string(batch_size));
  const CsvColumns table = read_csv(path, options.csv);
  std::vector<Tensor> features;
  std::optional<Tensor> label;
  for (std::size_t i = 0; i < table.names.size(); ++i) {
    if (options.label_name && table.names[i] == *options.label_name) label = table.columns[i];
    else features.push_back(table.columns[i]);
  }
  if (options.label_name && !label)
    throw ValueError("make_csv_dataset: label_name '" + *options.label_name + "' is not one of the columns " +
                     quoted_names(table.names) + " of '" + path + "'");
  if (features.empty())
    throw ValueError("make_csv_dataset: '" + path + "' has no feature column besides the label");
  std::vector<Tensor> parts{stack(features, 1)};
  if (label) parts.push_back(*label);
  Dataset ds = Dataset::from_tensor_slices(parts);
  // As make_csv_dataset: shuffle, then repeat (each pass reshuffled), then batch.
  if (options.shuffle) ds = ds.shuffle(options.shuffle_buffer_size, options.shuffle_seed);
  ds = ds.repeat(options.num_epochs.value_or(-1));
  return ds.batch(batch_size);
}

}  // namespace kiln::utils
