// kiln-h5-reader: the HDF5 sandbox's child as a program of its own
// (hdf5_sandbox.h). libkiln starts it with posix_spawn, its answer pipe at
// descriptor 3 and the file (or a sealed memory file) at descriptor 4:
//   kiln-h5-reader NAME CPU_SECONDS PARENT_PID
// It maps the file, confines itself and streams the snapshot back.
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "io/hdf5_sandbox_child.h"

int main(int argc, char** argv) {
  using namespace kiln::io::sandbox;
  // It dies with the loading process; one already gone has no use for the answer.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (argc != 4 || getppid() != static_cast<pid_t>(std::atol(argv[3]))) return 2;
  close_from(kFileFd + 1);
  close(0);
  struct stat st {};
  if (fstat(kFileFd, &st) != 0 || st.st_size <= 0) return 2;
  const auto size = static_cast<std::size_t>(st.st_size);
  void* data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, kFileFd, 0);
  if (data == MAP_FAILED) return 2;
  close(kFileFd);
  serve(static_cast<const uint8_t*>(data), size, argv[1], std::atoll(argv[2]));
}
