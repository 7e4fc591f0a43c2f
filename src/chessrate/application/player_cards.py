"""A fide player's card: what the player's TRF records say of them (federation, title,
sex, birth year, each from the latest file that gives it) and, per list, the rating and
the rating by period."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ..errors import InvalidRecord
from ..io.fide import TITLES, birth_year_of, player_key
from ..io.trf import parse_trf
from ..ledger import Ledger
from ..ledger.periods import Periods
from ..systems.fide import ListKind
from .periods import PlayerListPublic, PlayerPeriodPublic, periods_of, player_periods

ALL_PERIODS = 1_000_000
"""More periods than a ledger has (a card shows them all)."""

_SEXES = {"m": "man", "w": "woman", "f": "woman"}


def title_of(code: str) -> str:
    """A TRF title code as FIDE writes the title (``g`` GM, ``wm`` WIM); another text
    as it is."""
    return TITLES.get(code.strip().casefold(), code.strip())


class PlayerFactsPublic(BaseModel):
    """What the player's TRF records say of him, each from the latest stored file that
    gives it (the files of the periods he is in, and of open periods)."""

    federation: str | None = None
    title: str | None = Field(default=None, description="GM, IM, WGM, ... (TRF g, m, wg, ...)")
    sex: str | None = Field(default=None, description="man or woman (TRF m, w)")
    birth_year: int | None = None
    sources: dict[str, str] = Field(
        default_factory=dict, description="for each fact, the period and file it comes from"
    )


class FideListPublic(BaseModel):
    """A player's line on one of FIDE's lists: the rating after the last period of that
    list, and the rating by period, oldest first."""

    list_kind: str
    rating: int | None
    games: int
    flag: str = Field(default="", description="the list's Flag (7.2.2): `i`, `w`, `wi`")
    periods: list[PlayerPeriodPublic]


class PlayerCardPublic(BaseModel):
    player: str
    name: str | None
    facts: PlayerFactsPublic
    lists: list[FideListPublic] = Field(description="standard, rapid, blitz: those present")
    summary: list[PlayerListPublic] = Field(
        description="the three lists, each with its rating, games, K and the period that "
        "published it"
    )


def player_card(ledger: Ledger, player_id: str) -> PlayerCardPublic:
    """A fide player's card: the facts of his TRF records, and per list the rating and
    the rating by period (404 for an unknown player)."""
    every = player_periods(ledger, player_id, 0, ALL_PERIODS)
    lists = [
        FideListPublic(list_kind=found.list_kind.value, rating=found.rating, games=found.games,
                       flag=found.flag, periods=found.periods)
        for found in every.lists
        if found.periods
    ]  # fmt: skip
    if not lists:
        lists = [FideListPublic(list_kind=ListKind.STANDARD.value, rating=None, games=0,
                                periods=[])]  # fmt: skip
    return PlayerCardPublic(
        player=player_id,
        name=every.name,
        facts=_facts(periods_of(ledger), player_id, {p.period for p in every.periods}),
        lists=lists,
        summary=every.lists,
    )


def _facts(periods: Periods, player_id: str, his: set[int]) -> PlayerFactsPublic:
    """Federation, title, sex and birth year, each from the latest file giving it: the
    files of his periods and of the open ones, newest period and file first."""
    found: dict[str, Any] = {}
    sources: dict[str, str] = {}
    views = [v for v in periods.all() if v.id in his or v.closed_at is None]
    for view in sorted(views, key=lambda v: v.id, reverse=True):
        for number in range(len(view.files), 0, -1):
            stored = periods.file(view.id, number)
            try:
                tournament = parse_trf(stored.content, stored.name)
            except (InvalidRecord, ValueError):  # a stored file reads; be safe anyway
                continue
            for trf in tournament.players:
                if player_key(trf) != player_id:
                    continue
                values = {
                    "federation": trf.federation or None,
                    "title": title_of(trf.title) or None,
                    "sex": _SEXES.get(trf.sex),
                    "birth_year": birth_year_of(trf),
                }
                for key, value in values.items():
                    if value is not None and key not in found:
                        found[key] = value
                        sources[key] = f"{view.name}, {stored.name}"
            if len(found) == 4:
                return PlayerFactsPublic(**found, sources=sources)
    return PlayerFactsPublic(**found, sources=sources)
