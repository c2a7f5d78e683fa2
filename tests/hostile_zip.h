#pragma once
// Hand-made zip archives for the hostile-file tests: stored (uncompressed)
// members whose declared sizes may lie, written byte by byte so a test can
// say exactly what the directory claims.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace kiln_test {

struct ZipMember {
  std::string name, data;
  uint64_t declared_size = UINT64_MAX;  // UINT64_MAX: the true size
};

inline uint32_t crc32_of(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

/// Writes a zip archive of stored members (the layout np.savez writes, without zip64).
inline void write_zip(const std::string& path, const std::vector<ZipMember>& members) {
  std::string out, central;
  auto put = [](std::string& s, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  for (const auto& m : members) {
    const uint64_t size = m.declared_size == UINT64_MAX ? m.data.size() : m.declared_size;
    const uint32_t offset = static_cast<uint32_t>(out.size());
    put(out, 0x04034b50, 4), put(out, 20, 2), put(out, 0, 2), put(out, 0, 2), put(out, 0, 4);
    put(out, crc32_of(m.data), 4), put(out, m.data.size(), 4), put(out, size, 4);
    put(out, m.name.size(), 2), put(out, 0, 2), out += m.name, out += m.data;
    put(central, 0x02014b50, 4), put(central, 20, 2), put(central, 20, 2), put(central, 0, 2), put(central, 0, 2);
    put(central, 0, 4), put(central, crc32_of(m.data), 4), put(central, m.data.size(), 4), put(central, size, 4);
    put(central, m.name.size(), 2), put(central, 0, 2), put(central, 0, 2), put(central, 0, 2), put(central, 0, 2);
    put(central, 0, 4), put(central, offset, 4), central += m.name;
  }
  const uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += central;
  put(out, 0x06054b50, 4), put(out, 0, 2), put(out, 0, 2), put(out, members.size(), 2), put(out, members.size(), 2);
  put(out, central.size(), 4), put(out, cd_offset, 4), put(out, 0, 2);
  std::ofstream(path, std::ios::binary) << out;
}

/// A .npy file (format 1.0) of `n` little-endian float32 zeros.
inline std::string npy_float32(std::size_t n) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
  header.resize(((10 + header.size() + 1 + 63) / 64) * 64 - 10, ' ');
  header.back() = '\n';
  std::string out = "\x93NUMPY";
  out += '\x01', out += '\x00';
  out += static_cast<char>(header.size() & 0xFF), out += static_cast<char>(header.size() >> 8);
  return out + header + std::string(n * 4, '\0');
}

}  // namespace kiln_test
