"""The CSV reader's player ids, packed in words (csvscan.intern_packed): the codes and ids
of the byte-pool interner (strings.intern), in the same order; longer ids fall back."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from chessrate.fast import csvscan
from chessrate.fast.columnar import read_batch
from chessrate.fast.strings import intern, table_for
from chessrate.io.games import read_games


def cells(ids: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    encoded = [text.encode("utf-8") for text in ids]
    data = np.frombuffer(b"".join(encoded), np.uint8)
    ends = np.cumsum([len(e) for e in encoded]).astype(np.int64)
    return data, ends - np.array([len(e) for e in encoded], np.int64), ends


def test_packed_codes_are_the_pool_interners_and_the_table_grows() -> None:
    rng = np.random.default_rng(7)
    names = [f"p{n}" + "x" * (n % 28) for n in range(3000)]  # 2 to 32 bytes
    white = [names[i] for i in rng.integers(0, 3000, 5000)]
    black = [names[i] for i in rng.integers(0, 2000, 5000)] + ["", "é" * 16]
    white += ["", "ü" * 16]
    data, starts, ends = cells(white + black)
    n = len(white)
    rows = np.arange(n, dtype=np.int64)
    codes, count, words, lengths = csvscan.intern_packed(
        data, rows, starts[:n], ends[:n], starts[n:], ends[n:], 16
    )
    pool = np.empty(data.shape[0], np.uint8)
    offsets = np.zeros(2 * n + 1, np.int64)
    first, count_w, table = intern(data, rows, starts[:n], ends[:n], table_for(16), pool,
                                   offsets, 0)  # fmt: skip
    second, expected, _ = intern(data, rows, starts[n:], ends[n:], table, pool, offsets, count_w)
    assert count == expected
    assert np.array_equal(codes, np.concatenate((first, second)))
    packed = words[:count].astype("<u8").view(np.uint8).reshape(count, csvscan.PACKED)
    for code in range(count):
        got = packed[code, : lengths[code]].tobytes()
        assert got == pool[offsets[code] : offsets[code + 1]].tobytes()


def test_an_id_longer_than_the_words_falls_back() -> None:
    data, starts, ends = cells(["a" * 33, "b"])
    rows = np.arange(1, dtype=np.int64)
    _, count, _, _ = csvscan.intern_packed(data, rows, starts[:1], ends[:1], starts[1:],
                                           ends[1:], 16)  # fmt: skip
    assert count == -1


def test_read_batch_reads_long_and_non_ascii_ids_as_the_reference(tmp_path: Path) -> None:
    path = tmp_path / "games.csv"
    rows = ["id,played_at,white,black,result"]
    players = ["ann", "b" * 32, "Иван", " bo ", "c" * 33]
    for n in range(40):
        rows.append(f"g{n},2026-03-01T10:{n:02d}:00Z,{players[n % 5]},{players[(n + 2) % 5]},1-0")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    records = read_games(path)
    for keep in (40, 30):  # with the 33-byte id (the fallback) and without it
        part = tmp_path / f"part{keep}.csv"
        lines = [rows[0]] + [r for r in rows[1:] if keep == 40 or "c" * 33 not in r]
        part.write_text("\n".join(lines) + "\n", encoding="utf-8")
        batch = read_batch(part)
        expected = read_games(part)
        assert [batch.record(i) for i in range(len(batch))] == expected
    assert len(records) == 40
