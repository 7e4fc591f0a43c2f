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
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from ..errors import InvalidInput, InvalidRecord, NotFound
from ..io.fide import player_key
from ..io.lists import csv_text
from ..io.trf import TrfRound, parse_trf
from ..ledger import AnnulmentView, GameView, Ledger, PlayerView, RatingView
from ..ledger.codec import change_to_mapping
from ..ledger.live import LiveView, OtbRegistration
from ..ledger.periods import PeriodEntry, Periods, PeriodView
from ..ledger.seeks import Seeks, SeekStatus, SeekView
from ..ledger.views import ChartSeries
from ..numbers import HALF, ONE, display, format_rating
from ..records import (
    FieldReader,
    GameRecord,
    Player,
    Result,
    Termination,
    Venue,
    strict_json,
)
from ..systems.base import Change, GameRating, ListEntry
from ..systems.site import site_mark
from ..systems.site_live import LiveGame, LiveStatus, Side
from ..systems.site_pairing import PairingRules, window
from ..timecontrol import as_players_write, parse_time_control
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
    return player_public(ledger, ledger.players.create(player, now))


def update_player(
    ledger: Ledger, player_id: str, body: Mapping[str, Any], now: datetime
) -> schemas.PlayerPublic:
    if "id" in body and body["id"] != player_id:
        raise InvalidRecord(f"player {player_id}", "id", "a player's id cannot be changed")
    fields = {k: v for k, v in body.items() if k != "id"}
    return player_public(ledger, ledger.players.update(player_id, fields, now))


def get_player(ledger: Ledger, player_id: str) -> schemas.PlayerPublic:
    return player_public(ledger, ledger.players.get(player_id))


def search_players(ledger: Ledger, q: str, limit: int, offset: int = 0) -> schemas.PlayersPublic:
    """The players whose id or name contains ``q`` (folded: case and accents), at most
    ``limit`` from ``offset``, each with its current ratings; ``truncated`` when more
    match after them."""
    found = ledger.players.search(q, limit + 1, offset)
    shown = found[:limit]
    ratings = ledger.players.ratings_of(p.id for p in shown)
    players = [
        schemas.PlayerPublic(
            **player_summary(p).model_dump(),
            ratings=[rating_public(r, r.listed) for r in ratings.get(p.id, [])],
        )
        for p in shown
    ]
    return schemas.PlayersPublic(players=players, count=len(players), truncated=len(found) > limit)


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
    if view.annulment is not None:
        by = f" by {view.annulment.by}" if view.annulment.by else ""
        explanation.append(
            f"annulled{by} ({view.annulment.reason}): the game counts for nothing (site S10)"
        )
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
        annulment=None
        if view.annulment is None
        else schemas.AnnulmentNotePublic(
            at=view.annulment.at, by=view.annulment.by, reason=view.annulment.reason
        ),
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
    view, created = ledger.games.submit(game_record(ledger, body), now)
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
    for number, line in enumerate(content.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{BATCH}:{number}"
        try:
            data = strict_json(line)
        except json.JSONDecodeError as error:
            raise InvalidRecord(
                where, "line", f"malformed JSON: {error.msg} (column {error.colno})"
            ) from None
        except ValueError as error:
            raise InvalidRecord(where, "line", f"malformed JSON: {error}") from None
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
    results = ledger.games.submit_many([record for _, record in numbered], now)
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
    return game_public(ledger.games.get(game_id))


def history(
    ledger: Ledger,
    player_id: str,
    pool: str,
    offset: int = 0,
    limit: int = schemas.LIST_PAGE_MAX,
) -> schemas.HistoryPublic:
    """A page of the changes of a player's rating in a pool, oldest first."""
    _check_pool(ledger, pool)
    found, total = ledger.players.history_page(player_id, pool, offset, limit)
    names = ledger.players.names({player_id} | {item.change.opponent for item in found})
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
        player=player_id, name=names.get(player_id), pool=pool, items=items,
        total=total, offset=offset, limit=limit,
    )  # fmt: skip


GAMES_PAGE_MAX = 200
"""The most games one request of a player's games list answers."""
SCORE_TEXT = {ONE: "1", HALF: "1/2", Decimal(0): "0"}


def player_games(
    ledger: Ledger, player_id: str, offset: int, limit: int
) -> schemas.PlayerGamesPublic:
    """A page of the player's games, newest first: every game (rated, unrated, void,
    annulled) with the player's changes at it."""
    found, total = ledger.people.games(player_id, offset, limit)
    name = ledger.players.names([player_id]).get(player_id)
    items = [
        schemas.PlayerGamePublic(
            id=g.record.id,
            seq=g.seq,
            played_at=g.record.played_at,
            colour=g.colour,  # type: ignore[arg-type]  # "white" or "black"
            opponent=g.opponent,
            opponent_name=g.opponent_name,
            opponent_rating=format_rating(g.opponent_rating),
            result=g.record.result.value,
            score=None if g.score is None else SCORE_TEXT[g.score],  # type: ignore[arg-type]
            rated=g.record.rated,
            time_control=None if g.record.time_control is None else str(g.record.time_control),
            time_control_written=as_players_write(g.record.time_control),
            outcome=g.outcome,  # type: ignore[arg-type]  # the ledger's Outcome values
            annulled=g.annulled,
            annulment_reason=g.annulment,
            changes=_changes(g.changes),
        )
        for g in found
    ]
    return schemas.PlayerGamesPublic(
        player=player_id, name=name, total=total, offset=offset, limit=limit, games=items
    )


def player_stats(ledger: Ledger, player_id: str) -> schemas.PlayerStatsPublic:
    """The player's record in every pool with a rating or a change: the state in words
    (the system's ``standing``; a ledger that rates periods: the state's name), first
    rating, peak, wins/draws/losses, rank on the list."""
    view = ledger.players.get(player_id)
    current = {r.pool: r for r in player_public(ledger, view).ratings}
    summaries = {s.pool: s for s in ledger.people.pool_summaries(player_id)}
    periods = ledger.info.rates_periods

    def standing(pool: str, state: str, games: int) -> str:
        return state if periods else ledger.system.standing(state, games, view.player)

    pools = []
    for pool in [*ledger.pools, *(p for p in current if p not in ledger.pools)]:
        rating, summary = current.get(pool), summaries.get(pool)
        if rating is None and summary is None:
            continue
        state, games = (rating.state, rating.games) if rating else ("unrated", 0)
        pools.append(
            schemas.PoolStatsPublic(
                pool=pool,
                display=rating.display if rating else None,
                standing=standing(pool, state, games),
                first_rating=format_rating(summary.first_rating) if summary else None,
                peak=format_rating(summary.peak) if summary else None,
                peak_at=summary.peak_at if summary else None,
                peak_game=summary.peak_game if summary else None,
                wins=summary.wins if summary else 0,
                draws=summary.draws if summary else 0,
                losses=summary.losses if summary else 0,
                rank=summary.rank if summary else None,
            )
        )
    bot = standing("", "", 0) if view.player.bot and not periods else None
    return schemas.PlayerStatsPublic(
        player=player_id, name=view.player.name, standing=bot, pools=pools
    )


def chart_series(ledger: Ledger, player_id: str, pool: str, days: int | None) -> ChartSeries:
    """The player's rating chart in ``pool`` over the last ``days`` (None: all),
    bucketed to at most ~500 points (the ledger's :meth:`~Ledger.chart_series`)."""
    _check_pool(ledger, pool)
    return ledger.people.chart_series(player_id, pool, days)


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
    rule = ledger.boards.established_rule(pool, active_days)
    established_only = rule is not None and not everyone
    played = ledger.boards.ledger_date()
    rows, total = ledger.boards.leaderboard(
        pool, offset, limit, established_only=established_only, active_days=active_days
    )
    words = ledger.system.standing if ledger.info.rates_games else (lambda s, _g: s)
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
    established_only = (
        not everyone and ledger.boards.established_rule(pool, active_days) is not None
    )
    rank, total = ledger.boards.rank(
        pool, player_id, established_only=established_only, active_days=active_days
    )
    page = (rank - 1) // limit
    return schemas.LeaderboardRankPublic(
        system=ledger.system_id,
        pool=pool,
        player=player_id,
        name=ledger.players.names([player_id]).get(player_id),
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
        everyone = ledger.boards.leaderboard(pool, 0, 0)[1]
        established = everyone
        if ledger.boards.established_rule(pool, active_days) is not None:
            established = ledger.boards.leaderboard(
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
    outcomes: dict[str, GameRating[Any]] = ledger.games.preview(record)
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
    return ledger.tokens.label(token)


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
    return annulment_public(ledger.annulments.annul(game_id, reason, by, now))


def annulments(
    ledger: Ledger, offset: int = 0, limit: int = schemas.LIST_PAGE_MAX
) -> schemas.AnnulmentsPublic:
    """A page of the annulments, oldest first."""
    found = [annulment_public(a) for a in ledger.annulments.list(offset, limit)]
    return schemas.AnnulmentsPublic(
        annulments=found, total=ledger.annulments.count(), offset=offset, limit=limit
    )


# -- fide rating periods ----------------------------------------------------------------


def periods_of(ledger: Ledger) -> Periods:
    """The ledger's rating periods; a ledger of another system has none (404)."""
    if not ledger.info.rates_periods:
        raise NotFound(
            f"rating periods belong to a fide ledger; this ledger rates by {ledger.system_id}"
        )
    return ledger.periods


def period_public(view: PeriodView) -> schemas.PeriodPublic:
    return schemas.PeriodPublic(
        id=view.id,
        name=view.name,
        rules=view.rules,
        list_date=view.list_date,
        bonus=str(view.bonus),
        floor=view.floor,
        created_at=view.created_at,
        closed_at=view.closed_at,
        closed=view.closed_at is not None,
        files=list(view.files),
        warnings=list(view.warnings),
    )


def create_period(
    ledger: Ledger, body: schemas.PeriodCreate, now: datetime
) -> schemas.PeriodPublic:
    periods = periods_of(ledger)
    view = periods.create(
        body.name, body.start_list, now, bonus=body.bonus, floor=body.floor, rules=body.rules,
        list_date=body.list_date,
    )  # fmt: skip
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


def list_periods(
    ledger: Ledger, offset: int = 0, limit: int = schemas.LIST_PAGE_MAX
) -> schemas.PeriodsPublic:
    """A page of the rating periods, oldest first."""
    periods = periods_of(ledger)
    found = [period_public(p) for p in periods.all(offset, limit)]
    return schemas.PeriodsPublic(periods=found, total=periods.count(), offset=offset, limit=limit)


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
        change=format_rating(entry.change),
        k=entry.k,
        period_games=entry.period_games,
    )


def period_list(
    ledger: Ledger, period_id: int, offset: int = 0, limit: int = schemas.LIST_PAGE_MAX
) -> schemas.PeriodListPublic:
    """A page of the closed period's new list, by position (409 while it is open)."""
    periods = periods_of(ledger)
    entries = [_entry_public(e) for e in periods.new_list(period_id, offset, limit)]
    return schemas.PeriodListPublic(
        period=period_id, entries=entries, total=periods.list_size(period_id),
        offset=offset, limit=limit,
    )  # fmt: skip


PERIOD_LIST_COLUMNS = ("position", "id", "name", "old_rating", "new_rating", "change", "k", "games")
"""The new list as CSV; ``games``: the rated games the period counted (FIDE's "Gms")."""


def period_list_csv(ledger: Ledger, period_id: int) -> tuple[str, str]:
    """The closed period's new list as CSV (:data:`PERIOD_LIST_COLUMNS`, the values of
    :func:`period_list`): its file name and its text."""
    rows = [
        {**e.model_dump(), "id": e.player, "games": e.period_games}
        for e in period_list(ledger, period_id).entries
    ]
    return f"fide-period-{period_id}-list.csv", csv_text(PERIOD_LIST_COLUMNS, rows)


def _report_path(period_id: int, player_id: str, api: bool) -> str:
    path = f"/periods/{period_id}/reports/{quote(player_id, safe='')}"
    return f"{API_V1}/fide{path}" if api else path


def period_report(ledger: Ledger, period_id: int, player_id: str) -> schemas.FideReportPublic:
    """The player's report; each game line carries its opponent's ``opponent_name``."""
    periods = periods_of(ledger)
    report = periods.report(period_id, player_id)
    names = periods.names(period_id)
    for line in report.get("games", ()):
        line["opponent_name"] = names.get(line.get("opponent", ""))
    return schemas.FideReportPublic.model_validate(report)


# The TRF codes in words, and as players read a crosstable's cell.
_CODE_NOTES = {
    "+": "forfeit win", "-": "forfeit loss", "w": "win, less than one move: not rated",
    "d": "draw, less than one move: not rated", "l": "loss, less than one move: not rated",
    "h": "half-point bye", "f": "full-point bye", "u": "pairing-allocated bye",
    "z": "zero-point bye",
}  # fmt: skip
_READ_AS = {"1": "1", "w": "1", "f": "1", "u": "1", "=": "½", "d": "½", "h": "½", "0": "0",
            "l": "0", "z": "0", "+": "+", "-": "-", " ": ""}  # fmt: skip


def _cell_public(entry: TrfRound) -> schemas.CrosstableCellPublic:
    result = _READ_AS[entry.code]
    if entry.opponent is not None:
        colour = "" if entry.colour == "-" else entry.colour
        text = f"{entry.opponent}{colour} {result}".strip()
    elif entry.code in "hfuz":
        text = f"bye {result}"
    else:
        text = result
    points = entry.score
    return schemas.CrosstableCellPublic(
        round=entry.round,
        opponent=entry.opponent,
        colour=entry.colour,  # type: ignore[arg-type]  # the reader's "w", "b" or "-"
        code=entry.code,
        result=result,
        points=None if points is None else str(points),
        text=text,
        note=_CODE_NOTES.get(entry.code, ""),
    )


def _points_text(points: Decimal) -> str:
    return f"{points:.1f}"


def period_crosstable(ledger: Ledger, period_id: int, number: int) -> schemas.CrosstablePublic:
    """A period's ``number``-th tournament (1-based, upload order) as a crosstable, read
    from its stored TRF file; each row links to the player's report in the period."""
    periods = periods_of(ledger)
    stored = periods.file(period_id, number)
    tournament = parse_trf(stored.content, stored.name)
    in_results = periods.names(period_id)
    rows = []
    for player in sorted(tournament.players, key=lambda p: p.start_rank):
        key = player_key(player)
        total = player.points
        if total is None:
            total = sum((r.score for r in player.rounds if r.score is not None), Decimal(0))
        rows.append(
            schemas.CrosstableRowPublic(
                start_rank=player.start_rank,
                rank=player.rank,
                player=key,
                name=player.name,
                title=player.title,
                federation=player.federation,
                rating=player.rating,
                points=_points_text(total),
                report=_report_path(period_id, key, api=True) if key in in_results else None,
                rounds=[_cell_public(r) for r in player.rounds],
            )
        )
    return schemas.CrosstablePublic(
        period=period_id,
        number=number,
        file=stored.name,
        name=tournament.name or stored.name,
        city=tournament.city,
        federation=tournament.federation,
        start=tournament.start,
        end=tournament.end,
        kind=tournament.kind,
        round_robin=tournament.is_round_robin if stored.round_robin is None else stored.round_robin,
        rounds=max((len(p.rounds) for p in tournament.players), default=0),
        players=rows,
    )


def player_periods(
    ledger: Ledger, player_id: str, offset: int = 0, limit: int = schemas.LIST_PAGE_MAX
) -> schemas.PlayerPeriodsPublic:
    """A fide player's rating by period: the closed periods the player is in, oldest
    first, a page of them (404 for an unknown player; a player without a period has an
    empty list). The name is the latest period's."""
    every = periods_of(ledger).of_player(player_id)  # one row per period: a few hundred
    name = every[-1].entry.name if every else ledger.players.get(player_id).player.name
    found = every[offset : offset + limit]
    return schemas.PlayerPeriodsPublic(
        total=len(every),
        offset=offset,
        limit=limit,
        player=player_id,
        name=name,
        periods=[
            schemas.PlayerPeriodPublic(
                period=p.period_id,
                period_name=p.period_name,
                closed_at=p.closed_at,
                position=p.entry.position,
                old_rating=p.entry.old_rating,
                new_rating=p.entry.new_rating,
                change=format_rating(p.entry.change),
                k=p.entry.k,
                games=p.entry.games,
                period_games=p.entry.period_games,
                report=_report_path(p.period_id, player_id, api=True),
                report_page=_report_path(p.period_id, player_id, api=False),
            )
            for p in found
        ],
    )


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
    view, created = ledger.live.open(game, now, otb)
    return live_public(view), created


def live_move(
    ledger: Ledger, game_id: str, body: schemas.LiveMoveCreate, now: datetime
) -> schemas.LiveGamePublic:
    return live_public(ledger.live.move(game_id, body.ply, body.move, body.by, now))


def finish_live_game(
    ledger: Ledger, game_id: str, body: schemas.LiveFinish, now: datetime
) -> schemas.LiveGamePublic:
    view = ledger.live.finish(
        game_id, Result(body.result), Termination(body.termination), body.by, now
    )
    return live_public(view)


def abort_live_game(
    ledger: Ledger, game_id: str, body: schemas.LiveBy, now: datetime
) -> schemas.LiveGamePublic:
    return live_public(ledger.live.abort(game_id, body.by, now))


def confirm_live_game(
    ledger: Ledger, game_id: str, body: schemas.LiveBy, now: datetime
) -> schemas.LiveGamePublic:
    return live_public(ledger.live.confirm(game_id, body.by, now))


def dispute_live_game(
    ledger: Ledger, game_id: str, body: schemas.LiveDispute, now: datetime
) -> schemas.LiveGamePublic:
    return live_public(ledger.live.dispute(game_id, body.by, body.reason, now))


def get_live_game(ledger: Ledger, game_id: str) -> schemas.LiveGamePublic:
    return live_public(ledger.live.get(game_id))


def list_live_games(
    ledger: Ledger, status: str | None, player: str | None, limit: int, offset: int = 0
) -> schemas.LiveGamesPublic:
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
    return schemas.LiveGamesPublic(
        games=[live_public(v) for v in views], count=len(views),
        total=live.count(wanted, player), offset=offset, limit=limit,
    )  # fmt: skip


def sweep(ledger: Ledger, now: datetime) -> schemas.SweepPublic:
    """Apply the deadlines that have passed at ``now`` (S7-S9)."""
    report = ledger.live.sweep(now)
    return schemas.SweepPublic(
        ended=[live_public(v) for v in report.ended], failed=dict(report.failed)
    )


# -- seeks and pairing (issue 16) -------------------------------------------------------

SEEK_FIELDS = ("player", "time_control", "rated", "min_rating", "max_rating", "bot")
SEEK_RATING_MOST = 5000
"""The largest site Elo a seek's range names (a larger one is a 422)."""


def seek_public(view: SeekView, now: datetime, rules: PairingRules) -> schemas.SeekPublic:
    is_open = view.status is SeekStatus.OPEN
    until = now if is_open else (view.paired_at or view.closed_at or now)
    waited = max(0, int((until - view.created_at).total_seconds()))
    live = view.live_game_id
    return schemas.SeekPublic(
        id=view.id,
        player=view.player,
        time_control=str(view.time_control),
        rated=view.rated,
        min_rating=view.min_rating,
        max_rating=view.max_rating,
        bot=view.bot,
        status=view.status.value,
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
    )


def create_seek(
    ledger: Ledger, body: Mapping[str, Any], now: datetime, rules: PairingRules
) -> schemas.SeekPublic:
    """Open a seek, or (``bot: true``) play the closest bot at once."""
    fields = FieldReader(body, "seek")
    fields.reject_unknown(SEEK_FIELDS)
    player = fields.ident("player")
    control_text = fields.text("time_control", required=True)
    assert control_text is not None
    try:
        control = parse_time_control(control_text)
    except ValueError as error:
        raise fields.fail("time_control", str(error)) from None
    rated = fields.boolean("rated") is not False
    low = fields.integer("min_rating", 0, SEEK_RATING_MOST)
    high = fields.integer("max_rating", 0, SEEK_RATING_MOST)
    if low is not None and high is not None and low > high:
        raise fields.fail("max_rating", f"{high} is below min_rating {low}")
    seeks = Seeks(ledger, rules)
    if fields.boolean("bot"):
        view, _ = seeks.play_bot(player, control, rated, low, high, now)
    else:
        view = seeks.create(player, control, rated, low, high, now)
    return seek_public(view, now, rules)


def cancel_seek(
    ledger: Ledger, seek_id: int, now: datetime, rules: PairingRules
) -> schemas.SeekPublic:
    return seek_public(Seeks(ledger, rules).cancel(seek_id, now), now, rules)


def get_seek(
    ledger: Ledger, seek_id: int, now: datetime, rules: PairingRules
) -> schemas.SeekPublic:
    return seek_public(Seeks(ledger, rules).get(seek_id, now), now, rules)


def list_seeks(
    ledger: Ledger,
    now: datetime,
    rules: PairingRules,
    player: str | None = None,
    status: str | None = "open",
    offset: int = 0,
    limit: int = 50,
) -> schemas.SeeksPublic:
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
    return schemas.SeeksPublic(
        total=total, offset=offset, limit=limit,
        seeks=[seek_public(v, now, rules) for v in views],
    )  # fmt: skip


def pair(ledger: Ledger, now: datetime, rules: PairingRules) -> schemas.PairPublic:
    """One pairing pass at ``now``."""
    report = Seeks(ledger, rules).pair(now)
    return schemas.PairPublic(
        pairs=[live_public(game) for _, _, game in report.pairs],
        expired=report.expired, failed=dict(report.failed), busy=report.busy,
    )  # fmt: skip
