"""Seeks and the pairing pass: a player seeks a game; the pass pairs compatible seeks
by site Elo (the acceptable difference widens while a seek waits) and opens their live
games; a seek for a bot is paired at once. Times are the service's clock.

A seek is documented by :class:`SeekCreate` but read with the records'
:class:`~chessrate.records.FieldReader`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidRecord
from ..ledger import Ledger
from ..ledger.seeks import Seeks, SeekStatus, SeekView
from ..numbers import display, format_rating
from ..records import FieldReader
from ..systems.site import site_mark
from ..systems.site_pairing import PairingRules, window
from ..timecontrol import parse_written_time_control
from .common import RequestModel, id_field
from .live import LiveGamePublic, live_public
from .settings import API_V1

# -- requests ---------------------------------------------------------------------------


SEEK_RATING_MOST = 5000
"""The largest site Elo a seek's range names (a larger one is a 422)."""
SEEK_KEY_LONGEST = 64
"""The longest client key of a seek (the column's width)."""


class SeekCreate(RequestModel):
    """A player seeks a game: paired by site Elo with another seek of the
    same time control and rated flag; ``bot: true`` plays the closest bot at once."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"player": "alice", "time_control": "180+2"},
                {"player": "alice", "time_control": "600+0", "rated": False,
                 "min_rating": 1400, "max_rating": 1700},
                {"player": "alice", "time_control": "300+3", "bot": True},
            ]
        },
    )  # fmt: skip

    player: str = id_field("the player seeking (not a bot)")
    time_control: str = Field(
        description="`180+2`, `3m+2s`, `-` or `unclocked` (no clock), `3d` or `3 days/move` "
        "(days per move)"
    )
    rated: bool | None = True
    min_rating: int | None = Field(
        default=None, ge=0, le=SEEK_RATING_MOST, description="the lowest site Elo accepted"
    )
    max_rating: int | None = Field(
        default=None, ge=0, le=SEEK_RATING_MOST,
        description="the highest site Elo accepted; not below min_rating",
    )  # fmt: skip
    bot: bool | None = Field(default=False, description="play the bot closest to the site Elo, now")
    key: str | None = Field(
        default=None, min_length=1, max_length=SEEK_KEY_LONGEST,
        description="the client's own name for this seek: sent again with the same player "
        "and key (a retry after a lost answer), the stored seek is the answer (200, "
        "whatever it became: open, paired, expired), never a second seek; the same key "
        "with other fields is a 409",
    )  # fmt: skip


# -- answers ----------------------------------------------------------------------------


class SeekPublic(BaseModel):
    """A seek: who, which game, the player's site Elo, how long it has waited and the
    difference it accepts now, and how it ended."""

    id: int
    player: str
    name: str | None = None
    time_control: str = Field(description="the control in its one stored form (`180+2`)")
    rated: bool
    min_rating: int | None
    max_rating: int | None
    bot: bool = Field(description="a game against a bot, paired at once")
    status: SeekStatus
    site_elo: str = Field(description="the player's current site Elo (two decimals)")
    site_elo_display: str = Field(description="as displayed (`1500?` under 10 games, S6)")
    created_at: datetime
    expires_at: datetime
    waiting_seconds: int = Field(description="how long it has waited (till it ended)")
    window: int | None = Field(
        description="an open seek's acceptable site Elo difference now (it widens while "
        "the seek waits)"
    )
    paired_at: datetime | None
    closed_at: datetime | None = Field(description="when it was cancelled or expired")
    opponent: str | None
    live_game: str | None = Field(description="the live game's id once paired")
    live_game_url: str | None = Field(description="the live game's API path once paired")
    key: str | None = Field(default=None, description="the client's key, when it gave one")


class SeeksPublic(BaseModel):
    """A page of seeks: open ones oldest first; a player's (or another status) newest
    first."""

    total: int
    offset: int
    limit: int
    seeks: list[SeekPublic]


class PairPublic(BaseModel):
    """What a pairing pass did."""

    pairs: list[LiveGamePublic] = Field(description="the live games it opened")
    expired: int = Field(description="seeks it marked expired")
    purged: int = Field(
        default=0,
        description="closed seeks it deleted, their expiry older than the retention "
        "(CHESSRATE_SEEK_RETENTION_DAYS, 30 days)",
    )
    failed: dict[str, str]
    busy: bool = Field(
        description="another pass was running (PostgreSQL): it pairs; this one did nothing"
    )


# -- services ---------------------------------------------------------------------------


SEEK_FIELDS = ("player", "time_control", "rated", "min_rating", "max_rating", "bot", "key")


def seek_public(view: SeekView, now: datetime, rules: PairingRules) -> SeekPublic:
    is_open = view.status is SeekStatus.OPEN
    until = now if is_open else (view.paired_at or view.closed_at or now)
    waited = max(0, int((until - view.created_at).total_seconds()))
    live = view.live_game_id
    return SeekPublic(
        id=view.id,
        player=view.player,
        time_control=str(view.time_control),
        rated=view.rated,
        min_rating=view.min_rating,
        max_rating=view.max_rating,
        bot=view.bot,
        status=view.status,
        site_elo=format_rating(view.rating) or "",
        site_elo_display=f"{display(view.rating)}{site_mark(view.games)}",
        created_at=view.created_at,
        expires_at=view.expires_at,
        waiting_seconds=waited,
        window=window(waited, rules) if is_open else None,
        paired_at=view.paired_at,
        closed_at=view.closed_at,
        opponent=view.opponent,
        live_game=live,
        live_game_url=None if live is None else f"{API_V1}/live-games/{quote(live, safe='')}",
        key=view.key,
    )


def create_seek(
    ledger: Ledger, body: Mapping[str, Any], now: datetime, rules: PairingRules
) -> tuple[SeekPublic, bool]:
    """Open a seek, or (``bot: true``) play the closest bot at once; with whether it is
    new (false: the seek of that ``key``, sent again)."""
    fields = FieldReader(body, "seek")
    fields.reject_unknown(SEEK_FIELDS)
    player = fields.ident("player")
    control_text = fields.text("time_control", required=True)
    assert control_text is not None
    try:
        control = parse_written_time_control(control_text)
    except ValueError as error:
        raise fields.fail("time_control", str(error)) from None
    rated = fields.boolean("rated") is not False
    low = fields.integer("min_rating", 0, SEEK_RATING_MOST)
    high = fields.integer("max_rating", 0, SEEK_RATING_MOST)
    if low is not None and high is not None and low > high:
        raise fields.fail("max_rating", f"{high} is below min_rating {low}")
    key = fields.text("key", longest=SEEK_KEY_LONGEST)
    seeks = Seeks(ledger, rules)
    if fields.boolean("bot"):
        view, _ = seeks.play_bot(player, control, rated, low, high, now, key)
    else:
        view = seeks.create(player, control, rated, low, high, now, key)
    return seek_public(view, now, rules), not view.repeated


def cancel_seek(ledger: Ledger, seek_id: int, now: datetime, rules: PairingRules) -> SeekPublic:
    return seek_public(Seeks(ledger, rules).cancel(seek_id, now), now, rules)


def get_seek(ledger: Ledger, seek_id: int, now: datetime, rules: PairingRules) -> SeekPublic:
    return seek_public(Seeks(ledger, rules).get(seek_id, now), now, rules)


def list_seeks(
    ledger: Ledger,
    now: datetime,
    rules: PairingRules,
    player: str | None = None,
    status: str | None = "open",
    offset: int = 0,
    limit: int = 50,
) -> SeeksPublic:
    """Open seeks oldest first (``status``: open, paired, cancelled, expired or
    ``all``); a player's newest first."""
    wanted: SeekStatus | None = None
    if status is not None and status != "all":
        try:
            wanted = SeekStatus(status)
        except ValueError:
            known = ", ".join([*(s.value for s in SeekStatus), "all"])
            raise InvalidRecord("query", "status", f"{status!r} is not one of {known}") from None
    total, views = Seeks(ledger, rules).page(now, player, wanted, offset, limit)
    return SeeksPublic(
        total=total, offset=offset, limit=limit,
        seeks=[seek_public(v, now, rules) for v in views],
    )  # fmt: skip


def pair(ledger: Ledger, now: datetime, rules: PairingRules) -> PairPublic:
    """One pairing pass at ``now``."""
    report = Seeks(ledger, rules).pair(now)
    return PairPublic(
        pairs=[live_public(game) for _, _, game in report.pairs],
        expired=report.expired, purged=report.purged, failed=dict(report.failed),
        busy=report.busy,
    )  # fmt: skip
