#!/usr/bin/env python3
"""Keeps the sources small: lists source files over 400 lines and functions
over 80 lines (counted from the line of the opening brace to the line of the
closing one) in the library's folders; exit 1 when there is any.

A function is a brace block whose head (the text since the previous ';', '{'
or '}') looks like a signature: it ends in ')' plus optional qualifiers or a
constructor's initialiser list, and is not a control statement. Lambdas and
local classes count towards the function that contains them.

    tests/structure/check_sizes.py [--limit N] [--file-limit N] [paths...]
"""
import argparse
import pathlib
import re
import sys

DEFAULT_DIRS = ["framework", "layers", "optimizers", "losses", "metrics", "callbacks", "datasets"]
SUFFIXES = {".cpp", ".h", ".cu", ".cuh", ".hpp"}
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|else|do|return|namespace|class|struct|union|enum)\b")
SIGNATURE = re.compile(r"\)\s*(const|noexcept|override|final|mutable|&|&&|\s|->\s*[\w:<>,\s*&]+)*$"
                       r"|\)\s*:\s*.*$")


def strip(text):
    """Blanks out comments, string and character literals, keeping newlines."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """Yields (name, first_line, last_line) of the outermost function bodies."""
    text = strip(text)
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)  # preprocessor lines
    stack = []  # (is_function, name, line)
    head_start, line = 0, 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c in ";":
            head_start = i + 1
        elif c == "{":
            head = " ".join(text[head_start:i].split())
            in_function = any(f for f, _, _ in stack)
            is_fn = not in_function and not CONTROL.match(head) and "=" not in head.split("(")[0] \
                and bool(SIGNATURE.search(head))
            name = head.split("(")[0].split()[-1] if is_fn and head.split("(")[0].split() else ""
            stack.append((is_fn, name, line))
            head_start = i + 1
        elif c == "}":
            if stack:
                is_fn, name, first = stack.pop()
                if is_fn:
                    yield name, first, line
            head_start = i + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--file-limit", type=int, default=400)
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent.parent
    paths = [pathlib.Path(p) for p in args.paths] or [root / d for d in DEFAULT_DIRS]
    files = []
    for p in paths:
        files += [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES)
    found = 0
    for f in files:
        text = f.read_text(errors="replace")
        if text.count("\n") > args.file_limit:
            found += 1
            print(f"{text.count(chr(10)):5d}  {f.relative_to(root) if f.is_absolute() else f}  (file over {args.file_limit} lines)")
        for name, first, last in functions(text):
            if last - first + 1 > args.limit:
                found += 1
                print(f"{last - first + 1:5d}  {f.relative_to(root) if f.is_absolute() else f}:{first}  {name}")
    print(f"sizes: {len(files)} files checked, {found} over the limits")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
