"""Every hand-computed case of arena, corr and site runs through both engines.

An autouse fixture records what each test does with each :class:`Engine` it builds
(players registered, games applied and refused, annulments made and refused, in
order). When the test ends, the same events are replayed through the compiled path
(:func:`chessrate.fast.replay`, with the engine's own system and rules, the games in
the order the test applied them and each annulment at its place among them), and
both must agree: the same refusals with the same messages, the same outcome for
every game, the same rating lists (ratings to the hundredth, displays, states,
games) and the same annulments with their changes. The rows the compiled path
emits (``on_rows``) must be the engine's games, reasons and changes as the ledger
stores them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest

from chessrate.engine import Annulment, Engine
from chessrate.errors import InvalidRecord
from chessrate.fast import SYSTEMS, Annul, Roster, encode, replay
from chessrate.fast.rows import RowChunk
from chessrate.records import GameRecord, Player
from tests.fast.test_emit_rows import Keys, assert_same, emitted_games, reference_games


@dataclass
class _AnnulCall:
    game_id: str
    reason: str
    at: datetime
    by: str | None
    after: int  # games applied (or refused) before it
    outcome: Annulment | str  # the annulment, or the refusal's message


@dataclass
class EngineLog:
    """What one test did with one engine, in order."""

    engine: Engine[Any]
    players: list[Player] = field(default_factory=list)
    games: list[tuple[GameRecord, str | None]] = field(default_factory=list)
    annulments: list[_AnnulCall] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)

    def check(self) -> None:
        """Replay the log through the compiled path; assert it agrees with the engine."""
        engine = self.engine
        if engine.system.id not in SYSTEMS:
            return
        assert not self.unsupported, (
            "the conformance fixture replays every engine through the compiled path, which "
            f"cannot replay: {'; '.join(self.unsupported)}"
        )
        records = [record for record, _ in self.games]
        game_errors = [error for _, error in self.games if error is not None]
        annul_errors = [a.outcome for a in self.annulments if isinstance(a.outcome, str)]
        errors: list[InvalidRecord] = []
        chunks: list[RowChunk] = []
        compiled = replay(
            engine.system,
            encode(records),
            Roster(engine.system, self.players),
            annulments=[Annul(a.game_id, a.reason, a.at, a.by, a.after) for a in self.annulments],
            in_order=True,
            on_invalid=errors.append,
            on_rows=chunks.append,
        )
        messages = [str(error) for error in errors]
        assert messages[: len(game_errors)] == game_errors, "refused games differ"
        assert messages[len(game_errors) :] == annul_errors, "refused annulments differ"
        applied = {record.id for record, error in self.games if error is None}
        assert compiled.games == len(engine.ratings)
        for game_id in sorted(applied):
            assert compiled.outcome(game_id) == engine.outcome(game_id), game_id
        for call in self.annulments:
            if isinstance(call.outcome, Annulment):
                assert compiled.annulments[call.game_id] == call.outcome
        assert compiled.rating_lists() == engine.rating_lists()
        keys = Keys()
        expected = reference_games(engine.system, engine.ratings, keys)
        assert_same(expected, emitted_games(compiled, chunks, keys))


@pytest.fixture(autouse=True)
def both_engines(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[EngineLog]]:
    """Record every engine a test builds; at teardown, check the compiled path on it."""
    logs: list[EngineLog] = []
    init, add_player, set_player = Engine.__init__, Engine.add_player, Engine.set_player
    apply, annul = Engine.apply, Engine.annul

    def log_of(engine: Engine[Any]) -> EngineLog:
        found: EngineLog = engine._conformance_log  # type: ignore[attr-defined]
        return found

    def logged_init(self: Engine[Any], *args: Any, **kwargs: Any) -> None:
        log = EngineLog(self)
        self._conformance_log = log  # type: ignore[attr-defined]
        logs.append(log)
        init(self, *args, **kwargs)

    def logged_add_player(self: Engine[Any], player: Player) -> None:
        add_player(self, player)
        log = log_of(self)
        if any(player.id in (record.white, record.black) for record, _ in log.games):
            log.unsupported.append(f"player {player.id} registered after playing")
        log.players.append(player)

    def logged_set_player(self: Engine[Any], player: Player) -> None:
        set_player(self, player)
        log_of(self).unsupported.append(f"set_player({player.id})")

    def logged_apply(self: Engine[Any], game: GameRecord) -> Any:
        log = log_of(self)
        try:
            rating = apply(self, game)
        except InvalidRecord as error:
            log.games.append((game, str(error)))
            raise
        log.games.append((game, None))
        return rating

    def logged_annul(
        self: Engine[Any], game_id: str, reason: str, at: datetime, by: str | None = None
    ) -> Annulment:
        log = log_of(self)
        after = len(log.games)
        try:
            annulment = annul(self, game_id, reason, at, by)
        except InvalidRecord as error:
            log.annulments.append(_AnnulCall(game_id, reason, at, by, after, str(error)))
            raise
        log.annulments.append(_AnnulCall(game_id, reason, at, by, after, annulment))
        return annulment

    monkeypatch.setattr(Engine, "__init__", logged_init)
    monkeypatch.setattr(Engine, "add_player", logged_add_player)
    monkeypatch.setattr(Engine, "set_player", logged_set_player)
    monkeypatch.setattr(Engine, "apply", logged_apply)
    monkeypatch.setattr(Engine, "annul", logged_annul)
    yield logs
    monkeypatch.undo()
    for log in logs:
        log.check()
