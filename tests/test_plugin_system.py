"""A system is a plugin: a small extra system (a plain Elo with one pool, on FIDE's
Table B) built here from the registry's parts only — its ``Rules``, its reference
system, its stored-state codec and its compiled half (decision, kernel, state arrays,
list marks) — runs through both engines, the ledger (game by game and the bulk
import) and ``verify`` without a line of shared code knowing its id.

Nothing below reaches into a shipped system: if shared code compared a system's id
(``if system_id == "site"``), this system would fall through it and one of these tests
would fail."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import njit
from sqlalchemy import text

from chessrate.engine import Engine
from chessrate.errors import InvalidRecord
from chessrate.fast import encode, replay
from chessrate.fast.batch import NO_RESULT, T_FORFEIT, GameBatch
from chessrate.fast.compiled import (
    RATED,
    UNRATED,
    VOID,
    Attributes,
    Decided,
    Decider,
    Listed,
    WithoutAnnulment,
    halves,
)
from chessrate.fast.kernels import round_div, write_change
from chessrate.fast.rows import NULL
from chessrate.fast.tables import table_b_pd_high
from chessrate.ledger import Ledger
from chessrate.numbers import display, exact_text, to_hundredths
from chessrate.operations import import_file
from chessrate.records import GameRecord, ImportedRating, Outcome, Player, Result, Termination
from chessrate.systems import SystemInfo, SystemKind, get_system, registered, system_info
from chessrate.systems.base import (
    Change,
    Established,
    GameRating,
    ListEntry,
    PlayerLookup,
    PoolKey,
    Rules,
    StateLookup,
    decided,
    explained,
    no_annulment,
)
from chessrate.tables import expected_score

POOL = "elo"
R_CASUAL, R_FORFEIT, R_NO_RESULT, R_RATED = range(4)


# -- the reference half ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EloRules(Rules):
    start: Decimal = Decimal("1500.00")
    k: int = 20


@dataclass(frozen=True, slots=True)
class EloState:
    rating: Decimal
    games: int = 0


class EloSystem:
    """change = K x (score - PD), PD from Table B; one pool, everyone rated."""

    id = "elo"
    pools: tuple[str, ...] = (POOL,)
    rules_cited: tuple[str, ...] = ("elo E1",)
    states: tuple[str, ...] = ("rated",)

    def __init__(self, rules: EloRules | None = None) -> None:
        self.rules = rules or EloRules()

    def check_player(self, player: Player) -> None:
        for pool in player.imported:
            if pool != POOL:
                raise InvalidRecord(player.source or player.id, f"rating_{pool}", "no such pool")

    def initial_state(self, player: Player, pool: str) -> EloState:
        imported = player.imported.get(pool)
        if imported is None:
            return EloState(self.rules.start)
        return EloState(imported.rating, imported.games)

    def rate(
        self, game: GameRecord, players: PlayerLookup, states: StateLookup[EloState]
    ) -> GameRating[EloState]:
        if not game.rated:
            return decided(self.reason, game, Outcome.UNRATED, R_CASUAL)
        if game.termination is Termination.FORFEIT:
            return decided(self.reason, game, Outcome.VOID, R_FORFEIT)
        if game.result is Result.NO_RESULT:
            return decided(self.reason, game, Outcome.VOID, R_NO_RESULT)
        before = {side: states(side, POOL) for side in (game.white, game.black)}
        changes, after = [], {}
        for own, other in ((game.white, game.black), (game.black, game.white)):
            mine, theirs = before[own], before[other]
            score = game.score(own)
            assert score is not None
            pd = expected_score(mine.rating, theirs.rating)
            rating = mine.rating + self.rules.k * (score - pd)
            change = Change(
                game.id, own, POOL, "elo E1", other, score, mine.rating, rating, "rated",
                "rated", mine.games, mine.games + 1, theirs.rating, self.rules.k,
                theirs.rating - mine.rating, pd, score - pd, rating - mine.rating,
            )  # fmt: skip
            changes.append(explained(change, self.note))
            after[(own, POOL)] = EloState(rating, mine.games + 1)
        return decided(self.reason, game, Outcome.RATED, R_RATED, tuple(changes), after)

    def reason(self, game: GameRecord, code: int, changes: tuple[Change, ...] = ()) -> str:
        return ("casual", "forfeit", "no result", "rated")[code]

    def note(self, change: Change) -> str:
        return f"K {change.k} x ({change.score} - {change.pd}) = {change.change:+}"

    def state_after(self, change: Change, before: EloState) -> EloState:
        assert change.after is not None
        return EloState(change.after, change.games_after)

    def list_entry(self, player: Player, pool: str, state: EloState) -> ListEntry | None:
        if state.games == 0 and pool not in player.imported:
            return None
        return ListEntry(player.id, pool, state.rating, str(display(state.rating)), "rated",
                         state.games)  # fmt: skip

    def established(self, pool: str, active_days: int | None) -> Established:
        return Established()

    def standing(self, state: str, games: int, player: Player | None = None) -> str:
        return f"rated, {games} games"

    def annul(
        self, rating: GameRating[EloState], states: StateLookup[EloState]
    ) -> tuple[tuple[Change, ...], dict[PoolKey, EloState]]:
        raise no_annulment(self.id, rating)


class EloCodec:
    def dump(self, state: EloState) -> dict[str, Any]:
        return {"rating": exact_text(state.rating), "games": state.games}

    def load(self, data: dict[str, Any]) -> EloState:
        return EloState(Decimal(data["rating"]), int(data["games"]))


# -- the compiled half --------------------------------------------------------------------


@njit
def elo_kernel(
    order: Any, white: Any, black: Any, white_halves: Any, rating: Any, games: Any,
    pd_high: Any, k: int, rows: Any = None,
) -> int:  # fmt: skip
    last = pd_high.shape[0] - 1
    c = 0
    for t in range(order.shape[0]):
        g = order[t]
        a, b, sa = white[g], black[g], white_halves[g]
        ra, rb = rating[a, 0], rating[b, 0]
        d = ra - rb if ra >= rb else rb - ra
        high = pd_high[min(round_div(d, 100), last)]
        pda = high if ra >= rb else 100 - high
        na = ra + k * (sa * 50 - pda)
        nb = rb + k * ((2 - sa) * 50 - (100 - pda))
        if rows is not None:
            out, _, codes = rows
            c = write_change(
                out,
                c,
                t,
                0,
                a,
                0,
                codes[0],
                b,
                sa,
                ra,
                na,
                codes[1],
                codes[1],
                games[a, 0],
                games[a, 0] + 1,
                rb,
                k,
                rb - ra,
                pda,
                NULL,
                NULL,
            )
            c = write_change(out, c, t, 1, b, 0, codes[0], a, 2 - sa, rb, nb, codes[1],
                             codes[1], games[b, 0], games[b, 0] + 1, ra, k, ra - rb, 100 - pda,
                             NULL, NULL)  # fmt: skip
        rating[a, 0], rating[b, 0] = na, nb
        games[a, 0] += 1
        games[b, 0] += 1
    return c


class EloKernel(WithoutAnnulment):
    def __init__(self, system: EloSystem, players: Attributes, started: list[Any]) -> None:
        self.system = system
        start = to_hundredths(system.rules.start)
        rating = np.where(players.imported, players.rating, start)
        games = np.where(players.imported, players.games, 0)
        for (i, p), state in started:
            rating[i, p], games[i, p] = to_hundredths(state.rating), state.games
        self.states = {"rating": rating, "games": games}
        self.pd_high = table_b_pd_high()

    def run(
        self, chunk: Any, start: int, decided: Decided, white: Any, black: Any, rows: Any
    ) -> int:
        s = self.states
        return int(elo_kernel(chunk, white, black, decided.white_halves, s["rating"],
                              s["games"], self.pd_high, self.system.rules.k, rows))  # fmt: skip

    def listed(self, pool: int, imported: Any) -> Listed:
        games = self.states["games"][:, pool]
        rows = np.flatnonzero((games > 0) | imported[:, pool])
        ones = np.ones(rows.shape[0], np.bool_)
        return Listed(rows, ones, self.states["rating"][rows, pool], games[rows],
                      np.zeros(rows.shape[0], np.int8))  # fmt: skip

    def mark(self, state: int, games: int) -> str:
        return ""

    def no_rating_display(self) -> str:
        raise AssertionError("every listed row has a rating")


class EloCompiled:
    width = 2
    kernel_reasons = False

    def decide(
        self, system: EloSystem, batch: GameBatch, players: Attributes, reasons: bool
    ) -> Decided:
        decide = Decider(len(batch), reasons)
        decide(~batch.rated, UNRATED, R_CASUAL)
        decide(batch.termination == T_FORFEIT, VOID, R_FORFEIT)
        decide(batch.result == NO_RESULT, VOID, R_NO_RESULT)
        decide(True, RATED, R_RATED)
        return Decided(decide.action, np.zeros(len(batch), np.int64), halves(batch.result),
                       decide.reason)  # fmt: skip

    def start(
        self, system: EloSystem, players: Attributes, started: list[Any], rated_games: int
    ) -> EloKernel:
        return EloKernel(system, players, started)

    def codes(self, system: EloSystem) -> Any:
        return np.array([system.rules_cited.index("elo E1"), system.states.index("rated")])


ELO = SystemInfo(
    id="elo", kind=SystemKind.GAMES, pools=EloSystem.pools, description="a plain Elo",
    build=EloSystem, rules=EloRules(), codec=EloCodec(), compiled=EloCompiled(),
)  # fmt: skip


# -- the tests -------------------------------------------------------------------------


@pytest.fixture
def elo() -> Iterator[SystemInfo]:
    with registered(ELO) as info:
        yield info


START = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
PLAYERS = [
    Player("ana", imported={POOL: ImportedRating(Decimal("1812.40"), 40)}),
    Player("ben", imported={POOL: ImportedRating(Decimal("1400.00"), 3)}),
    Player("cai"),
    Player("dee"),
    Player("eli"),
]


WINS = ("1-0", "0-1")


def stream(seed: int, count: int = 400) -> list[GameRecord]:
    rng = random.Random(seed)
    names = [p.id for p in PLAYERS]
    games = []
    for n in range(count):
        white, black = rng.sample(names, 2)
        result = rng.choice(["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "*"])
        data: dict[str, object] = {
            "id": f"g{n:04d}", "white": white, "black": black, "result": result,
            "played_at": (START + timedelta(minutes=7 * n)).isoformat(),
            "rated": rng.random() > 0.1,
            "termination": "forfeit" if result in WINS and rng.random() < 0.1 else "normal",
        }  # fmt: skip
        games.append(GameRecord.from_mapping(data, f"stream:{n + 1}"))
    return games


def test_an_extra_system_is_found_by_its_id_only_while_registered(elo: SystemInfo) -> None:
    assert system_info("elo") is elo
    assert isinstance(get_system("elo"), EloSystem)


def test_an_extra_system_is_gone_after_its_block() -> None:
    with registered(ELO):
        pass
    with pytest.raises(ValueError, match="unknown rating system 'elo'"):
        system_info("elo")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_both_engines_rate_an_extra_system_alike(elo: SystemInfo, seed: int) -> None:
    games = stream(seed)
    system = elo.rating_system()
    engine = Engine(system, PLAYERS)
    engine.replay(games)
    compiled = replay(system, encode(games), PLAYERS)
    assert compiled.rating_lists() == engine.rating_lists()
    assert compiled.outcome_counts() == {
        outcome: sum(1 for g in games if engine.outcome(g.id) is outcome) for outcome in Outcome
    }
    ratings = [entry.rating for entry in engine.rating_list(POOL)]
    assert len(set(ratings)) > 3  # the games moved the ratings


def _write(path: Path, games: list[GameRecord]) -> None:
    lines = []
    for game in games:
        record = {
            "id": game.id, "played_at": game.played_at.isoformat(), "white": game.white,
            "black": game.black, "result": game.result.value, "rated": game.rated,
            "termination": game.termination.value,
        }  # fmt: skip
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")


def test_an_extra_system_goes_through_the_ledger_and_verify(
    elo: SystemInfo, tmp_path: Path
) -> None:
    games = stream(7, 300)
    engine = Engine(elo.rating_system(), PLAYERS)
    engine.replay(games)
    expected = {(e.player, e.rating, e.games) for e in engine.rating_list(POOL)}

    # the bulk import (compiled replay, rows emitted by the kernel)
    bulk = Ledger.create(f"sqlite:///{tmp_path / 'bulk.db'}", "elo", START)
    source = tmp_path / "games.jsonl"
    _write(source, games)
    report = import_file(bulk, source, None, PLAYERS, START)
    assert report.new_games == len(games)
    assert bulk.verify("compiled") == []
    assert bulk.verify("reference") == []
    board, _ = bulk.boards.leaderboard(POOL, limit=100)
    assert {(e.player, e.rating, e.games) for e in board} == expected

    # game by game (the reference path), the same stored numbers
    one_by_one = Ledger.create(f"sqlite:///{tmp_path / 'one.db'}", "elo", START)
    for player in PLAYERS:
        one_by_one.players.create(player, START)
    for game in games:
        one_by_one.games.submit(game, START)
    assert one_by_one.verify() == []
    board, _ = one_by_one.boards.leaderboard(POOL, limit=100)
    assert {(e.player, e.rating, e.games) for e in board} == expected

    # verify reads every stored number: a tampered change is found by both engines
    with bulk.transaction() as conn:
        last = "SELECT max(seq) FROM changes"
        conn.execute(text(f"UPDATE changes SET after = after + 1 WHERE seq = ({last})"))
    assert bulk.verify("compiled")
    assert bulk.verify("reference")
