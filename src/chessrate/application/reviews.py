"""Fair play over the ledger: a player's report on a game, the review queue of the
reported games, the moderators' decisions on a case (confirm: the game is annulled;
dismiss; reopen), and the audit log. The API's routes
(:mod:`chessrate.service.routes.reviews`) and the moderation pages
(:mod:`chessrate.web.moderation`) call these functions; the ledger does the work
(:mod:`chessrate.ledger.reviews`, :mod:`chessrate.ledger.audit`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ..ledger import Ledger
from ..ledger.audit import AuditEntry
from ..ledger.reviews import ReportSource, ReportView, ReviewStatus, ReviewView
from .annulments import AnnulmentPublic, annulment_public
from .common import ChangePublic, Choice, PlayerRef, RequestModel, change_public
from .deps import Caller

Status = Annotated[ReviewStatus, Choice]
"""A case's status as a request names it (the queue's ``status``)."""
QUEUE_ORDER = "most reports first, then the oldest report first, then by game id"
MAX_PAGE = 200


# -- requests -----------------------------------------------------------------------------


class ReportCreate(RequestModel):
    """A player's report, sent by a writer acting for the player."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"by": "bob", "reason": "engine-like accuracy", "accused": "alice"}]
        },
    )
    by: PlayerRef = Field(min_length=1, max_length=200, description="the reporting player's id")
    reason: str = Field(min_length=1, max_length=2000)
    accused: PlayerRef | None = Field(
        default=None, min_length=1, max_length=200,
        description="the player accused: one of the game's two players (default: the "
        "reporter's opponent when the reporter played the game, else nobody named); "
        "never the reporter",
    )  # fmt: skip


class DecisionCreate(RequestModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(min_length=1, max_length=2000, description="why (kept in the audit log)")


class NoteCreate(RequestModel):
    model_config = ConfigDict(extra="forbid")
    note: str = Field(min_length=1, max_length=2000, description="why (kept in the audit log)")


# -- answers -----------------------------------------------------------------------------


class ReportPublic(BaseModel):
    id: int
    game: str
    by: str = Field(description="a player id, or the detector's name")
    by_name: str | None = Field(default=None, description="the reporting player's name")
    source: ReportSource
    reason: str
    evidence: dict[str, Any] | None = Field(description="a detector's findings (JSON)")
    at: datetime
    accused: str | None = Field(default=None, description="the accused player (None: not named)")
    accused_name: str | None = Field(default=None, description="the accused player's name")


class ReportFiled(ReportPublic):
    created: bool = Field(description="False: this reporter had reported the game already")
    status: ReviewStatus = Field(description="the game's review case, after the report")


class ReviewGamePublic(BaseModel):
    id: str
    white: str
    white_name: str | None
    black: str
    black_name: str | None
    result: str
    played_at: str
    time_control: str | None
    outcome: str
    annulled: bool
    changes: list[ChangePublic] = Field(description="the game's rating changes")


class ReviewPublic(BaseModel):
    game: ReviewGamePublic
    status: ReviewStatus
    opened_at: datetime
    updated_at: datetime
    report_count: int
    first_reported_at: datetime
    decided_by: str | None = Field(description="the last decision's moderator")
    decided_at: datetime | None
    note: str | None = Field(description="the last decision's reason or note")
    reports: list[ReportPublic]


class ReviewsPublic(BaseModel):
    status: ReviewStatus | None
    order: str = Field(description="how the queue is ordered")
    total: int
    offset: int
    limit: int
    reviews: list[ReviewPublic]


class ConfirmedPublic(BaseModel):
    review: ReviewPublic
    annulment: AnnulmentPublic


class AuditEntryPublic(BaseModel):
    id: int
    at: datetime
    who: str
    action: str
    target: str
    details: str


class AuditPublic(BaseModel):
    total: int
    offset: int
    limit: int
    entries: list[AuditEntryPublic] = Field(description="newest first")


# -- services ---------------------------------------------------------------------------


def moderator_name(ledger: Ledger, caller: Caller) -> str:
    """Who a moderator is in the ledger: the token's label, else its role."""
    return ledger.tokens.label(caller.token) or caller.role


def moderator(ledger: Ledger, caller: Caller) -> tuple[str, int | None]:
    """A moderator's name (:func:`moderator_name`) and token id."""
    token = ledger.tokens.find(caller.token)
    return (token.label if token else None) or caller.role, None if token is None else token.id


def report_public(view: ReportView, names: dict[str, str]) -> ReportPublic:
    return ReportPublic(
        id=view.id, game=view.game_id, by=view.by, by_name=names.get(view.by),
        source=ReportSource(view.source),
        reason=view.reason, evidence=view.evidence, at=view.at,
        accused=view.accused, accused_name=None if view.accused is None
        else names.get(view.accused),
    )  # fmt: skip


def file_report(
    ledger: Ledger, game_id: str, body: ReportCreate, caller: Caller, now: datetime
) -> tuple[ReportFiled, bool]:
    """A player's report (through a writer token, kept with the report); answers the
    stored report when the player had reported the game already."""
    token = ledger.tokens.find(caller.token)
    view, created = ledger.reviews.file_report(
        game_id, body.by, body.reason, None, "player", now,
        via=None if token is None else token.label, accused=body.accused,
        token_id=None if token is None else token.id,
    )  # fmt: skip
    names = ledger.players.names([view.by, *([view.accused] if view.accused else [])])
    status = ledger.reviews.get(game_id).status
    filed = ReportFiled(
        **report_public(view, names).model_dump(), created=created,
        status=ReviewStatus(status),
    )  # fmt: skip
    return filed, created


def review_public(ledger: Ledger, view: ReviewView, names: dict[str, str]) -> ReviewPublic:
    game = ledger.games.get(view.game_id)
    record = game.record.to_mapping()
    return ReviewPublic(
        game=ReviewGamePublic(
            id=game.id, white=game.record.white, white_name=names.get(game.record.white),
            black=game.record.black, black_name=names.get(game.record.black),
            result=game.record.result.value, played_at=str(record["played_at"]),
            time_control=None if game.record.time_control is None
            else str(record["time_control"]),
            outcome=game.outcome, annulled=game.annulled,
            changes=[change_public(c) for c in game.changes],
        ),
        status=ReviewStatus(view.status),
        opened_at=view.opened_at, updated_at=view.updated_at,
        report_count=view.report_count, first_reported_at=view.first_reported_at,
        decided_by=view.decided_by, decided_at=view.decided_at, note=view.note,
        reports=[report_public(r, names) for r in view.reports],
    )  # fmt: skip


def _names(ledger: Ledger, views: list[ReviewView]) -> dict[str, str]:
    wanted: set[str] = set()
    for view in views:
        wanted.update(r.by for r in view.reports)
        wanted.update(r.accused for r in view.reports if r.accused)
        game = ledger.games.get(view.game_id)
        wanted.update((game.record.white, game.record.black))
    return ledger.players.names(wanted)


def reviews(ledger: Ledger, status: ReviewStatus | None, offset: int, limit: int) -> ReviewsPublic:
    """A page of the cases of ``status`` (None: every case), in :data:`QUEUE_ORDER`."""
    views, total = ledger.reviews.list(None if status is None else status.value, offset, limit)
    names = _names(ledger, views)
    return ReviewsPublic(
        status=status,
        order=QUEUE_ORDER, total=total, offset=offset, limit=limit,
        reviews=[review_public(ledger, v, names) for v in views],
    )  # fmt: skip


def review(ledger: Ledger, game_id: str) -> ReviewPublic:
    view = ledger.reviews.get(game_id)
    return review_public(ledger, view, _names(ledger, [view]))


def confirm(
    ledger: Ledger, game_id: str, reason: str, by: str, now: datetime, token_id: int | None
) -> ConfirmedPublic:
    """Confirm a case: the game is annulled (site S10) with ``by`` and ``reason``; not
    by a moderator who reported it (``by``, the token ``token_id``: 403)."""
    view, annulment = ledger.reviews.confirm(game_id, reason, by, now, token_id=token_id)
    return ConfirmedPublic(
        review=review_public(ledger, view, _names(ledger, [view])),
        annulment=annulment_public(annulment),
    )


def dismiss(ledger: Ledger, game_id: str, note: str, by: str, now: datetime) -> ReviewPublic:
    view = ledger.reviews.dismiss(game_id, note, by, now)
    return review_public(ledger, view, _names(ledger, [view]))


def reopen(ledger: Ledger, game_id: str, note: str, by: str, now: datetime) -> ReviewPublic:
    view = ledger.reviews.reopen(game_id, note, by, now)
    return review_public(ledger, view, _names(ledger, [view]))


def audit_entry_public(entry: AuditEntry) -> AuditEntryPublic:
    return AuditEntryPublic(
        id=entry.id, at=entry.at, who=entry.who, action=entry.action, target=entry.target,
        details=entry.details,
    )  # fmt: skip


def audit_log(ledger: Ledger, offset: int, limit: int, target: str | None) -> AuditPublic:
    entries, total = ledger.audit.log(offset, limit, target)
    return AuditPublic(
        total=total, offset=offset, limit=limit,
        entries=[audit_entry_public(e) for e in entries],
    )  # fmt: skip
