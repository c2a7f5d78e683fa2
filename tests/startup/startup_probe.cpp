// What a CPU-only program pays for linking Kiln: runs a little CPU work, then
// reports its resident memory and whether any CUDA library is mapped.
//
//   startup_probe                  # exit 1 if RSS >= 30 MiB or a CUDA library is mapped
//   startup_probe --ask-cuda TEXT  # also asks for Device::cuda(0): it must fail with a
//                                  # kiln::ValueError whose message contains TEXT
#include <kiln/kiln.h>

#include <fstream>
#include <iostream>
#include <string>

namespace {

long rss_kib() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

/// The first mapped file that belongs to CUDA, or "".
std::string cuda_mapping() {
  std::ifstream f("/proc/self/maps");
  for (std::string line; std::getline(f, line);)
    for (const char* lib : {"libcudart", "libcublas", "libcudnn", "libcuda.so", "libkiln_cuda"})
      if (line.find(lib) != std::string::npos) return line.substr(line.find('/'));
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  namespace k = kiln;
  k::Tensor a = k::ones({64, 64});
  const float s = k::sum(k::matmul(a, a)).item<float>();
  if (s != 64.f * 64.f * 64.f) {
    std::cerr << "wrong matmul result " << s << "\n";
    return 1;
  }
  int rc = 0;
  const long rss = rss_kib();
  std::cout << "RSS after CPU work: " << rss / 1024.0 << " MiB\n";
  if (rss < 0 || rss >= 30 * 1024) {
    std::cerr << "FAIL: a CPU-only program linking Kiln should start under 30 MiB RSS\n";
    rc = 1;
  }
  if (const std::string m = cuda_mapping(); !m.empty()) {
    std::cerr << "FAIL: a CPU-only program mapped a CUDA library: " << m << "\n";
    rc = 1;
  }
  if (argc == 3 && std::string(argv[1]) == "--ask-cuda") {
    try {
      k::Tensor t = k::ones({2}).to(k::Device::cuda(0));
      std::cerr << "FAIL: Device::cuda(0) worked, but this check expects it to be unavailable\n";
      rc = 1;
    } catch (const k::ValueError& e) {
      const std::string msg = e.what();
      std::cout << "Device::cuda(0): " << msg << "\n";
      if (msg.find(argv[2]) == std::string::npos) {
        std::cerr << "FAIL: the error does not say '" << argv[2] << "'\n";
        rc = 1;
      }
    }
    std::cout << "unavailable_reason(): " << k::cuda::unavailable_reason() << "\n";
    // The CPU still works after the failed load.
    if (k::sum(k::matmul(a, a)).item<float>() != s) rc = 1;
  }
  return rc;
}
