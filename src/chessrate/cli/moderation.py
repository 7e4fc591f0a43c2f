"""The moderation commands: API ``token``s, player ``mark``s (``unmark`` lifts one),
the ``audit`` log, and the fair-play detector's cron pass ``detect``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import click

from ..errors import InvalidInput
from .common import cli_user, columns, db_option, main, open_ledger, reports_errors, utc_now

ROLES = ("writer", "moderator")


@main.group()
def token() -> None:
    """API tokens (bearer tokens for writers and moderators)."""


@token.command("create")
@click.option("--role", type=click.Choice(ROLES), required=True,
              help="writer: submit games and players; moderator: also annul games.")  # fmt: skip
@click.option("--label", default="", help="Whom or what the token is for.")
@click.option(
    "--expires", type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]), default=None,
    help="The moment (UTC) the token stops working: 2027-01-01 (midnight) or "
    "2027-01-01T12:00:00. Default: never.",
)  # fmt: skip
@click.option("--days", type=click.IntRange(1, 36_500), default=None,
              help="The token stops working this many days from now.")  # fmt: skip
@db_option
@reports_errors
def token_create(
    role: str, label: str, expires: datetime | None, days: int | None, db: str | None
) -> None:
    """Create a token and print it once: only its SHA-256 is stored, so it cannot be
    shown again."""
    if expires is not None and days is not None:
        raise InvalidInput("give --expires or --days, not both")
    now = utc_now()
    until = expires.replace(tzinfo=UTC) if expires is not None else None
    if days is not None:
        until = now + timedelta(days=days)
    ledger = open_ledger(db)
    try:
        secret = ledger.tokens.create(role, label, now, expires_at=until, by=cli_user())
    finally:
        ledger.dispose()
    click.echo(secret)
    labelled = f" ({label})" if label else ""
    ending = f", valid until {until.isoformat()}" if until else ""
    click.echo(
        f"{role} token{labelled} created{ending}; keep it now: it is not stored and cannot "
        "be shown again",
        err=True,
    )


@token.command("list")
@db_option
@reports_errors
def token_list(db: str | None) -> None:
    """Every token: id, role, label, created, expires, status (valid, expired,
    revoked). The tokens themselves are not stored and cannot be shown."""
    ledger = open_ledger(db)
    try:
        found = ledger.tokens.list()
    finally:
        ledger.dispose()
    now = datetime.now(UTC)
    rows = [
        (str(t.id), t.role, t.label or "—", t.created_at.strftime("%Y-%m-%d %H:%M"),
         t.expires_at.strftime("%Y-%m-%d %H:%M") if t.expires_at else "never",
         t.status(now) + (f" {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else ""))
        for t in found
    ]  # fmt: skip
    header = ("id", "role", "label", "created (UTC)", "expires (UTC)", "status")
    click.echo(columns([header, *rows]))


@token.command("revoke")
@click.argument("token_id", type=int)
@click.option("--reason", default="", help="Why (kept in the audit log).")
@db_option
@reports_errors
def token_revoke(token_id: int, reason: str, db: str | None) -> None:
    """Revoke a token (its id from token list): every request with it is refused (401)
    within the servers' token cache time (CHESSRATE_TOKEN_CACHE_SECONDS, 5 s)."""
    ledger = open_ledger(db)
    try:
        view = ledger.tokens.revoke(token_id, utc_now(), by=cli_user(), why=reason)
    finally:
        ledger.dispose()
    click.echo(f"token {view.id} ({view.role}, {view.label or 'no label'}) revoked")


@main.command()
@click.argument("player")
@click.option("--reason", required=True, help="Why (kept with the mark and in the audit log).")
@db_option
@reports_errors
def mark(player: str, reason: str, db: str | None) -> None:
    """Mark PLAYER for confirmed cheating: the pairing pass pairs a marked player only
    with other marked players. Written to the audit log with the reason; `unmark`
    lifts it."""
    ledger = open_ledger(db)
    try:
        view = ledger.marks.mark(player, reason, cli_user(), utc_now())
    finally:
        ledger.dispose()
    click.echo(f"{view.player_id} marked at {view.marked_at.isoformat()} by {view.marked_by}")


@main.command()
@click.argument("player")
@click.option("--reason", required=True, help="Why (kept with the mark and in the audit log).")
@db_option
@reports_errors
def unmark(player: str, reason: str, db: str | None) -> None:
    """Lift PLAYER's mark: they are paired with anyone again. Written to the audit log
    with the reason; the lifted mark is kept."""
    ledger = open_ledger(db)
    try:
        view = ledger.marks.unmark(player, reason, cli_user(), utc_now())
    finally:
        ledger.dispose()
    click.echo(f"{view.player_id}: mark of {view.marked_at.isoformat()} lifted")


@main.command()
@click.option("--target", default=None, help="Only this game id (or 'token N', 'player ID').")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True)
@db_option
@reports_errors
def audit(target: str | None, limit: int, db: str | None) -> None:
    """The moderation audit log, newest first: reports, confirmations, dismissals,
    reopenings, annulments, tokens created and revoked, marks made and lifted."""
    ledger = open_ledger(db)
    try:
        entries, total = ledger.audit.log(0, limit, target)
    finally:
        ledger.dispose()
    rows = [
        (e.at.strftime("%Y-%m-%d %H:%M:%S"), e.who, e.action, e.target, e.details) for e in entries
    ]
    click.echo(columns([("at (UTC)", "who", "action", "target", "why"), *rows]))
    click.echo(f"{len(entries)} of {total} entries", err=True)


@main.command()
@db_option
@click.option(
    "--limit", type=click.IntRange(1), default=20, show_default=True,
    help="Analyse at most this many games in this run.",
)  # fmt: skip
@click.option(
    "--stockfish", metavar="PATH",
    help="The Stockfish binary (default: $CHESSRATE_STOCKFISH, else /usr/games/stockfish).",
)  # fmt: skip
@click.option(
    "--flagged", "list_flagged", is_flag=True,
    help="Analyse nothing: list the stored analyses that flagged a player.",
)  # fmt: skip
@reports_errors
def detect(db: str | None, limit: int, stockfish: str | None, list_flagged: bool) -> None:
    """Run the fair-play detector over the finished live games, for cron.

    Analyses the finished rated online live games not analysed yet, the earliest ended
    first, with Stockfish at the detector's limits (depth 10, one thread, at most 60 s
    per game): per player the engine top-move match rate and the average centipawn
    loss over the moves after the opening (from ply 17). Flags a player whose
    statistics are improbable for their rating (README "Fair play: the detector").
    Stores every analysis; prints one line per analysed game, FLAGGED lines last.
    """
    from ..fairplay import StockfishDetector
    from ..fairplay.job import DetectionJob

    ledger = open_ledger(db)
    try:
        if list_flagged:
            for view in ledger.analyses.list(flagged=True, limit=1000):
                click.echo(f"FLAGGED\t{view.game_id}\t{','.join(view.flags)}\t"
                           f"{_evidence_text(view.evidence)}")  # fmt: skip
            return
        with StockfishDetector(path=stockfish) as detector:
            report = DetectionJob(ledger, detector, utc_now).run(limit)
    finally:
        ledger.dispose()
    for view in report.analysed:
        shown = view.note or _evidence_text(view.evidence)
        click.echo(f"{view.game_id}\t{shown}")
    for game_id, player in report.flags:
        click.echo(f"FLAGGED\t{game_id}\t{player}")
    click.echo(
        f"{len(report.analysed)} games analysed, {len(report.flags)} players flagged",
        err=True,
    )


def _evidence_text(evidence: dict[str, Any] | None) -> str:
    """``white 1850: 52% match, ACPL 31.2 (25 moves)\tblack ...`` from stored evidence."""
    if evidence is None:
        return "-"
    parts = []
    for side in ("white", "black"):
        stats = evidence[side]
        rating = "unrated" if stats["rating"] is None else stats["rating"]
        parts.append(
            f"{side} {rating}: {stats['match_rate']:.0%} match, ACPL {stats['acpl']:.1f} "
            f"({stats['moves']} moves)"
        )
    return "\t".join(parts)
