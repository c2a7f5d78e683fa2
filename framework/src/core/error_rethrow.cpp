// Rethrowing a kiln::Error with added context (error_rethrow.h).
#include "core/error_rethrow.h"

#include <string_view>

#include "kiln/core/error.h"

namespace kiln::detail {

void rethrow_with_message(const std::string& msg) {
  try {
    throw;
  } catch (const NotFoundError&) {
    throw NotFoundError(msg);
  } catch (const IndexError&) {
    throw IndexError(msg);
  } catch (const ShapeError&) {
    throw ShapeError(msg);
  } catch (const TracingError&) {
    throw TracingError(msg);
  } catch (const InvalidArgumentError&) {
    throw InvalidArgumentError(msg);
  } catch (const ValueError&) {
    throw ValueError(msg);
  } catch (const TypeError&) {
    throw TypeError(msg);
  } catch (const IOError&) {
    throw IOError(msg);
  } catch (const RuntimeError&) {
    throw RuntimeError(msg);
  } catch (const LookupError&) {
    throw LookupError(msg);
  } catch (const Error&) {
    throw Error(msg);
  }
}

std::string layer_error_message(const std::string& context, const std::string& what, const std::string& arguments) {
  std::string msg = context + "\n\n" + what;
  if (!arguments.empty()) msg += "\n\nArguments: " + arguments;
  return msg;
}

bool has_layer_context(const char* what) {
  return std::string_view(what).starts_with("Exception encountered when calling layer '");
}

}  // namespace kiln::detail
