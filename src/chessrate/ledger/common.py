"""What the ledger's parts share, inside one of their transactions: players' rows and
integer keys, the next event numbers, a game's stored row as a view, the events and
the current ratings every write stores, and the state lookup the systems rate with.
Internal to the ledger: each function takes the connection it runs in (and the
ledger, for its system and database), never opens one itself."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, insert, select, text
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from ..errors import NotFound
from ..numbers import to_hundredths
from ..records import GameRecord, Outcome, Player, microseconds, moment
from ..systems.base import Change, GameRating, PoolKey, RatingSystem
from . import codec, rows
from .connection import as_utc
from .schema import annulments, changes, events, game_moves, games, players, ratings
from .views import AnnulmentNote, GameView

if TYPE_CHECKING:
    from .connection import LedgerConnection


def _rating_upsert(dialect_insert: Any) -> Any:
    upsert = dialect_insert(ratings)
    columns = ("rating_cents", "display", "state_name", "games", "listed", "state", "seq")
    return upsert.on_conflict_do_update(
        index_elements=[ratings.c.player_id, ratings.c.pool],
        set_={name: upsert.excluded[name] for name in columns},
    )


# One cached statement each, run with many rows (insertmanyvalues makes it one trip).
UPSERT_RATING = {True: _rating_upsert(postgresql_insert), False: _rating_upsert(sqlite_insert)}
"""A current rating written or overwritten, by whether the database is PostgreSQL."""
INSERT_GAME = insert(games)
INSERT_CHANGE = insert(changes)
INSERT_MOVES = insert(game_moves)


# -- players ----------------------------------------------------------------------------


IN_CHUNK = 900
"""Values in one ``IN (...)`` list when many are looked up (SQLite's bound
parameters are limited)."""


def load_players(
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


def locked_players(conn: Connection, ids: Iterable[str]) -> dict[str, Player]:
    """Load players, locking their rows (PostgreSQL) in id order."""
    return load_players(conn, ids, lock=True)


def player_keys(conn: Connection, ids: Iterable[str]) -> dict[str, int]:
    """The integer keys of the players among ``ids`` that exist (looked up
    :data:`IN_CHUNK` at a time: SQLite bounds a statement's parameters)."""
    wanted = sorted(set(ids))
    found: dict[str, int] = {}
    for start in range(0, len(wanted), IN_CHUNK):
        chunk = wanted[start : start + IN_CHUNK]
        query = select(players.c.id, players.c.key).where(players.c.id.in_(chunk))
        found.update({row.id: row.key for row in conn.execute(query)})
    return found


def player_names(conn: Connection, keys: Iterable[int]) -> dict[int, str]:
    """The ids of the players with these integer keys."""
    query = select(players.c.key, players.c.id).where(players.c.key.in_(sorted(set(keys))))
    return {row.key: row.id for row in conn.execute(query)}


def next_player_key(ledger: LedgerConnection, conn: Connection) -> int:
    """A new player's integer key (PostgreSQL: a sequence; SQLite: one more than the
    largest, under the database write lock)."""
    if ledger.postgres:
        return int(conn.execute(text("SELECT nextval('player_keys')")).scalar_one())
    return int(conn.execute(select(func.coalesce(func.max(players.c.key), 0))).scalar_one()) + 1


# -- events -----------------------------------------------------------------------------


def next_seq(ledger: LedgerConnection, conn: Connection) -> int:
    """The next event's ``seq``, one sequence for games, players and annulments
    (PostgreSQL: a sequence, drawn under the players' locks; SQLite: one more than
    the largest, under the database write lock)."""
    if ledger.postgres:
        return int(conn.execute(text("SELECT nextval('ledger_seq')")).scalar_one())
    last = conn.execute(
        text(
            "SELECT max(coalesce((SELECT max(seq) FROM events), 0), "
            "coalesce((SELECT max(seq) FROM games), 0))"
        )
    ).scalar_one()
    return int(last) + 1


def event(
    ledger: LedgerConnection, conn: Connection, kind: str, ref: str, payload: str, now: datetime
) -> int:
    """Store an event (a player's, an annulment's); its seq."""
    seq = next_seq(ledger, conn)
    conn.execute(insert(events).values(seq=seq, kind=kind, ref=ref, payload=payload, at=now))
    return seq


def has_games(conn: Connection) -> bool:
    """Whether the ledger holds a game."""
    return conn.execute(select(games.c.seq).limit(1)).first() is not None


# -- a stored game ----------------------------------------------------------------------


def game_row(conn: Connection, game_id: str) -> Any:
    """The game's row in ``games`` (None: no such game)."""
    return conn.execute(select(games).where(games.c.id == game_id)).first()


def stored_moves(conn: Connection, game_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The stored moves (UCI) of those of the games that have them."""
    wanted = list(game_ids)
    if not wanted:
        return {}
    query = select(game_moves.c.game_id, game_moves.c.moves).where(game_moves.c.game_id.in_(wanted))
    return {game_id: tuple(text.split()) for game_id, text in conn.execute(query)}


def stored_record(
    conn: Connection,
    row: Any,
    name: Callable[[int], str],
    known: Mapping[str, tuple[str, ...]] | None = None,
) -> GameRecord:
    """A stored game row back to its record, with its stored moves (``known``: the
    moves of the games read already, else read here)."""
    record = rows.record_from_row(row._mapping, name)
    moves = (stored_moves(conn, (row.id,)) if known is None else known).get(row.id)
    return record if moves is None else replace(record, moves=moves)


def move_rows(records: Iterable[GameRecord]) -> list[dict[str, Any]]:
    """The ``game_moves`` rows of those of the games that have moves."""
    return [
        {"game_id": r.id, "plies": len(r.moves), "moves": " ".join(r.moves)}
        for r in records
        if r.moves is not None
    ]


def store_moves(conn: Connection, records: Iterable[GameRecord]) -> None:
    """Store the moves of those of the games (just stored) that have them."""
    found = move_rows(records)
    if found:
        conn.execute(INSERT_MOVES, found)


def namer(conn: Connection, row: Any) -> Callable[[int], str]:
    """The ids of a game row's players by their keys."""
    return player_names(conn, (row.white, row.black)).__getitem__


def changes_of(
    ledger: LedgerConnection,
    conn: Connection,
    row: Any,
    seqs: Sequence[int],
    namer: Callable[[int], str],
) -> tuple[Change, ...]:
    """The changes of a game's events (the game's, its annulment's), in order: every
    change is one of its two players' in one of the pools, at one of ``seqs``."""
    query = (
        select(changes)
        .where(
            changes.c.player.in_(sorted({row.white, row.black})),
            changes.c.pool.in_(range(len(ledger.pools))),
            changes.c.seq.in_(seqs),
        )
        .order_by(changes.c.seq, changes.c.slot)
    )
    system = ledger.system
    return tuple(
        rows.change_from_row(system, change._mapping, namer, row.id)
        for change in conn.execute(query)
    )


def game_view(ledger: LedgerConnection, conn: Connection, game_id: str) -> GameView:
    """A stored game as answered (NotFound: no such game)."""
    row = game_row(conn, game_id)
    if row is None:
        raise NotFound(f"game {game_id}: no such game")
    names = namer(conn, row)
    seqs = [row.seq]
    note = None
    if row.annulled:
        annulled = select(annulments).where(annulments.c.game_id == game_id)
        for found in conn.execute(annulled):
            seqs.append(found.seq)
            note = AnnulmentNote(as_utc(found.at), found.by, found.reason)
    record = stored_record(conn, row, names)
    game_changes = changes_of(ledger, conn, row, seqs, names)
    rated = tuple(c for c in game_changes if c.rule.split()[-1] != "S10")
    outcome = rows.OUTCOMES[row.outcome]
    return GameView(
        id=row.id,
        seq=row.seq,
        record=record,
        outcome=Outcome.VOID.value if row.annulled else outcome.value,
        reason=ledger.system.reason(record, row.reason, rated),
        annulled=row.annulled,
        changes=game_changes,
        submitted_at=moment(row.submitted_at),
        annulment=note,
    )


def game_values(
    seq: int, rating: GameRating[Any], keys: Mapping[str, int], now: datetime
) -> dict[str, Any]:
    """A rated game's row in ``games``: its record, the decision's codes, when it came."""
    return {
        "seq": seq, **rows.game_row(rating.game, keys.__getitem__),
        "outcome": rows.OUTCOMES.index(rating.outcome), "reason": rating.reason_code,
        "annulled": False, "submitted_at": microseconds(now),
    }  # fmt: skip


# -- changes and current ratings --------------------------------------------------------


def store_changes(
    ledger: LedgerConnection,
    conn: Connection,
    seq: int,
    game: int | None,
    items: Sequence[Change],
    keys: Mapping[str, int],
) -> None:
    """Store an event's changes (``game``: the annulled game's seq, for an annulment)."""
    if not items:
        return
    system = ledger.system
    conn.execute(
        INSERT_CHANGE,
        [
            {**rows.change_row(system, c, slot, keys.__getitem__), "seq": seq, "game": game}
            for slot, c in enumerate(items)
        ],
    )


def store_states(
    ledger: LedgerConnection,
    conn: Connection,
    seq: int,
    states: Mapping[PoolKey, Any],
    people: Mapping[str, Player],
) -> None:
    """Upsert the players' current ratings, one statement for all of them."""
    if not states:
        return
    rows = [
        {"player_id": player_id, "pool": pool, "seq": seq,
         **rating_row(ledger, people[player_id], pool, state)}
        for (player_id, pool), state in states.items()
    ]  # fmt: skip
    conn.execute(UPSERT_RATING[ledger.postgres], rows)


def rating_row(ledger: LedgerConnection, player: Player, pool: str, state: Any) -> dict[str, Any]:
    """The stored form of a current rating: what lists and pages show, and the
    system's state for the next game."""
    entry = ledger.system.list_entry(player, pool, state)
    rating = entry.rating if entry else getattr(state, "rating", None)
    return {
        "rating_cents": _hundredths(rating),
        "display": entry.display if entry else "",
        "state_name": entry.state if entry else _state_name(state),
        "games": entry.games if entry else 0,
        "listed": entry is not None,
        "state": codec.state_to_json(ledger.system_id, state),
    }


def _hundredths(rating: Decimal | None) -> int | None:
    return None if rating is None else to_hundredths(rating)


def _state_name(state: object) -> str:
    status = getattr(state, "status", None)
    return str(getattr(status, "value", "rated"))


class StateCache:
    """The system's state lookup over the ledger, inside one transaction."""

    def __init__(
        self,
        conn: Connection,
        system_id: str,
        system: RatingSystem[Any],
        people: Mapping[str, Player],
    ) -> None:
        self.conn = conn
        self.system_id = system_id
        self.system = system
        self.people = people
        self.cache: dict[PoolKey, Any] = {}
        """The states asked for so far, or set (a game just rated in memory)."""
        self.stored: dict[PoolKey, str] = {}
        self.complete: set[str] = set()
        """Players whose every stored state is in ``stored`` (:meth:`fill`)."""

    def prefetch(self, player_ids: Iterable[str]) -> None:
        """Load every stored state of these players in one query."""
        wanted = sorted(set(player_ids))
        rows = self.conn.execute(
            select(ratings.c.player_id, ratings.c.pool, ratings.c.state).where(
                ratings.c.player_id.in_(wanted)
            )
        )
        self.fill(wanted, ((row.player_id, row.pool, row.state) for row in rows))

    def fill(self, player_ids: Iterable[str], rows: Iterable[tuple[str, str, str]]) -> None:
        """The stored states of these players, (player id, pool, state JSON): every one
        they have (a pool without is its initial state). Each is decoded, or made
        initial, when the system first asks for it (a group's players have many
        pools; a game reads one)."""
        for player_id, pool, state in rows:
            self.stored[(player_id, pool)] = state
        self.complete.update(player_ids)

    def __call__(self, player_id: str, pool: str) -> Any:
        key = (player_id, pool)
        if key not in self.cache:
            if player_id in self.complete:
                text = self.stored.get(key)
            else:
                text = self.conn.execute(
                    select(ratings.c.state).where(
                        ratings.c.player_id == player_id, ratings.c.pool == pool
                    )
                ).scalar()
            player = self.people.get(player_id) or Player(player_id)
            self.cache[key] = (
                self.system.initial_state(player, pool)
                if text is None
                else codec.state_from_json(self.system_id, text)
            )
        return self.cache[key]
