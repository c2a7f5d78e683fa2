// CompositeScope: marks the span of a trace's nodes that one composed op
// recorded, for the readers that want the op rather than its parts.
#include "backend/recording.h"
#include "core/tracing.h"

namespace kiln::backend {

CompositeScope::CompositeScope(std::string type, std::vector<Tensor> inputs, NodeParams params)
    : rec_(active_recording()) {
  if (!rec_) return;
  begin_ = rec_->size();
  op_.type = std::move(type);
  op_.inputs = std::move(inputs);
  op_.params = std::move(params);
  op_.layer = tracing::current_layer_path();
}

void CompositeScope::finish(std::vector<Tensor> outputs) {
  if (!rec_) return;
  op_.outputs = std::move(outputs);
  rec_->composites().push_back({std::move(op_), begin_, rec_->size()});
}

}  // namespace kiln::backend
