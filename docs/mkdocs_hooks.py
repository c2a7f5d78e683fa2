"""MkDocs hooks of the documentation site (mkdocs.yml, `hooks:`).

The guides live in docs/ and link to files outside it with relative links that
work on GitHub (`../bench/RESULTS.md#gpu`, `../README.md`); the site has only
docs/. These hooks make the same links work in the site, offline:

- every repository file outside docs/ that a page links to (README.md,
  bench/RESULTS.md, ...; followed from the Markdown files they add, one link
  at a time) joins the site under repo/: Markdown as a page, anything else as a
  plain copy, so repo/README.md is the front page and repo/bench/RESULTS.md the
  benchmark results;
- each page's relative links are rewritten from repository paths to site
  paths before MkDocs checks and converts them;
- the Doxygen HTML of the API reference (docs/Doxyfile) joins the site as
  api/html/: doxygen runs into build/docs/api first, unless $KILN_API_OUT
  names where it was built already ($KILN_API_OUT/html); mkdocs.yml's nav
  names api/html/index.html, and it becomes a plain link;
- lists nest by two spaces and may follow a paragraph line, as on GitHub;
- docs/Doxyfile and this file stay out of the site.
"""
import logging
import os
import posixpath
import re
import shutil
import subprocess

from markdown.blockprocessors import build_block_parser
from markdown.extensions import Extension
from mkdocs.structure.files import File
from mkdocs.structure.nav import Link, Page, _add_previous_and_next_links

log = logging.getLogger("mkdocs.hooks.kiln")

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# [text](target "title") and ![alt](target): the target has no spaces.
LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))")
ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s+\S")
API_PREFIX = "api/html/"

_root = ""  # the repository root (mkdocs.yml's folder)
_docs = ""  # its docs_dir, relative to the root
_site_of_repo = {}  # repository path -> site path of every Markdown source


class _TwoSpaceLists(Extension):
    """Lists nest by two spaces, as on GitHub: Python-Markdown wants four, and would
    end a list at a two-space-indented fenced block or second paragraph."""

    def extendMarkdown(self, md):
        md.tab_length = 2
        # The block processors read tab_length when they are made: make them again. This
        # extension comes first (on_config), so no other has added a processor yet.
        md.parser = build_block_parser(md)


def on_config(config):
    config["markdown_extensions"].insert(0, _TwoSpaceLists())  # before the others read tab_length
    return config


def _is_relative(target):
    return not (re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith(("/", "#")))


def _site_path(repo_path):
    """Where a repository file lives in the site: docs/x.md -> x.md, others -> repo/<path>."""
    if repo_path.startswith(_docs + "/"):
        return repo_path[len(_docs) + 1:]
    return "repo/" + repo_path


def _fences(lines):
    """(line, inside or on a fence of a code block) for each line of a Markdown text."""
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            yield line, True
        elif fence is not None:
            if re.fullmatch(re.escape(fence[0]) + "{%d,}" % len(fence), line.strip()):
                fence = None
            yield line, True
        else:
            yield line, False


def _outside_lines(text):
    """The lines of a Markdown text that are not in a fenced code block."""
    return (line for line, code in _fences(text.splitlines()) if not code)


def _link_targets(repo_path):
    with open(os.path.join(_root, repo_path), encoding="utf-8") as f:
        text = f.read()
    for line in _outside_lines(text):
        for m in LINK.finditer(line):
            target = m.group(2).split("#")[0]
            if target and _is_relative(target):
                yield posixpath.normpath(posixpath.join(posixpath.dirname(repo_path), target))


def _api_html():
    """The Doxygen HTML: $KILN_API_OUT/html when the caller built it there (the docs_site
    CTest does), else doxygen runs now into build/docs/api, as the api_reference CTest does."""
    given = os.environ.get("KILN_API_OUT")
    if given:
        return os.path.join(given if os.path.isabs(given) else os.path.join(_root, given), "html")
    out = os.path.join(_root, "build", "docs", "api")
    if shutil.which("doxygen") is None:
        log.warning("doxygen is not installed (Debian package doxygen): the site has no API reference")
        return os.path.join(out, "html")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    log.info(f"Building the API reference (docs/Doxyfile) into {out}")
    subprocess.run(["doxygen", "docs/Doxyfile"], cwd=_root, env={**os.environ, "KILN_API_OUT": out},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # its warnings: the api_reference CTest
    return os.path.join(out, "html")


def on_files(files, config):
    global _root, _docs
    _root = os.path.dirname(os.path.abspath(config["config_file_path"]))
    _docs = os.path.relpath(config["docs_dir"], _root).replace(os.sep, "/")
    for f in list(files):
        if f.abs_src_path.startswith(os.path.abspath(config["docs_dir"]) + os.sep) and (
                f.src_uri == "Doxyfile" or f.src_uri.endswith(".py")):
            files.remove(f)
    _site_of_repo.clear()
    todo = [f"{_docs}/{f.src_uri}" for f in files.documentation_pages()]
    todo.append("README.md")
    seen = set(todo)
    while todo:
        repo_path = todo.pop()
        if repo_path.endswith(".md"):
            _site_of_repo[repo_path] = _site_path(repo_path)
            for target in _link_targets(repo_path):
                if target.startswith(_docs + "/") or target.startswith("..") or target in seen:
                    continue
                if os.path.isfile(os.path.join(_root, target)):
                    seen.add(target)
                    todo.append(target)
        if not repo_path.startswith(_docs + "/"):
            f = File(repo_path, _root, config["site_dir"], config["use_directory_urls"])
            f.src_uri = _site_path(repo_path)
            f.name = f._get_stem()
            f.dest_uri = f._get_dest_path(config["use_directory_urls"])
            f.abs_dest_path = os.path.normpath(os.path.join(config["site_dir"], f.dest_path))
            f.url = f._get_url(config["use_directory_urls"])
            files.append(f)
    api = _api_html()
    if os.path.isfile(os.path.join(api, "index.html")):
        for folder, _, names in os.walk(api):
            for name in names:
                rel = os.path.relpath(os.path.join(folder, name), api).replace(os.sep, "/")
                f = File(API_PREFIX + rel, os.path.dirname(os.path.dirname(api)), config["site_dir"],
                         config["use_directory_urls"])
                f.abs_src_path = os.path.join(folder, name)
                files.append(f)
    else:
        log.warning(f"The API reference is not built: {api}/index.html is missing")
    return files


def on_nav(nav, config, files):
    """A nav entry that names a file that is not Markdown (the Doxygen index) is a plain link."""
    def replace(items):
        for i, item in enumerate(items):
            if isinstance(item, Page) and not item.file.is_documentation_page():
                item.file.page = None
                items[i] = Link(item.title, item.file.url)
                items[i].parent = item.parent
            elif getattr(item, "children", None):
                replace(item.children)
    replace(nav.items)
    nav.pages = [p for p in nav.pages if p.file.is_documentation_page()]
    for p in nav.pages:
        p.previous_page = p.next_page = None
    _add_previous_and_next_links(nav.pages)
    return nav


def on_page_markdown(markdown, page, config, files):
    """Rewrites the page's relative links from repository paths to site paths, and puts a
    blank line between a paragraph and the list that follows it."""
    here = next((r for r, s in _site_of_repo.items() if s == page.file.src_uri), None)
    if here is None:
        return markdown
    site_dir = posixpath.dirname(_site_path(here))

    def fix(m):
        target, _, anchor = m.group(2).partition("#")
        if not target or not _is_relative(target):
            return m.group(0)
        repo_target = posixpath.normpath(posixpath.join(posixpath.dirname(here), target))
        site_target = _site_path(repo_target)
        if files.get_file_from_path(site_target) is None:
            return m.group(0)  # MkDocs reports it
        new = posixpath.relpath(site_target, site_dir or ".") + ("#" + anchor if anchor else "")
        return m.group(1) + new + m.group(3)

    out, block_is_list, after_code = [], False, False
    for line, code in _fences(markdown.split("\n")):
        if after_code and not code and line.strip():
            out.append("")  # GitHub ends a block at a closing fence; Python-Markdown needs a blank line
        after_code = code
        if not code:
            line = LINK.sub(fix, line)
            if line.strip() and (not out or not out[-1].strip()):
                block_is_list = bool(ITEM.match(line))
            elif ITEM.match(line) and not block_is_list:
                # GitHub lets a list interrupt a paragraph; Python-Markdown needs a blank line.
                out.append("")
                block_is_list = True
        out.append(line)
    return "\n".join(out)
