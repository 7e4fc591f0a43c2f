"""Rating list files: the columnar writer writes exactly what the entry writer did
(``json.dumps(rows, indent=2, ensure_ascii=False)``, ``csv.DictWriter``)."""

from __future__ import annotations

import csv
import io
import json
import os
from decimal import Decimal
from pathlib import Path

import pytest

from chessrate.io.lists import (
    LIST_COLUMNS,
    ListColumns,
    list_columns_text,
    rating_list_text,
    write_all,
)
from chessrate.systems.base import ListEntry

ENTRIES = [
    ListEntry("ann", "blitz", Decimal("1735.58"), "1736", "rated", 17),
    ListEntry('qu"ote', "blitz", Decimal("-0.05"), "0", "rated", 3),
    ListEntry("back\\slash", "rapid", None, "1500", "qualifying", 2),
    ListEntry("Иван Новак", "rapid", Decimal("1500.00"), "1500?", "rated", 0),
    ListEntry("tab\there\nnew,line", "corr", Decimal("1450.10"), "1450P (7)", "provisional", 7),
    ListEntry("\x01control\u2028", "corr", Decimal("2000.00"), "2000", "established", 40),
]


def by_rows(entries: list[ListEntry], suffix: str) -> str:
    rows = [entry.as_mapping() for entry in entries]
    if suffix == ".json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(LIST_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if row.get(k) is None else row[k] for k in LIST_COLUMNS})
    return buffer.getvalue()


@pytest.mark.parametrize("suffix", [".json", ".csv"])
@pytest.mark.parametrize("count", [0, 1, len(ENTRIES)])
def test_list_columns_text_writes_what_the_row_writer_wrote(suffix: str, count: int) -> None:
    entries = ENTRIES[:count]
    path = Path(f"list{suffix}")
    expected = by_rows(entries, suffix)
    assert rating_list_text(entries, path) == expected
    parts = [ListColumns.of(entries[:2]), ListColumns.of(entries[2:])]
    assert list_columns_text(parts, path) == expected
    if suffix == ".json":
        assert json.loads(expected) == [e.as_mapping() for e in entries]


def test_written_files_get_the_modes_open_would_give(tmp_path: Path) -> None:
    """A list written anew is readable as any file the user writes (0666 less the
    umask), not only by its owner as the temporary file it is staged in; a file
    written over keeps its mode."""
    fresh, kept = tmp_path / "list.csv", tmp_path / "kept.csv"
    kept.write_text("old")
    kept.chmod(0o640)
    mask = os.umask(0o022)
    os.umask(mask)
    write_all({fresh: "a\n", kept: "b\n"})
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~mask
    assert kept.stat().st_mode & 0o777 == 0o640
    assert (fresh.read_text(), kept.read_text()) == ("a\n", "b\n")
