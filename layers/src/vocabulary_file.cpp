// A vocabulary file as Keras writes it (its layers' vocabulary.txt asset), read
// with errors that name the file and line.
#include "vocabulary_file.h"

#include <charconv>

#include "kiln/core/error.h"
#include "kiln/ops/strings.h"

namespace kiln::layers::detail {

namespace {

// The lines of a vocabulary file as Python's splitlines() reads Keras's "\n".join,
// trailing empty lines dropped (Keras's load_assets pops them).
std::vector<std::string> vocabulary_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') {
      lines.push_back(line);
      line.clear();
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(line);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// One vocabulary line: UTF-8 text for strings, a decimal integer for IntegerLookup.
template <class Token>
Token parse_token(const std::string& line, const std::string& where, std::size_t number) {
  if constexpr (std::is_same_v<Token, std::string>) {
    try {
      strings::unicode_decode(Tensor(line), "UTF-8", "strict");
    } catch (const ValueError& e) {
      throw IOError(where + ": line " + std::to_string(number) + " is not valid UTF-8 (" + e.what() + ")");
    }
    return line;
  } else {
    int64_t v = 0;
    const auto r = std::from_chars(line.data(), line.data() + line.size(), v);
    if (r.ec != std::errc() || r.ptr != line.data() + line.size())
      throw IOError(where + ": line " + std::to_string(number) + " ('" + line.substr(0, 40) +
                    "') is not an integer token");
    return v;
  }
}

}  // namespace

template <class Token>
std::vector<Token> vocabulary_file_tokens(const std::string& text, const std::string& where) {
  const std::vector<std::string> lines = vocabulary_lines(text);
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < lines.size(); ++i) tokens.push_back(parse_token<Token>(lines[i], where, i + 1));
  return tokens;
}
template std::vector<int64_t> vocabulary_file_tokens(const std::string&, const std::string&);
template std::vector<std::string> vocabulary_file_tokens(const std::string&, const std::string&);

}  // namespace kiln::layers::detail
