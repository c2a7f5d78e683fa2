#!/usr/bin/env python3
"""Doc-tests for the guides: every ```cpp (or ```c++) block of README.md and
docs/*.md is compiled against the built library, as Rust compiles the examples
of its documentation.

A block is one of these, chosen by what it contains or by a marker, an HTML
comment on the line just before its fence (GitHub and MkDocs show neither the
comment nor what it holds):

- A whole program (the block has `int main`): compiled, linked with libkiln
  (and libkiln_applications) and run in an empty folder; it must exit 0 within
  --run-timeout seconds. `<!-- doc-block: no-run -->` compiles and links it
  without running it (a program that needs a GPU, MPI ranks, or minutes).
- An excerpt (no `int main`, no marker): compiled as the body of a function,
  after `#include <kiln/kiln.h>`, `namespace k = kiln;` and
  `namespace L = kiln::layers;`. What the excerpt uses but does not show
  (a model, a tensor `x`) is declared by hidden setup lines, the lines of the
  marker comment after its first line:

      <!-- doc-block: body
      k::Sequential model({L::Input({4}), L::Dense(2)});
      -->
      ```cpp
      model.save("m.keras");
      ```

  `<!-- doc-block: namespace -->` compiles the excerpt (and its setup) at
  namespace scope instead: declarations, classes, function definitions.
  `#include` lines, in a block or its setup, move to the top of the file.
  The excerpts of one Markdown file form one translation unit (each in its own
  namespace), which is linked into a program that is not run: the code must
  compile and every function it calls must exist in the library.
- A quotation of the repository's code (the library's own sources, which use
  private headers): `<!-- doc-block: quote PATH -->`. Each paragraph of the
  block (its lines between blank lines) must appear in the file PATH (relative
  to the repository), line for line, with indentation, blank lines and //
  comments aside (so the file's doc comments may change), and the paragraphs in
  the block's order; the build compiles that file.

Anything else (pseudo-code, shell transcripts) is not C++: mark it ```text.
Compile errors point at the Markdown file and line (#line directives).

    tests/structure/doc_blocks.py SOURCE_DIR WORK_DIR --cxx=COMPILER --lib LIB... --include DIR...
        [--launcher=ccache] [--flags="-fsanitize=..."] [--define DEF...] [--only FILE.md] [--list]

tests/CMakeLists.txt passes the compiler, libkiln and libkiln_applications, and
their include folders and definitions; the programs are built with
-std=c++20 -O0 -pthread and an rpath to the libraries.
"""
import argparse
import hashlib
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
MARKER = re.compile(r"^\s*<!--\s*doc-block:\s*([\w-]+)\s*(.*?)\s*(-->)?\s*$")
MAIN = re.compile(r"\bint\s+main\s*\(")
PRELUDE = ["#include <kiln/kiln.h>", "", "#include <iostream>", "#include <memory>", "#include <optional>",
           "#include <string>", "#include <vector>", "", "namespace k = kiln;", "namespace L = kiln::layers;", ""]
MODES = {"body", "namespace", "no-run", "quote"}


class Block:
    def __init__(self, doc, line, code, mode, arg, setup, setup_line):
        self.doc, self.line, self.code = doc, line, code  # line: the first line of code, 1-based
        self.mode, self.arg = mode, arg
        self.setup, self.setup_line = setup, setup_line

    @property
    def where(self):
        return f"{self.doc}:{self.line - 1}"


def dedent(lines):
    indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    return [l[indent:] for l in lines]


def extract(root, doc):
    """The C++ blocks of one Markdown file, with their markers; raises ValueError on a bad marker."""
    lines = (root / doc).read_text(encoding="utf-8").split("\n")
    blocks, i, used = [], 0, set()
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        end = i + 1  # the closing fence: the same character, at least as long, nothing after it
        while end < len(lines) and not re.fullmatch(re.escape(fence[0]) + "{%d,}" % len(fence), lines[end].strip()):
            end += 1
        if lang.lower() in ("cpp", "c++"):
            code = dedent(lines[i + 1:end])
            mode, arg, setup, setup_line = None, "", [], 0
            # The marker ends on the line before the fence: `<!-- doc-block: ... -->` or a comment
            # whose first line names the mode and whose last line is `-->`.
            j = i - 1
            if j >= 0 and lines[j].strip() == "-->":
                start = j
                while start >= 0 and "<!--" not in lines[start]:
                    start -= 1
                head = MARKER.match(lines[start]) if start >= 0 else None
                if head:
                    mode, arg = head.group(1), head.group(2)
                    setup, setup_line = dedent(lines[start + 1:j]), start + 2
                    used.add(start)
            elif j >= 0 and MARKER.match(lines[j]) and lines[j].rstrip().endswith("-->"):
                head = MARKER.match(lines[j])
                mode, arg = head.group(1), head.group(2)
                used.add(j)
            if mode is not None and mode not in MODES:
                raise ValueError(f"{doc}:{i + 1}: unknown doc-block mode '{mode}' (one of {', '.join(sorted(MODES))})")
            if mode is None:
                mode = "program" if any(MAIN.search(l) for l in code) else "body"
            elif mode == "no-run" and not any(MAIN.search(l) for l in code):
                raise ValueError(f"{doc}:{i + 1}: a no-run block must be a whole program (with int main)")
            blocks.append(Block(doc, i + 2, code, mode, arg, setup, setup_line))
        i = end + 1
    for n, line in enumerate(lines):
        if MARKER.match(line) and n not in used and not _in_fence(lines, n):
            raise ValueError(f"{doc}:{n + 1}: a doc-block marker must end on the line just before a ```cpp fence")
    return blocks


def _in_fence(lines, n):
    """Whether line n is inside a fenced block (a marker shown as an example)."""
    fence = None
    for line in lines[:n]:
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(2)
        elif fence is not None and re.fullmatch(re.escape(fence[0]) + "{%d,}" % len(fence), line.strip()):
            fence = None
    return fence is not None


def code_of(line):
    """A line without its // comment (outside string and character literals) and its outer spaces."""
    quote, i = None, 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif line.startswith("//", i):
            return line[:i].strip()
        i += 1
    return line.strip()


def check_quote(root, block):
    """None when each paragraph of the block (lines between blank lines) is in the file, in order."""
    path = root / block.arg
    if not block.arg or not path.is_file():
        return f"{block.where}: quote: no file '{block.arg}' in the repository"
    have = [c for c in (code_of(l) for l in path.read_text(encoding="utf-8").split("\n")) if c]
    paragraphs, current = [], []
    for n, line in enumerate(block.code + [""]):
        if code_of(line):
            current.append((block.line + n, code_of(line)))
        elif current and not line.strip():
            paragraphs.append(current)
            current = []
    at = 0
    for para in paragraphs:
        text = [s for _, s in para]
        found = next((s for s in range(at, len(have) - len(text) + 1) if have[s:s + len(text)] == text), None)
        if found is None:
            # The first line that differs, from the start in the file that matches longest.
            best, best_at = 0, at
            for s in range(at, len(have)):
                n = 0
                while n < len(text) and s + n < len(have) and have[s + n] == text[n]:
                    n += 1
                if n > best:
                    best, best_at = n, s
            line, wrong = para[best]
            has = f" (the file has {have[best_at + best]!r} there)" if best and best_at + best < len(have) else ""
            return (f"{block.doc}:{line}: the quotation differs from {block.arg}: {wrong!r} is not in the file "
                    f"where the quotation puts it{has}; each paragraph must be in the file, in the file's order")
        at = found + len(para)
    return None


def numbered(lines, doc, first):
    return [f'#line {first} "{doc}"'] + lines


def hoist(lines):
    """(the #include lines, the rest with blank lines where the includes were, so #line stays right)."""
    includes = [l for l in lines if l.lstrip().startswith("#include")]
    return includes, ["" if l.lstrip().startswith("#include") else l for l in lines]


def excerpt_unit(doc, blocks):
    head, body = list(PRELUDE), []
    for n, b in enumerate(blocks, 1):
        inc_s, setup = hoist(b.setup)
        inc_c, code = hoist(b.code)
        head += inc_s + inc_c
        body.append(f"namespace doc_block_{n} {{")
        if b.mode == "namespace":
            if setup:
                body += numbered(setup, doc, b.setup_line)
            body += numbered(code, doc, b.line)
        else:
            body.append("[[maybe_unused]] void excerpt() {")
            if setup:
                body += numbered(setup, doc, b.setup_line)
            body += numbered(code, doc, b.line)
            body.append("}")
        body.append(f"}}  // namespace doc_block_{n}")
    body += ['#line 1 "doc_blocks_main.cpp"', "int main() { return 0; }  // the excerpts compile and link; none runs"]
    return "\n".join([f"// The C++ excerpts of {doc}, generated by tests/structure/doc_blocks.py", ""] + head + [""] +
                     body) + "\n"


def compile_and_link(args, source_text, exe, log):
    """Compiles (through the launcher, so ccache serves unchanged blocks) and links; None or the error."""
    source = exe.with_suffix(".cpp")
    source.write_text(source_text)
    obj = exe.with_suffix(".o")
    flags = ["-std=c++20", "-O0", "-pthread", *shlex.split(args.flags)]
    lib_dirs = sorted({str(pathlib.Path(l).parent) for l in args.lib})
    launcher = [args.launcher] if args.launcher else []
    steps = [[*launcher, args.cxx, *flags, *[f"-D{d}" for d in args.define if d],
              *[f"-I{d}" for d in args.include if d], "-c", str(source), "-o", str(obj)],
             [args.cxx, *flags, str(obj), "-o", str(exe), *args.lib, *[f"-Wl,-rpath,{d}" for d in lib_dirs]]]
    t = time.monotonic()
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return f"{' '.join(cmd)}\n{(r.stdout + r.stderr)[-8000:]}"
    log.append(f"  {exe.name}: compiled and linked in {time.monotonic() - t:.1f} s")
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("root")
    p.add_argument("work")
    p.add_argument("--cxx", default="c++")
    p.add_argument("--launcher", default="", help="a compiler launcher (ccache), or empty")
    p.add_argument("--flags", default="", help="more compile and link flags, one string (the sanitizers)")
    p.add_argument("--lib", nargs="+", default=[], help="the shared libraries to link")
    p.add_argument("--include", nargs="*", default=[], help="include folders (empty ones are ignored)")
    p.add_argument("--define", nargs="*", default=[], help="preprocessor definitions (empty ones are ignored)")
    p.add_argument("--run-timeout", type=float, default=300)
    p.add_argument("--only", action="append", help="only this Markdown file (relative to the root); repeatable")
    p.add_argument("--list", action="store_true", help="list the blocks and their modes, compile nothing")
    args = p.parse_args()
    root = pathlib.Path(args.root).resolve()
    docs = ["README.md"] + sorted(f"docs/{f.name}" for f in (root / "docs").glob("*.md"))
    if args.only:
        docs = [d for d in docs if d in args.only]
    try:
        blocks = [b for d in docs for b in extract(root, d)]
    except ValueError as e:
        print(f"doc_blocks: {e}")
        return 1
    if args.list:
        for b in blocks:
            print(f"{b.where}: {b.mode} {b.arg}".rstrip() + (f" (+{len(b.setup)} setup lines)" if b.setup else ""))
        return 0
    for lib in args.lib:
        if not pathlib.Path(lib).is_file():
            print(f"doc_blocks: {lib} is not built (build the library first)")
            return 1
    work = pathlib.Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    problems, log, counts = [], [], {m: 0 for m in ("program", "no-run", "body", "namespace", "quote")}
    for b in blocks:
        counts[b.mode] += 1
        if b.mode == "quote":
            if (err := check_quote(root, b)):
                problems.append(err)
    # Whole programs: one executable per distinct text (README.md and the guide share the first program).
    programs = {}
    for b in blocks:
        if b.mode in ("program", "no-run"):
            programs.setdefault("\n".join(b.code), []).append(b)
    for text, same in programs.items():
        first = same[0]
        name = re.sub(r"\W", "_", first.doc.removesuffix(".md")) + f"_{first.line}"
        exe = work / name
        source = "\n".join(numbered(first.code, first.doc, first.line)) + "\n"
        where = ", ".join(b.where for b in same)
        if (err := compile_and_link(args, source, exe, log)):
            problems.append(f"{where}: the program does not compile:\n{err}")
            continue
        if all(b.mode == "no-run" for b in same):
            continue
        with tempfile.TemporaryDirectory(dir=work) as cwd:
            t = time.monotonic()
            try:
                r = subprocess.run([str(exe)], cwd=cwd, capture_output=True, text=True, timeout=args.run_timeout)
            except subprocess.TimeoutExpired:
                problems.append(f"{where}: the program ran longer than {args.run_timeout:.0f} s")
                continue
            log.append(f"  {exe.name}: ran in {time.monotonic() - t:.1f} s, exit {r.returncode}")
            if r.returncode != 0:
                problems.append(f"{where}: the program exited with {r.returncode}:\n{(r.stdout + r.stderr)[-4000:]}")
    # Excerpts: one translation unit per Markdown file.
    for doc in docs:
        excerpts = [b for b in blocks if b.doc == doc and b.mode in ("body", "namespace")]
        if not excerpts:
            continue
        exe = work / (re.sub(r"\W", "_", doc.removesuffix(".md")) + "_excerpts")
        if (err := compile_and_link(args, excerpt_unit(doc, excerpts), exe, log)):
            problems.append(f"{doc}: its excerpts ({', '.join(str(b.line - 1) for b in excerpts)}) do not compile:\n{err}")
    print("\n".join(log))
    units = len({b.doc for b in blocks if b.mode in ("body", "namespace")})
    print(f"doc_blocks: {len(blocks)} C++ blocks in {len(docs)} Markdown files: "
          f"{counts['program'] + counts['no-run']} whole programs ({len(programs)} distinct; {counts['no-run']} not run), "
          f"{counts['body'] + counts['namespace']} excerpts (in {units} programs, not run), "
          f"{counts['quote']} quotations of the sources")
    if problems:
        print("\n\n".join(problems))
        print(f"doc_blocks: {len(problems)} problem(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
