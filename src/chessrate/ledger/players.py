"""A ledger's players (``ledger.players``): registered and changed (each change an
event of the player's; an imported rating is on the lists at once, until a game moves
it), read one by one, searched (folded: :mod:`chessrate.folding`), named, and the
history of each one's rating in a pool (games and annulments). A player's games list,
record and chart are ``people``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import Connection, LargeBinary, case, cast, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..errors import Conflict, NotFound
from ..folding import ESCAPE, contains_pattern, search_key
from ..identifiers import normal_id, stored_id_problem
from ..records import Outcome, Player, moment
from . import codec, common, rows
from .connection import as_utc
from .leaderboards import rating_view
from .schema import annulments, changes, games, players, ratings
from .views import HistoryItem, PlayerView, RatingView

if TYPE_CHECKING:
    from .store import Ledger


class Players:
    """A ledger's players (``ledger.players``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def create(self, player: Player, now: datetime) -> PlayerView:
        """Register a player; refused (409) if the id exists, also when another writer
        registered it at the same moment (PostgreSQL: both saw no such id, the second
        insert breaks the unique key; that is the same conflict, not an error)."""
        player = replace(player, id=normal_id(player.id))
        try:
            with self.ledger.transaction() as conn:
                self.create_in(conn, player, now)
        except IntegrityError:
            if self.exists(player.id):
                raise Conflict(f"player {player.id}: id: already exists") from None
            raise
        return self.get(player.id)

    def exists(self, player_id: str) -> bool:
        with self.ledger.reading() as conn:
            found = conn.execute(select(players.c.id).where(players.c.id == player_id))
            return found.first() is not None

    def create_in(self, conn: Connection, player: Player, now: datetime) -> None:
        """Register a player inside the caller's transaction, its id in NFC (a library
        caller's :class:`Player` built without :meth:`Player.from_mapping`, which checks
        an id, is otherwise taken as it is: how tests make a ledger of older ids)."""
        player = replace(player, id=normal_id(player.id))
        self.ledger.system.check_player(player)
        if conn.execute(select(players.c.id).where(players.c.id == player.id)).first():
            raise Conflict(f"player {player.id}: id: already exists")
        self._store_player(conn, player, now, new=True)

    def update(self, player_id: str, fields: Mapping[str, object], now: datetime) -> PlayerView:
        """Change some attributes (name, membership, bot and its rating, imports)."""
        with self.ledger.transaction() as conn:
            self.update_in(conn, player_id, fields, now)
        return self.get(player_id)

    def update_in(
        self, conn: Connection, player_id: str, fields: Mapping[str, object], now: datetime
    ) -> None:
        current = common.locked_players(conn, [player_id]).get(player_id)
        if current is None:
            raise NotFound(f"player {player_id}: no such player")
        data = {**current.to_mapping(), **fields, "id": player_id}
        data = {k: v for k, v in data.items() if v is not None}
        player = Player.from_mapping(data, f"player {player_id}", stored=True)
        self.ledger.system.check_player(player)
        self._refuse_rewriting(conn, current, player)
        self._store_player(conn, player, now, new=False)

    def _refuse_rewriting(self, conn: Connection, before: Player, after: Player) -> None:
        """Refuse (:class:`Conflict`, 409) a change of an attribute that decided how the
        player's rated games were rated: ``bot`` and ``bot_rating`` once the player has
        a rated game (a bot's games rate only the human, against its fixed rating), and
        an imported rating (``rating_POOL``, ``games_POOL``) once a game has moved the
        player's rating in that pool (the import only starts a pool). The stored
        history would no longer be what the new attributes make of it: ``verify``
        would fail, or the change would be silently ignored. Every way in (the API's
        ``PATCH``, ``chessrate import --players``, the library) comes here. The other
        attributes stay editable: a name is not read by the rules, and a membership
        (arena A3) is read when each game is rated, so a renewal applies from its place
        in the commit order, as the replay applies it."""
        flags = [name for name in ("bot", "bot_rating")
                 if getattr(before, name) != getattr(after, name)]  # fmt: skip
        pools = sorted(
            pool
            for pool in set(before.imported) | set(after.imported)
            if before.imported.get(pool) != after.imported.get(pool)
        )
        if not flags and not pools:
            return
        key = common.player_keys(conn, [before.id])[before.id]
        if flags:
            rated = conn.execute(
                select(games.c.id)
                .where(
                    (games.c.white == key) | (games.c.black == key),
                    games.c.outcome == rows.OUTCOMES.index(Outcome.RATED),
                )
                .order_by(games.c.seq)
                .limit(1)
            ).scalar()
            if rated is not None:
                raise Conflict(
                    f"player {before.id}: {flags[0]}: cannot change: the player has rated "
                    f"games (the first: {rated}) and they were rated with it; the history "
                    "would no longer replay (register a new player instead)"
                )
        moved = {
            self.ledger.pools[number]
            for number in conn.execute(
                select(changes.c.pool).where(changes.c.player == key).distinct()
            ).scalars()
        }
        for pool in pools:
            if pool in moved:
                raise Conflict(
                    f"player {before.id}: rating_{pool}: cannot change: games have moved "
                    f"the player's {pool} rating, and an imported rating only starts a "
                    "pool; the history would no longer replay"
                )

    def _store_player(self, conn: Connection, player: Player, now: datetime, new: bool) -> None:
        attributes = codec.dumps(player.to_mapping())
        values = {"name": player.name, "search": search_key(player.id, player.name),
                  "attributes": attributes, "bot": player.bot, "updated_at": now}  # fmt: skip
        if new:
            key = common.next_player_key(self.ledger, conn)
            conn.execute(insert(players).values(id=player.id, key=key, created_at=now, **values))
        else:
            conn.execute(update(players).where(players.c.id == player.id).values(**values))
            key = common.player_keys(conn, [player.id])[player.id]
        seq = common.event(self.ledger, conn, "player", player.id, attributes, now)
        # An imported rating is on the lists at once, before the player's first game;
        # until a game moves it, it follows the player's current import.
        moved = {
            self.ledger.pools[pool]
            for pool in conn.execute(
                select(changes.c.pool).where(changes.c.player == key).distinct()
            ).scalars()
        }
        conn.execute(
            delete(ratings).where(ratings.c.player_id == player.id, ratings.c.pool.not_in(moved))
        )
        seeded = {
            (player.id, pool): self.ledger.system.initial_state(player, pool)
            for pool in player.imported
            if pool not in moved
        }
        common.store_states(self.ledger, conn, seq, seeded, {player.id: player})

    # -- reads ---------------------------------------------------------------------------

    def get(self, player_id: str) -> PlayerView:
        with self.ledger.reading() as conn:
            row = conn.execute(
                select(players.c.attributes).where(players.c.id == player_id)
            ).first()
            if row is None:
                raise NotFound(f"player {player_id}: no such player")
            rows = conn.execute(select(ratings).where(ratings.c.player_id == player_id)).all()
        player = codec.player_from_json(row.attributes)
        order = {pool: n for n, pool in enumerate(self.ledger.pools)}
        views = sorted(
            (rating_view(r, player.name) for r in rows), key=lambda v: order.get(v.pool, 99)
        )
        return PlayerView(player, tuple(views))

    def search(self, text: str, limit: int = 20, offset: int = 0) -> list[Player]:
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
        with self.ledger.reading() as conn:
            return [codec.player_from_json(row.attributes) for row in conn.execute(query)]

    def ratings_of(self, ids: Iterable[str]) -> dict[str, list[RatingView]]:
        """The current ratings of the players among ``ids`` (by player, in the pools'
        order)."""
        wanted = sorted(set(ids))
        order = {pool: n for n, pool in enumerate(self.ledger.pools)}
        found: dict[str, list[RatingView]] = {}
        with self.ledger.reading() as conn:
            for start in range(0, len(wanted), 900):
                query = select(ratings).where(ratings.c.player_id.in_(wanted[start : start + 900]))
                for row in conn.execute(query):
                    found.setdefault(row.player_id, []).append(rating_view(row))
        for views in found.values():
            views.sort(key=lambda v: order.get(v.pool, 99))
        return found

    def names(self, ids: Iterable[str]) -> dict[str, str]:
        """The names of the players among ``ids`` that have one (pages and answers show
        people by name, their id beside it)."""
        wanted = sorted(set(ids))
        found: dict[str, str] = {}
        with self.ledger.reading() as conn:
            for start in range(0, len(wanted), 900):
                query = select(players.c.id, players.c.name).where(
                    players.c.id.in_(wanted[start : start + 900]), players.c.name.is_not(None)
                )
                found.update({row.id: row.name for row in conn.execute(query)})
        return found

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
        if pool not in self.ledger.pools:
            raise NotFound(
                f"pool {pool}: not a pool of {self.ledger.system_id} "
                f"({', '.join(self.ledger.pools)})"
            )
        game_seq = func.coalesce(changes.c.game, changes.c.seq)
        query = (
            select(changes, games.c.id.label("game_id"), games.c.played_at, annulments.c.at)
            .join(games, games.c.seq == game_seq)
            .outerjoin(annulments, annulments.c.seq == changes.c.seq)
            .order_by(changes.c.seq)
            .offset(offset)
            .limit(limit)
        )
        with self.ledger.reading() as conn:
            key = common.player_keys(conn, [player_id]).get(player_id)
            if key is None:
                raise NotFound(f"player {player_id}: no such player")
            mine = (changes.c.player == key, changes.c.pool == self.ledger.pools.index(pool))
            found = conn.execute(query.where(*mine)).all()
            total = conn.execute(
                select(func.count()).select_from(changes).where(*mine)
            ).scalar_one()
            names = common.player_names(conn, {r.opponent for r in found} | {key})
        system = self.ledger.system
        return [
            HistoryItem(
                seq=r.seq,
                kind="game" if r.game is None else "annulment",
                played_at=moment(r.played_at) if r.game is None else as_utc(r.at),
                change=rows.change_from_row(system, r._mapping, names.__getitem__, r.game_id),
            )
            for r in found
        ], int(total)

    def id_problems(self) -> list[str]:
        """The stored ids of players and games that a new record could not give (not in
        Unicode NFC; an invisible or bidirectional character: stored before those rules,
        :func:`chessrate.identifiers.stored_id_problem`), each with why. They are kept as
        they were written (the history is not rewritten); ``chessrate verify`` lists
        them as warnings."""
        found: list[str] = []
        with self.ledger.reading() as conn:
            for kind, column in (("player", players.c.id), ("game", games.c.id)):
                # Only an id with a character past ASCII can have a problem: the database
                # picks those out (its text longer in bytes than in characters), so a
                # history of ASCII ids is not read into Python for it.
                octets = func.length(cast(column, LargeBinary))
                if self.ledger.postgres:
                    octets = func.octet_length(column)
                query = select(column).where(octets != func.length(column)).order_by(column)
                for value in conn.execute(query).scalars():
                    problem = stored_id_problem(value)
                    if problem is not None:
                        found.append(f"{kind} {value!r}: id: {problem}")
        return found

    def some(self, ids: Iterable[str]) -> dict[str, Player]:
        """The stored players among ``ids``, by id (a bulk import appended to a large
        ledger reads only the players its file names)."""
        wanted = sorted(set(ids))
        found: dict[str, Player] = {}
        with self.ledger.reading() as conn:
            for start in range(0, len(wanted), common.IN_CHUNK):
                found.update(common.load_players(conn, wanted[start : start + common.IN_CHUNK],
                                                 lock=False))  # fmt: skip
        return found

    def all(self) -> list[Player]:
        with self.ledger.reading() as conn:
            return [
                codec.player_from_json(r.attributes)
                for r in conn.execute(select(players.c.attributes).order_by(players.c.id))
            ]
