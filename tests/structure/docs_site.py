#!/usr/bin/env python3
"""Builds the documentation site (mkdocs.yml: the guides of docs/, the README,
and the Doxygen API reference) and checks it:

1. doxygen docs/Doxyfile into OUT/api (its warnings are the api_reference
   CTest's business, not this one's), then `mkdocs build --strict` into
   OUT/site: a link MkDocs cannot resolve, or any other warning, fails;
2. every internal link (href or src that has no scheme and does not start with
   //) of every page MkDocs built resolves to a file of the site, and its
   #anchor is an id of that page (for the Doxygen pages, the file is enough);
   no page shows Markdown that rendered differently than on GitHub (a list
   item outside a list, a list marker or a code fence left as paragraph text),
   and none loads a script, style sheet or image from the network;
3. three pages (the index, a guide, the API reference's index) open in
   headless Chromium: each screenshot is a PNG of more than one colour, and
   each page's <title> is the expected one.

    tests/structure/docs_site.py SOURCE_DIR OUT

Without mkdocs (or its Material theme), doxygen or chromium it exits 77
(CTest's skip), unless KILN_TEST_REQUIRE_TOOLS=1, where it fails.
"""
import html.parser
import os
import pathlib
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib

# (page in the site, the <title> it must have)
PAGES = [("index.html", "Kiln"), ("getting_started.html", "Getting started - Kiln"),
         ("api/html/index.html", "Kiln: Main Page")]
BROWSER_TIMEOUT_S = 120


def missing_tools():
    """The Debian packages of the tools that are not installed."""
    missing = [pkg for tool, pkg in [("doxygen", "doxygen"), ("mkdocs", "mkdocs"), ("chromium", "chromium")]
               if shutil.which(tool) is None]
    if "mkdocs" not in missing:
        # The theme is an entry point of MkDocs's own Python (the script's #! line).
        with open(shutil.which("mkdocs"), "rb") as f:
            first = f.readline().decode(errors="replace")
        python = first[2:].strip().split()[0] if first.startswith("#!") else sys.executable
        probe = subprocess.run([python, "-c", "from mkdocs.utils import get_theme_names as t; "
                                "raise SystemExit('material' not in t())"], capture_output=True)
        if probe.returncode != 0:
            missing.append("mkdocs-material")
    return missing


def run(cmd, what, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        print(result.stdout[-6000:], result.stderr[-6000:])
        sys.exit(f"docs_site: {what} exited with {result.returncode}")
    return result


class Links(html.parser.HTMLParser):
    """The ids and the href/src values of one HTML page."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.remote = set(), [], []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" or (key == "name" and tag == "a"):
                self.ids.add(value)
            elif key in ("href", "src") and value is not None:
                self.links.append(value)
                if tag != "a" and re.match(r"^(https?:)?//", value):
                    self.remote.append(f"<{tag} {key}={value}>")  # a resource the page loads


class Structure(html.parser.HTMLParser):
    """Markdown that rendered differently than on GitHub: a list item outside a list, or a
    list marker or code fence left as the text of a paragraph."""
    VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    TEXT_MARKUP = re.compile(r"\s*(([-*+]|\d+\.)\s+\S|```)")

    def __init__(self):
        super().__init__()
        self.stack, self.problems = [], []

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        if tag == "li" and self.stack[-1:] not in (["ul"], ["ol"]):
            self.problems.append(f"line {self.getpos()[0]}: a list item outside a list")
        self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self.stack[-1:] in (["p"], ["li"]):
            for line in data.split("\n")[1:]:
                if self.TEXT_MARKUP.match(line):
                    self.problems.append(f"line {self.getpos()[0]}: Markdown left as text: {line.strip()[:60]!r}")


def parse(path):
    p = Links()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


def check_links(site):
    """Every internal link of the pages MkDocs built, and their structure; (pages, links checked, problems)."""
    pages = [p for p in site.rglob("*.html") if not p.relative_to(site).as_posix().startswith(("api/", "404.html"))]
    parsed, problems, checked = {}, [], 0
    for page in sorted(pages):
        structure = Structure()
        structure.feed(page.read_text(encoding="utf-8", errors="replace"))
        problems += [f"{page.relative_to(site)}: {p}" for p in structure.problems]
        links = parse(page)
        problems += [f"{page.relative_to(site)}: loads {r} from the network (the site must render offline)"
                     for r in links.remote]
        for link in links.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or link.startswith("//") or link.startswith("data:"):
                continue
            checked += 1
            target = (page.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else page
            where = f"{page.relative_to(site)}: {link}"
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or site.resolve() not in target.parents:
                problems.append(f"{where}: no such file in the site")
                continue
            fragment = urllib.parse.unquote(parts.fragment)
            if not fragment or target.suffix != ".html" or target.relative_to(site.resolve()).as_posix().startswith("api/"):
                continue
            if target not in parsed:
                parsed[target] = parse(target)
            if fragment not in parsed[target].ids:
                problems.append(f"{where}: no id '{fragment}' in {target.relative_to(site.resolve())}")
    return len(pages), checked, problems


def png_colours(path, enough=16):
    """How many distinct pixel values a PNG has (counting stops at `enough`); raises on a bad PNG."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unexpected PNG layout (depth {depth}, colour type {colour}, interlace {interlace})")
    raw = zlib.decompress(b"".join(idat))
    stride, bpp = width * channels, channels
    prev, colours = bytearray(stride), set()
    for y in range(height):
        kind, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 255
        elif kind == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, prev))
        elif kind == 3:
            for i in range(stride):
                row[i] = (row[i] + ((row[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif kind == 4:
            for i in range(stride):
                a, b, c = (row[i - bpp] if i >= bpp else 0), prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif kind != 0:
            raise ValueError(f"bad filter type {kind} in row {y}")
        colours.update(bytes(row[i:i + bpp]) for i in range(0, stride, bpp * 7))
        if len(colours) >= enough:
            break
        prev = row
    return len(colours)


def title_of(dom):
    start = dom.find("<title>")
    end = dom.find("</title>", start)
    return dom[start + 7:end].strip() if start >= 0 and end > start else None


def browse(cmd):
    """Chromium's standard output; on a timeout its whole process group is killed."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        return proc.communicate(timeout=BROWSER_TIMEOUT_S)[0]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise


def check_in_browser(site, work):
    problems = []
    for page, title in PAGES:
        url = (site / page).resolve().as_uri()
        shot = work / (page.replace("/", "_") + ".png")
        base = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--hide-scrollbars", f"--user-data-dir={work / 'profile'}"]
        try:
            browse(base + [f"--screenshot={shot}", "--window-size=1280,900", url])
            dom = browse(base + ["--dump-dom", url])
        except subprocess.TimeoutExpired:
            problems.append(f"{page}: chromium took more than {BROWSER_TIMEOUT_S} s")
            continue
        if not shot.is_file() or shot.stat().st_size == 0:
            problems.append(f"{page}: chromium wrote no screenshot")
        else:
            try:
                colours = png_colours(shot)
                if colours < 2:
                    problems.append(f"{page}: the screenshot is a single colour (a blank page)")
            except (ValueError, zlib.error, struct.error, TypeError) as e:
                problems.append(f"{page}: the screenshot is not a readable PNG: {e}")
        got = title_of(dom)
        if got != title:
            problems.append(f"{page}: title {got!r}, expected {title!r}")
        else:
            print(f"docs_site: {page} renders in Chromium, title {got!r}")
    return problems


def main():
    src, out = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    missing = missing_tools()
    if missing:
        print(f"docs_site: not installed: {', '.join(missing)} (Debian package(s) {' '.join(missing)})")
        return 1 if os.environ.get("KILN_TEST_REQUIRE_TOOLS") == "1" else 77
    api, site = out / "api", out / "site"
    shutil.rmtree(api, ignore_errors=True)
    api.mkdir(parents=True)
    env = {**os.environ, "KILN_API_OUT": str(api)}
    run(["doxygen", "docs/Doxyfile"], "doxygen", cwd=src, env=env)
    built = run(["mkdocs", "build", "--strict", "--clean", "-f", str(src / "mkdocs.yml"), "-d", str(site)],
                "mkdocs build --strict", cwd=src, env=env)
    print("\n".join(line for line in built.stderr.splitlines() if "Documentation built" in line))
    pages, checked, problems = check_links(site)
    print(f"docs_site: {checked} internal links of {pages} pages checked")
    with tempfile.TemporaryDirectory() as work:
        problems += check_in_browser(site, pathlib.Path(work))
    if problems:
        print("\n".join(problems))
        print(f"docs_site: {len(problems)} problem(s) in the site built in {site}")
        return 1
    print(f"docs_site: the site is in {site}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
