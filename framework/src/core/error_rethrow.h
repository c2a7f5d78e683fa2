#pragma once
// Private: rethrowing the active kiln::Error with a new message, keeping its
// type (an IndexError stays an IndexError), so context can be added to an
// error on its way out (the layer it was raised in, the node that ran).
#include <string>

namespace kiln::detail {

/// Inside a catch block of a kiln::Error: throws an error of the same most
/// derived kiln type with message `msg`.
[[noreturn]] void rethrow_with_message(const std::string& msg);

/// "<context>\n\n<what>", plus "\n\nArguments: <arguments>" when there are
/// any: the message of an error raised inside a layer's call.
std::string layer_error_message(const std::string& context, const std::string& what, const std::string& arguments);

/// Whether `what` already carries a layer's context (the innermost layer names itself).
bool has_layer_context(const char* what);

}  // namespace kiln::detail
