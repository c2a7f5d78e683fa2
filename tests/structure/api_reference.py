#!/usr/bin/env python3
"""Builds the API reference (docs/Doxyfile) into OUT/api and fails on any
Doxygen warning: every public class, function, enumerator and variable in the
public headers carries a doc comment, and every comment parses.

    tests/structure/api_reference.py SOURCE_DIR OUT

Without doxygen it exits 77 (CTest's skip), unless KILN_TEST_REQUIRE_TOOLS=1.
"""
import os
import pathlib
import shutil
import subprocess
import sys


def main():
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]).resolve() / "api"
    if shutil.which("doxygen") is None:
        print("api_reference: doxygen is not installed (Debian package doxygen)")
        return 1 if os.environ.get("KILN_TEST_REQUIRE_TOOLS") == "1" else 77
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    run = subprocess.run(["doxygen", "docs/Doxyfile"], cwd=src, env={**os.environ, "KILN_API_OUT": str(out)},
                         capture_output=True, text=True)
    log = (out / "warnings.log").read_text() if (out / "warnings.log").exists() else ""
    warnings = [line for line in (log + run.stderr).splitlines() if "warning:" in line or "error:" in line]
    if run.returncode != 0:
        print(run.stdout[-4000:], run.stderr[-4000:])
        print(f"api_reference: doxygen exited with {run.returncode}")
        return 1
    if warnings:
        unique = sorted(set(warnings))
        print("\n".join(unique[:200]))
        print(f"api_reference: {len(unique)} Doxygen warning(s); the reference must build with none")
        return 1
    pages = len(list((out / "html").glob("*.html")))
    print(f"api_reference: {pages} pages in {out / 'html'}, no warnings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
