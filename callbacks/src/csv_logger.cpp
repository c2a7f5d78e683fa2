#include "kiln/callbacks/csv_logger.h"

#include <algorithm>
#include <filesystem>

#include "callback_utils.h"
#include "kiln/core/error.h"

namespace kiln::callbacks {

CSVLogger::CSVLogger(std::string filename, CSVLoggerOptions options)
    : filename_(std::move(filename)), options_(std::move(options)) {
  if (options_.separator.size() != 1)
    throw TypeError("CSVLogger: separator must be a 1-character string, received \"" + options_.separator + "\"");
}

// Copies carry the configuration, not an open file (fit() copies callbacks passed by value).
CSVLogger::CSVLogger(const CSVLogger& other) : Callback(other), filename_(other.filename_), options_(other.options_) {}

CSVLogger::~CSVLogger() {
  if (file_.is_open()) file_.close();
}

void CSVLogger::on_train_begin(const Logs&) {
  append_header_ = true;
  if (options_.append && std::filesystem::exists(filename_)) {
    // Keras: append_header = not bool(len(f.readline())).
    std::ifstream in(filename_, std::ios::binary);
    char c;
    append_header_ = !(in.get(c));
  }
  if (file_.is_open()) file_.close();
  file_.open(filename_, options_.append ? (std::ios::binary | std::ios::app) : (std::ios::binary | std::ios::trunc));
  if (!file_) throw IOError("CSVLogger: cannot open '" + filename_ + "' for writing");
  keys_.reset();
  header_done_ = false;
}

std::string CSVLogger::field(const std::string& s) const {
  // csv.QUOTE_MINIMAL: quote fields holding the delimiter, the quote char or a line break.
  if (s.find_first_of(options_.separator + "\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

void CSVLogger::on_epoch_end(int epoch, Logs& logs) {
  if (!file_.is_open()) on_train_begin(Logs{});  // used outside fit(): open lazily
  if (!keys_) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : logs) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    keys_ = std::move(keys);
  }
  const std::string& sep = options_.separator;
  if (!header_done_) {
    if (append_header_) {
      file_ << field("epoch");
      for (const auto& k : *keys_) file_ << sep << field(k);
      file_ << "\r\n";
    }
    header_done_ = true;
  }
  file_ << epoch;
  for (const auto& k : *keys_) {
    auto v = logs.get(k);
    file_ << sep << (v ? field(detail::python_float_repr(*v)) : std::string("NA"));
  }
  file_ << "\r\n";
  file_.flush();
  if (!file_) throw IOError("CSVLogger: writing to '" + filename_ + "' failed");
}

void CSVLogger::on_train_end(const Logs&) {
  if (file_.is_open()) file_.close();
  header_done_ = false;
}

}  // namespace kiln::callbacks
