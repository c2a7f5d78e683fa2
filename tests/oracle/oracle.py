#!/usr/bin/env python3
"""Keras as the test oracle: runs one group of cases in Keras (JAX backend) and
in Kiln (the kiln_oracle tool, one run over the whole batch), then compares.

Every comparison reports the max absolute and max relative error; a value
passes when |kiln - keras| <= atol + rtol * |keras| element-wise. The group
fails on any mismatch, on a case Kiln throws for, and on a registered class
no case covers (layers list theirs by name instead, with the reason).
Each group also checks the checker: a copy of one Kiln result, perturbed by
ten times the tolerance, must be reported as a mismatch.

Usage: oracle.py --tool build/tests/kiln_oracle --work DIR GROUP
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import time
import warnings

import shutil

import numpy as np

# JAX holds int64 labels as int32 (no x64); the labels are small, so this loses nothing.
warnings.filterwarnings("ignore", message="Explicitly requested dtype int64")



class Oracle:
    def __init__(self, tool, work, group):
        self.tool, self.work, self.group = tool, work, group
        self.cases = []
        self.rows = []  # (label, n, max_abs, max_rel, ok, rtol, atol, note)
        self.failures = []
        self.uncovered = []  # (name, reason), listed in the summary
        self.known = []  # known Kiln-vs-Keras mismatches not fixed yet: (name, what was seen)
        self.rng = np.random.default_rng(1234)
        self._n = 0
        # Groups that run through op_cases run Kiln once per device named here and
        # compare each run with the one Keras result (computing it once is most of the time).
        self.devices = [d for d in os.environ.get("KILN_ORACLE_DEVICES", "cpu").split(",") if d]

    # ---- inputs -------------------------------------------------------------
    def arr(self, a):
        """Saves an array for the Kiln tool and returns its file name. A float16 or
        bfloat16 array travels as its exact float32 values, its dtype in the name
        (a00012.bfloat16.npy), since .npy has no bfloat16."""
        self._n += 1
        a = np.asarray(a)
        if a.dtype.name in ("float16", "bfloat16"):
            name = "a%05d.%s.npy" % (self._n, a.dtype.name)
            a = a.astype(np.float32)
        else:
            name = "a%05d.npy" % self._n
        np.save(os.path.join(self.work, name), a)
        return name

    def add(self, case):
        assert case["id"] not in {c["id"] for c in self.cases}, case["id"]
        self.cases.append(case)
        return case

    # ---- Kiln ---------------------------------------------------------------
    def run_kiln(self, group=None, device="cpu"):
        """Runs the tool over the batch. Device "cuda" puts every op on cuda:0, and
        "emulated_cuda" on the emulated cuda:0 (KILN_EMULATE_CUDA=1)."""
        for name in ("cases.json", "cases.%s.json" % (group or self.group)):  # the second stays, for debugging
            with open(os.path.join(self.work, name), "w") as f:
                json.dump({"cases": self.cases}, f)
        shutil.rmtree(os.path.join(self.work, "out"), ignore_errors=True)  # no result survives from another device
        env = dict(os.environ)
        if device != "cpu":
            env["KILN_ORACLE_DEVICE"] = "cuda"
        if device == "emulated_cuda":
            env["KILN_EMULATE_CUDA"] = "1"
        t0 = time.time()
        r = subprocess.run([self.tool, group or self.group, self.work], capture_output=True, text=True, env=env)
        sys.stdout.write(r.stdout[-4000:])
        if r.returncode != 0:
            sys.stderr.write(r.stderr[-4000:])
            raise SystemExit("kiln_oracle %s on %s failed with status %d" % (group or self.group, device, r.returncode))
        with open(os.path.join(self.work, "out", "errors.json")) as f:
            self.errors = json.load(f)
        print("kiln_oracle %s on %s: %d cases in %.1fs" % (group or self.group, device, len(self.cases),
                                                          time.time() - t0))

    def kiln_list(self, kind):
        r = subprocess.run([self.tool, "list", kind], capture_output=True, text=True, check=True)
        return r.stdout.split()

    def kiln_known(self, kind, names):
        r = subprocess.run([self.tool, "known", kind] + list(names), capture_output=True, text=True, check=True)
        return r.stdout.split()

    def out(self, case_id, name):
        path = os.path.join(self.work, "out", case_id, name + ".npy")
        return np.load(path) if os.path.exists(path) else None

    def kiln_error(self, case_id, prefix=""):
        """Records a failure when Kiln threw for the case; returns True then."""
        if case_id in self.errors:
            self.fail("%s%s: Kiln threw: %s" % (prefix, case_id, self.errors[case_id]))
            return True
        return False

    # ---- comparison ---------------------------------------------------------
    @staticmethod
    def errors_of(kiln, keras, rtol, atol):
        k = np.asarray(kiln, np.float64)
        r = np.asarray(keras, np.float64)
        if k.shape != r.shape:
            return None
        diff = np.abs(k - r)
        same_nonfinite = (~np.isfinite(k) | ~np.isfinite(r)) & ((k == r) | (np.isnan(k) & np.isnan(r)))
        diff = np.where(same_nonfinite, 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        rel = diff / np.maximum(np.abs(r), 1e-30)
        ok = bool(np.all(diff <= atol + rtol * np.abs(np.where(np.isfinite(r), r, 0))))
        max_abs = float(diff.max()) if diff.size else 0.0
        # Relative error where the reference is not negligible (atol decides that).
        big = np.abs(r) > atol
        max_rel = float(rel[big].max()) if np.any(big) else 0.0
        return ok, max_abs, max_rel

    def compare(self, label, kiln, keras, rtol=1e-5, atol=1e-6, note=""):
        if kiln is None:
            self.fail("%s: Kiln wrote no result" % label)
            return False
        kiln, keras = np.asarray(kiln), np.asarray(keras)
        res = self.errors_of(kiln, keras, rtol, atol)
        if res is None:
            self.fail("%s: shape %s from Kiln, %s from Keras" % (label, kiln.shape, keras.shape))
            return False
        ok, max_abs, max_rel = res
        self.rows.append((label, int(keras.size), max_abs, max_rel, ok, rtol, atol, note))
        if not ok:
            self.fail("%s: max abs err %.3g, max rel err %.3g (rtol %g, atol %g)%s\n    kiln  %s\n    keras %s" % (
                label, max_abs, max_rel, rtol, atol, " " + note if note else "",
                np.array2string(kiln.ravel()[:6], precision=8), np.array2string(keras.ravel()[:6], precision=8)))
        return ok

    def expect_known(self, name, still_there, seen):
        """A known mismatch: listed while it is still there; once it is gone the
        group fails, so the entry is removed and the case becomes a plain one."""
        if still_there:
            self.known.append((name, seen))
        else:
            self.fail("%s: this known mismatch is gone (%s); remove it from the known list" % (name, seen))

    def fail(self, msg):
        self.failures.append(msg)

    def check_the_checker(self):
        """A deliberately wrong value must fail: perturb the largest element of the
        first compared result by ten times its tolerance and compare again."""
        for label, n, _, _, ok, rtol, atol, _ in self.rows:
            if ok and n > 0:
                break
        else:
            self.fail("no comparison passed, so the checker could not be checked")
            return
        wrong = np.array([1.0, -2.0, 3.0])
        bad = wrong.copy()
        bad[2] += 10 * (atol + rtol * 3.0) or 1e-6  # exact comparisons: any difference
        if self.errors_of(bad, wrong, rtol, atol)[0]:
            self.fail("checker: a value off by ten tolerances passed")
        else:
            print("checker: a value off by 10x the tolerance (rtol %g, atol %g) is caught" % (rtol, atol))

    # ---- report -------------------------------------------------------------
    def report(self):
        w = max([len(r[0]) for r in self.rows] + [10])
        print("\n%-*s %6s %10s %10s  %s" % (w, "comparison", "n", "max abs", "max rel", "result"))
        for label, n, max_abs, max_rel, ok, rtol, atol, note in self.rows:
            print("%-*s %6d %10.3g %10.3g  %s%s" % (w, label, n, max_abs, max_rel, "ok" if ok else "MISMATCH",
                                                   "  " + note if note else ""))
        print("\nlargest relative errors (where |keras| > atol):")
        for label, n, max_abs, max_rel, ok, rtol, atol, note in sorted(self.rows, key=lambda r: -r[3])[:5]:
            print("  %-*s abs %.3g rel %.3g (rtol %g, atol %g)" % (w, label, max_abs, max_rel, rtol, atol))
        if self.uncovered:
            print("\nNOT COVERED by this tier (%d):" % len(self.uncovered))
            for name, reason in self.uncovered:
                print("  %-32s %s" % (name, reason))
        if self.known:
            print("\nKNOWN MISMATCHES, still present, recorded and not fixed in this tier (%d):" % len(self.known))
            for name, seen in self.known:
                print("  %s\n    %s" % (name, seen))
        worst_abs = max((r[2] for r in self.rows), default=0.0)
        worst_rel = max((r[3] for r in self.rows), default=0.0)
        print("\n%s: %d comparisons (%d values), %d mismatches/failures; largest errors: abs %.3g, rel %.3g" % (
            self.group, len(self.rows), sum(r[1] for r in self.rows), len(self.failures), worst_abs, worst_rel))
        if self.failures:
            print("\nFAILURES:")
            for f in self.failures:
                print("  " + f)
        return 1 if self.failures else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("group", help="a module tests/oracle/oracle_<group>.py")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    t0 = time.time()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    module = importlib.import_module("oracle_" + a.group)
    o = Oracle(a.tool, a.work, a.group)
    module.run(o)
    o.check_the_checker()
    rc = o.report()
    print("%s: %.1fs in all (Python, Keras and Kiln)" % (a.group, time.time() - t0))
    return rc


if __name__ == "__main__":
    sys.exit(main())
