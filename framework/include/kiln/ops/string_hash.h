#pragma once
// The string hashes TensorFlow's string ops use, so that Kiln's hashing layers
// give the bins Keras's do (Keras's Hashing and HashedCrossing run TensorFlow).
//
//   kiln::utils::fingerprint64("A")                  // FarmHash Fingerprint64 (tf.fingerprint's
//                                                     // farmhash64, to_hash_bucket_fast)
//   kiln::utils::siphash24(133, 137, "A")            // SipHash-2-4 keyed by two words
//                                                     // (to_hash_bucket_strong's key)
//   kiln::utils::fingerprint_cat64(0xDECAFCAFFE, h)  // TensorFlow's FingerprintCat64, the
//                                                     // combiner of tf.sparse.cross_hashed
//   kiln::utils::hash_to_bins({"A", "B"}, 3)         // {1, 0}: to_hash_bucket_fast
//
// Every function reads the bytes of a std::string_view (no terminator needed;
// embedded zeros count), so string tensors can pass their elements as they are.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::utils {

/// FarmHash's Fingerprint64 (farmhashna::Hash64) of the bytes of `s`; stable
/// across platforms, as TensorFlow's Fingerprint64.
uint64_t fingerprint64(std::string_view s);

/// SipHash-2-4 of the bytes of `s` with the 128-bit key (k0, k1): the key bytes
/// are k0 then k1, each little-endian (highwayhash's SipHash, which TensorFlow's
/// to_hash_bucket_strong calls with key = [k0, k1]).
uint64_t siphash24(uint64_t k0, uint64_t k1, std::string_view s);

/// Concatenates two 64-bit fingerprints (TensorFlow's FingerprintCat64); not commutative.
uint64_t fingerprint_cat64(uint64_t fp1, uint64_t fp2);

/// Each string's bin in [0, num_bins): fingerprint64(s) % num_bins
/// (tf.strings.to_hash_bucket_fast), or with a salt (k0, k1) siphash24(k0, k1, s) % num_bins
/// (tf.strings.to_hash_bucket_strong). Throws ValueError when num_bins <= 0.
std::vector<int64_t> hash_to_bins(const std::vector<std::string_view>& strings, int64_t num_bins,
                                  std::optional<std::pair<uint64_t, uint64_t>> salt = std::nullopt);

}  // namespace kiln::utils
