#include "kiln/data/text_line_dataset.h"

#include <fstream>
#include <memory>

#include "kiln/core/error.h"

namespace kiln {

Dataset text_line_dataset(const std::vector<std::string>& filenames) {
  auto factory = [filenames]() -> Dataset::Pull {
    struct Pass {
      std::size_t next_file = 0;
      std::unique_ptr<std::ifstream> in;
    };
    auto pass = std::make_shared<Pass>();
    return [filenames, pass]() -> std::optional<Element> {
      std::string line;
      while (true) {
        if (!pass->in) {
          if (pass->next_file == filenames.size()) return std::nullopt;
          const std::string& f = filenames[pass->next_file++];
          pass->in = std::make_unique<std::ifstream>(f, std::ios::binary);
          if (!*pass->in) throw IOError("text_line_dataset: cannot open '" + f + "' for reading");
        }
        if (std::getline(*pass->in, line)) {
          if (!line.empty() && line.back() == '\r') line.pop_back();
          return Element{Tensor(line)};
        }
        if (pass->in->bad()) throw IOError("text_line_dataset: reading '" + filenames[pass->next_file - 1] + "' failed");
        pass->in.reset();
      }
    };
  };
  return Dataset::from_generator(std::move(factory), Dataset::UNKNOWN);
}

}  // namespace kiln
