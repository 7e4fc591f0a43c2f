"""Game fields decided once per distinct value, by the reference field readers.

The columnar readers give each distinct cell of a low-cardinality field
(:data:`INTERNED`) a code; :func:`decide` hands every distinct cell to
:class:`chessrate.records.GameFields` (the readers :meth:`GameRecord.from_mapping`
uses) and returns its :class:`~chessrate.fast.GameBatch` values, or marks it refused:
its rows then go to the reference parser, which explains the refusal.
:func:`refused_pairs` asks the reference's checks between two fields the same way,
for every pair of values the two fields can take.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from ..errors import InvalidRecord
from ..records import GameFields, Venue
from .batch import (
    RESULT_CODE,
    RESULTS,
    TERMINATION_CODE,
    TERMINATIONS,
    confirmed_code,
    plies_code,
    time_control_codes,
    venue_code,
)

B = npt.NDArray[np.bool_]

INTERNED = ("result", "rated", "time_control", "termination", "plies", "venue", "confirmed")
"""The fields read by distinct value (the others are ids and the timestamp)."""

_READERS: dict[str, tuple[tuple[str, ...], Callable[[GameFields], tuple[int, ...]]]] = {
    "result": (("result",), lambda f: (RESULT_CODE[f.result()],)),
    "rated": (("rated",), lambda f: (int(f.rated()),)),
    "time_control": (
        ("tc_kind", "tc_base", "tc_increment", "tc_days"),
        lambda f: time_control_codes(f.time_control()),
    ),
    "termination": (("termination",), lambda f: (TERMINATION_CODE[f.termination()],)),
    "plies": (("plies",), lambda f: (plies_code(f.plies()),)),
    "venue": (("venue",), lambda f: (venue_code(f.venue()),)),
    "confirmed": (("confirmed",), lambda f: (confirmed_code(f.confirmed()),)),
}
"""Per field: the batch columns it fills and its reading as their values."""

DTYPES = {"result": np.int8, "rated": np.bool_, "tc_kind": np.int8, "tc_base": np.int64,
          "tc_increment": np.int64, "tc_days": np.int64, "termination": np.int8,
          "plies": np.int32, "venue": np.int8, "confirmed": np.int8}  # fmt: skip
"""The batch columns' types (as :class:`~chessrate.fast.GameBatch` holds them)."""


@dataclass(frozen=True, slots=True)
class Decided:
    """One field's distinct values decided: ``columns[name][i]`` is the batch value of
    distinct value ``i``, unless ``refused[i]`` (then it is 0)."""

    refused: B
    columns: dict[str, npt.NDArray[np.generic]]

    def at(self, index: npt.NDArray[np.int64]) -> Decided:
        """The decisions renumbered: value ``i`` of the result is value ``index[i]``."""
        return Decided(
            self.refused[index], {name: values[index] for name, values in self.columns.items()}
        )


def decide(name: str, values: Sequence[object]) -> Decided:
    """Each of ``values`` (distinct cells of field ``name`` as the reference reader
    hands them over: text, or JSON's bool and int; None when absent) read by
    :class:`GameFields`, as :meth:`GameRecord.from_mapping` reads it."""
    columns, read = _READERS[name]
    refused = np.zeros(len(values), np.bool_)
    decoded = [[0] * len(values) for _ in columns]
    for i, value in enumerate(values):
        try:
            codes = read(GameFields({} if value is None else {name: value}, ""))
        except InvalidRecord:
            refused[i] = True
            continue
        for column, code in zip(decoded, codes, strict=True):
            column[i] = code
    return Decided(
        refused,
        {c: np.array(v, DTYPES[c]) for c, v in zip(columns, decoded, strict=True)},
    )


@cache
def refused_pairs() -> tuple[B, B]:
    """The reference's checks between two fields, for every pair of values: refused
    (result, termination) pairs indexed by their batch codes, and refused (venue,
    confirmed) pairs indexed by venue code and confirmed code + 1."""
    check = GameFields({}, "")
    ending = np.zeros((len(RESULTS), len(TERMINATIONS)), np.bool_)
    for r, result in enumerate(RESULTS):
        for t, termination in enumerate(TERMINATIONS):
            try:
                check.check_ending(result, termination)
            except InvalidRecord:
                ending[r, t] = True
    confirmation = np.zeros((2, 3), np.bool_)
    for venue in Venue:
        for confirmed in (None, False, True):
            try:
                check.check_confirmed(venue, confirmed)
            except InvalidRecord:
                confirmation[venue_code(venue), confirmed_code(confirmed) + 1] = True
    ending.flags.writeable = confirmation.flags.writeable = False
    return ending, confirmation
