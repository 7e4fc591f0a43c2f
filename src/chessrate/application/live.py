"""Live games (site S7-S9): open one (or register an over-the-board result), move,
finish, abort; the other player's confirmation or dispute of an otb result; the list;
the sweep that applies the deadlines that have passed. Times are the service's clock.

Opening is documented by :class:`LiveGameCreate` but read with the records'
:class:`~chessrate.records.FieldReader`, so it refuses with the records' words.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidRecord
from ..identifiers import ID_LONGEST
from ..ledger import Ledger
from ..ledger.live import LiveView, OtbRegistration
from ..records import FieldReader, Outcome, Result, Termination, Venue
from ..systems.site_live import SERVICE_ENDINGS, DeadlineKind, LiveGame, LiveStatus, Side
from ..timecontrol import parse_time_control
from .common import Choice, GameFields, PagePublic, PlayerRef, RequestModel, id_field
from .settings import API_V1

# -- requests ---------------------------------------------------------------------------


class LiveGameCreate(GameFields):
    """Open a live game (site S7-S9), or register an over-the-board result (``venue:
    otb`` with ``result`` and ``by``) for the other player to confirm."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            # what the records refuse of the fields together: otb needs its result and
            # who registers it; online has neither (nor played_at)
            "if": {"properties": {"venue": {"const": "otb"}}, "required": ["venue"]},
            "then": {"required": ["result", "by"]},
            "else": {
                "properties": {name: {"type": "null"} for name in ("result", "by", "played_at")}
            },
            "examples": [
                {"id": "L1", "white": "alice", "black": "bob", "time_control": "180+2"},
                {"id": "O1", "white": "alice", "black": "bob", "venue": "otb",
                 "result": "1-0", "by": "alice", "played_at": "2026-03-01T18:30:00Z"},
            ]
        },
    )  # fmt: skip

    id: str = id_field("the game's id: the ledger's game id once it ends")
    played_at: datetime | None = Field(default=None, description="otb: default now")
    time_control: str | None = Field(
        default=None,
        description="required online: `180+2`, `3m+2s`, `-` (no clock), `3d` (days per move)",
    )
    bot: Side | None = Field(
        default=None, description="the bot's side; must agree with the players' `bot`"
    )
    result: Result | None = Field(
        default=None, description="otb (required): the registered result, not `*`; refused online"
    )
    by: str | None = id_field(
        "otb (required): the player registering it, one of the two; refused online", default=None
    )


class LiveMoveCreate(RequestModel):
    """One ply: its number (1 = White's first move); the service stamps its time."""

    model_config = ConfigDict(extra="forbid")

    ply: int = Field(ge=1)
    move: str | None = Field(default=None, max_length=16, description="SAN or UCI, optional")
    by: PlayerRef | None = Field(
        default=None, max_length=ID_LONGEST, description="the player moving (checked if given)"
    )


class LiveFinish(RequestModel):
    """How the game ended, as the site saw it (``expired`` and ``bot_no_move`` are the
    service's own, when their deadline passes)."""

    model_config = ConfigDict(extra="forbid")

    result: Annotated[Result, Choice]
    termination: Annotated[Termination, Choice] = Field(
        default=Termination.NORMAL,
        description="not `expired` nor `bot_no_move`: the service declares them",
        json_schema_extra={"enum": [t.value for t in Termination if t not in SERVICE_ENDINGS]},
    )
    by: PlayerRef | None = Field(
        default=None, max_length=ID_LONGEST, description="the player who ended it, if one did"
    )


class LiveBy(RequestModel):
    """Who acts: a player of the game."""

    model_config = ConfigDict(extra="forbid")

    by: PlayerRef = Field(max_length=ID_LONGEST)


class LiveDispute(LiveBy):
    reason: str = Field(default="", max_length=2000)


# -- answers ----------------------------------------------------------------------------


class PlyPublic(BaseModel):
    ply: int
    at: datetime
    move: str | None


class DeadlinePublic(BaseModel):
    at: datetime
    kind: DeadlineKind
    side: Side
    player: str
    rule: str
    note: str


class LiveGamePublic(BaseModel):
    """A live game: where it is, its next deadline, and how it ended."""

    id: str
    white: str
    black: str
    rated: bool
    time_control: str | None
    venue: Venue
    bot: Side | None
    status: LiveStatus
    opened_at: datetime
    plies: int
    to_move: Side | None
    moves: list[PlyPublic]
    deadline: DeadlinePublic | None
    result: Result | None
    termination: Termination | None
    played_at: datetime | None
    registered_by: str | None
    ended_at: datetime | None
    ended_by: str | None
    ending: str | None
    outcome: Outcome | None = Field(
        description="the stored game's outcome once the live game has ended"
    )
    game: str | None = Field(description="the stored game's API path once it has ended")


class LiveGamesPublic(PagePublic):
    games: list[LiveGamePublic]
    count: int = Field(description="games on this page")


class SweepPublic(BaseModel):
    """What a sweep ended (S7-S9 deadlines), and what it could not end."""

    ended: list[LiveGamePublic]
    failed: dict[str, str]


# -- services ---------------------------------------------------------------------------


LIVE_FIELDS = (
    "id", "white", "black", "rated", "time_control", "venue", "bot", "result", "by",
    "played_at",
)  # fmt: skip


def live_public(view: LiveView) -> LiveGamePublic:
    game = view.game
    upcoming = view.deadline
    ended = view.status is LiveStatus.ENDED
    return LiveGamePublic(
        id=game.id,
        white=game.white,
        black=game.black,
        rated=game.rated,
        time_control=None if game.time_control is None else str(game.time_control),
        venue=game.venue,
        bot=game.bot,
        status=view.status,
        opened_at=game.opened_at,
        plies=game.ply_count,
        to_move=game.to_move if view.status is LiveStatus.OPEN else None,
        moves=[PlyPublic(ply=p.number, at=p.at, move=p.move) for p in game.plies],
        deadline=None
        if upcoming is None
        else DeadlinePublic(
            at=upcoming.at,
            kind=upcoming.kind,
            side=upcoming.side,
            player=game.player(upcoming.side),
            rule=upcoming.rule,
            note=upcoming.note,
        ),
        result=view.result,
        termination=view.termination,
        played_at=view.played_at,
        registered_by=view.registered_by,
        ended_at=view.ended_at,
        ended_by=view.ended_by,
        ending=view.ending,
        outcome=None if view.outcome is None else Outcome(view.outcome),
        game=f"{API_V1}/games/{quote(game.id, safe='')}" if ended else None,
    )  # fmt: skip


def open_live_game(
    ledger: Ledger, body: Mapping[str, Any], now: datetime
) -> tuple[LiveGamePublic, bool]:
    """Open a live game, or register an otb result (``venue: otb``, ``result``, ``by``)."""
    where = f"live game {body['id']}" if isinstance(body.get("id"), str) else "live game"
    fields = FieldReader(body, where)
    fields.reject_unknown(LIVE_FIELDS)
    game_id, white, black = fields.ident("id"), fields.ident("white"), fields.ident("black")
    if white == black:
        raise fields.fail("black", f"a player cannot play himself ({white!r})")
    control_text = fields.text("time_control")
    try:
        control = None if control_text is None else parse_time_control(control_text)
    except ValueError as error:
        raise fields.fail("time_control", str(error)) from None
    venue = fields.choice("venue", Venue, Venue.ONLINE)
    bot_text = fields.text("bot")
    bot = None if bot_text is None else fields.choice("bot", Side, Side.WHITE)
    rated = fields.boolean("rated")
    game = LiveGame(game_id, white, black, now, control, rated is not False, venue, bot)
    otb = None
    if venue is Venue.OTB:
        result = fields.choice("result", Result, Result.NO_RESULT)
        if result is Result.NO_RESULT:
            raise fields.fail("result", "an otb game is registered with its result")
        by = fields.ident("by")
        if by not in (white, black):
            raise fields.fail("by", f"{by!r} does not play in this game")
        played_at = fields.timestamp("played_at") if body.get("played_at") else now
        if played_at > now:
            raise fields.fail("played_at", "is in the future")
        otb = OtbRegistration(result, by, played_at)
    else:
        for name in ("result", "by", "played_at"):
            if body.get(name) is not None:
                raise fields.fail(name, "only an otb registration has it (online: finish)")
    view, created = ledger.live.open(game, now, otb)
    return live_public(view), created


def live_move(ledger: Ledger, game_id: str, body: LiveMoveCreate, now: datetime) -> LiveGamePublic:
    return live_public(ledger.live.move(game_id, body.ply, body.move, body.by, now))


def finish_live_game(
    ledger: Ledger, game_id: str, body: LiveFinish, now: datetime
) -> LiveGamePublic:
    view = ledger.live.finish(game_id, body.result, body.termination, body.by, now)
    return live_public(view)


def abort_live_game(ledger: Ledger, game_id: str, body: LiveBy, now: datetime) -> LiveGamePublic:
    return live_public(ledger.live.abort(game_id, body.by, now))


def confirm_live_game(ledger: Ledger, game_id: str, body: LiveBy, now: datetime) -> LiveGamePublic:
    return live_public(ledger.live.confirm(game_id, body.by, now))


def dispute_live_game(
    ledger: Ledger, game_id: str, body: LiveDispute, now: datetime
) -> LiveGamePublic:
    return live_public(ledger.live.dispute(game_id, body.by, body.reason, now))


def get_live_game(ledger: Ledger, game_id: str) -> LiveGamePublic:
    return live_public(ledger.live.get(game_id))


def list_live_games(
    ledger: Ledger, status: str | None, player: str | None, limit: int, offset: int = 0
) -> LiveGamesPublic:
    """A page of the live games, the most recently opened first."""
    wanted = None
    if status is not None:
        try:
            wanted = LiveStatus(status)
        except ValueError:
            known = ", ".join(s.value for s in LiveStatus)
            raise InvalidRecord("query", "status", f"{status!r} is not one of {known}") from None
    live = ledger.live
    views = live.list(wanted, player, limit, offset)
    return LiveGamesPublic(
        games=[live_public(v) for v in views], count=len(views),
        total=live.count(wanted, player), offset=offset, limit=limit,
    )  # fmt: skip


def sweep(ledger: Ledger, now: datetime) -> SweepPublic:
    """Apply the deadlines that have passed at ``now`` (S7-S9)."""
    report = ledger.live.sweep(now)
    return SweepPublic(ended=[live_public(v) for v in report.ended], failed=dict(report.failed))
