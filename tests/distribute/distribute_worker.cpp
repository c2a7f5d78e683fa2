// The program tests/distribute/run_failures.py runs under mpirun: a
// data-parallel fit with BackupAndRestore in which rank 1 can fail on purpose
// at a given global step, by being killed, by throwing, or by stalling.
//
//   distribute_worker BACKUP_DIR OUT_FILE [kill|throw|stall STEP]
//
// Rank 0 writes the final weights to OUT_FILE, one value per line.
#include <kiln/kiln.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

namespace L = kiln::layers;

namespace {

class FailAt : public kiln::Callback {
 public:
  FailAt(std::string how, int step, int rank) : how_(std::move(how)), step_(step), rank_(rank) {}
  void on_train_batch_end(int, const kiln::Logs&) override {
    if (++seen_ != step_ || rank_ != 1) return;
    if (how_ == "kill") std::raise(SIGKILL);
    if (how_ == "throw") throw kiln::ValueError("injected failure at step " + std::to_string(step_));
    if (how_ == "stall") std::this_thread::sleep_for(std::chrono::hours(1));
  }

 private:
  std::string how_;
  int step_, seen_ = 0, rank_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::cerr << "usage: distribute_worker BACKUP_DIR OUT_FILE [kill|throw|stall STEP]\n";
    return 2;
  }
  kiln::distribute::DataParallel strategy;
  kiln::random::set_seed(3);
  kiln::Tensor x = kiln::random::normal(kiln::Shape({320, 12}));
  kiln::Tensor y = kiln::cast(kiln::argmax(kiln::matmul(x, kiln::random::normal(kiln::Shape({12, 3}))), -1), kiln::int64);
  kiln::Tensor in = kiln::Input({12});
  kiln::Tensor out = L::Dense(3)(L::Dense(16, {.activation = "relu"})(in));
  kiln::Model model(in, out);
  model.compile({.optimizer = "adam", .loss = kiln::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .metrics = {"accuracy"}});
  std::vector<kiln::CallbackArg> cbs{kiln::callbacks::BackupAndRestore({.backup_dir = argv[1]})};
  if (argc == 5) cbs.emplace_back(std::make_shared<FailAt>(argv[3], std::stoi(argv[4]), strategy.rank()));
  kiln::History h;
  try {
    h = model.fit(x, y, {.batch_size = 64, .epochs = 4, .verbose = 0, .callbacks = cbs});
  } catch (const std::exception& e) {
    std::cerr << "rank " << strategy.rank() << ": fit failed: " << e.what() << "\n";
    return 1;
  }
  if (strategy.is_chief()) {
    std::ofstream f(argv[2]);
    for (const auto& v : model.weights())
      for (double w : v.read_value_untracked().to_vector<double>()) f << std::to_string(w) << "\n";
    std::cout << "rank 0 finished: epochs " << h.epoch.front() << " to " << h.epoch.back() << ", loss "
              << h["loss"].back() << "\n";
  }
  return 0;
}
