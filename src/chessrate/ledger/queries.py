"""The ledger's reads for the pages, the API and the command line: players, games,
history, leaderboards, annulments, and the whole ledger in commit order (events,
players, games) for export and replay. Reads never take SQLite's write lock."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, func, select

from ..errors import NotFound
from ..numbers import from_hundredths
from ..records import GameRecord, Outcome, Player
from ..systems.base import Change
from . import codec
from .connection import LedgerConnection, as_utc
from .schema import annulments, changes, events, games, players, ratings
from .views import AnnulmentView, GameView, HistoryItem, PlayerView, RatingView


class LedgerQueries(LedgerConnection):
    """Reads (the :class:`~chessrate.ledger.Ledger`'s share)."""

    # -- players ------------------------------------------------------------------------

    def load_players(self, conn: Connection, ids: Iterable[str], lock: bool) -> dict[str, Player]:
        """The players among ``ids`` that exist (rows locked in id order when ``lock``)."""
        wanted = sorted(set(ids))
        query = select(players.c.id, players.c.attributes).where(players.c.id.in_(wanted))
        query = query.order_by(players.c.id)
        if lock:
            query = query.with_for_update()
        return {row.id: codec.player_from_json(row.attributes) for row in conn.execute(query)}

    def get_player(self, player_id: str) -> PlayerView:
        with self.reading() as conn:
            row = conn.execute(
                select(players.c.attributes).where(players.c.id == player_id)
            ).first()
            if row is None:
                raise NotFound(f"player {player_id}: no such player")
            rows = conn.execute(select(ratings).where(ratings.c.player_id == player_id)).all()
        player = codec.player_from_json(row.attributes)
        order = {pool: n for n, pool in enumerate(self.pools)}
        views = sorted((self._rating_view(r) for r in rows), key=lambda v: order.get(v.pool, 99))
        return PlayerView(player, tuple(views))

    def search_players(self, text: str, limit: int = 20) -> list[Player]:
        """Players whose id or name contains ``text`` (case-insensitive)."""
        pattern = f"%{text.lower()}%"
        query = (
            select(players.c.attributes)
            .where(
                func.lower(players.c.id).like(pattern)
                | func.lower(func.coalesce(players.c.name, "")).like(pattern)
            )
            .order_by(players.c.id)
            .limit(limit)
        )
        with self.reading() as conn:
            return [codec.player_from_json(row.attributes) for row in conn.execute(query)]

    # -- games --------------------------------------------------------------------------

    def get_game(self, game_id: str) -> GameView:
        with self.reading() as conn:
            return self._game_view(conn, game_id)

    def _game_view(self, conn: Connection, game_id: str) -> GameView:
        row = conn.execute(select(games).where(games.c.id == game_id)).first()
        if row is None:
            raise NotFound(f"game {game_id}: no such game")
        rows = conn.execute(
            select(changes.c.detail).where(changes.c.game_id == game_id).order_by(changes.c.id)
        ).all()
        return GameView(
            id=row.id,
            seq=row.seq,
            record=GameRecord.from_mapping(json.loads(row.record), f"game {row.id}"),
            outcome=Outcome.VOID.value if row.annulled else row.outcome,
            reason=row.reason,
            annulled=row.annulled,
            changes=tuple(codec.change_from_mapping(json.loads(r.detail)) for r in rows),
            submitted_at=as_utc(row.submitted_at),
        )

    def history(self, player_id: str, pool: str) -> list[HistoryItem]:
        """Every change of a player's rating in a pool, oldest first (games and
        annulments)."""
        query = (
            select(changes.c.seq, changes.c.detail, events.c.kind, games.c.played_at, events.c.at)
            .join(events, events.c.seq == changes.c.seq)
            .join(games, games.c.id == changes.c.game_id)
            .where(changes.c.player_id == player_id, changes.c.pool == pool)
            .order_by(changes.c.seq, changes.c.id)
        )
        with self.reading() as conn:
            if conn.execute(select(players.c.id).where(players.c.id == player_id)).first() is None:
                raise NotFound(f"player {player_id}: no such player")
            rows = conn.execute(query).all()
        return [
            HistoryItem(
                seq=row.seq,
                kind=row.kind,
                played_at=as_utc(row.played_at if row.kind == "game" else row.at),
                change=codec.change_from_mapping(json.loads(row.detail)),
            )
            for row in rows
        ]

    def leaderboard(
        self, pool: str, offset: int = 0, limit: int = 50
    ) -> tuple[list[RatingView], int]:
        """A pool's rating list, best first, paged; and the number of listed players."""
        if pool not in self.pools:
            raise NotFound(f"pool {pool}: not a pool of {self.system_id} ({', '.join(self.pools)})")
        where = (ratings.c.pool == pool) & ratings.c.listed
        query = (
            select(ratings)
            .where(where)
            .order_by(
                ratings.c.rating_cents.is_(None),
                ratings.c.rating_cents.desc(),
                ratings.c.games.desc(),
                ratings.c.player_id,
            )
            .offset(offset)
            .limit(limit)
        )
        with self.reading() as conn:
            rows = conn.execute(query).all()
            total = conn.execute(
                select(func.count()).select_from(ratings).where(where)
            ).scalar_one()
        return [self._rating_view(r) for r in rows], int(total)

    def _rating_view(self, row: Any) -> RatingView:
        return RatingView(
            row.player_id, row.pool, _rating(row.rating_cents), row.display, row.state_name,
            row.games, row.listed,
        )  # fmt: skip

    # -- annulments ---------------------------------------------------------------------

    def annulments(self) -> list[AnnulmentView]:
        with self.reading() as conn:
            rows = conn.execute(select(annulments).order_by(annulments.c.seq)).all()
            details = conn.execute(
                select(changes.c.seq, changes.c.detail)
                .where(changes.c.seq.in_([r.seq for r in rows]))
                .order_by(changes.c.id)
            ).all()
        by_seq: dict[int, list[Change]] = {}
        for d in details:
            by_seq.setdefault(d.seq, []).append(codec.change_from_mapping(json.loads(d.detail)))
        return [
            AnnulmentView(
                r.game_id, r.seq, as_utc(r.at), r.by, r.reason, tuple(by_seq.get(r.seq, ()))
            )
            for r in rows
        ]

    # -- the whole ledger ---------------------------------------------------------------

    def events(self) -> Iterator[tuple[int, str, str, str, datetime]]:
        """(seq, kind, ref, payload, at) of every event in commit order."""
        with self.reading() as conn:
            for row in conn.execute(select(events).order_by(events.c.seq)):
                yield row.seq, row.kind, row.ref, row.payload, as_utc(row.at)

    def players(self) -> list[Player]:
        with self.reading() as conn:
            return [
                codec.player_from_json(r.attributes)
                for r in conn.execute(select(players.c.attributes).order_by(players.c.id))
            ]

    def export_games(self) -> Iterator[GameRecord]:
        """Every game record in commit order."""
        with self.reading() as conn:
            for row in conn.execute(select(games.c.id, games.c.record).order_by(games.c.seq)):
                yield GameRecord.from_mapping(json.loads(row.record), f"game {row.id}")

    def counts(self) -> dict[str, int]:
        with self.reading() as conn:
            return {
                "players": conn.execute(select(func.count()).select_from(players)).scalar_one(),
                "games": conn.execute(select(func.count()).select_from(games)).scalar_one(),
            }


def _rating(hundredths: int | None) -> Decimal | None:
    return None if hundredths is None else from_hundredths(hundredths)
