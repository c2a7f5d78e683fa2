// FarmHash Fingerprint64, SipHash-2-4 and FingerprintCat64, written from their
// published definitions (google/farmhash's farmhashna::Hash64; Aumasson and
// Bernstein's SipHash paper; tensorflow/core/platform/fingerprint.h). All reads
// are little-endian, as the fingerprints are defined, whatever the host's order.
#include "kiln/ops/string_hash.h"

#include <string>

#include "kiln/core/error.h"

namespace kiln::utils {

namespace {

// FarmHash's primes between 2^63 and 2^64.
constexpr uint64_t kFarmK0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kFarmK1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kFarmK2 = 0x9ae16a3b2f90404fULL;

uint64_t load_le(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t fetch64(const char* p) { return load_le(p, 8); }
uint64_t fetch32(const char* p) { return load_le(p, 4); }
uint64_t rotr(uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
uint64_t rotl(uint64_t v, int s) { return (v << s) | (v >> (64 - s)); }
uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

// Murmur-inspired mix of two words.
uint64_t hash_len16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = shift_mix((u ^ v) * mul);
  uint64_t b = shift_mix((v ^ a) * mul);
  return b * mul;
}

uint64_t hash_len0to16(const char* s, std::size_t len) {
  if (len >= 8) {
    const uint64_t mul = kFarmK2 + len * 2;
    const uint64_t a = fetch64(s) + kFarmK2, b = fetch64(s + len - 8);
    const uint64_t c = rotr(b, 37) * mul + a, d = (rotr(a, 25) + b) * mul;
    return hash_len16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = kFarmK2 + len * 2;
    return hash_len16(len + (fetch32(s) << 3), fetch32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint64_t a = static_cast<unsigned char>(s[0]), b = static_cast<unsigned char>(s[len >> 1]);
    const uint64_t c = static_cast<unsigned char>(s[len - 1]);
    const uint32_t y = static_cast<uint32_t>(a + (b << 8)), z = static_cast<uint32_t>(len + (c << 2));
    return shift_mix(y * kFarmK2 ^ z * kFarmK0) * kFarmK2;
  }
  return kFarmK2;
}

uint64_t hash_len17to32(const char* s, std::size_t len) {
  const uint64_t mul = kFarmK2 + len * 2;
  const uint64_t a = fetch64(s) * kFarmK1, b = fetch64(s + 8);
  const uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * kFarmK2;
  return hash_len16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + kFarmK2, 18) + c, mul);
}

uint64_t hash_len33to64(const char* s, std::size_t len) {
  const uint64_t mul = kFarmK2 + len * 2;
  const uint64_t a = fetch64(s) * kFarmK2, b = fetch64(s + 8);
  const uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * kFarmK2;
  const uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
  const uint64_t z = hash_len16(y, a + rotr(b + kFarmK2, 18) + c, mul);
  const uint64_t e = fetch64(s + 16) * mul, f = fetch64(s + 24);
  const uint64_t g = (y + fetch64(s + len - 32)) * mul, h = (z + fetch64(s + len - 24)) * mul;
  return hash_len16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

struct Pair {
  uint64_t first, second;
};

// A 16-byte hash of s[0..31] with seeds a and b (farmhashna's WeakHashLen32WithSeeds).
Pair weak_hash32(const char* s, uint64_t a, uint64_t b) {
  const uint64_t w = fetch64(s), x = fetch64(s + 8), y = fetch64(s + 16), z = fetch64(s + 24);
  a += w;
  b = rotr(b + a + z, 21);
  const uint64_t c = a;
  a += x + y;
  b += rotr(a, 44);
  return {a + z, b + c};
}

// Over 64 bytes: 64-byte blocks through a 56-byte state (v, w, x, y, z), then the
// last 64 bytes (which may overlap the previous block) with a mixed multiplier.
uint64_t hash_long(const char* s, std::size_t len) {
  constexpr uint64_t seed = 81;
  uint64_t x = seed, y = seed * kFarmK1 + 113, z = shift_mix(y * kFarmK2 + 113) * kFarmK2;
  Pair v{0, 0}, w{0, 0};
  x = x * kFarmK2 + fetch64(s);
  const char* end = s + ((len - 1) / 64) * 64;
  const char* last64 = s + len - 64;
  do {
    x = rotr(x + y + v.first + fetch64(s + 8), 37) * kFarmK1;
    y = rotr(y + v.second + fetch64(s + 48), 42) * kFarmK1;
    x ^= w.second;
    y += v.first + fetch64(s + 40);
    z = rotr(z + w.first, 33) * kFarmK1;
    v = weak_hash32(s, v.second * kFarmK1, x + w.first);
    w = weak_hash32(s + 32, z + w.second, y + fetch64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = kFarmK1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((len - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = rotr(x + y + v.first + fetch64(s + 8), 37) * mul;
  y = rotr(y + v.second + fetch64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + fetch64(s + 40);
  z = rotr(z + w.first, 33) * mul;
  v = weak_hash32(s, v.second * mul, x + w.first);
  w = weak_hash32(s + 32, z + w.second, y + fetch64(s + 16));
  std::swap(z, x);
  return hash_len16(hash_len16(v.first, w.first, mul) + shift_mix(y) * kFarmK0 + z,
                    hash_len16(v.second, w.second, mul) + x, mul);
}

// One SipRound over the state (v0, v1, v2, v3).
void sip_round(uint64_t& v0, uint64_t& v1, uint64_t& v2, uint64_t& v3) {
  v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
  v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
  v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
  v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
}

}  // namespace

uint64_t fingerprint64(std::string_view str) {
  const char* s = str.data();
  const std::size_t len = str.size();
  if (len <= 16) return hash_len0to16(s, len);
  if (len <= 32) return hash_len17to32(s, len);
  if (len <= 64) return hash_len33to64(s, len);
  return hash_long(s, len);
}

uint64_t siphash24(uint64_t k0, uint64_t k1, std::string_view str) {
  uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
  uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
  const std::size_t len = str.size(), whole = len / 8 * 8;
  auto compress = [&](uint64_t m) {
    v3 ^= m;
    sip_round(v0, v1, v2, v3);
    sip_round(v0, v1, v2, v3);
    v0 ^= m;
  };
  for (std::size_t i = 0; i < whole; i += 8) compress(fetch64(str.data() + i));
  // The last block: the remaining bytes, then the length's low byte on top.
  const uint64_t tail = len > whole ? load_le(str.data() + whole, static_cast<int>(len - whole)) : 0;
  compress(tail | (static_cast<uint64_t>(len & 0xff) << 56));
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) sip_round(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t fingerprint_cat64(uint64_t fp1, uint64_t fp2) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  uint64_t result = fp1 ^ kMul;
  result ^= shift_mix(fp2 * kMul) * kMul;
  result *= kMul;
  result = shift_mix(result) * kMul;
  return shift_mix(result);
}

std::vector<int64_t> hash_to_bins(const std::vector<std::string_view>& strings, int64_t num_bins,
                                  std::optional<std::pair<uint64_t, uint64_t>> salt) {
  if (num_bins <= 0)
    throw ValueError("hash_to_bins: `num_bins` must be positive, received num_bins=" + std::to_string(num_bins));
  std::vector<int64_t> bins;
  bins.reserve(strings.size());
  const auto n = static_cast<uint64_t>(num_bins);
  for (std::string_view s : strings)
    bins.push_back(static_cast<int64_t>((salt ? siphash24(salt->first, salt->second, s) : fingerprint64(s)) % n));
  return bins;
}

}  // namespace kiln::utils
