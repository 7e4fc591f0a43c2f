"""``Ledger.verify`` of a ledger that rates games (:class:`Verifier`): replay every
event in commit order through the in-memory engine (or the compiled replay) and
compare every stored number (each game's outcome and reason code, each change's
numbers and the words written from them, each current rating) to the replay's. (A
ledger that rates periods re-rates them: :meth:`chessrate.ledger.periods.Periods.verify`.)"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from itertools import groupby
from typing import TYPE_CHECKING, Any, overload

import numpy as np
from sqlalchemy import func, or_, select

from ..engine import Engine as ReplayEngine
from ..errors import InvalidInput, InvalidRecord
from ..records import Player
from ..systems.base import Change
from ..systems.site import SiteSystem
from . import codec, common, rows
from .bulk import RATING_COLUMNS, Tracker, site_rating_rows
from .connection import as_utc
from .schema import changes, events, players
from .schema import games as rows_games
from .verify_reads import CHANGE_READ, Columns, read_stored, rows_of, stored_ratings

if TYPE_CHECKING:
    from .store import Ledger


class Verifier:
    """The replay check of one ledger (:meth:`Ledger.verify
    <chessrate.ledger.store.Ledger.verify>` asks it)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def verify(self, engine: str = "auto") -> list[str]:
        """Replay every event in commit order and compare every stored number to the
        replay's. Returns the differences.

        ``engine`` "compiled": the compiled replay (:meth:`verify_compiled`), for a
        ledger whose players' events all come before each one's first game (its
        annulments replayed in place); "reference": the in-memory engine, event by
        event; "auto" (the default): compiled when the ledger allows it. A ledger that rates periods
        (``fide``) re-rates its closed periods (:meth:`Periods.verify
        <chessrate.ledger.periods.Periods.verify>`)."""
        if not self.ledger.info.rates_games:
            return self.ledger.periods.verify()[0]
        if engine != "reference" and self.compiled_verifiable():
            return self.verify_compiled()
        if engine == "compiled":
            raise InvalidInput(
                "the compiled verify needs every player's events before the player's first "
                "game (use the reference replay)"
            )
        return self._verify_reference()

    def compiled_verifiable(self) -> bool:
        """Whether the compiled replay can replay this ledger: a system with a compiled
        half, games, and every player's events before the player's first game (each
        game then rated against its players' final attributes: players created by a
        later import come after the ledger's first games, but before their own).
        Annulments (site S10) are replayed at their places among the games."""
        if self.ledger.info.compiled is None:
            return False
        with self.ledger.reading() as conn:
            first_game = conn.execute(select(func.min(rows_games.c.seq))).scalar()
            if first_game is None:
                return False
            if not self.ledger.info.annulments:  # none can be replayed (a foreign event)
                annulled = select(events.c.seq).where(events.c.kind == "annulment")
                if conn.execute(annulled.limit(1)).first() is not None:
                    return False
            late = conn.execute(
                select(events.c.seq).where(events.c.kind == "player", events.c.seq > first_game)
                .limit(1)
            ).first()  # fmt: skip
            if late is None:
                return True
            as_white = (
                select(func.min(rows_games.c.seq))
                .where(rows_games.c.white == players.c.key)
                .scalar_subquery()
            )
            as_black = (
                select(func.min(rows_games.c.seq))
                .where(rows_games.c.black == players.c.key)
                .scalar_subquery()
            )
            after_a_game = (
                select(events.c.seq)
                .select_from(events.join(players, players.c.id == events.c.ref))
                .where(
                    events.c.kind == "player",
                    events.c.seq > first_game,
                    or_(events.c.seq > as_white, events.c.seq > as_black),
                )
            )
            return conn.execute(after_a_game.limit(1)).first() is None

    def verify_compiled(self) -> list[str]:
        """:meth:`verify` through the compiled replay: the stored games as a batch, their
        emitted decisions and changes compared with the stored ones column by column,
        the current ratings with the states the last changes give."""
        from ..fast import Annul, replay
        from ..fast.rows import NULL, RowChunk

        system = self.ledger.system
        stored = read_stored(self.ledger)
        people_rows, stored_games, stored_changes = stored.people, stored.games, stored.changes
        stored_ratings, seeded, annulled = stored.ratings, stored.seeded, stored.annulled
        people = {r[1]: codec.player_from_json(r[2]) for r in people_rows}
        keys = np.array([r[0] for r in people_rows], np.int64)
        names = [r[1] for r in people_rows]
        batch = _games_batch(stored_games, keys, names)
        seq_of_row = np.asarray(stored_games["seq"], np.int64)
        tracker = Tracker(system, names, people)
        decided: list[tuple[Any, Any, Any]] = []
        emitted = _ChangeCheck(stored_changes)

        def on_rows(chunk: RowChunk) -> None:
            decided.append((chunk.rows.copy(), chunk.outcome.copy(), chunk.reason.copy()))
            change_seq = seq_of_row[chunk.rows[chunk.game]]
            tracker.remember(chunk, change_seq, NULL)
            columns = [change_seq, chunk.slot, keys[chunk.player], chunk.pool]
            columns += [keys[chunk.opponent] if n == "opponent" else chunk.column(n)
                        for n in CHANGE_READ[4:-1]]  # fmt: skip
            columns.append(np.full(chunk.changes, NULL, np.int64))  # game: the event's own
            emitted.check(columns)

        problems: list[str] = []
        # site S10: each annulment at its place among the games (after the games
        # committed before it), as the reference replay applies it
        wanted = [
            Annul(ref, info["reason"], as_utc(at), info["by"],
                  after=int(np.searchsorted(seq_of_row, seq)))
            for seq, ref, payload, at in annulled
            for info in [json.loads(payload)]
        ]  # fmt: skip
        try:
            result = replay(
                system, batch, list(people.values()), annulments=wanted, in_order=True,
                on_rows=on_rows,
            )  # fmt: skip
        except InvalidRecord as error:
            return [f"{error.where}: the replay refuses the stored game ({error.reason})"]
        ids = stored_games["id"]
        annulment_labels: dict[int, str] = {}
        code_of_key = {int(key): code for code, key in enumerate(keys.tolist())}
        key_of = {name: int(key) for name, key in zip(names, keys.tolist(), strict=True)}
        row_of_id = rows_of(ids, [ref for _seq, ref, _payload, _at in annulled])
        for (seq, ref, _payload, _at), annulment in zip(annulled, wanted, strict=True):
            annulment_labels[seq] = f"annulment {ref}"
            made = result.annulments[annulment.game_id].changes
            for slot, change in enumerate(made):
                made_row = {**rows.change_row(system, change, slot, key_of.__getitem__),
                            "seq": seq, "game": int(seq_of_row[row_of_id[ref]])}  # fmt: skip
                values = [NULL if made_row[n] is None else int(made_row[n]) for n in CHANGE_READ]
                emitted.check([np.array([value], np.int64) for value in values])
                player_code = code_of_key[made_row["player"]]
                tracker.remember_one(player_code, made_row["pool"], made_row, seq, NULL)
        problems += _compare_decisions(decided, stored_games, ids)

        def label(seq: int) -> str:  # only asked for an event whose changes differ
            if seq in annulment_labels:
                return annulment_labels[seq]
            row = int(np.searchsorted(seq_of_row, seq))
            if row < len(ids) and int(seq_of_row[row]) == seq:
                return f"game {ids[row]}"
            return f"event {seq}"

        problems += emitted.problems(label)
        fast = site_rating_rows(tracker, NULL) if isinstance(system, SiteSystem) else None
        if fast is not None:  # the moved ratings as rows, compared column by column
            moved = set()
            for player_id, pool, _seq, *values in fast:
                moved.add((player_id, pool))
                row = stored_ratings.pop((player_id, pool), None)
                if row is None:
                    problems.append(f"{player_id} {pool}: missing from the ledger")
                    continue
                if tuple(values) != row:
                    problems += _differences(f"{player_id} {pool}", row, values)
            seeded = {p: seq for p, seq in seeded.items() if people[p].imported}
            states = {
                key: found
                for key, found in Tracker(system, names, people).states(NULL, seeded).items()
                if key not in moved
            }
        else:
            states = tracker.states(NULL, seeded)
        for key, (state, _seq) in states.items():
            row = stored_ratings.pop(key, None)
            if row is None:
                problems.append(f"{key[0]} {key[1]}: missing from the ledger")
                continue
            problems += self._compare_row(people[key[0]], key[1], state, row)
        for player_id, pool in stored_ratings:
            problems.append(f"{player_id} {pool}: in the ledger, not moved by the replay")
        return problems

    def _verify_reference(self) -> list[str]:
        """:meth:`verify` through the in-memory engine, event by event."""
        replay: ReplayEngine[Any] = ReplayEngine(self.ledger.system)
        problems: list[str] = []
        with self.ledger.reading() as conn:
            names = dict(conn.execute(select(players.c.key, players.c.id)).all())
        stored_changes = self._changes_by_seq(names)
        pending = next(stored_changes, None)
        for seq, kind, ref, data, at in self.ledger.games.events():
            mine: list[Change] | Exception = []
            while pending is not None and pending[0] < seq:
                problems.append(f"event {pending[0]}: changes stored without an event")
                pending = next(stored_changes, None)
            if pending is not None and pending[0] == seq:
                mine = pending[1]
                pending = next(stored_changes, None)
            if kind == "player":
                replay.set_player(
                    Player.from_mapping(json.loads(data), f"event {seq}", stored=True)
                )
                continue
            if kind == "game":
                try:
                    record = rows.record_from_row(data._mapping, names.__getitem__)
                except (ValueError, KeyError, IndexError) as error:
                    problems.append(f"game {ref}: the stored game cannot be read ({error!r})")
                    continue
                rating = replay.apply(record)
                outcome = rows.OUTCOMES[data.outcome]
                if outcome is not rating.outcome:
                    problems.append(
                        f"game {ref}: outcome {outcome.value}, replay {rating.outcome.value}"
                    )
                if data.reason != rating.reason_code:
                    problems.append(
                        f"game {ref}: reason code {data.reason}, replay {rating.reason_code}"
                    )
                expected: tuple[Change, ...] = rating.changes
            else:
                info = json.loads(data)
                expected = replay.annul(ref, info["reason"], at, info["by"]).changes
            if isinstance(mine, Exception):
                problems.append(f"{kind} {ref}: a stored change cannot be read ({mine!r})")
            elif tuple(mine) != expected:
                problems.append(f"{kind} {ref}: stored changes differ from the replay")
        if pending is not None:
            problems.append(f"event {pending[0]}: changes stored without an event")
        with self.ledger.reading() as conn:
            stored_rows = stored_ratings(conn)
        for (player_id, pool), state in replay.states.items():
            row = stored_rows.pop((player_id, pool), None)
            if row is None:
                problems.append(f"{player_id} {pool}: missing from the ledger")
                continue
            problems += self._compare_row(replay.player(player_id), pool, state, row)
        for (player_id, pool), row in stored_rows.items():
            # A rating seeded from an import, not moved by any game yet.
            state = replay.state(player_id, pool)
            problems += self._compare_row(replay.player(player_id), pool, state, row)
        return problems

    def _changes_by_seq(
        self, names: dict[int, str]
    ) -> Iterator[tuple[int, list[Change] | Exception]]:
        """Every stored change, grouped by event, in commit order (the error instead
        of an event's changes when one of them cannot be read)."""
        system = self.ledger.system
        with self.ledger.reading() as conn:
            game_ids = dict(conn.execute(select(rows_games.c.seq, rows_games.c.id)).all())
            found = conn.execute(select(changes).order_by(changes.c.seq, changes.c.slot))
            for seq, grouped in groupby(found, key=lambda r: r.seq):
                group = list(grouped)
                try:
                    if [r.slot for r in group] != list(range(len(group))):
                        raise ValueError(f"slots {[r.slot for r in group]}")
                    yield seq, [
                        rows.change_from_row(
                            system, r._mapping, names.__getitem__,
                            game_ids.get(r.game if r.game is not None else seq, "?"),
                        )
                        for r in group
                    ]  # fmt: skip
                except (ValueError, KeyError, IndexError, ArithmeticError) as error:
                    yield seq, error

    def _compare_row(
        self, player: Player, pool: str, state: Any, row: tuple[Any, ...]
    ) -> list[str]:
        """Every column of a stored rating (:func:`stored_ratings`) against the
        replay's, to the hundredth."""
        expected = common.rating_row(self.ledger, player, pool, state)
        return _differences(f"{player.id} {pool}", row, [expected[n] for n in RATING_COLUMNS])


def _differences(whose: str, stored: Sequence[Any], made: Sequence[Any]) -> list[str]:
    """A line for each of :data:`RATING_COLUMNS` where the stored value is not the
    replay's."""
    return [
        f"{whose}: {name} is {was!r} in the ledger, {value!r} by the replay"
        for name, was, value in zip(RATING_COLUMNS, stored, made, strict=True)
        if was != value
    ]


class _GameNames(Sequence[str]):
    """``game ID`` of each row, made when an error asks for one (not for every game)."""

    def __init__(self, ids: Sequence[str]) -> None:
        self.ids = ids

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [f"game {game_id}" for game_id in self.ids[index]]
        return f"game {self.ids[index]}"


def _games_batch(stored: Columns, keys: Any, names: list[str]) -> Any:
    """The stored games as the compiled replay's batch (in commit order)."""
    from ..fast import batch as fields
    from ..timecontrol import parse_time_control

    count = len(stored)
    column = stored.columns
    distinct, inverse = stored.controls()
    controls = [None if t is None else parse_time_control(t) for t in distinct]
    tc = np.array([fields.time_control_codes(c) for c in controls], np.int64).reshape(-1, 4)
    results = np.array([fields.RESULTS.index(r) for r in rows.RESULTS])
    terminations = np.array([fields.TERMINATIONS.index(t) for t in rows.TERMINATIONS])
    venues = np.array([fields.ONLINE if v.value == "online" else fields.OTB for v in rows.VENUES])
    if isinstance(column["plies"], np.ndarray):  # read as Arrow: -1 for NULL
        plies = np.where(column["plies"] < 0, fields.NO_PLIES, column["plies"]).astype(np.int32)
        given = column["confirmed"]
        confirmed = np.where(given < 0, fields.NOT_GIVEN, given).astype(np.int8)
    else:
        plies = np.array([fields.NO_PLIES if p is None else p for p in column["plies"]], np.int32)
        confirmed = np.array(
            [fields.NOT_GIVEN if c is None else int(c) for c in column["confirmed"]], np.int8
        )
    return fields.GameBatch(
        game=np.arange(count, dtype=np.int64),
        game_ids=column["id"],
        white=np.searchsorted(keys, np.array(column["white"], np.int64)).astype(np.int32),
        black=np.searchsorted(keys, np.array(column["black"], np.int64)).astype(np.int32),
        player_ids=names,
        played_at=np.array(column["played_at"], np.int64),
        result=results[np.array(column["result"], np.int64)].astype(np.int8),
        rated=np.array(column["rated"], np.bool_).reshape(count),
        tc_kind=tc[inverse, 0].astype(np.int8),
        tc_base=tc[inverse, 1],
        tc_increment=tc[inverse, 2],
        tc_days=tc[inverse, 3],
        termination=terminations[np.array(column["termination"], np.int64)].astype(np.int8),
        plies=plies,
        venue=venues[np.array(column["venue"], np.int64)].astype(np.int8),
        confirmed=confirmed,
        source="ledger",
        sources=_GameNames(column["id"]),
    )


def _compare_decisions(decided: list[Any], stored: Columns, ids: Sequence[str]) -> list[str]:
    """Each stored game's outcome and reason code against the replay's."""
    problems: list[str] = []
    if not decided:
        return [f"game {ids[0]}: not replayed"] if ids else []
    at = np.concatenate([d[0] for d in decided])
    outcome = np.concatenate([d[1] for d in decided]).astype(np.int64)
    reason = np.concatenate([d[2] for d in decided]).astype(np.int64)
    if at.shape[0] != len(stored) or not np.array_equal(at, np.arange(len(stored))):
        kept = set(at.tolist())
        problems += [f"game {ids[i]}: not replayed" for i in range(len(ids)) if i not in kept]
        return problems
    stored_outcome = np.array(stored["outcome"], np.int64)
    stored_reason = np.array(stored["reason"], np.int64)
    for i in np.flatnonzero(stored_outcome != outcome).tolist():
        problems.append(
            f"game {ids[i]}: outcome {rows.OUTCOMES[stored_outcome[i]].value}, "
            f"replay {rows.OUTCOMES[outcome[i]].value}"
        )
    for i in np.flatnonzero(stored_reason != reason).tolist():
        problems.append(f"game {ids[i]}: reason code {stored_reason[i]}, replay {reason[i]}")
    return problems


def _seq_slot_index(seq: Any, slot: Any) -> tuple[int, Any, Any, Any] | None:
    """Where each (seq, slot) is among change rows: (the lowest seq, each seq's first
    place and its number of changes, the rows in (seq, slot) order), when every event's
    changes have the slots 0, 1, … once each (a counting sort: a row's place is its
    event's first place plus its slot); None when not (a damaged ledger)."""
    count = seq.shape[0]
    if count == 0:
        return None
    low, high = int(seq.min()), int(seq.max())
    span = high - low + 1
    if span > 4 * count + 1024 or int(slot.min()) < 0:
        return None
    offset = seq - low
    counts = np.bincount(offset, minlength=span)
    if not bool((slot < counts[offset]).all()):
        return None
    start = np.cumsum(counts) - counts
    order = np.full(count, -1, np.int64)
    order[start[offset] + slot] = np.arange(count, dtype=np.int64)
    if not bool((order >= 0).all()):  # a (seq, slot) twice
        return None
    return low, start, counts, order


def _seq_slot_order(seq: Any, slot: Any) -> Any:
    """The order of change rows by (seq, slot)."""
    index = _seq_slot_index(seq, slot)
    return np.lexsort((slot, seq)) if index is None else index[3]


class _ChangeCheck:
    """The stored changes (:data:`CHANGE_READ`'s columns, one array each, in any row
    order) against the replay's, a part at a time as the replay emits them: each
    emitted change is found among the stored ones by its (seq, slot) and compared
    column by column, and no copy of all the replay's changes is made. A difference
    is reported once per event (a change more or fewer, or a column's number)."""

    def __init__(self, stored: Sequence[Any]) -> None:
        self.stored = stored
        self.index = _seq_slot_index(stored[0], stored[1])
        self.seen = np.zeros(stored[0].shape[0], np.int32)
        self.differing: set[int] = set()
        self.parts: list[Sequence[Any]] = []
        """Only for a ledger whose stored changes are not indexed by (seq, slot): the
        replay's changes, compared as a whole at the end."""

    def check(self, columns: Sequence[Any]) -> None:
        """A part of the replay's changes (the columns, as many rows in each)."""
        if self.index is None:
            self.parts.append([np.asarray(column, np.int64) for column in columns])
            return
        low, start, counts, order = self.index
        seq, slot = np.asarray(columns[0], np.int64), np.asarray(columns[1], np.int64)
        offset = seq - low
        inside = (offset >= 0) & (offset < counts.shape[0])
        inside &= slot >= 0
        inside[inside] &= slot[inside] < counts[offset[inside]]
        every = bool(inside.all())
        rows = order[start[offset] + slot] if every else order[start[offset[inside]] + slot[inside]]
        unequal = np.zeros(rows.shape[0], np.bool_)
        for stored, column in zip(self.stored, columns, strict=True):
            unequal |= stored[rows] != (column if every else np.asarray(column)[inside])
        np.add.at(self.seen, rows, 1)
        if not every:
            self.differing.update(seq[~inside].tolist())
        if bool(unequal.any()):
            self.differing.update(np.asarray(self.stored[0][rows[unequal]]).tolist())

    def problems(self, label: Callable[[int], str]) -> list[str]:
        """A line for each event whose changes differ (``label`` names an event by its
        seq)."""
        if self.index is None:
            parts = [np.stack(part, axis=1) for part in self.parts]
            width = len(self.stored)
            expected = np.concatenate(parts) if parts else np.zeros((0, width), np.int64)
            return _changes_differing(expected, np.stack(self.stored, axis=1), label)
        differing = self.differing | set(self.stored[0][self.seen != 1].tolist())
        return [f"{label(seq)}: stored changes differ from the replay" for seq in sorted(differing)]


def _changes_differing(expected: Any, stored: Any, label: Callable[[int], str]) -> list[str]:
    """The events whose changes differ (rows of :data:`CHANGE_READ` columns): a change
    more or fewer, or a column's number."""
    expected = expected[_seq_slot_order(expected[:, 0], expected[:, 1])]
    stored = stored[_seq_slot_order(stored[:, 0], stored[:, 1])]
    mine, counts = np.unique(expected[:, 0], return_counts=True)
    theirs, their_counts = np.unique(stored[:, 0], return_counts=True)
    seqs = set(mine.tolist()) ^ set(theirs.tolist())
    both = np.intersect1d(mine, theirs)
    unequal = counts[np.searchsorted(mine, both)] != their_counts[np.searchsorted(theirs, both)]
    seqs |= set(both[unequal].tolist())
    # the events with as many changes on both sides: compared column by column
    same = both[~unequal]
    expected = expected[np.isin(expected[:, 0], same)]
    stored = stored[np.isin(stored[:, 0], same)]
    bad = np.flatnonzero((expected != stored).any(axis=1))
    seqs |= set(expected[bad, 0].tolist())
    return [f"{label(seq)}: stored changes differ from the replay" for seq in sorted(seqs)]
