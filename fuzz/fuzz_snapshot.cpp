// The sandbox's answer. A compromised sandboxed reader can send anything, so
// the decoder and every loader that then walks the decoded tree must hold up
// against arbitrary bytes, exactly like a file parser.
#include "fuzz_model.h"
#include "fuzz_targets.h"
#include "io/hdf5_snapshot.h"
#include "io/saving_impl.h"
#include "kiln/core/error.h"

namespace kiln_fuzz {

void h5_snapshot(const uint8_t* data, std::size_t size) {
  auto root = kiln::io::decode_snapshot(data, size, "fuzz.h5");
  const auto file = kiln::io::H5File::from_snapshot(root, "fuzz.h5", size);
  try {
    kiln::io::load_legacy_model(file, /*compile=*/true);
  } catch (const kiln::Error&) {
  }
  auto model = fixed_model();
  kiln::io::load_state(*model, file.root(), /*compiled=*/true, /*skip_mismatch=*/false);
}

}  // namespace kiln_fuzz
