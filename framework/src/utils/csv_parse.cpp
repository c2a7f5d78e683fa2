// RFC 4180 records: a small state machine over the file's characters.
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "utils/csv_parse.h"

namespace kiln::utils::csv_parse {

std::vector<Record> split_records(const std::string& text, char delimiter, const std::string& path) {
  std::vector<Record> records;
  Record current;
  std::string field;
  int64_t line = 1;
  current.line = 1;
  bool quoted = false, was_quoted = false, record_has_text = false;
  auto end_field = [&] {
    current.fields.push_back(field);
    field.clear();
    was_quoted = false;
  };
  auto end_record = [&](int64_t next_line) {
    end_field();
    if (record_has_text) records.push_back(std::move(current));
    current = Record{};
    current.line = next_line;
    record_has_text = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    if (c == '\n') {
      ++line;
      end_record(line);
    } else if (c == delimiter) {
      record_has_text = true;
      end_field();
    } else if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = record_has_text = true;
    } else if (was_quoted) {
      throw ValueError("read_csv: '" + path + "', line " + std::to_string(line) + ": text after the closing quote of a "
                       "field (quote a field whole, with \"\" for a quote inside it)");
    } else {
      record_has_text = true;
      field += c;
    }
  }
  if (quoted)
    throw ValueError("read_csv: '" + path + "', line " + std::to_string(current.line) +
                     ": a quoted field is not closed before the end of the file");
  end_record(line);
  return records;
}

}  // namespace kiln::utils::csv_parse
