// kiln::utils::read_csv and make_csv_dataset: records to numeric or text
// columns, with defaults for missing fields and errors naming the file, line
// and column.
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

bool is_missing(const std::string& field, const CsvOptions& o) { return field.empty() || field == o.na_value; }

// One kept column: its dtype and its fill value for missing fields.
struct ColumnPlan {
  DType dtype = DType::float32;
  std::optional<double> number;
  std::optional<std::string> text;
};

void check_column_dtype(DType d, const std::string& path, const std::string& column) {
  if (d == DType::float32 || d == DType::float64 || d == DType::int32 || d == DType::int64 || d == DType::string) return;
  throw ValueError("read_csv: '" + path + "', column '" + column + "': a column's dtype must be string, float32, "
                   "float64, int32 or int64; received " + dtype_name(d));
}

// make_csv_dataset's inference, narrowed to Kiln's two kinds: text when a field
// of the first rows is not a number, or when every one of them is missing.
bool inferred_text(const std::vector<csv_parse::Record>& records, std::size_t first, std::size_t column,
                   const CsvOptions& o) {
  bool seen = false;
  for (std::size_t r = first; r < records.size(); ++r) {
    if (o.num_rows_for_inference && static_cast<int64_t>(r - first) >= *o.num_rows_for_inference) break;
    if (column >= records[r].fields.size()) continue;  // the record's length is checked when it is read
    const std::string& field = records[r].fields[column];
    if (is_missing(field, o)) continue;
    if (!parse_number(field)) return true;
    seen = true;
  }
  return !seen;
}

std::vector<ColumnPlan> plan_columns(const std::vector<csv_parse::Record>& records, std::size_t first,
                                     const std::vector<std::size_t>& keep, const std::vector<std::string>& names,
                                     const CsvOptions& o, const std::string& path) {
  std::vector<ColumnPlan> plans(keep.size());
  for (std::size_t k = 0; k < keep.size(); ++k) {
    ColumnPlan& p = plans[k];
    const CsvDefault entry = o.column_defaults ? (*o.column_defaults)[k] : CsvDefault(std::nullopt);
    p.number = entry.number;
    p.text = entry.text;
    if (entry.dtype) p.dtype = *entry.dtype;
    else if (!entry.number && inferred_text(records, first, keep[k], o)) p.dtype = DType::string;
    else p.dtype = o.dtype;
    check_column_dtype(p.dtype, path, names[keep[k]]);
  }
  return plans;
}

double number_value(const std::string& field, const ColumnPlan& plan, const CsvOptions& o, const std::string& at) {
  if (is_missing(field, o)) {
    if (!plan.number)
      throw ValueError(at + "the value is missing and the column has no default (give column_defaults to fill it)");
    return *plan.number;
  }
  const auto v = parse_number(field);
  if (!v) {
    const std::string rows = o.num_rows_for_inference ? "its first " + std::to_string(*o.num_rows_for_inference) + " records"
                                                      : "its records";
    throw ValueError(at + "\"" + field + "\" is not a number, and the column is " + dtype_name(plan.dtype) +
                     (o.column_defaults ? "" : " (inferred from " + rows + ")") +
                     "; give it DType::string in column_defaults to read it as text");
  }
  if (is_integer(plan.dtype) && (std::floor(*v) != *v || std::abs(*v) > 9.2e18))
    throw ValueError(at + "\"" + field + "\" is not an integer, and the dtype is " + dtype_name(plan.dtype));
  return *v;
}

std::string text_value(const std::string& field, const ColumnPlan& plan, const CsvOptions& o, const std::string& at) {
  if (!is_missing(field, o)) return field;
  if (!plan.text)
    throw ValueError(at + "the value is missing and the column has no default (give column_defaults to fill it)");
  return *plan.text;
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
  if (o.dtype != DType::float32 && o.dtype != DType::float64 && o.dtype != DType::int32 && o.dtype != DType::int64)
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
  const std::vector<ColumnPlan> plans = plan_columns(records, first, keep, names, o, path);
  std::vector<std::vector<double>> numbers(keep.size());
  std::vector<std::vector<std::string>> texts(keep.size());
  for (std::size_t r = first; r < records.size(); ++r) {
    const auto& rec = records[r];
    if (rec.fields.size() != names.size())
      throw ValueError("read_csv: '" + path + "', line " + std::to_string(rec.line) + ": " +
                       std::to_string(rec.fields.size()) + " fields, but there are " + std::to_string(names.size()) +
                       " columns " + quoted_names(names));
    for (std::size_t k = 0; k < keep.size(); ++k) {
      const std::string& field = rec.fields[keep[k]];
      const std::string at = where(path, rec.line, names[keep[k]]);
      if (plans[k].dtype == DType::string) texts[k].push_back(text_value(field, plans[k], o, at));
      else numbers[k].push_back(number_value(field, plans[k], o, at));
    }
  }
  CsvColumns out;
  const auto n = static_cast<int64_t>(records.size() - std::min(first, records.size()));
  for (std::size_t k = 0; k < keep.size(); ++k) {
    out.names.push_back(names[keep[k]]);
    if (plans[k].dtype == DType::string) out.columns.push_back(Tensor(texts[k], Shape({n})));
    else out.columns.push_back(cast(Tensor(numbers[k], Shape({n})), plans[k].dtype));
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
  std::vector<Tensor> parts;
  if (options.stack_features) {
    for (std::size_t i = 0; i < table.names.size(); ++i)
      if (table.columns[i].dtype() == DType::string && table.names[i] != options.label_name)
        throw ValueError("make_csv_dataset: column '" + table.names[i] + "' of '" + path + "' is text, which cannot be "
                         "stacked into one " + dtype_name(options.csv.dtype) + " feature tensor; set stack_features = "
                         "false for one tensor per column, or leave it out with select_columns");
    for (auto& f : features) f = cast(f, options.csv.dtype);
    parts.push_back(stack(features, 1));
  } else {
    parts = features;
  }
  if (label) parts.push_back(*label);
  Dataset ds = Dataset::from_tensor_slices(parts);
  // As make_csv_dataset: shuffle, then repeat (each pass reshuffled), then batch.
  if (options.shuffle) ds = ds.shuffle(options.shuffle_buffer_size, options.shuffle_seed);
  ds = ds.repeat(options.num_epochs.value_or(-1));
  return ds.batch(batch_size);
}

}  // namespace kiln::utils
