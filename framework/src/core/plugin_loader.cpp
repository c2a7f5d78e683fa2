#include "core/plugin_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace kiln::plugins {
namespace {

void* open_entry(const std::string& path, const char* entry, std::string& why) {
  // RTLD_LOCAL: the plugin's libraries (CUDA, MPI) stay out of the program's namespace.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    why = e ? e : "dlopen failed";
    return nullptr;
  }
  void* sym = dlsym(h, entry);
  if (!sym) {
    dlclose(h);
    why = path + ": no symbol " + entry + " (not a Kiln plugin of this kind)";
  }
  return sym;
}

}  // namespace

std::string library_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_folder), &info) == 0 || !info.dli_fname) return "";
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

void* load_entry(const char* env_var, const std::string& file, const char* entry, std::string& why) {
  if (const char* env = std::getenv(env_var); env && *env) return open_entry(env, entry, why);
  const std::string dir = library_folder();
  const std::string beside = dir.empty() ? "" : (std::filesystem::path(dir) / file).string();
  if (!beside.empty() && std::filesystem::exists(beside)) return open_entry(beside, entry, why);
  return open_entry(file, entry, why);
}

}  // namespace kiln::plugins
