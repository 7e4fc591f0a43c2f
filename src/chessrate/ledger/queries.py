"""The ledger's reads for the pages, the API and the command line: players, games,
history, annulments (leaderboards: ``boards``), and the whole ledger in commit order
(events, players, games) for export and replay. Reads never take SQLite's write lock."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, case, func, select, text

from ..errors import NotFound
from ..folding import ESCAPE, contains_pattern
from ..records import GameRecord, Outcome, Player, moment
from ..systems.base import Change
from . import codec, rows
from .boards import LedgerBoards, rating_view
from .connection import as_utc
from .schema import annulments, changes, events, games, players, ratings
from .views import AnnulmentNote, AnnulmentView, GameView, HistoryItem, PlayerView, RatingView


class LedgerQueries(LedgerBoards):
    """Reads (the :class:`~chessrate.ledger.Ledger`'s share)."""

    # -- players ------------------------------------------------------------------------

    def load_players(
        self,
        conn: Connection,
        ids: Iterable[str],
        lock: bool,
        keys: dict[str, int] | None = None,
    ) -> dict[str, Player]:
        """The players among ``ids`` that exist (rows locked in id order when ``lock``);
        their integer keys go into ``keys`` when given."""
        wanted = sorted(set(ids))
        query = select(players.c.id, players.c.key, players.c.attributes)
        query = query.where(players.c.id.in_(wanted)).order_by(players.c.id)
        if lock:
            query = query.with_for_update()
        found = {}
        for row in conn.execute(query):
            found[row.id] = codec.player_from_json(row.attributes)
            if keys is not None:
                keys[row.id] = row.key
        return found

    def player_keys(self, conn: Connection, ids: Iterable[str]) -> dict[str, int]:
        """The integer keys of the players among ``ids`` that exist."""
        query = select(players.c.id, players.c.key).where(players.c.id.in_(sorted(set(ids))))
        return {row.id: row.key for row in conn.execute(query)}

    def player_names(self, conn: Connection, keys: Iterable[int]) -> dict[int, str]:
        """The ids of the players with these integer keys."""
        query = select(players.c.key, players.c.id).where(players.c.key.in_(sorted(set(keys))))
        return {row.key: row.id for row in conn.execute(query)}

    def next_player_key(self, conn: Connection) -> int:
        """A new player's integer key (PostgreSQL: a sequence; SQLite: one more than the
        largest, under the database write lock)."""
        if self.postgres:
            return int(conn.execute(text("SELECT nextval('player_keys')")).scalar_one())
        return int(conn.execute(select(func.coalesce(func.max(players.c.key), 0))).scalar_one()) + 1

    def next_seqs(self, conn: Connection, count: int) -> list[int]:
        """``count`` consecutive events' seqs (PostgreSQL: drawn from the sequence in
        one statement, ascending)."""
        if self.postgres:
            drawn = conn.execute(
                text("SELECT nextval('ledger_seq') FROM generate_series(1, :n)"), {"n": count}
            ).scalars()
            return sorted(int(seq) for seq in drawn)
        first = self.next_seq(conn)
        return list(range(first, first + count))

    def next_seq(self, conn: Connection) -> int:
        """The next event's ``seq``, one sequence for games, players and annulments
        (PostgreSQL: a sequence, drawn under the players' locks; SQLite: one more than
        the largest, under the database write lock)."""
        if self.postgres:
            return int(conn.execute(text("SELECT nextval('ledger_seq')")).scalar_one())
        last = conn.execute(
            text(
                "SELECT max(coalesce((SELECT max(seq) FROM events), 0), "
                "coalesce((SELECT max(seq) FROM games), 0))"
            )
        ).scalar_one()
        return int(last) + 1

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
        views = sorted(
            (rating_view(r, player.name) for r in rows), key=lambda v: order.get(v.pool, 99)
        )
        return PlayerView(player, tuple(views))

    def search_players(self, text: str, limit: int = 20, offset: int = 0) -> list[Player]:
        """Players whose id or name contains ``text``, compared folded (case and
        accents: :mod:`chessrate.folding`; ``%`` and ``_`` match themselves): those
        whose id or name starts with it first, then by id; at most ``limit``, from
        ``offset``."""
        pattern = contains_pattern(text)
        starts = pattern[1:]
        search = players.c.search
        query = (
            select(players.c.attributes)
            .where(search.like(pattern, escape=ESCAPE))
            .order_by(
                case(
                    (search.like(starts, escape=ESCAPE), 0),
                    (search.like("%\n" + starts, escape=ESCAPE), 0),
                    else_=1,
                ),
                players.c.id,
            )
            .offset(offset)
            .limit(limit)
        )
        with self.reading() as conn:
            return [codec.player_from_json(row.attributes) for row in conn.execute(query)]

    def ratings_of(self, ids: Iterable[str]) -> dict[str, list[RatingView]]:
        """The current ratings of the players among ``ids`` (by player, in the pools'
        order)."""
        wanted = sorted(set(ids))
        order = {pool: n for n, pool in enumerate(self.pools)}
        found: dict[str, list[RatingView]] = {}
        with self.reading() as conn:
            for start in range(0, len(wanted), 900):
                query = select(ratings).where(ratings.c.player_id.in_(wanted[start : start + 900]))
                for row in conn.execute(query):
                    found.setdefault(row.player_id, []).append(rating_view(row))
        for views in found.values():
            views.sort(key=lambda v: order.get(v.pool, 99))
        return found

    # -- games --------------------------------------------------------------------------

    def get_game(self, game_id: str) -> GameView:
        with self.reading() as conn:
            return self._game_view(conn, game_id)

    def _game_row(self, conn: Connection, game_id: str) -> Any:
        return conn.execute(select(games).where(games.c.id == game_id)).first()

    def _namer(self, conn: Connection, row: Any) -> Callable[[int], str]:
        """The ids of a game row's players by their keys."""
        return self.player_names(conn, (row.white, row.black)).__getitem__

    def _changes_of(
        self, conn: Connection, row: Any, seqs: Sequence[int], namer: Callable[[int], str]
    ) -> tuple[Change, ...]:
        """The changes of a game's events (the game's, its annulment's), in order: every
        change is one of its two players' in one of the pools, at one of ``seqs``."""
        query = (
            select(changes)
            .where(
                changes.c.player.in_(sorted({row.white, row.black})),
                changes.c.pool.in_(range(len(self.pools))),
                changes.c.seq.in_(seqs),
            )
            .order_by(changes.c.seq, changes.c.slot)
        )
        system = self.system
        return tuple(
            rows.change_from_row(system, change._mapping, namer, row.id)
            for change in conn.execute(query)
        )

    def _game_view(self, conn: Connection, game_id: str) -> GameView:
        row = self._game_row(conn, game_id)
        if row is None:
            raise NotFound(f"game {game_id}: no such game")
        namer = self._namer(conn, row)
        seqs = [row.seq]
        note = None
        if row.annulled:
            annulled = select(annulments).where(annulments.c.game_id == game_id)
            for found in conn.execute(annulled):
                seqs.append(found.seq)
                note = AnnulmentNote(as_utc(found.at), found.by, found.reason)
        record = rows.record_from_row(row._mapping, namer)
        game_changes = self._changes_of(conn, row, seqs, namer)
        rated = tuple(c for c in game_changes if c.rule.split()[-1] != "S10")
        outcome = rows.OUTCOMES[row.outcome]
        return GameView(
            id=row.id,
            seq=row.seq,
            record=record,
            outcome=Outcome.VOID.value if row.annulled else outcome.value,
            reason=self.system.reason(record, row.reason, rated),
            annulled=row.annulled,
            changes=game_changes,
            submitted_at=moment(row.submitted_at),
            annulment=note,
        )

    def history(self, player_id: str, pool: str) -> list[HistoryItem]:
        """Every change of a player's rating in a pool, oldest first (games and
        annulments)."""
        return self.history_page(player_id, pool)[0]

    def history_page(
        self, player_id: str, pool: str, offset: int = 0, limit: int | None = None
    ) -> tuple[list[HistoryItem], int]:
        """The changes of a player's rating in a pool, oldest first (games and
        annulments): at most ``limit`` (None: all) from ``offset``, and how many there
        are in all."""
        if pool not in self.pools:
            raise NotFound(f"pool {pool}: not a pool of {self.system_id} ({', '.join(self.pools)})")
        game_seq = func.coalesce(changes.c.game, changes.c.seq)
        query = (
            select(changes, games.c.id.label("game_id"), games.c.played_at, annulments.c.at)
            .join(games, games.c.seq == game_seq)
            .outerjoin(annulments, annulments.c.seq == changes.c.seq)
            .order_by(changes.c.seq)
            .offset(offset)
            .limit(limit)
        )
        with self.reading() as conn:
            key = self.player_keys(conn, [player_id]).get(player_id)
            if key is None:
                raise NotFound(f"player {player_id}: no such player")
            mine = (changes.c.player == key, changes.c.pool == self.pools.index(pool))
            found = conn.execute(query.where(*mine)).all()
            total = conn.execute(
                select(func.count()).select_from(changes).where(*mine)
            ).scalar_one()
            names = self.player_names(conn, {r.opponent for r in found} | {key})
        system = self.system
        return [
            HistoryItem(
                seq=r.seq,
                kind="game" if r.game is None else "annulment",
                played_at=moment(r.played_at) if r.game is None else as_utc(r.at),
                change=rows.change_from_row(system, r._mapping, names.__getitem__, r.game_id),
            )
            for r in found
        ], int(total)

    def names_of(self, ids: Iterable[str]) -> dict[str, str]:
        """The names of the players among ``ids`` that have one (pages and answers show
        people by name, their id beside it)."""
        wanted = sorted(set(ids))
        found: dict[str, str] = {}
        with self.reading() as conn:
            for start in range(0, len(wanted), 900):
                query = select(players.c.id, players.c.name).where(
                    players.c.id.in_(wanted[start : start + 900]), players.c.name.is_not(None)
                )
                found.update({row.id: row.name for row in conn.execute(query)})
        return found

    # -- annulments ---------------------------------------------------------------------

    def annulments(self, offset: int = 0, limit: int | None = None) -> list[AnnulmentView]:
        """The annulments, oldest first: at most ``limit`` (None: all) from ``offset``."""
        query = select(annulments).order_by(annulments.c.seq).offset(offset).limit(limit)
        with self.reading() as conn:
            found = conn.execute(query).all()
            views = []
            for r in found:
                row = self._game_row(conn, r.game_id)
                moved = self._changes_of(conn, row, (r.seq,), self._namer(conn, row))
                views.append(AnnulmentView(r.game_id, r.seq, as_utc(r.at), r.by, r.reason, moved))
        return views

    def annulment_count(self) -> int:
        with self.reading() as conn:
            return int(conn.execute(select(func.count()).select_from(annulments)).scalar_one())

    # -- the whole ledger ---------------------------------------------------------------

    def events(self) -> Iterator[tuple[int, str, str, Any, datetime]]:
        """(seq, kind, ref, data, at) of every event in commit order: a player's
        event's data is its attributes (JSON text), an annulment's its reason and who
        decided (JSON text), a game's its stored row (``at`` its submission)."""
        with self.reading() as conn:
            others = conn.execute(select(events).order_by(events.c.seq))
            played = conn.execute(select(games).order_by(games.c.seq))
            other = next(others, None)
            game = next(played, None)
            while other is not None or game is not None:
                if game is None or (other is not None and other.seq < game.seq):
                    assert other is not None
                    yield other.seq, other.kind, other.ref, other.payload, as_utc(other.at)
                    other = next(others, None)
                else:
                    yield game.seq, "game", game.id, game, moment(game.submitted_at)
                    game = next(played, None)

    def export_marks(self) -> tuple[int, list[str]]:
        """What keeps an export from re-importing exactly: the number of games committed
        after the first annulment, and the players whose attributes changed after the
        first game (from the events table only: no game is read)."""
        with self.reading() as conn:
            first_game = conn.execute(select(func.min(games.c.seq))).scalar()
            first_annulment = conn.execute(
                select(func.min(events.c.seq)).where(events.c.kind == "annulment")
            ).scalar()
            late = 0
            if first_annulment is not None:
                late = conn.execute(
                    select(func.count()).select_from(games).where(games.c.seq > first_annulment)
                ).scalar_one()
            registered: set[str] = set()
            changed: list[str] = []
            query = select(events.c.seq, events.c.ref).where(events.c.kind == "player")
            for seq, ref in conn.execute(query.order_by(events.c.seq)):
                late_change = first_game is not None and seq > first_game
                if ref in registered and late_change and ref not in changed:
                    changed.append(ref)
                registered.add(ref)
        return int(late), changed

    def players(self) -> list[Player]:
        with self.reading() as conn:
            return [
                codec.player_from_json(r.attributes)
                for r in conn.execute(select(players.c.attributes).order_by(players.c.id))
            ]

    def export_games(self) -> Iterator[GameRecord]:
        """Every game record in commit order."""
        with self.reading() as conn:
            names = dict(conn.execute(select(players.c.key, players.c.id)).all())
            for row in conn.execute(select(games).order_by(games.c.seq)):
                yield rows.record_from_row(row._mapping, names.__getitem__)

    def counts(self) -> dict[str, int]:
        with self.reading() as conn:
            return {
                "players": conn.execute(select(func.count()).select_from(players)).scalar_one(),
                "games": conn.execute(select(func.count()).select_from(games)).scalar_one(),
            }
