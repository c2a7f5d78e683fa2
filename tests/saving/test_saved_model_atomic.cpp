// SavedModel crash safety: a process killed before any step of the commit
// (every fsync, rename, exchange and unlink) leaves a folder that loads as
// the old version or the new one, and the next save removes what the killed
// one left behind.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/atomic_dir.h"
#include "saving_util.h"
#include "test_util.h"

using namespace kiln;
using kiln_test::contains;
using kiln_test::message_of;

namespace {

class AtomicScale : public Module {
 public:
  AtomicScale() : Module("scale") { w = add_variable(ones({3, 2}), {.name = "w"}); }
  Variable w;
  Function<std::function<Tensor(const Tensor&)>> call =
      kiln::function(std::function<Tensor(const Tensor&)>([this](const Tensor& x) { return matmul(x, w); }), {.name = "__call__"});
};

void save_scale(AtomicScale& m, const std::string& dir, float value) {
  m.w.assign(fill({3, 2}, value));
  saved_model::save(m, dir, {.functions = {saved_model::function("__call__", m.call)}});
}

/// The value the saved folder computes (the weights' constant), or 0 when it does not load.
float loaded_value(const std::string& dir) {
  try {
    return saved_model::load(dir)->call("__call__", {Tensor({{1.0f, 0.0f, 0.0f}})})[0].to_vector<float>()[0];
  } catch (const IOError&) {
    return 0;
  }
}

/// Saves `value` in a child that _exit()s before commit step `kill_at` (1-based); returns its exit code.
int save_killed_at(AtomicScale& m, const std::string& dir, float value, int kill_at) {
  // Set here: the child runs no op, as a fork has none of the kernels' pool threads.
  m.w.assign(fill({3, 2}, value));
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int step = 0;
    io::testing::set_commit_step_hook([&](const std::string&) {
      if (++step == kill_at) ::_exit(3);
    });
    saved_model::save(m, dir, {.functions = {saved_model::function("__call__", m.call)}});
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

std::vector<std::string> folder_entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("saved_model: a save killed before any commit step leaves the old or the new version, and the next cleans up") {
  AtomicScale m;
  m.call(Tensor({{1.0f, 2.0f, 3.0f}}));
  const std::string parent = saving_test::tmp("atomic"), dir = parent + "/sm";
  std::filesystem::create_directories(parent);
  // The steps of replacing an existing folder, counted once.
  save_scale(m, dir, 1.0f);
  std::vector<std::string> steps;
  io::testing::set_commit_step_hook([&](const std::string& s) { steps.push_back(s); });
  save_scale(m, dir, 2.0f);
  io::testing::set_commit_step_hook(nullptr);
  const auto exchange = std::find(steps.begin(), steps.end(), "exchange");
  REQUIRE(exchange != steps.end());
  const int commit = static_cast<int>(exchange - steps.begin()) + 1;
  CHECK(std::count_if(steps.begin(), steps.end(), [](const std::string& s) { return s.rfind("fsync", 0) == 0; }) >= 6);
  CHECK(std::count_if(steps.begin(), steps.end(), [](const std::string& s) { return s.rfind("unlink", 0) == 0; }) >= 3);

  for (int n = 1; n <= static_cast<int>(steps.size()); ++n) {
    CAPTURE(steps[static_cast<std::size_t>(n - 1)]);
    save_scale(m, dir, 1.0f);  // also removes what the previous killed save left
    CHECK(folder_entries(parent) == std::vector<std::string>{"sm"});
    REQUIRE(save_killed_at(m, dir, 2.0f, n) == 3);
    // Killed before the exchange: the old version; after it: the new one.
    CHECK(loaded_value(dir) == (n <= commit ? 1.0f : 2.0f));
  }
  save_scale(m, dir, 3.0f);
  CHECK(folder_entries(parent) == std::vector<std::string>{"sm"});
  CHECK(loaded_value(dir) == 3.0f);

  // A first save (nothing to replace) killed at any step: no folder, or the whole new one.
  std::vector<std::string> first_steps;
  io::testing::set_commit_step_hook([&](const std::string& s) { first_steps.push_back(s); });
  save_scale(m, parent + "/first", 4.0f);
  io::testing::set_commit_step_hook(nullptr);
  const int rename_at = static_cast<int>(std::find(first_steps.begin(), first_steps.end(), "rename") - first_steps.begin()) + 1;
  REQUIRE(rename_at <= static_cast<int>(first_steps.size()));
  for (int n = 1; n <= static_cast<int>(first_steps.size()); ++n) {
    std::filesystem::remove_all(parent + "/first");
    REQUIRE(save_killed_at(m, parent + "/first", 4.0f, n) == 3);
    CHECK(loaded_value(parent + "/first") == (n <= rename_at ? 0.0f : 4.0f));
  }
  save_scale(m, parent + "/first", 5.0f);  // removes what the killed first saves left
  std::filesystem::remove_all(parent + "/first");
  save_scale(m, dir, 5.0f);
  CHECK(folder_entries(parent) == std::vector<std::string>{"sm"});
}

TEST_CASE("saved_model: save refuses to replace a file or a folder it did not write, and removes old leftovers") {
  AtomicScale m;
  m.call(Tensor({{1.0f, 2.0f, 3.0f}}));
  const std::string parent = saving_test::tmp("refuse");
  std::filesystem::create_directories(parent + "/photos");
  std::ofstream(parent + "/photos/cat.jpg") << "meow";
  std::ofstream(parent + "/notes.txt") << "text";
  CHECK(contains(message_of<IOError>([&] { save_scale(m, parent + "/photos", 1.0f); }), "has no saved_model.json"));
  CHECK(std::filesystem::exists(parent + "/photos/cat.jpg"));
  CHECK(contains(message_of<IOError>([&] { save_scale(m, parent + "/notes.txt", 1.0f); }), "is not a folder"));
  // What saves before the atomic swap left after a kill: "<name>.tmp-<pid>" and "<name>.old-<pid>" of dead processes.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  for (const char* kind : {".tmp-", ".old-"})
    std::filesystem::create_directories(parent + "/sm" + kind + std::to_string(gone) + "/functions");
  save_scale(m, parent + "/sm", 1.0f);
  CHECK(folder_entries(parent) == std::vector<std::string>{"notes.txt", "photos", "sm"});
  save_scale(m, parent + "/sm/", 2.0f);  // a trailing separator names the same folder
  CHECK(folder_entries(parent) == std::vector<std::string>{"notes.txt", "photos", "sm"});
  CHECK(loaded_value(parent + "/sm") == 2.0f);
  std::filesystem::create_directory_symlink(parent + "/sm", parent + "/link");
  CHECK(contains(message_of<IOError>([&] { save_scale(m, parent + "/link", 1.0f); }), "is a symbolic link"));
}

TEST_CASE("saved_model: without RENAME_EXCHANGE a save takes two renames, and a kill at any step loses no version") {
  AtomicScale m;
  m.call(Tensor({{1.0f, 2.0f, 3.0f}}));
  const std::string parent = saving_test::tmp("no_exchange"), dir = parent + "/sm";
  std::filesystem::create_directories(parent);
  io::testing::set_exchange_unsupported(true);  // forked children inherit it
  save_scale(m, dir, 1.0f);
  save_scale(m, dir, 2.0f);
  CHECK(loaded_value(dir) == 2.0f);
  CHECK(folder_entries(parent) == std::vector<std::string>{"sm"});
  std::vector<std::string> steps;
  io::testing::set_commit_step_hook([&](const std::string& s) { steps.push_back(s); });
  save_scale(m, dir, 1.0f);
  io::testing::set_commit_step_hook(nullptr);
  const auto aside = std::find(steps.begin(), steps.end(), "rename aside");
  REQUIRE(aside != steps.end());
  REQUIRE(aside + 1 != steps.end());
  CHECK(*(aside + 1) == "rename");
  for (int n = 1; n <= static_cast<int>(steps.size()); ++n) {
    const std::string& step = steps[static_cast<std::size_t>(n - 1)];
    CAPTURE(step);
    save_scale(m, dir, 1.0f);
    REQUIRE(save_killed_at(m, dir, 2.0f, n) == 3);
    const float v = loaded_value(dir);
    if (n == static_cast<int>(aside - steps.begin()) + 2) {
      // Killed between the two renames: the folder is missing, and the old
      // version lies complete under its temporary name (the new one too).
      CHECK(v == 0.0f);
      int old_versions = 0, new_versions = 0;
      for (const auto& e : folder_entries(parent)) {
        old_versions += loaded_value(parent + "/" + e) == 1.0f;
        new_versions += loaded_value(parent + "/" + e) == 2.0f;
      }
      CHECK(old_versions == 1);
      CHECK(new_versions == 1);
    } else {
      CHECK((v == 1.0f || v == 2.0f));
    }
  }
  save_scale(m, dir, 3.0f);
  CHECK(loaded_value(dir) == 3.0f);
  CHECK(folder_entries(parent) == std::vector<std::string>{"sm"});
  io::testing::set_exchange_unsupported(false);
}
