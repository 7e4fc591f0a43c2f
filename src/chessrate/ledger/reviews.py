"""Fair play: reports, review cases and the moderators' decisions.

A finished rated game that is reported gets ONE review case (``open``, ``confirmed``,
``dismissed``) gathering every report; a reporter (``by``: a player id, or a
detector's name) files at most one report per game, so a detector that runs again
files nothing new (:meth:`Reviews.file_report` answers the stored report).
Confirming a case annuls the game through site S10 (:meth:`Annulments.annul_in
<chessrate.ledger.annulments.Annulments.annul_in>`, as ``POST /games/{id}/annul``
does) in the same transaction as the case's update;
dismissing leaves the ratings alone; a dismissed case can be reopened (and a new
report reopens it). Every action writes its audit row (:mod:`.audit`) in its own
transaction. Each action first locks the game's two players (PostgreSQL; SQLite holds
the database from ``BEGIN IMMEDIATE``), as an annulment does, so reports, decisions
and annulments of one game are serialized.

A report may name the player it accuses (``accused``: one of the game's two players; a
player reporting a game they played accuses their opponent unless told otherwise) and
keeps the API token it was filed through (``token_id``). Separation of duties: a
player cannot report themselves (a report whose reporter is its accused is refused),
a bot cannot report, and a moderator cannot confirm (nor annul) a game whose case
holds a report of theirs (:func:`duty_problem`): filed through their token, through
another token with their label (a token's label says whose it is), or by their name.

The queue (:meth:`Reviews.list`) is ordered by the number of reports, most
first, then by the case's oldest report, oldest first, then by game id. The
ledger's part ``ledger.reviews`` is :class:`Reviews`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..errors import Conflict, Forbidden, InvalidInput, InvalidRecord, NotFound
from ..identifiers import text_problem
from ..records import Outcome
from . import audit, common, rows
from .connection import as_utc
from .schema import live_games, players, reports, reviews, tokens
from .views import AnnulmentView

if TYPE_CHECKING:
    from .store import Ledger


class ReviewStatus(StrEnum):
    """Where a game's review case is."""

    OPEN = "open"
    CONFIRMED = "confirmed"
    DISMISSED = "dismissed"


class ReportSource(StrEnum):
    """Who filed a report: a player (through a writer), or the detector."""

    PLAYER = "player"
    DETECTOR = "detector"


STATUSES = tuple(s.value for s in ReviewStatus)
SOURCES = tuple(s.value for s in ReportSource)
MAX_REASON = 2000
MAX_EVIDENCE = 65_536
"""The most characters of a report's evidence as JSON."""


@dataclass(frozen=True, slots=True)
class ReportView:
    id: int
    game_id: str
    by: str
    source: str
    reason: str
    evidence: dict[str, Any] | None
    at: datetime
    accused: str | None = None
    """The player the report accuses (one of the game's two), None: not named."""
    token_id: int | None = None
    """The API token the report was filed through (None: given to the ledger)."""


@dataclass(frozen=True, slots=True)
class ReviewView:
    game_id: str
    status: str
    opened_at: datetime
    updated_at: datetime
    decided_by: str | None
    decided_at: datetime | None
    note: str | None
    reports: tuple[ReportView, ...]

    @property
    def report_count(self) -> int:
        return len(self.reports)

    @property
    def first_reported_at(self) -> datetime:
        return min(r.at for r in self.reports) if self.reports else self.opened_at


def reason_problem(value: str, limit: int = MAX_REASON) -> str | None:
    """What is wrong with a reason or a note (None: nothing): empty, a character the
    ledger refuses, too long."""
    text = (value or "").strip()
    if not text:
        return "is required"
    refused = text_problem(text)
    if refused is not None:
        return refused
    return f"is longer than {limit} characters" if len(text) > limit else None


def _text(value: str, field: str, where: str, limit: int = MAX_REASON) -> str:
    text = (value or "").strip()
    if not text:
        raise InvalidRecord(where, field, "is required")
    refused = text_problem(text)
    if refused is not None:
        raise InvalidRecord(where, field, refused)
    if len(text) > limit:
        raise InvalidRecord(where, field, f"is longer than {limit} characters")
    return text


class Reviews:
    """A ledger's reports and review cases (``ledger.reviews``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def file_report(
        self,
        game_id: str,
        by: str,
        reason: str,
        evidence: Mapping[str, Any] | None,
        source: str,
        now: datetime,
        *,
        via: str | None = None,
        accused: str | None = None,
        token_id: int | None = None,
        conn: Connection | None = None,
    ) -> tuple[ReportView, bool]:
        """Report a finished rated game: ``by`` a player (``source`` "player": a known
        player id) or a detector (``source`` "detector": its name, ``evidence`` its
        JSON-able findings), accusing ``accused`` (one of the game's players; None: a
        player of the game accuses their opponent, anyone else names nobody).
        Idempotent per (game, ``by``): a second report by the same reporter answers the
        stored one, ``created`` False, and changes nothing. A new report on a dismissed
        case reopens it. ``via`` (the writer token's label) goes to the audit row,
        ``token_id`` (the token's id) with the report. Refused: an unknown game (404), a
        game still being played or already annulled (409), an unrated or void game or
        an ``accused`` who did not play it (422), a player reporting themselves or a
        bot reporting (403). ``conn``: in that transaction (the detector's, which stores
        the game's analysis with its reports), else in one of its own."""
        where = f"game {game_id}"
        by = _text(by, "by", where, 200)
        reason = _text(reason, "reason", where)
        if accused is not None:
            accused = _text(accused, "accused", where, 200)
        if source not in SOURCES:
            raise InvalidRecord(where, "source", f"is {source!r}: one of {', '.join(SOURCES)}")
        evidence_text = None
        if evidence is not None:
            try:
                evidence_text = json.dumps(dict(evidence), sort_keys=True, allow_nan=False)
            except (TypeError, ValueError) as error:
                raise InvalidRecord(where, "evidence", f"is not JSON: {error}") from None
            if len(evidence_text) > MAX_EVIDENCE:
                raise InvalidRecord(where, "evidence", f"is over {MAX_EVIDENCE} characters")
        if conn is not None:
            return self._file_report(
                conn, game_id, by, reason, evidence_text, source, now, via, accused, token_id
            )
        for attempt in (1, 2):
            try:
                with self.ledger.transaction() as conn:
                    return self._file_report(
                        conn, game_id, by, reason, evidence_text, source, now, via, accused,
                        token_id,
                    )  # fmt: skip
            except IntegrityError:
                # Another worker filed this (game, by) or opened the case meanwhile:
                # the second attempt sees it.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _file_report(
        self,
        conn: Connection,
        game_id: str,
        by: str,
        reason: str,
        evidence: str | None,
        source: str,
        now: datetime,
        via: str | None,
        accused: str | None,
        token_id: int | None,
    ) -> tuple[ReportView, bool]:
        row = self._locked_game(conn, game_id)
        where = f"game {game_id}"
        namer = common.namer(conn, row)
        white, black = namer(row.white), namer(row.black)
        if accused is not None and accused not in (white, black):
            raise InvalidRecord(
                where, "accused", f"{accused!r} did not play this game: {white!r} or {black!r}"
            )
        existing = conn.execute(
            select(reports).where(reports.c.game_id == game_id, reports.c.by == by)
        ).first()
        if existing is not None:
            return _report(existing), False
        if source == "player":
            bot = conn.execute(select(players.c.bot).where(players.c.id == by)).first()
            if bot is None:
                raise InvalidRecord(where, "by", f"unknown player {by!r}")
            if bot.bot:
                raise Forbidden(f"{where}: by: {by!r} is a bot: a bot cannot report games")
            if accused is None and by in (white, black):
                accused = black if by == white else white
        if accused is not None and accused == by:
            raise Forbidden(
                f"{where}: accused: {by!r} cannot report themselves (the reporter is the accused)"
            )
        if row.annulled:
            raise Conflict(f"game {game_id}: already annulled (site S10): nothing to review")
        outcome = rows.OUTCOMES[row.outcome]
        if outcome is not Outcome.RATED:
            raise InvalidRecord(
                where, "id", f"the game is {outcome.value}: only rated games are reviewed"
            )
        case = conn.execute(select(reviews).where(reviews.c.game_id == game_id)).first()
        if case is None:
            conn.execute(
                insert(reviews).values(game_id=game_id, status="open", opened_at=now,
                                       updated_at=now)
            )  # fmt: skip
        elif case.status == "dismissed":
            conn.execute(
                update(reviews).where(reviews.c.game_id == game_id)
                .values(status="open", updated_at=now)
            )  # fmt: skip
            audit.record(
                conn, now, by, "reopen", game_id, "a new report reopened the dismissed case"
            )
        report_id = conn.execute(
            insert(reports)
            .values(game_id=game_id, by=by, source=source, reason=reason, evidence=evidence,
                    at=now, accused=accused, token_id=token_id)
            .returning(reports.c.id)
        ).scalar_one()  # fmt: skip
        details = f"{source} report: {reason}" + (f" (accused: {accused})" if accused else "")
        details += f" (via token {via!r})" if via else ""
        audit.record(conn, now, by, "report", game_id, details)
        stored = conn.execute(select(reports).where(reports.c.id == report_id)).one()
        return _report(stored), True

    def _locked_game(self, conn: Connection, game_id: str) -> Any:
        """The game's row, its two players locked (id order); a game not (yet) in the
        ledger: 409 when it is a live game still being played, else 404."""
        row = common.game_row(conn, game_id)
        if row is None:
            live = conn.execute(
                select(live_games.c.status).where(live_games.c.id == game_id)
            ).scalar()
            if live is not None:
                raise Conflict(f"game {game_id}: not finished ({live}): report it once it ends")
            raise NotFound(f"game {game_id}: no such game")
        namer = common.namer(conn, row)
        common.load_players(conn, (namer(row.white), namer(row.black)), lock=True)
        return common.game_row(conn, game_id)

    def _locked_case(self, conn: Connection, game_id: str) -> Any:
        self._locked_game(conn, game_id)
        case = conn.execute(
            select(reviews).where(reviews.c.game_id == game_id).with_for_update()
        ).first()
        if case is None:
            raise NotFound(f"game {game_id}: no review case (nobody reported it)")
        return case

    def confirm(
        self, game_id: str, reason: str, by: str, now: datetime, *, token_id: int | None = None
    ) -> tuple[ReviewView, AnnulmentView]:
        """Confirm an open case: the game is annulled (site S10, as ``annul`` does, with
        ``by`` and ``reason``) and the case closed, in one transaction. A case confirmed
        already, or a game annulled already: 409; a dismissed case: 409 (reopen it); a
        moderator (``by``, the token ``token_id``) who reported the game: 403
        (:func:`duty_problem`)."""
        reason = _text(reason, "reason", f"game {game_id}")
        with self.ledger.transaction() as conn:
            case = self._locked_case(conn, game_id)
            if case.status == "confirmed":
                raise Conflict(f"game {game_id}: the case is confirmed already (annulled)")
            if case.status == "dismissed":
                raise Conflict(f"game {game_id}: the case was dismissed: reopen it first")
            problem = duty_problem(conn, game_id, by, token_id)
            if problem is not None:
                raise Forbidden(problem)
            annulment = self.ledger.annulments.annul_in(conn, game_id, reason, by, now)
            conn.execute(
                update(reviews).where(reviews.c.game_id == game_id)
                .values(status="confirmed", decided_by=by, decided_at=now, note=reason,
                        updated_at=now)
            )  # fmt: skip
            audit.record(conn, now, by, "confirm", game_id, reason)
        return self.get(game_id), annulment

    def dismiss(self, game_id: str, note: str, by: str, now: datetime) -> ReviewView:
        """Dismiss an open case (the ratings stay as they are)."""
        return self._decide(game_id, note, by, now, "open", "dismissed", "dismiss")

    def reopen(self, game_id: str, note: str, by: str, now: datetime) -> ReviewView:
        """Open a dismissed case again."""
        return self._decide(game_id, note, by, now, "dismissed", "open", "reopen")

    def _decide(
        self, game_id: str, note: str, by: str, now: datetime, was: str, becomes: str,
        action: str,
    ) -> ReviewView:  # fmt: skip
        note = _text(note, "note", f"game {game_id}")
        with self.ledger.transaction() as conn:
            case = self._locked_case(conn, game_id)
            if case.status != was:
                raise Conflict(
                    f"game {game_id}: the case is {case.status}: only a {was} case can be "
                    f"{'dismissed' if action == 'dismiss' else 'reopened'}"
                )
            conn.execute(
                update(reviews).where(reviews.c.game_id == game_id)
                .values(status=becomes, decided_by=by, decided_at=now, note=note,
                        updated_at=now)
            )  # fmt: skip
            audit.record(conn, now, by, action, game_id, note)
        return self.get(game_id)

    # -- reads --------------------------------------------------------------------------

    def duty(self, game_id: str, by: str, token_id: int | None) -> str | None:
        """Why the moderator ``by`` (token ``token_id``) may not confirm the game's case
        (:func:`duty_problem`), or None."""
        with self.ledger.reading() as conn:
            return duty_problem(conn, game_id, by, token_id)

    def get(self, game_id: str) -> ReviewView:
        with self.ledger.reading() as conn:
            case = conn.execute(select(reviews).where(reviews.c.game_id == game_id)).first()
            if case is None:
                raise NotFound(f"game {game_id}: no review case (nobody reported it)")
            return self._cases(conn, [case])[0]

    def _cases(self, conn: Connection, cases: Sequence[Any]) -> list[ReviewView]:
        ids = [c.game_id for c in cases]
        by_game: dict[str, list[ReportView]] = {game_id: [] for game_id in ids}
        if ids:
            found = conn.execute(
                select(reports).where(reports.c.game_id.in_(ids)).order_by(reports.c.id)
            )
            for r in found:
                by_game[r.game_id].append(_report(r))
        return [
            ReviewView(
                c.game_id,
                c.status,
                as_utc(c.opened_at),
                as_utc(c.updated_at),
                c.decided_by,
                None if c.decided_at is None else as_utc(c.decided_at),
                c.note,
                tuple(by_game[c.game_id]),
            )
            for c in cases
        ]

    def list(
        self, status: str | None = "open", offset: int = 0, limit: int = 50
    ) -> tuple[list[ReviewView], int]:
        """The cases of ``status`` (None: all), most reported first, then oldest report
        first, then by game id; ``limit`` from ``offset``, and how many there are."""
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"status {status!r}: one of {', '.join(STATUSES)}")
        count = func.count(reports.c.id)
        oldest = func.min(reports.c.at)
        query = (
            select(reviews)
            .join(reports, reports.c.game_id == reviews.c.game_id)
            .group_by(*reviews.c)
            .order_by(count.desc(), oldest.asc(), reviews.c.game_id.asc())
            .offset(offset)
            .limit(limit)
        )
        total = select(func.count()).select_from(reviews)
        if status is not None:
            query = query.where(reviews.c.status == status)
            total = total.where(reviews.c.status == status)
        with self.ledger.reading() as conn:
            found = conn.execute(query).all()
            return self._cases(conn, found), int(conn.execute(total).scalar() or 0)


def duty_problem(
    conn: Connection, game_id: str, by: str | None, token_id: int | None
) -> str | None:
    """Why the moderator named ``by`` (their token's label), holding the token
    ``token_id``, may not decide the game's case by annulling it, or None: a report on
    the game was filed through that token, through another token with the same label
    (a label says whose a token is), or by ``by`` itself (a moderator whose label is the
    reporting player's id). Someone else must confirm."""
    found = conn.execute(
        select(reports.c.id, reports.c.by, reports.c.token_id, tokens.c.label)
        .outerjoin(tokens, tokens.c.id == reports.c.token_id)
        .where(reports.c.game_id == game_id)
        .order_by(reports.c.id)
    ).all()  # fmt: skip
    who = by or f"token {token_id}"
    for r in found:
        if token_id is not None and r.token_id == token_id:
            why = f"report {r.id} (by {r.by}) was filed through your token"
        elif by and r.label is not None and r.label == by:
            why = f"report {r.id} (by {r.by}) was filed through a token of yours ({r.label!r})"
        elif by and r.by == by:
            why = f"report {r.id} is by {by!r}"
        else:
            continue
        return (
            f"game {game_id}: {who} cannot confirm this case: {why}; a moderator who did "
            "not report the game must decide it"
        )
    return None


def _report(row: Any) -> ReportView:
    evidence = None if row.evidence is None else json.loads(row.evidence)
    return ReportView(
        row.id, row.game_id, row.by, row.source, row.reason, evidence, as_utc(row.at),
        row.accused, row.token_id,
    )  # fmt: skip


__all__ = [
    "SOURCES",
    "STATUSES",
    "ReportSource",
    "ReportView",
    "ReviewStatus",
    "ReviewView",
    "Reviews",
    "duty_problem",
    "reason_problem",
]
