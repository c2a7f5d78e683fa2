#pragma once
// Private (framework/src/io): SHA-256 (FIPS 180-4), for the checksums a
// SavedModel's index keeps of its files.
#include <string>
#include <string_view>

namespace kiln::io {

/// The SHA-256 digest of `bytes`, as 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace kiln::io
