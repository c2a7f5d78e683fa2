#include "core/file_load_scope.h"

#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::detail {

namespace {
thread_local FileLoadScope* t_scope = nullptr;

[[noreturn]] void over_limit(const std::string& what, int64_t nbytes, const std::string& source) {
  throw ValueError(source + ": " + what + " needs " + std::to_string(nbytes) + " bytes, more than the limit of " +
                   std::to_string(max_read_bytes()) +
                   " bytes for a model loaded from a file (set KILN_MAX_ALLOC_BYTES or kiln::set_max_read_bytes to "
                   "allow it)");
}
}  // namespace

FileLoadScope::FileLoadScope(std::string source) : prev_(t_scope), source_(std::move(source)) { t_scope = this; }
FileLoadScope::~FileLoadScope() { t_scope = prev_; }
FileLoadScope* FileLoadScope::current() { return t_scope; }

void check_load_allocation(int64_t nbytes, const std::string& what) {
  if (t_scope && nbytes > max_read_bytes()) over_limit(what, nbytes, t_scope->source());
}

void charge_load_weight(int64_t elements, std::size_t itemsize) {
  int64_t nbytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<int64_t>(itemsize), &nbytes))
    throw ValueError("its size in bytes exceeds what can be addressed");
  if (!t_scope) return;
  if (nbytes > max_read_bytes() - t_scope->weight_bytes)
    over_limit("the weight (with the " + std::to_string(t_scope->weight_bytes) + " bytes of weights before it)",
               t_scope->weight_bytes + nbytes, t_scope->source());
  t_scope->weight_bytes += nbytes;
}

}  // namespace kiln::detail
