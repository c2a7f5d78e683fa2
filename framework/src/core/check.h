#pragma once
// Private: KILN_CHECK(cond, ErrorType, message << parts...) throws
// ErrorType(message) when cond is false; the message is streamed, and only
// built on failure, so a check costs one branch. Ops validate their inputs with
// it before any backend runs: backends assume valid input.
//
//   KILN_CHECK(a.dtype() != DType::bool_, TypeError,
//              "add: arithmetic is not defined for bool tensors, but received " << describe(a));
#include <sstream>

#include "kiln/core/error.h"

#define KILN_CHECK(cond, ErrorType, msg)             \
  do {                                               \
    if (!(cond)) [[unlikely]] {                      \
      std::ostringstream kiln_check_os_;             \
      kiln_check_os_ << msg;                         \
      throw ::kiln::ErrorType(kiln_check_os_.str()); \
    }                                                \
  } while (0)
