#pragma once
// Private: RFC 4180 record splitting for kiln::utils::read_csv.
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::utils::csv_parse {

/// One record: its fields and the line it starts on (1-based).
struct Record {
  std::vector<std::string> fields;
  int64_t line = 0;
};

/// Splits `text` into records. Quoted fields may hold the delimiter, line breaks
/// and doubled quotes; blank lines are skipped. A quote left open, or text after a
/// closing quote, throws ValueError naming `path` and the line.
std::vector<Record> split_records(const std::string& text, char delimiter, const std::string& path);

}  // namespace kiln::utils::csv_parse
