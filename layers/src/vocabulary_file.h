#pragma once
// Private: Keras's vocabulary.txt assets (vocabulary_file.cpp).
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::layers::detail {

/// The tokens of a vocabulary file's text, one a line as Python's splitlines() reads
/// Keras's "\n".join, trailing empty lines dropped; Token is std::string (UTF-8 lines)
/// or int64_t (decimal lines). IOError naming `where` and the line for a bad line.
template <class Token>
std::vector<Token> vocabulary_file_tokens(const std::string& text, const std::string& where);

}  // namespace kiln::layers::detail
