"""The documentation stays buildable and its links stay true.

The docs site (``mkdocs.yml``, ``docs/``) is built with ``mkdocs build --strict``: a
link to a page or an anchor that does not exist, or a page left out of the nav, is a
warning, and ``--strict`` makes every warning fail the build. The build runs offline:
the process that builds it cannot open a network connection (the built-in theme needs
none). README.md is not part of the site; its relative links are checked here against
the files of the repository.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs mkdocs's command line in a process whose sockets refuse to connect anywhere, so
# that a theme or plugin that downloads something fails the build instead of reaching
# the network.
OFFLINE_MKDOCS = """
import socket, sys

def refuse(*args, **kwargs):
    raise OSError("the docs build must not use the network")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from mkdocs.__main__ import cli
sys.argv = ["mkdocs", *sys.argv[1:]]
cli()
"""

# [text](target) and [text]: target, outside code; <a href="target"> too.
INLINE_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
HTML_LINK = re.compile(r"<a\s[^>]*href=\"([^\"]+)\"")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def test_the_docs_site_builds_strictly_offline(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable, "-c", OFFLINE_MKDOCS, "build", "--strict", "--quiet",
            "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site"),
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert (tmp_path / "site" / page.stem / "index.html").is_file() or page.stem == "index"


def relative_links(markdown: str) -> list[str]:
    """The link targets of a Markdown text that name a file of the repository: not a URL,
    not a bare anchor, outside code."""
    text = CODE_SPAN.sub("", FENCE.sub("", markdown))
    targets = INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text) + HTML_LINK.findall(text)
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:|#", t)]


def test_the_readme_links_to_files_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = relative_links(readme)
    assert links, "README.md links to the docs"
    missing = [t for t in links if not (ROOT / t.split("#", 1)[0]).exists()]
    assert missing == []


def test_relative_links_are_found_outside_code() -> None:
    text = (
        "[a](docs/a.md) [b](https://example.org) [c](#top) `[d](docs/d.md)`\n"
        "```\n[e](docs/e.md)\n```\n[f]: docs/f.md#x\n"
    )
    assert relative_links(text) == ["docs/a.md", "docs/f.md#x"]
