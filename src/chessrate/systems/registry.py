"""The registry of rating systems: one :class:`SystemInfo` per system, the one place
that knows every system by its id.

Everything above a system asks its entry and never compares the id: the ledger (which
system a ledger rates by, how its states are stored), the compiled replay (the system's
compiled half), the service, the pages, the samples and the command line. An entry
holds the system's reference system (``build``, from its ``Rules``), its default
``Rules``, its stored-state codec and, for a system that rates games one by one, its
compiled half.

The compiled half (numba kernels over arrays, :mod:`chessrate.fast`) sits above the
pure systems, so an entry names it by module path (``"chessrate.fast.arena:COMPILED"``)
and :mod:`chessrate.fast` loads it the first time a compiled replay runs: the pure core
never imports numba. An entry made outside the package (a test's, a deployment's own
system) may hold the compiled object itself. :func:`register` adds an entry;
:func:`registered` adds one for the length of a ``with`` block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .base import RatingSystem, Rules, StateCodec


class SystemKind(StrEnum):
    """How a system rates."""

    GAMES = "games"
    """Game by game, as each is played or submitted (a :class:`RatingSystem`)."""
    PERIODS = "periods"
    """A rating period's tournaments at once, from a starting list to a new list."""


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """One system's registry entry: what the layers above the systems need of it."""

    id: str
    kind: SystemKind
    pools: tuple[str, ...]
    """Its rating lists, in the system's order (fide's one pool is ``"fide"``)."""
    description: str
    """One line, for people (``--help``, pages)."""
    build: Callable[[Any], Any]
    """The reference system for a ``Rules`` object (the system's class)."""
    rules: Rules
    """The default rules (the spec's numbers)."""
    codec: StateCodec[Any] | None = None
    """How a ledger stores its per-game states (None: a system that rates periods)."""
    compiled: object | None = None
    """Its compiled half: ``"module:attribute"`` or the object itself (None: no compiled
    replay; :func:`chessrate.fast.compiled_half` loads it)."""
    live_games: bool = False
    """Whether its ledger plays live games (site S7-S9)."""
    folded_rules: tuple[str, ...] = ()
    """Rules whose state after a change is built from the state before it, not from the
    change alone (arena A6: the qualifying games so far), so that a stored state is
    rebuilt from each such change in order."""
    annulments: bool = False
    """Whether its regulation annuls a rated game for fair play (site S10)."""
    rule_ids: tuple[str, ...] = ()
    """The ids of its rules as people read them (``S1`` … ``S10``: each has an anchor on
    the pages' /how)."""
    pool_labels: Mapping[str, str] | None = None
    """What people call a pool where it is not the pool's name (site: "site Elo")."""

    @property
    def rates_games(self) -> bool:
        return self.kind is SystemKind.GAMES

    @property
    def rates_periods(self) -> bool:
        return self.kind is SystemKind.PERIODS

    def system(self, rules: Rules | None = None) -> Any:
        """The reference system with ``rules`` (default: the entry's)."""
        return self.build(self.rules if rules is None else rules)

    def rating_system(self, rules: Rules | None = None) -> RatingSystem[Any]:
        """The system that rates games one by one (ValueError for one that rates
        periods)."""
        if not self.rates_games:
            raise ValueError(f"the {self.id} system rates periods, not single games")
        system: RatingSystem[Any] = self.system(rules)
        return system

    def pool_label(self, pool: str) -> str:
        """A pool's name for people."""
        return (self.pool_labels or {}).get(pool, pool)


_ENTRIES: dict[str, SystemInfo] = {}

REGISTRY: Mapping[str, SystemInfo] = MappingProxyType(_ENTRIES)
"""Every registered system, by id, in the order they were registered."""


def register(info: SystemInfo) -> SystemInfo:
    """Add a system to the registry (ValueError when its id is taken)."""
    if info.id in _ENTRIES:
        raise ValueError(f"a rating system {info.id!r} is registered already")
    _ENTRIES[info.id] = info
    return info


@contextmanager
def registered(info: SystemInfo) -> Iterator[SystemInfo]:
    """The system registered for the length of the block, then removed again."""
    register(info)
    try:
        yield info
    finally:
        del _ENTRIES[info.id]


def system_info(system_id: str) -> SystemInfo:
    """The registry's entry for ``system_id``; ``ValueError`` naming the known ids."""
    try:
        return _ENTRIES[system_id]
    except KeyError:
        known = ", ".join(_ENTRIES)
        raise ValueError(f"unknown rating system {system_id!r} (known: {known})") from None


def system_of(system: RatingSystem[Any]) -> SystemInfo:
    """The entry of a system object (by its id)."""
    return system_info(system.id)


def get_system(system_id: str) -> RatingSystem[Any]:
    """The system with this id that rates games one by one, with its default rules."""
    info = _ENTRIES.get(system_id)
    if info is None or not info.rates_games:
        known = ", ".join(i.id for i in _ENTRIES.values() if i.rates_games)
        raise ValueError(f"unknown rating system {system_id!r} (known: {known})")
    return info.rating_system()
