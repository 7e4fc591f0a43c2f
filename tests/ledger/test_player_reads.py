"""The reads about one player (ledger/people.py), on SQLite and PostgreSQL: the games
list (order, paging, bot games, unrated/void/annulled games present and marked, the
changes at each game), the record per pool (peak, W/D/L, rank, first rating) checked
against values computed here from ``history()`` and the leaderboard, and the chart's
series (the starting point; bucketing keeps each span's min and max, at most 500)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from chessrate.errors import NotFound
from chessrate.ledger import Ledger
from chessrate.ledger.people import MAX_POINTS, bucketed
from chessrate.ledger.views import SeriesPoint
from chessrate.numbers import to_hundredths
from chessrate.records import microseconds
from chessrate.samples import load_sample
from tests.support.busy_player import BUSY, busy_ledger

from .helpers import NOW


def all_games(ledger: Ledger, player_id: str, page: int = 7) -> list:  # type: ignore[type-arg]
    found, offset = [], 0
    while True:
        chunk, total = ledger.people.games(player_id, offset, page)
        found += chunk
        offset += page
        if offset >= total:
            return found


def test_games_list_is_every_game_newest_first_paged(site_sample: str) -> None:
    ledger = Ledger(site_sample)
    every = list(ledger.games.export())
    for player_id in ("zed", "hal", "bot-easy", "quinn"):
        mine = [g for g in every if player_id in (g.white, g.black)]
        found = all_games(ledger, player_id)
        assert [g.record.id for g in found] == [g.id for g in reversed(mine)]
        assert ledger.people.games(player_id, 0, 5)[1] == len(mine)
        assert [g.seq for g in found] == sorted((g.seq for g in found), reverse=True)
        for g in found:
            game = ledger.games.get(g.record.id)
            assert g.colour == ("white" if game.record.white == player_id else "black")
            assert g.opponent == (game.record.black if g.colour == "white" else game.record.white)
            assert g.annulled == game.annulled
            own = tuple(
                c for c in game.changes if c.player == player_id and c.game_id == g.record.id
            )
            # the game's own changes (an annulment's reversing changes are the game
            # page's), in every pool
            assert [c.pool for c in g.changes] == [c.pool for c in own[: len(g.changes)]]
            assert [c.change for c in g.changes] == [c.change for c in own[: len(g.changes)]]
            if g.changes:
                assert g.opponent_rating == g.changes[0].opponent_rating
    assert ledger.people.games("zed", 10_000, 50)[0] == []
    with pytest.raises(NotFound):
        ledger.people.games("nobody")


def test_bot_unrated_void_and_annulled_games_are_listed_and_marked(site_sample: str) -> None:
    ledger = Ledger(site_sample)
    bot = all_games(ledger, "bot-easy")
    assert len(bot) >= 10 and all(not g.changes for g in bot)
    # a bot's games show the opponent's rating before the game (the human's change)
    rated = [g for g in bot if g.outcome == "rated"]
    for g in rated:
        human = ledger.games.get(g.record.id).changes[0]
        assert g.opponent_rating == human.before
    outcomes = Counter(g.outcome for p in ("zed", "quinn", "kai") for g in all_games(ledger, p))
    assert outcomes["rated"] and (outcomes["unrated"] or outcomes["void"])
    zed = all_games(ledger, "zed")
    annulled = [g for g in zed if g.annulled]
    assert {g.record.id for g in annulled} == {"s0154", "s0164"}
    assert all(g.annulment == "engine assistance confirmed by moderation" for g in annulled)
    assert all(g.changes for g in annulled)  # the original changes, marked by the flag


def test_pool_record_matches_the_history_and_the_list(site_sample: str) -> None:
    ledger = Ledger(site_sample)
    for player_id in ("zed", "hal", "kai", "mira", "pavel"):
        summaries = ledger.people.pool_summaries(player_id)
        assert summaries
        for summary in summaries:
            history = ledger.players.history(player_id, summary.pool)
            games = [
                i
                for i in history
                if i.kind == "game" and not ledger.games.get(i.change.game_id).annulled
            ]
            assert summary.first_rating == history[0].change.before
            scores = Counter(i.change.score for i in games)
            assert (summary.wins, summary.draws, summary.losses) == (
                scores[Decimal(1)], scores[Decimal("0.5")], scores[Decimal(0)],
            )  # fmt: skip
            rated = [i for i in games if i.change.after is not None]
            peak = max(rated, key=lambda i: (i.change.after, -i.seq))
            assert summary.peak == peak.change.after
            assert summary.peak_game == peak.change.game_id
            assert summary.peak_at == peak.played_at
            board, _total = ledger.boards.leaderboard(summary.pool, 0, 1000)
            listed = [r.player for r in board]
            expected = listed.index(player_id) + 1 if player_id in listed else None
            assert summary.rank == expected
    assert ledger.people.pool_summaries("bot-easy") == []


def test_rank_for_every_listed_player(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "corr", NOW)
    load_sample(ledger, NOW)
    board, _ = ledger.boards.leaderboard("corr", 0, 1000)
    for place, row in enumerate(board, 1):
        (summary,) = ledger.people.pool_summaries(row.player)
        assert summary.rank == place, row.player


def hundredths(rating: Decimal | None) -> int:
    """A rating that is there, in hundredths."""
    assert rating is not None
    return to_hundredths(rating)


def test_chart_series_starts_at_the_first_before_and_marks_annulments(site_sample: str) -> None:
    ledger = Ledger(site_sample)
    series = ledger.people.chart_series("zed", "site")
    history = ledger.players.history("zed", "site")
    assert series.start is not None
    assert series.start[1] == hundredths(history[0].change.before)
    assert series.start[0] == microseconds(history[0].played_at)
    # few changes: all of them; each annulment right after the game it annuls, at
    # that game's moment and on its point, confirmed at its own moment
    by_seq = sorted(series.points, key=lambda p: p.seq)
    assert [p.seq for p in by_seq] == [i.seq for i in history]
    assert [p.kind for p in by_seq] == [i.kind for i in history]
    assert [p.after for p in by_seq] == [hundredths(i.change.after) for i in history]
    assert series.changes == len(history)
    when = {i.seq: microseconds(i.played_at) for i in history}
    annulled = 0
    for n, point in enumerate(series.points):
        if point.kind == "annulment":
            annulled += 1
            game = series.points[n - 1]
            assert (game.kind, game.game) == ("game", point.game)
            assert point.at == game.at and point.game_after == game.after
            assert point.confirmed == when[point.seq] > game.at
        else:
            assert point.opponent  # the opponent's name
    assert annulled == 2
    moments = [p.at for p in series.points]
    assert moments == sorted(moments)
    # a range: the line starts where the rating was when the range begins
    last = series.last
    assert last is not None
    ranged = ledger.people.chart_series("zed", "site", days=20)
    since = last - 20 * 86_400_000_000
    before = [i for i in history if microseconds(i.played_at) < since and i.kind == "game"]
    assert ranged.start == (since, hundredths(before[-1].change.after))
    assert all(p.at >= since for p in ranged.points)


def points(values: list[int], annulled: tuple[int, ...] = ()) -> list[SeriesPoint]:
    return [
        SeriesPoint(n, n * 1000, v, None, f"g{n}", "annulment" if n in annulled else "game")
        for n, v in enumerate(values)
    ]


def test_bucketing_keeps_each_spans_min_and_max() -> None:
    few = points([5, 3, 9])
    assert bucketed(few) == tuple(few)
    values = [(n * 7919) % 1000 for n in range(5000)]
    many = points(values, annulled=(17, 4000))
    kept = bucketed(many)
    assert len(kept) <= MAX_POINTS
    assert [p.seq for p in kept] == sorted(p.seq for p in kept)
    assert kept[0] == many[0] and kept[-1] == many[-1]
    assert {17, 4000} <= {p.seq for p in kept}
    # every span's lowest and highest are there: the drawn range is the true range
    assert min(p.after for p in kept) == min(values)
    assert max(p.after for p in kept) == max(values)
    spans = (MAX_POINTS - 2 * 2 - 2) // 2  # each annulment keeps a place for its game
    width = (many[-1].at - many[0].at) // spans + 1
    games = [p for p in many if p.kind == "game"]
    for span in range(spans):
        inside = [p for p in games if (p.at - many[0].at) // width == span]
        drawn = {p.seq for p in kept}
        assert min(inside, key=lambda p: (p.after, p.seq)).seq in drawn
        assert max(inside, key=lambda p: (p.after, -p.seq)).seq in drawn


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory) -> Ledger:
    folder = tmp_path_factory.mktemp("busy")
    return busy_ledger(f"sqlite:///{folder / 'busy.db'}", Path(folder), games=3000)


def test_the_ledgers_bucketing_equals_bucketed(busy: Ledger) -> None:
    """The ledger buckets in SQL; :func:`bucketed` is the same rule in Python."""
    everything = busy.people.chart_series(BUSY, "site", limit=10**9)
    assert everything.changes == len(everything.points) > MAX_POINTS
    drawn = busy.people.chart_series(BUSY, "site")
    assert len(drawn.points) <= MAX_POINTS
    assert drawn.changes == everything.changes
    assert drawn.start == everything.start
    assert drawn.points == bucketed(everything.points)
    annulled = {p.game for p in everything.points if p.kind == "annulment"}
    assert annulled == {"b00100"}
    assert min(p.after for p in drawn.points) == min(p.after for p in everything.points)
    assert max(p.after for p in drawn.points) == max(p.after for p in everything.points)
    games, total = busy.people.games(BUSY, 0, 10)
    assert total == 3000 and [g.record.id for g in games] == [
        f"b{n:05d}" for n in range(2999, 2989, -1)
    ]
    void = [g for g in all_games(busy, BUSY, 200) if not g.record.rated]
    assert void and all(g.outcome == "unrated" and not g.changes for g in void)
