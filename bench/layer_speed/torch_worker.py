"""The PyTorch (eager) side of bench/layer_speed, as a worker the driver talks
to over stdin/stdout (worker_io.py).

  {"op": "time", "name": row, "budget_s", "min_reps", "max_reps"}

Forward: module.eval() under torch.no_grad() (a row timed in training:
module.train()). Forward+backward: module.train(), sum of the outputs,
backward() to every parameter and every float input; each call first
clears the gradients (set to None), so none accumulates."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import cases  # noqa: E402
import torch_modules  # noqa: E402
from worker_io import serve, time_calls  # noqa: E402

ROWS = {r["name"]: r for r in cases.rows()}
BUILDERS = torch_modules.builders()


def outputs(y):
    return list(y) if isinstance(y, (list, tuple)) else [y]


def time_row(req):
    name = req["name"]
    if name not in BUILDERS:
        return {"error": "no equivalent: " + torch_modules.NO_EQUIVALENT.get(name, "no builder")}
    torch.manual_seed(0)
    module, xs = BUILDERS[name](ROWS[name]["inputs"])
    budget, lo, hi = req["budget_s"], req["min_reps"], req["max_reps"]
    ans = {"kind": "ops" if name in torch_modules.OPS_ROWS else "nn", "notes": []}
    module.train(bool(ROWS[name].get("train_fwd")))

    def fwd():
        with torch.no_grad():
            module(*xs)
    ans["fwd_ms"], ans["fwd_reps"] = time_calls(fwd, budget, lo, hi)
    module.train(True)
    leaves = [x.requires_grad_(True) for x in xs if x.is_floating_point()]
    params = [p for p in module.parameters() if p.requires_grad] + leaves
    if not params:
        ans["fwdbwd_error"] = "nothing to differentiate"
        return ans

    def step():
        for p in params:
            p.grad = None
        sum(y.float().sum() for y in outputs(module(*xs)) if y.requires_grad).backward()
    if not any(y.requires_grad for y in outputs(module(*xs))):
        ans["fwdbwd_error"] = "the output is not differentiable"
        return ans
    ans["fwdbwd_ms"], ans["fwdbwd_reps"] = time_calls(step, budget, lo, hi)
    return ans


def handle(req):
    if req["op"] == "time":
        return time_row(req)
    if req["op"] == "version":
        return {"version": "PyTorch %s eager, %d threads" % (torch.__version__, torch.get_num_threads())}
    raise ValueError("unknown op %r" % req["op"])


if __name__ == "__main__":
    torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "2")))
    if hasattr(torch, "set_interop_threads"):
        torch.set_interop_threads(1)
    serve(handle)
