#pragma once
// The fuzz targets: one per kind of file Kiln reads. Each takes arbitrary
// bytes and must either read them or throw kiln::Error; a crash, a sanitizer
// report, another exception type, a hang or a large allocation is a bug.
// They are built two ways from the same code:
//   - fuzz_<name> (libFuzzer, clang, -DKILN_FUZZ=ON), run by fuzz/run.sh;
//   - fuzz_replay, which runs every target over fuzz/corpus/<name>/ (seeds
//     and every input that ever crashed) as the CTest fuzz_corpus_replay,
//     under AddressSanitizer and UBSan in CI's sanitizer build.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln_fuzz {

using TargetFn = void (*)(const uint8_t* data, std::size_t size);

struct Target {
  const char* name;
  const char* what;
  TargetFn run;
};

/// Every target, in a fixed order.
const std::vector<Target>& targets();
const Target* find_target(const std::string& name);

/// Runs one target on one input, swallowing kiln::Error (the expected
/// outcome for a bad file) and letting everything else escape. With
/// KILN_FUZZ_VERBOSE set, prints what happened to stderr.
void run_one(const Target& t, const uint8_t* data, std::size_t size);

// Shared by the targets.
/// Registers the built-in layers (as an application linking libkiln does).
void ensure_registered();
/// Writes the bytes to a scratch file of this process, named `file_name`,
/// and returns its path (for readers that take a path).
std::string scratch_file(const uint8_t* data, std::size_t size, const std::string& file_name);

// The targets (fuzz_models.cpp, fuzz_weights.cpp, fuzz_arrays.cpp, fuzz_snapshot.cpp, fuzz_saved_model.cpp).
void keras_archive(const uint8_t* data, std::size_t size);
void h5_model(const uint8_t* data, std::size_t size);
void json_config(const uint8_t* data, std::size_t size);
void weights_h5(const uint8_t* data, std::size_t size);
void checkpoint(const uint8_t* data, std::size_t size);
void arrays(const uint8_t* data, std::size_t size);
void h5_snapshot(const uint8_t* data, std::size_t size);
void saved_model(const uint8_t* data, std::size_t size);
/// A SavedModel directory of a small traced function, and the files the saved_model target replaces.
std::string saved_model_template();
extern const char* const kSavedModelFiles[3];

}  // namespace kiln_fuzz
