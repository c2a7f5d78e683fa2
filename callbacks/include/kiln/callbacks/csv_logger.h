#pragma once
/// @class kiln::callbacks::CSVLogger
/// CSVLogger: streams each epoch's logs to a CSV file, as Keras's
/// keras/src/callbacks/csv_logger.py (Python csv module, "excel" dialect) does:
/// @code{.unparsed}
///   epoch,accuracy,loss,val_accuracy,val_loss\r\n
///   0,0.5,0.6931471824645996,0.5,0.6931471824645996\r\n
/// @endcode
/// - the columns are "epoch" then the first epoch's keys sorted; a key missing
/// @code{.unparsed}
///   later is written "NA";
/// @endcode
/// - values are Python's repr of the float (shortest round-trip digits);
/// - lines end in "\r\n" (the csv module's excel dialect, which Keras uses);
/// - fields holding the separator, a quote or a line break are quoted.
/// append=true keeps an existing file and adds rows to it (resuming a run);
/// the header is written only when the file is missing or empty.
///
/// @code{.unparsed}
///   kiln::callbacks::CSVLogger csv("training.log", {.append = true});
/// @endcode
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "kiln/training/callback.h"

namespace kiln::callbacks {

/// Options of CSVLogger (keras.callbacks.CSVLogger's arguments besides filename, and defaults).
struct CSVLoggerOptions {
  std::string separator = ",";  ///< One character, like Python's csv delimiter.
  bool append = false;  ///< Keep an existing file and add rows to it; false overwrites it.
};

class CSVLogger : public Callback {
 public:
  /// Rank 0 alone writes in a multi-process run.
  bool chief_only() const override { return true; }
  /// Throws TypeError unless the separator is one character.
  explicit CSVLogger(std::string filename, CSVLoggerOptions options = {});
  ~CSVLogger() override;
  /// Copies the configuration; the copy opens its own file.
  CSVLogger(const CSVLogger& other);
  CSVLogger& operator=(const CSVLogger&) = delete;

  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_train_end(const Logs& logs) override;

  /// The path of the CSV file.
  const std::string& filename() const { return filename_; }

 private:
  std::string field(const std::string& s) const;
  std::string filename_;
  CSVLoggerOptions options_;
  std::ofstream file_;
  std::optional<std::vector<std::string>> keys_;
  bool append_header_ = true;
  bool header_done_ = false;
};

}  // namespace kiln::callbacks
