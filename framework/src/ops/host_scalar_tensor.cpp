#include "ops/host_scalar_tensor.h"
#include "core/op_log.h"

#include "backend/backend.h"
#include "backend/recording.h"

namespace kiln {

Tensor host_scalar_tensor(HostScalar s, DType dtype, Device device) {
  KILN_LOG_OP(host_scalar_tensor, s, dtype, device);
  if (!s.live || !backend::active_recording()) return Tensor(s.current(), dtype).to(device);
  Tensor t;
  {
    // Made outside the record: a buffer the graph's memory plan leaves alone.
    backend::RecordingPause pause;
    t = Tensor(s.current(), dtype).to(device);
  }
  backend::record_host_node([t, live = s.live]() mutable { backend::backend_for(t.device()).fill(t, *live); },
                            {.type = "HostScalar", .writes = {t}, .opaque = false});
  return t;
}

}  // namespace kiln
