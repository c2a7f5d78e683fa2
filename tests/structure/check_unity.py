#!/usr/bin/env python3
"""Keeps the unity build (CMake's UNITY_BUILD, batches of a target's sources
compiled as one translation unit: the library's, and each test suite's) safe:
lists names that two sources of one target
both define in an anonymous namespace or as internal (static) functions
inside the same named namespace. Such a pair compiles file by file but not
when the two files land in one batch, and which files share a batch changes
whenever a source is added. Exit 1 when there is any.

    tests/structure/check_unity.py [root]
"""
import collections
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from check_sizes import DEFAULT_DIRS, strip  # noqa: E402

DECL = re.compile(r"(?:\b(?:struct|class|enum(?:\s+class)?)\s+(\w+))"
                  r"|(?:(\w+)\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:->\s*[\w:<>,\s*&]+)?\s*$)"
                  r"|(?:\b(\w+)\s*(?:\[[^\]]*\])?\s*(?:=|\{)[^;{}]*$)")
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|else|do|return)\b")


def internal_names(text):
    """(enclosing named namespaces, name) of each entity declared at the top
    level of an anonymous namespace, or of a static function at namespace scope."""
    text = strip(text)
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    stack = []  # ("ns", name) | ("anon", "") | ("other", "")
    head_start = 0
    for i, c in enumerate(text):
        if c in ";{}":
            head = " ".join(text[head_start:i].split())
            in_anon = bool(stack) and stack[-1][0] == "anon"
            at_ns = not stack or stack[-1][0] in ("ns", "anon")
            # Aliases may repeat (`using T = float;` twice is legal); using-directives declare nothing.
            # A template's own parameters are not names it declares.
            head = re.sub(r"^template\s*<(?:[^<>]|<[^<>]*>)*>\s*", "", head)
            if at_ns and head and not CONTROL.match(head) and c in ";{" and not head.startswith("using "):
                is_static = head.startswith("static ") and "(" in head
                if in_anon or is_static:
                    m = DECL.search(head.split("=")[0] + ("=" if "=" in head else "") if c == ";" else head)
                    if m:
                        name = next(g for g in m.groups() if g)
                        if name not in ("operator", "namespace"):
                            yield tuple(n for k, n in stack if k == "ns"), name
            if c == "{":
                m = re.match(r"^(?:inline\s+)?namespace\s*([\w:]*)$", head)
                if m:
                    stack.append(("ns", m.group(1)) if m.group(1) else ("anon", ""))
                else:
                    stack.append(("other", ""))
            elif c == "}" and stack:
                stack.pop()
            head_start = i + 1


TEST_SUITES = ["framework", "layers", "models", "optimizers", "losses", "metrics", "callbacks", "datasets",
               "saving", "applications", "cuda"]


def groups(root):
    """(label, sources) of each target built in unity batches: the library and each test executable."""
    library = []
    for d in DEFAULT_DIRS:
        for path in sorted((root / d / "src").rglob("*.cpp")):
            if "/cuda/" in str(path) or "/mpi/" in str(path) or "/onednn/" in str(path):
                continue  # plugins: not in the library's batches
            library.append(path)
    yield "the library", library
    for suite in TEST_SUITES:
        yield f"test_{suite}", sorted((root / "tests" / suite).glob("*.cpp"))


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
    found = 0
    for label, sources in groups(root):
        seen = collections.defaultdict(set)
        for path in sources:
            for ns, name in set(internal_names(path.read_text(errors="replace"))):
                seen[("::".join(ns), name)].add(str(path.relative_to(root)))
        clashes = {k: v for k, v in seen.items() if len(v) > 1}
        for (ns, name), files in sorted(clashes.items()):
            print(f"{label}: {ns or '(global)'}::{name} is internal to {len(files)} files: {', '.join(sorted(files))}")
        found += len(clashes)
    if found:
        print(f"{found} internal name(s) defined in more than one source of one target: give them one shared "
              "definition in a header, or distinct names (the unity build compiles a target's sources together)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
