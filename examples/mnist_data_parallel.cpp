// The guide's MNIST CNN trained data-parallel: the same program as mnist_cnn,
// plus one line. Run it on one machine or several:
//
//   mpirun -np 2 ./mnist_data_parallel                      # 2 processes here
//   mpirun -np 8 --hostfile hosts ./mnist_data_parallel     # 8 across machines
//   ./mnist_data_parallel                                   # no launcher: 1 process
//
// Every rank runs the whole program. The batch size is the global one: with
// 2 ranks each trains on 32 of every 64 rows, and the gradients are averaged.
// Rank 0 alone prints, writes the checkpoints and saves the model; every rank
// can restore them, so a restarted run resumes all ranks at the same epoch.
//   ./mnist_data_parallel --epochs 3 --backup /shared/backup --out results/
#include <kiln/kiln.h>

#include <cstring>
#include <filesystem>
#include <iostream>

#include "guide_cnn.h"

namespace k = kiln;

int main(int argc, char** argv) {
  int epochs = 3;
  std::string out_dir = ".", backup_dir = "mnist_data_parallel_backup";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--epochs") && i + 1 < argc) epochs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--backup") && i + 1 < argc) backup_dir = argv[++i];
  }
  try {
    k::distribute::DataParallel strategy;  // the one line
    if (strategy.is_chief()) std::cout << "Training on " << strategy.describe() << "\n";

    auto [train, test] = k::datasets::mnist::load_data();
    k::Tensor x_train = k::expand_dims(k::cast(train.x, k::float32) / 255.0f, -1);
    k::Tensor x_test = k::expand_dims(k::cast(test.x, k::float32) / 255.0f, -1);

    k::Sequential model = k::examples::guide_cnn();
    model.compile({.optimizer = "adam",
                   .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                   .metrics = {"accuracy"}});
    model.fit(x_train, train.y,
              {.batch_size = 64, .epochs = epochs,
               .callbacks = {k::callbacks::BackupAndRestore({.backup_dir = backup_dir})}, .validation_split = 0.1});

    // evaluate() is global too: every rank gets the same numbers.
    const std::vector<float> loss_and_acc = model.evaluate(x_test, test.y, {.verbose = 0});
    if (strategy.is_chief()) {
      std::cout << "Test accuracy: " << loss_and_acc[1] << " (" << strategy.communication_wait_seconds()
                << " s waiting on communication)\n";
      std::filesystem::create_directories(out_dir);
      model.save(out_dir + "/mnist_data_parallel.keras");
      std::cout << "Saved " << out_dir << "/mnist_data_parallel.keras\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "mnist_data_parallel: " << e.what() << "\n";
    return 1;
  }
}
