#pragma once
// kiln::text_line_dataset: tf.data.TextLineDataset. Each element is one
// line of the files, in order, as a scalar string tensor without its line
// ending ("\n" or "\r\n"); a last line without one is still a line.
//
//   auto lines = kiln::text_line_dataset({"train.txt"}).batch(32);
//   for (const kiln::Element& b : lines) { /* b[0]: (32,) string */ }
//
// Lines are bytes, as TF's: nothing checks that they are UTF-8 until an op decodes them.
#include <string>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln {

/// The lines of `filenames`, one file after another. Every pass reads the files again;
/// a file that cannot be opened is an IOError naming it, raised when the pass reaches it.
Dataset text_line_dataset(const std::vector<std::string>& filenames);

}  // namespace kiln
