// SavedModel directories: a valid one with one of its three files replaced by
// the input (the first byte picks which; a replaced graph or variables file
// gets its checksum recorded, as a tamperer would, so the parsers behind the
// checksum are reached), loaded, and its function called on a fixed input
// (one per input the graph file declares; seeds hold a CNN's and an
// Embedding model's serve graphs too, whose weights load as constants).
// The call runs in a child process (fuzz_saved_model_call) with a CPU and memory limit: a graph may
// legitimately hold a long Loop or a huge Expand (the program is the file's,
// as with any model), so running out of either is no finding; a crash, a
// sanitizer report or an exception other than kiln::Error in the interpreter is.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fuzz_targets.h"
#include "io/sha256.h"
#include "kiln/kiln.h"

namespace kiln_fuzz {

namespace fs = std::filesystem;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif
#else
constexpr bool kUnderAsan = false;
#endif

struct Tiny : kiln::Module {
  Tiny() : Module("tiny") { w = add_variable(kiln::Tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}), {.name = "w"}); }
  kiln::Variable w;
};

void limit(int resource, rlim_t soft, rlim_t hard) {
  const rlimit r{soft, hard};
  ::setrlimit(resource, &r);
}

/// The helper that loads and calls: next to this program (fuzz/CMakeLists.txt builds both there).
const std::string& call_helper() {
  static const std::string path = (fs::read_symlink("/proc/self/exe").parent_path() / "fuzz_saved_model_call").string();
  return path;
}

/// Runs the call helper on `dir` in a fresh process (a forked copy of this one
/// would inherit Kiln's thread pool without its threads); aborts (a finding)
/// if it crashed or let an exception other than kiln::Error escape.
void call_in_child(const fs::path& dir) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return;  // no process to spare: the load alone was tested
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    limit(RLIMIT_CPU, 10, 11);
    limit(RLIMIT_CORE, 0, 0);
    if (!kUnderAsan) limit(RLIMIT_AS, rlim_t{4} << 30, rlim_t{4} << 30);  // ASan reserves terabytes of shadow
    ::setenv("KILN_NUM_THREADS", "1", 1);
    ::execl(call_helper().c_str(), call_helper().c_str(), dir.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  // Out of CPU time: a long-running program, not a crash.
  if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL)) return;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    std::fprintf(stderr, "saved_model: cannot run %s (build the fuzz_saved_model_call target)\n", call_helper().c_str());
  else
    std::fprintf(stderr, "saved_model: the sandboxed call %s %d\n", WIFSIGNALED(status) ? "died of signal" : "exited with",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  std::abort();
}

}  // namespace

const char* const kSavedModelFiles[3] = {"functions/f_0.onnx", "variables.onnx", "saved_model.json"};

std::string saved_model_template() {
  static const std::string dir = [] {
    const fs::path d = fs::path(scratch_file(nullptr, 0, "unused")).parent_path() / "saved_template";
    Tiny m;
    auto f = kiln::function([&m](const kiln::Tensor& x) { return kiln::softmax(kiln::tanh(kiln::matmul(x, m.w))); },
                            {.name = "f"});
    f(kiln::Tensor({{1.0f, 2.0f}}));
    kiln::saved_model::save(m, d.string(), {.functions = {kiln::saved_model::function("f", f)}});
    return d.string();
  }();
  return dir;
}

void saved_model(const uint8_t* data, std::size_t size) {
  if (size < 1) return;
  const fs::path dir = fs::path(saved_model_template()).parent_path() / "saved_fuzz";
  fs::remove_all(dir);
  fs::copy(saved_model_template(), dir, fs::copy_options::recursive);
  const std::string replaced = kSavedModelFiles[data[0] % 3];
  const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  std::ofstream(dir / replaced, std::ios::binary | std::ios::trunc) << bytes;
  if (data[0] % 3 != 2) {
    std::ifstream in(dir / "saved_model.json");
    auto index = nlohmann::json::parse(in);
    index["files"][replaced] = kiln::io::sha256_hex(bytes);
    std::ofstream(dir / "saved_model.json", std::ios::trunc) << index.dump();
  }
  kiln::saved_model::load(dir.string());
  call_in_child(dir);
}

}  // namespace kiln_fuzz
