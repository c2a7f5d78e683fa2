// The call context of errors raised inside a layer (call_context.h).
#include "nn/call_context.h"

#include <string>
#include <string_view>

#include "kiln/core/error.h"

namespace kiln::detail {

namespace {
constexpr std::string_view kCallContext = "Exception encountered when calling layer '";
}  // namespace

void rethrow_with_call_context(const Layer& l) {
  try {
    throw;
  } catch (const Error& e) {
    if (std::string_view(e.what()).starts_with(kCallContext)) throw;
    const std::string msg = std::string(kCallContext) + l.name() + "' (type " + l.class_name() + ").\n\n" + e.what();
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
}

std::shared_ptr<Layer> kept_for_rerun(Layer* layer) {
  if (auto owned = layer->weak_from_this().lock()) return owned;
  return std::shared_ptr<Layer>(layer, [](Layer*) {});
}

}  // namespace kiln::detail
