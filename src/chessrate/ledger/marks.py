"""Marks: a moderator marks a player whose cheating is confirmed, and may lift the mark.

A marked player is paired only with other marked players (the pairing pass asks
:meth:`Marks.marked_in`), as Lichess pairs flagged accounts apart: they may go on
playing, but not against players who play fair. A mark names who made it, when and
why; lifting it names the same, and the row is kept (a player's marks are their
history). Marking and lifting write their audit row (:mod:`.audit`, target ``player
ID``) in the same transaction, and lock the player's row first, as a seek's creation
does. A player has at most one mark in force (a partial unique index). The ledger's
part ``ledger.marks`` is :class:`Marks`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..errors import Conflict, InvalidRecord, NotFound
from ..identifiers import text_problem
from . import audit, common
from .connection import as_utc
from .schema import player_marks

if TYPE_CHECKING:
    from .store import Ledger

MAX_REASON = 2000
"""The most characters of a mark's reason (as a review's reason)."""
MAX_WHO = 200


@dataclass(frozen=True, slots=True)
class MarkView:
    """One mark: in force while ``lifted_at`` is None."""

    id: int
    player_id: str
    marked_by: str
    marked_at: datetime
    reason: str
    lifted_by: str | None = None
    lifted_at: datetime | None = None
    lift_reason: str | None = None

    @property
    def in_force(self) -> bool:
        return self.lifted_at is None


def audit_target(player_id: str) -> str:
    """The audit log's name for a player's marks (``player ID``)."""
    return f"player {player_id}"


def _text(value: str, field: str, where: str, limit: int) -> str:
    """Free text a mark stores: required, at most ``limit`` characters, no control
    characters but tab and line breaks (nor what no database stores)."""
    if not isinstance(value, str):
        raise InvalidRecord(where, field, "must be a string")
    text = value.strip()
    if not text:
        raise InvalidRecord(where, field, "is required")
    if len(text) > limit:
        raise InvalidRecord(where, field, f"is longer than {limit} characters")
    refused = text_problem(text)
    if refused is not None:
        raise InvalidRecord(where, field, refused)
    for char in text:
        if char not in "\t\n\r" and unicodedata.category(char) == "Cc":
            raise InvalidRecord(
                where, field, f"must not contain the control character U+{ord(char):04X}"
            )
    return text


class Marks:
    """A ledger's player marks (``ledger.marks``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def mark(self, player_id: str, reason: str, by: str, now: datetime) -> MarkView:
        """Mark the player (``by``: the moderator); 404 for an unknown player, 409 when
        the player is marked already (naming since when and by whom)."""
        where = f"player {player_id}"
        reason = _text(reason, "reason", where, MAX_REASON)
        by = _text(by, "by", where, MAX_WHO)
        try:
            with self.ledger.transaction() as conn:
                self._locked_player(conn, player_id)
                current = self._in_force(conn, player_id)
                if current is not None:
                    raise Conflict(
                        f"{where}: marked already, since {current.marked_at.isoformat()} "
                        f"by {current.marked_by}: lift that mark first"
                    )
                mark_id = conn.execute(
                    insert(player_marks)
                    .values(player_id=player_id, marked_by=by, marked_at=now, reason=reason)
                    .returning(player_marks.c.id)
                ).scalar_one()
                audit.record(conn, now, by, "mark", audit_target(player_id), reason)
                return self._get(conn, int(mark_id))
        except IntegrityError:
            # Another worker marked the player meanwhile (the partial unique index).
            raise Conflict(f"{where}: marked already") from None

    def unmark(self, player_id: str, reason: str, by: str, now: datetime) -> MarkView:
        """Lift the player's mark (``by``: the moderator); 404 for an unknown player,
        409 when the player is not marked."""
        where = f"player {player_id}"
        reason = _text(reason, "reason", where, MAX_REASON)
        by = _text(by, "by", where, MAX_WHO)
        with self.ledger.transaction() as conn:
            self._locked_player(conn, player_id)
            current = self._in_force(conn, player_id)
            if current is None:
                raise Conflict(f"{where}: not marked: nothing to lift")
            conn.execute(
                update(player_marks)
                .where(player_marks.c.id == current.id)
                .values(lifted_by=by, lifted_at=now, lift_reason=reason)
            )
            audit.record(conn, now, by, "unmark", audit_target(player_id), reason)
            return self._get(conn, current.id)

    def current(self, player_id: str) -> MarkView | None:
        """The player's mark in force, or None (an unknown player: None too)."""
        with self.ledger.reading() as conn:
            return self._in_force(conn, player_id)

    def history(self, player_id: str) -> list[MarkView]:
        """Every mark of the player, newest first (404 for an unknown player)."""
        with self.ledger.reading() as conn:
            if not common.player_keys(conn, (player_id,)):
                raise NotFound(f"player {player_id}: no such player")
            rows = conn.execute(
                select(player_marks)
                .where(player_marks.c.player_id == player_id)
                .order_by(player_marks.c.id.desc())
            ).all()
        return [_view(row) for row in rows]

    def marked(self, player_ids: Iterable[str]) -> dict[str, datetime]:
        """The players among ``player_ids`` marked now, with when they were marked."""
        wanted = sorted(set(player_ids))
        if not wanted:
            return {}
        with self.ledger.reading() as conn:
            rows = conn.execute(
                select(player_marks.c.player_id, player_marks.c.marked_at)
                .where(player_marks.c.player_id.in_(wanted))
                .where(player_marks.c.lifted_at.is_(None))
            ).all()
        return {row.player_id: as_utc(row.marked_at) for row in rows}

    @staticmethod
    def _locked_player(conn: Connection, player_id: str) -> None:
        if player_id not in common.load_players(conn, (player_id,), lock=True):
            raise NotFound(f"player {player_id}: no such player")

    @staticmethod
    def _in_force(conn: Connection, player_id: str) -> MarkView | None:
        row = conn.execute(
            select(player_marks)
            .where(player_marks.c.player_id == player_id)
            .where(player_marks.c.lifted_at.is_(None))
        ).first()
        return None if row is None else _view(row)

    @staticmethod
    def _get(conn: Connection, mark_id: int) -> MarkView:
        return _view(conn.execute(select(player_marks).where(player_marks.c.id == mark_id)).one())


def marked_in(conn: Connection, player_ids: Iterable[str]) -> set[str]:
    """The players among ``player_ids`` with a mark in force, inside the caller's
    transaction (the pairing pass's)."""
    wanted = sorted(set(player_ids))
    if not wanted:
        return set()
    found = conn.execute(
        select(player_marks.c.player_id)
        .where(player_marks.c.player_id.in_(wanted))
        .where(player_marks.c.lifted_at.is_(None))
    ).scalars()
    return set(found)


def _view(row: Any) -> MarkView:
    return MarkView(
        id=int(row.id), player_id=row.player_id, marked_by=row.marked_by,
        marked_at=as_utc(row.marked_at), reason=row.reason, lifted_by=row.lifted_by,
        lifted_at=None if row.lifted_at is None else as_utc(row.lifted_at),
        lift_reason=row.lift_reason,
    )  # fmt: skip
