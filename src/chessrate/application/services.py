"""The service layer: requests → records → ledger calls → public shapes.

The API's routes and the pages call these functions and nothing else; these functions
validate input through the records' own validation (``GameRecord.from_mapping``,
``Player.from_mapping``) and leave every rating computation to the ledger and the
rating systems. Errors are raised as the domain's exceptions
(:class:`~chessrate.errors.InvalidRecord`, :class:`~chessrate.errors.NotFound`, …)
and mapped to HTTP in one place (:mod:`chessrate.service.errors`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from ..errors import InvalidInput, InvalidRecord, NotFound
from ..io.trf import parse_trf
from ..ledger import AnnulmentView, GameView, Ledger, PlayerView, RatingView
from ..ledger.codec import change_to_mapping
from ..ledger.live import LiveGames, LiveView, OtbRegistration
from ..ledger.periods import PeriodEntry, Periods, PeriodView
from ..numbers import format_rating
from ..records import FieldReader, GameRecord, Player, Result, Termination, Venue
from ..systems.base import Change, GameRating, ListEntry
from ..systems.site_live import LiveGame, LiveStatus, Side
from ..timecontrol import parse_time_control
from . import schemas
from .deps import Caller
from .group import GroupCommitter
from .settings import API_V1

BATCH = "batch"


# -- shared conversions -----------------------------------------------------------------


def pools_of(ledger: Ledger) -> tuple[str, ...]:
    """The pools of the ledger's rating system, in the system's order."""
    return ledger.pools


def _check_pool(ledger: Ledger, pool: str) -> None:
    known = pools_of(ledger)
    if pool not in known:
        raise NotFound(f"pool {pool}: not a pool of {ledger.system_id} ({', '.join(known)})")


def change_public(change: Change) -> schemas.ChangePublic:
    return schemas.ChangePublic.model_validate(change_to_mapping(change))


def _changes(items: Iterable[Change]) -> list[schemas.ChangePublic]:
    return [change_public(c) for c in items]


def rating_public(row: RatingView | ListEntry, listed: bool) -> schemas.RatingPublic:
    return schemas.RatingPublic(
        player=row.player,
        name=getattr(row, "name", None),
        pool=row.pool,
        rating=format_rating(row.rating),
        display=row.display,
        state=row.state,
        games=row.games,
        listed=listed,
    )


def player_summary(player: Player) -> schemas.PlayerSummaryPublic:
    return schemas.PlayerSummaryPublic(
        id=player.id,
        name=player.name,
        membership_until=player.membership_until,
        bot=player.bot,
        bot_rating=format_rating(player.bot_rating),
        imported={
            pool: schemas.ImportedRatingPublic(rating=f"{i.rating:.2f}", games=i.games)
            for pool, i in sorted(player.imported.items())
        },
    )


def player_public(ledger: Ledger, view: PlayerView) -> schemas.PlayerPublic:
    """The player with a rating in every pool: the ledger's current rating where the
    player has one, else what the system starts the player on (an imported rating)
    when that puts the player on the list."""
    stored = {row.pool: row for row in view.ratings}
    ratings: list[schemas.RatingPublic] = []
    if ledger.info.rates_periods:  # only the lists the periods published
        ratings = [rating_public(row, row.listed) for row in view.ratings]
    else:
        system = ledger.system
        for pool in system.pools:
            row = stored.pop(pool, None)
            if row is not None:
                ratings.append(rating_public(row, row.listed))
                continue
            entry = system.list_entry(view.player, pool, system.initial_state(view.player, pool))
            if entry is not None:
                ratings.append(rating_public(entry, True))
        ratings += [rating_public(row, row.listed) for row in stored.values()]
    return schemas.PlayerPublic(**player_summary(view.player).model_dump(), ratings=ratings)


# -- players ----------------------------------------------------------------------------


def create_player(ledger: Ledger, body: Mapping[str, Any], now: datetime) -> schemas.PlayerPublic:
    where = f"player {body['id']}" if isinstance(body.get("id"), str) else "player"
    player = Player.from_mapping(body, where)
    return player_public(ledger, ledger.create_player(player, now))


def update_player(
    ledger: Ledger, player_id: str, body: Mapping[str, Any], now: datetime
) -> schemas.PlayerPublic:
    if "id" in body and body["id"] != player_id:
        raise InvalidRecord(f"player {player_id}", "id", "a player's id cannot be changed")
    fields = {k: v for k, v in body.items() if k != "id"}
    return player_public(ledger, ledger.update_player(player_id, fields, now))


def get_player(ledger: Ledger, player_id: str) -> schemas.PlayerPublic:
    return player_public(ledger, ledger.get_player(player_id))


def search_players(ledger: Ledger, q: str, limit: int) -> schemas.PlayersPublic:
    found = ledger.search_players(q, limit)
    return schemas.PlayersPublic(players=[player_summary(p) for p in found], count=len(found))


# -- games ------------------------------------------------------------------------------


def _refuse_periods(ledger: Ledger) -> None:
    if ledger.info.rates_periods:
        raise InvalidInput(
            f"a {ledger.system_id} ledger rates tournaments per rating period, not single "
            "games: upload TRF files to a period (POST /api/v1/fide/periods/{id}/files)"
        )


def game_public(view: GameView) -> schemas.GamePublic:
    record = view.record.to_mapping()
    explanation = [view.reason]
    for c in view.changes:
        before = format_rating(c.before) or c.state_before
        after = format_rating(c.after) or c.state_after
        note = f": {c.note}" if c.note else ""
        explanation.append(f"{c.player} {c.pool}: {before} → {after} ({c.rule}{note})")
    if view.annulled:
        explanation.append("annulled: the game counts for nothing (site S10)")
    return schemas.GamePublic(
        id=view.id,
        seq=view.seq,
        played_at=str(record["played_at"]),
        white=view.record.white,
        black=view.record.black,
        result=view.record.result.value,
        rated=view.record.rated,
        time_control=None if view.record.time_control is None else str(record["time_control"]),
        termination=view.record.termination.value,
        plies=view.record.plies,
        venue=view.record.venue.value,
        confirmed=view.record.confirmed,
        outcome=view.outcome,  # type: ignore[arg-type]  # the ledger's Outcome values
        reason=view.reason,
        annulled=view.annulled,
        submitted_at=view.submitted_at,
        changes=_changes(view.changes),
        explanation=explanation,
    )


def _where(body: Mapping[str, Any]) -> str:
    game_id = body.get("id")
    return f"game {game_id.strip()}" if isinstance(game_id, str) and game_id.strip() else "game"


def game_record(ledger: Ledger, body: Mapping[str, Any]) -> GameRecord:
    """A submitted game's record, validated (InvalidRecord names the game and field)."""
    _refuse_periods(ledger)
    return GameRecord.from_mapping(body, _where(body))


def submit_game(
    ledger: Ledger, body: Mapping[str, Any], now: datetime
) -> tuple[schemas.GamePublic, bool]:
    """Rate and store one game; ``created`` is False when the same game was stored
    before (the stored answer is returned, nothing changes)."""
    view, created = ledger.submit_game(game_record(ledger, body), now)
    return game_public(view), created


async def submit_game_grouped(
    committer: GroupCommitter, body: Mapping[str, Any], now: datetime
) -> tuple[schemas.GamePublic, bool]:
    """:func:`submit_game` through the worker's group committer: the game is rated and
    committed with the games that arrived with it, and answered after that commit."""
    record = game_record(committer.ledger, body)
    view, created = await committer.submit(record, now)
    return game_public(view), created


def parse_batch(content: str) -> list[tuple[int, GameRecord]]:
    """JSON Lines: one game record per line; blank lines are skipped. Errors name
    ``batch:LINE``, the field and the reason."""
    records: list[tuple[int, GameRecord]] = []
    for number, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{BATCH}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise InvalidRecord(
                where, "line", f"malformed JSON: {error.msg} (column {error.colno})"
            ) from None
        if not isinstance(data, dict):
            raise InvalidRecord(where, "line", "must be a JSON object (one game record per line)")
        records.append((number, GameRecord.from_mapping(data, where)))
    if not records:
        raise InvalidRecord(BATCH, "body", "no game records (one JSON object per line)")
    return records


def submit_batch(ledger: Ledger, content: bytes, now: datetime) -> schemas.BatchPublic:
    """Rate and store a batch (JSON Lines, UTF-8) in one transaction: every game or
    none."""
    _refuse_periods(ledger)
    try:
        decoded = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidRecord(BATCH, "body", f"not UTF-8 text: {error.reason}") from None
    numbered = parse_batch(decoded)
    results = ledger.submit_games([record for _, record in numbered], now)
    items = [
        schemas.BatchItemPublic(
            line=number,
            id=view.id,
            seq=view.seq,
            outcome=view.outcome,
            reason=view.reason,
            created=created,
        )
        for (number, _), (view, created) in zip(numbered, results, strict=True)
    ]
    created_count = sum(item.created for item in items)
    return schemas.BatchPublic(
        created=created_count, existing=len(items) - created_count, games=items
    )


def get_game(ledger: Ledger, game_id: str) -> schemas.GamePublic:
    return game_public(ledger.get_game(game_id))


def history(ledger: Ledger, player_id: str, pool: str) -> schemas.HistoryPublic:
    _check_pool(ledger, pool)
    found = ledger.history(player_id, pool)
    names = ledger.names_of({player_id} | {item.change.opponent for item in found})
    items = [
        schemas.HistoryItemPublic(
            seq=item.seq,
            kind=item.kind,  # type: ignore[arg-type]  # "game" or "annulment"
            at=item.played_at,
            opponent_name=names.get(item.change.opponent),
            change=change_public(item.change),
        )
        for item in found
    ]
    return schemas.HistoryPublic(
        player=player_id, name=names.get(player_id), pool=pool, items=items
    )


# -- leaderboards -----------------------------------------------------------------------


def leaderboard(
    ledger: Ledger,
    pool: str,
    offset: int,
    limit: int,
    everyone: bool = False,
    active_days: int | None = None,
) -> schemas.LeaderboardPublic:
    """A pool's list: its established players (the system's rule; ``active_days`` for
    ``site``), or ``everyone`` listed; paged, with the total and who is listed."""
    rule = ledger.established_rule(pool, active_days)
    established_only = rule is not None and not everyone
    played = ledger.ledger_date()
    rows, total = ledger.leaderboard(
        pool, offset, limit, established_only=established_only, active_days=active_days
    )
    words = ledger.system.state_words if ledger.info.rates_games else (lambda s, _g: s)
    entries = [
        schemas.LeaderboardEntryPublic(
            rank=offset + n,
            state_words=words(row.state, row.games),
            **rating_public(row, row.listed).model_dump(),
        )
        for n, row in enumerate(rows, start=1)
    ]
    day = None if played is None else played.astimezone(UTC).date()
    active = rule is not None and rule.active_days is not None
    if rule is None:
        listed = "Every player on the period's published list"
    elif established_only:
        listed = rule.describe(day)
    else:
        listed = "Everyone with a rating in the pool, established or not"
    return schemas.LeaderboardPublic(
        system=ledger.system_id,
        pool=pool,
        offset=offset,
        limit=limit,
        total=total,
        established_only=established_only,
        listed=listed,
        ledger_date=day,
        active_days=active_days if active else None,
        active_since=rule.since(day) if rule is not None and active else None,
        entries=entries,
    )


def leaderboard_rank(
    ledger: Ledger,
    pool: str,
    player_id: str,
    limit: int,
    everyone: bool = False,
    active_days: int | None = None,
) -> schemas.LeaderboardRankPublic:
    """Where a player stands on a pool's list (the one :func:`leaderboard` gives with
    the same ``everyone``), and the offset of the page of ``limit`` that shows them;
    NotFound says why a player is not on it."""
    established_only = not everyone and ledger.established_rule(pool, active_days) is not None
    rank, total = ledger.board_rank(
        pool, player_id, established_only=established_only, active_days=active_days
    )
    page = (rank - 1) // limit
    return schemas.LeaderboardRankPublic(
        system=ledger.system_id,
        pool=pool,
        player=player_id,
        name=ledger.names_of([player_id]).get(player_id),
        rank=rank,
        total=total,
        established_only=established_only,
        offset=page * limit,
        limit=limit,
        page=page + 1,
    )


def leaderboards(ledger: Ledger, active_days: int | None = None) -> schemas.LeaderboardsPublic:
    """Each pool with the number of its established players and of everyone listed."""
    pools = []
    for pool in pools_of(ledger):
        everyone = ledger.leaderboard(pool, 0, 0)[1]
        established = everyone
        if ledger.established_rule(pool, active_days) is not None:
            established = ledger.leaderboard(
                pool, 0, 0, established_only=True, active_days=active_days
            )[1]
        pools.append(
            schemas.PoolPublic(
                pool=pool, total=established, established=established, everyone=everyone
            )
        )
    return schemas.LeaderboardsPublic(system=ledger.system_id, pools=pools)


# -- preview ----------------------------------------------------------------------------

PREVIEW = "preview"


def preview(ledger: Ledger, fields: Mapping[str, Any], now: datetime) -> schemas.PreviewPublic:
    """What a win, a draw or a loss (for White) would do now; stores nothing."""
    _refuse_periods(ledger)
    data = {k: v for k, v in fields.items() if v is not None}
    if "result" in data:
        raise InvalidRecord(PREVIEW, "result", "a preview shows every result: leave it out")
    data.setdefault("id", PREVIEW)
    data.setdefault("played_at", now.isoformat())
    data["result"] = "1-0"  # replaced by each result in turn
    record = GameRecord.from_mapping(data, PREVIEW)
    outcomes: dict[str, GameRating[Any]] = ledger.preview(record)
    return schemas.PreviewPublic(
        white=record.white,
        black=record.black,
        results={
            result: schemas.PreviewOutcomePublic(
                result=result,
                outcome=rating.outcome.value,
                reason=rating.reason,
                changes=_changes(rating.changes),
            )
            for result, rating in outcomes.items()
        },
    )


# -- annulments -------------------------------------------------------------------------


def _token_label(ledger: Ledger, token: str) -> str | None:
    """The label given to a token when it was created."""
    return ledger.token_label(token)


def annulment_public(view: AnnulmentView) -> schemas.AnnulmentPublic:
    return schemas.AnnulmentPublic(
        game=view.game_id,
        seq=view.seq,
        at=view.at,
        by=view.by,
        reason=view.reason,
        changes=_changes(view.changes),
    )


def annul(
    ledger: Ledger, game_id: str, reason: str, caller: Caller, now: datetime
) -> schemas.AnnulmentPublic:
    """site S10: reverse a rated game; the moderator's token label is kept as ``by``."""
    reason = reason.strip()
    if not reason:
        raise InvalidRecord(f"game {game_id}", "reason", "is required")
    by = _token_label(ledger, caller.token) or caller.role
    return annulment_public(ledger.annul(game_id, reason, by, now))


def annulments(ledger: Ledger) -> schemas.AnnulmentsPublic:
    return schemas.AnnulmentsPublic(annulments=[annulment_public(a) for a in ledger.annulments()])


# -- fide rating periods ----------------------------------------------------------------


def periods_of(ledger: Ledger) -> Periods:
    """The ledger's rating periods; a ledger of another system has none (404)."""
    if not ledger.info.rates_periods:
        raise NotFound(
            f"rating periods belong to a fide ledger; this ledger rates by {ledger.system_id}"
        )
    return Periods(ledger)


def period_public(view: PeriodView) -> schemas.PeriodPublic:
    return schemas.PeriodPublic(
        id=view.id,
        name=view.name,
        bonus=str(view.bonus),
        floor=view.floor,
        created_at=view.created_at,
        closed_at=view.closed_at,
        closed=view.closed_at is not None,
        files=list(view.files),
    )


def create_period(
    ledger: Ledger, body: schemas.PeriodCreate, now: datetime
) -> schemas.PeriodPublic:
    periods = periods_of(ledger)
    view = periods.create(body.name, body.start_list, now, bonus=body.bonus, floor=body.floor)
    return period_public(view)


def decode_text(data: bytes) -> str:
    """A text upload: UTF-8, else latin-1 (as the TRF reader reads files)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def add_period_file(
    ledger: Ledger, period_id: int, name: str, content: str, round_robin: bool | None
) -> schemas.PeriodPublic:
    periods = periods_of(ledger)
    if not content.strip():
        raise InvalidRecord(name, "body", "the TRF file is empty")
    tournament = parse_trf(content, name)
    if round_robin is None and tournament.is_round_robin is None:
        raise InvalidRecord(
            name,
            "round_robin",
            f"the file (092 {tournament.kind!r}) does not say whether it is a round robin "
            "or a Swiss: pass round_robin=true or round_robin=false",
        )
    return period_public(periods.add_file(period_id, name, content, round_robin))


def close_period(ledger: Ledger, period_id: int, now: datetime) -> schemas.PeriodPublic:
    return period_public(periods_of(ledger).close(period_id, now))


def list_periods(ledger: Ledger) -> schemas.PeriodsPublic:
    return schemas.PeriodsPublic(periods=[period_public(p) for p in periods_of(ledger).all()])


def get_period(ledger: Ledger, period_id: int) -> schemas.PeriodPublic:
    return period_public(periods_of(ledger).get(period_id))


def _entry_public(entry: PeriodEntry) -> schemas.PeriodEntryPublic:
    return schemas.PeriodEntryPublic(
        position=entry.position,
        player=entry.player,
        name=entry.name,
        old_rating=entry.old_rating,
        new_rating=entry.new_rating,
        games=entry.games,
    )


def period_list(ledger: Ledger, period_id: int) -> schemas.PeriodListPublic:
    entries = periods_of(ledger).new_list(period_id)
    return schemas.PeriodListPublic(period=period_id, entries=[_entry_public(e) for e in entries])


def period_report(ledger: Ledger, period_id: int, player_id: str) -> schemas.FideReportPublic:
    return schemas.FideReportPublic.model_validate(periods_of(ledger).report(period_id, player_id))


# -- health -----------------------------------------------------------------------------


def health(ledger: Ledger) -> schemas.HealthPublic:
    """The database answers and holds a ledger (:class:`~chessrate.errors.LedgerUnavailable`
    otherwise: 503)."""
    return schemas.HealthPublic(status="ok", system=ledger.ping())


# -- live games (site S7-S9) ------------------------------------------------------------

LIVE_FIELDS = (
    "id", "white", "black", "rated", "time_control", "venue", "bot", "result", "by",
    "played_at",
)  # fmt: skip


def live_public(view: LiveView) -> schemas.LiveGamePublic:
    game = view.game
    upcoming = view.deadline
    ended = view.status is LiveStatus.ENDED
    return schemas.LiveGamePublic(
        id=game.id,
        white=game.white,
        black=game.black,
        rated=game.rated,
        time_control=None if game.time_control is None else str(game.time_control),
        venue=game.venue.value,
        bot=None if game.bot is None else game.bot.value,
        status=view.status.value,
        opened_at=game.opened_at,
        plies=game.ply_count,
        to_move=game.to_move.value if view.status is LiveStatus.OPEN else None,
        moves=[schemas.PlyPublic(ply=p.number, at=p.at, move=p.move) for p in game.plies],
        deadline=None
        if upcoming is None
        else schemas.DeadlinePublic(
            at=upcoming.at,
            kind=upcoming.kind.value,
            side=upcoming.side.value,
            player=game.player(upcoming.side),
            rule=upcoming.rule,
            note=upcoming.note,
        ),
        result=None if view.result is None else view.result.value,
        termination=None if view.termination is None else view.termination.value,
        played_at=view.played_at,
        registered_by=view.registered_by,
        ended_at=view.ended_at,
        ended_by=view.ended_by,
        ending=view.ending,
        outcome=view.outcome,  # type: ignore[arg-type]  # the ledger's Outcome values
        game=f"{API_V1}/games/{quote(game.id, safe='')}" if ended else None,
    )  # fmt: skip


def open_live_game(
    ledger: Ledger, body: Mapping[str, Any], now: datetime
) -> tuple[schemas.LiveGamePublic, bool]:
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
    view, created = LiveGames(ledger).open(game, now, otb)
    return live_public(view), created


def live_move(
    ledger: Ledger, game_id: str, body: schemas.LiveMoveCreate, now: datetime
) -> schemas.LiveGamePublic:
    return live_public(LiveGames(ledger).move(game_id, body.ply, body.move, body.by, now))


def finish_live_game(
    ledger: Ledger, game_id: str, body: schemas.LiveFinish, now: datetime
) -> schemas.LiveGamePublic:
    view = LiveGames(ledger).finish(
        game_id, Result(body.result), Termination(body.termination), body.by, now
    )
    return live_public(view)


def abort_live_game(
    ledger: Ledger, game_id: str, body: schemas.LiveBy, now: datetime
) -> schemas.LiveGamePublic:
    return live_public(LiveGames(ledger).abort(game_id, body.by, now))


def confirm_live_game(
    ledger: Ledger, game_id: str, body: schemas.LiveBy, now: datetime
) -> schemas.LiveGamePublic:
    return live_public(LiveGames(ledger).confirm(game_id, body.by, now))


def dispute_live_game(
    ledger: Ledger, game_id: str, body: schemas.LiveDispute, now: datetime
) -> schemas.LiveGamePublic:
    return live_public(LiveGames(ledger).dispute(game_id, body.by, body.reason, now))


def get_live_game(ledger: Ledger, game_id: str) -> schemas.LiveGamePublic:
    return live_public(LiveGames(ledger).get(game_id))


def list_live_games(
    ledger: Ledger, status: str | None, player: str | None, limit: int
) -> schemas.LiveGamesPublic:
    wanted = None
    if status is not None:
        try:
            wanted = LiveStatus(status)
        except ValueError:
            known = ", ".join(s.value for s in LiveStatus)
            raise InvalidRecord("query", "status", f"{status!r} is not one of {known}") from None
    views = LiveGames(ledger).list(wanted, player, limit)
    return schemas.LiveGamesPublic(games=[live_public(v) for v in views], count=len(views))


def sweep(ledger: Ledger, now: datetime) -> schemas.SweepPublic:
    """Apply the deadlines that have passed at ``now`` (S7-S9)."""
    report = LiveGames(ledger).sweep(now)
    return schemas.SweepPublic(
        ended=[live_public(v) for v in report.ended], failed=dict(report.failed)
    )
