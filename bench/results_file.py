"""bench/RESULTS.md's sections, replaced by the benchmarks that write them."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def replace_section(heading: str, block: str) -> None:
    """Put ``block`` (which starts with ``heading``) in place of the section under
    ``heading``, up to the next ``## ``, or at the end when there is none."""
    text = RESULTS.read_text(encoding="utf-8")
    if heading in text:
        start = text.index(heading)
        end = text.find("\n## ", start + len(heading))
        text = text[:start] + block + (text[end:] if end != -1 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    RESULTS.write_text(text, encoding="utf-8")
