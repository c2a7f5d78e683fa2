"""Runs bench/layer_speed: for every row of cases.py, Kiln, Keras 3 on JAX and
PyTorch eager one after the other (Kiln, Keras, PyTorch, Kiln, ...), each a
warm worker process with 2 threads; writes one JSON line per row and the
Markdown table (table.py).

  driver.py --kiln BIN --keras-python PY [--torch-python PY] [--out DIR]
            [--budget-s 0.5] [--min-reps 3] [--max-reps 30] [--only A,B] [--timeout-s 600]
"""
import argparse
import datetime
import json
import os
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402
import table  # noqa: E402


class Worker:
    """A worker process answering one JSON line per request; restarted after a crash or a timeout."""

    def __init__(self, label, cmd, env, timeout_s):
        self.label, self.cmd, self.env, self.timeout_s = label, cmd, env, timeout_s
        self.proc = None
        self.log = open(os.path.join(OUT_DIR, "%s.stderr.log" % label), "a")

    def start(self):
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     env=self.env, text=True, bufsize=1)
        ready = self._read(600)
        if not ready or not ready.get("ready"):
            raise RuntimeError("%s worker did not start (see %s.stderr.log)" % (self.label, self.label))

    def _read(self, timeout_s):
        r, _, _ = select.select([self.proc.stdout], [], [], timeout_s)
        if not r:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def ask(self, req):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.log.write("--- %s\n" % json.dumps({k: v for k, v in req.items() if k != "config"}))
        self.log.flush()
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        ans = self._read(self.timeout_s)
        if ans is None:
            why = "timed out after %d s" % self.timeout_s if self.proc.poll() is None else \
                "worker died (exit %s)" % self.proc.poll()
            self.stop()
            return {"error": why}
        return ans

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def worker_env(threads):
    env = dict(os.environ)
    env.update({"KILN_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": "1",
                "MKL_NUM_THREADS": str(threads), "BENCH_THREADS": str(threads), "KERAS_BACKEND": "jax",
                "JAX_PLATFORMS": "cpu",
                # libgomp's spinning waits collapse on shared cores (bench/README.md, "Threads").
                "OMP_WAIT_POLICY": "PASSIVE", "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONUNBUFFERED": "1"})
    return env


def catalogue(kiln_bin):
    out = subprocess.run([kiln_bin, "--list"], check=True, capture_output=True, text=True).stdout
    return sorted(set(out.split()))


def run_row(row, workers, args):
    rec = {"name": row["name"], "case": cases.describe(row)}
    prep = workers["keras"].ask({"op": "prepare", "name": row["name"]})
    if "error" in prep:
        rec["kiln"] = rec["keras"] = {"error": "Keras could not build the config: " + prep["error"]}
        return rec
    base = {"op": "time", "name": row["name"], "budget_s": args.budget_s, "min_reps": args.min_reps,
            "max_reps": args.max_reps}
    kiln_req = dict(base, config=prep["config"], list_input=bool(row.get("list_input")),
                    train_fwd=bool(row.get("train_fwd")),
                    inputs=[{"dtype": s[0], "shape": list(s[1]), "high": s[2] if len(s) > 2 else 0}
                            for s in row["inputs"]])
    # Kept so that one case can be rerun alone, under perf: layer_speed < kiln-requests/<row>.json
    with open(os.path.join(OUT_DIR, "kiln-requests", row["name"] + ".json"), "w") as f:
        f.write(json.dumps(kiln_req) + "\n")
    for label in ("kiln", "keras", "torch"):
        if label not in workers:
            rec[label] = {"error": "not run: " + args.torch_missing}
            continue
        t0 = time.perf_counter()
        rec[label] = workers[label].ask(kiln_req if label == "kiln" else base)
        rec[label]["wall_s"] = round(time.perf_counter() - t0, 2)
    return rec


def main():
    global OUT_DIR
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--keras-python", required=True)
    ap.add_argument("--torch-python")
    ap.add_argument("--torch-missing", default="no PyTorch venv")
    ap.add_argument("--out", default="layer-speed-results")
    ap.add_argument("--budget-s", type=float, default=0.5)
    ap.add_argument("--min-reps", type=int, default=3)
    ap.add_argument("--max-reps", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--timeout-s", type=int, default=600)
    ap.add_argument("--only", default="")
    ap.add_argument("--command", default="bench/layer_speed.sh")
    args = ap.parse_args()
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    OUT_DIR = os.path.join(args.out, stamp)
    os.makedirs(os.path.join(OUT_DIR, "kiln-requests"), exist_ok=True)
    env = worker_env(args.threads)
    py = lambda exe, script: [exe, os.path.join(HERE, script)]  # noqa: E731
    workers = {"kiln": Worker("kiln", [args.kiln], env, args.timeout_s),
               "keras": Worker("keras", py(args.keras_python, "keras_worker.py"), env, args.timeout_s)}
    if args.torch_python:
        workers["torch"] = Worker("torch", py(args.torch_python, "torch_worker.py"), env, args.timeout_s)
    versions = {k: w.ask({"op": "version"}).get("version", "?") for k, w in workers.items() if k != "kiln"}
    rows = cases.rows(set(args.only.split(",")) if args.only else None)
    load0 = os.getloadavg()
    jsonl = os.path.join(OUT_DIR, "rows.jsonl")
    records = []
    with open(jsonl, "w") as f:
        for i, row in enumerate(rows):
            rec = run_row(row, workers, args)
            records.append(rec)
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print("[%d/%d] %s" % (i + 1, len(rows), table.progress_line(rec)), file=sys.stderr, flush=True)
    for w in workers.values():
        w.stop()
    meta = {"load": (load0, os.getloadavg()), "command": args.command, "date": stamp, "threads": args.threads, "versions": versions,
            "budget_s": args.budget_s, "reps": [args.min_reps, args.max_reps], "only": bool(args.only),
            "torch_missing": None if args.torch_python else args.torch_missing}
    md = table.render(records, catalogue(args.kiln), meta)
    with open(os.path.join(OUT_DIR, "table.md"), "w") as f:
        f.write(md)
    print(md)
    print("raw: %s" % jsonl, file=sys.stderr)


OUT_DIR = "."

if __name__ == "__main__":
    main()
