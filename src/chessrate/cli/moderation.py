"""The moderation commands: API ``token``s, player ``mark``s (``unmark`` lifts one),
the ``audit`` log, and the fair-play detector's cron pass ``detect``."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
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


class _RulesHelp(click.Option):
    """An option whose help names a number of the detector's rules, filled in only
    when the help is shown (the detector's modules are not imported at start)."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        from ..fairplay import DetectorRules

        if self.help is not None and "{" in self.help:
            self.help = self.help.format(**DetectorRules().limits())
        return super().get_help_record(ctx)


@main.command()
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@db_option
@click.option(
    "--limit", type=click.IntRange(1), default=20, show_default=True,
    help="With a ledger: analyse at most this many games in this run.",
)  # fmt: skip
@click.option(
    "--stockfish", metavar="PATH",
    help="The Stockfish binary (default: $CHESSRATE_STOCKFISH, else /usr/games/stockfish).",
)  # fmt: skip
@click.option(
    "--depth", type=click.IntRange(1, 30), default=None, cls=_RulesHelp,
    help="Search depth per position (default: the detector's, {depth}).",
)  # fmt: skip
@click.option(
    "--window", type=click.IntRange(5, 200), default=None, cls=_RulesHelp,
    help="Moves per window inside a game (default: the detector's, {window}).",
)  # fmt: skip
@click.option(
    "--rating", type=click.IntRange(0, 4000), default=None,
    help="FILES: the rating of a player whose Elo tag is missing (default: none, judged "
    "as the top band).",
)  # fmt: skip
@click.option(
    "--flagged", "list_flagged", is_flag=True,
    help="With a ledger: analyse nothing, list the stored analyses that flagged a player.",
)  # fmt: skip
@reports_errors
def detect(
    files: tuple[Path, ...], db: str | None, limit: int, stockfish: str | None,
    depth: int | None, window: int | None, rating: int | None, list_flagged: bool,
) -> None:  # fmt: skip
    """Run the fair-play detector: over PGN FILES, or over a ledger's games (cron).

    With FILES, no ledger is read or written: every game is analysed with Stockfish
    and one JSON object per line is printed for each player-game ({"type": "game",
    ...}: the score, whether flagged, the flagged windows), then one for each player
    ({"type": "player", ...}: their last games together and the games that carry a
    flag). Without FILES, the ledger's finished rated games with moves that are not
    analysed yet are analysed, the earliest first, and stored; one line per game,
    FLAGGED lines last. Like the service's detector it first takes the machine's lock
    (detector.lock in $CHESSRATE_RUNTIME_DIR): while a service or another run
    analyses, it analyses nothing and says so; beside other hosts of one PostgreSQL
    database it claims each game, so a game is analysed once. README "Fair play" says
    what the score is.
    """
    from ..application.settings import load_settings
    from ..fairplay import DetectorRules, StockfishDetector
    from ..fairplay.background import LOCK_NAME, MachineLock, locked_run, runtime_dir
    from ..fairplay.job import DetectionJob, DetectReport

    rules = DetectorRules()
    if depth is not None:
        rules = replace(rules, depth=depth)
    if window is not None:
        rules = replace(rules, window=window)
    if files:
        _detect_files(files, rules, stockfish, rating)
        return
    ledger = open_ledger(db)
    try:
        if list_flagged:
            for view in ledger.analyses.list(flagged=True, limit=1000):
                click.echo(f"FLAGGED\t{view.game_id}\t{','.join(view.flags)}\t"
                           f"{_evidence_text(view.evidence)}")  # fmt: skip
            return
        try:
            lock = MachineLock(runtime_dir(load_settings().runtime_dir) / LOCK_NAME)
        except OSError as error:
            raise click.ClickException(
                f"no directory for the detector's lock file (CHESSRATE_RUNTIME_DIR): {error}"
            ) from None

        def run() -> DetectReport:
            with StockfishDetector(rules, path=stockfish) as detector:
                return DetectionJob(ledger, detector, utc_now).run(limit)

        found = locked_run(run, lock)
    finally:
        ledger.dispose()
    if found is None:
        click.echo(
            f"another process is analysing on this machine (it holds {lock.path}): "
            "nothing analysed this time",
            err=True,
        )
        return
    report = found
    for view in report.analysed:
        shown = view.note or _evidence_text(view.evidence)
        click.echo(f"{view.game_id}\t{shown}")
    for game_id, player in report.flags:
        click.echo(f"FLAGGED\t{game_id}\t{player}")
    click.echo(
        f"{len(report.analysed)} games analysed, {len(report.flags)} players flagged",
        err=True,
    )


def _detect_files(
    files: tuple[Path, ...], rules: Any, stockfish: str | None, rating: int | None
) -> None:
    import json
    from itertools import chain

    from ..fairplay import StockfishDetector
    from ..fairplay.screen import read_pgn, screen

    games = list(chain.from_iterable(read_pgn(path, rating) for path in files))  # all read first
    count = 0

    def progress(game: Any) -> None:
        nonlocal count
        count += 1
        if count % 10 == 0:
            click.echo(f"{count} games analysed", err=True)

    with StockfishDetector(rules, path=stockfish) as detector:
        for line in screen(games, detector, progress):
            click.echo(json.dumps(line, ensure_ascii=False))


def _evidence_text(evidence: dict[str, Any] | None) -> str:
    """``white 1850: score 0.4, 52% match (25 moves)\tblack ...`` from stored evidence
    (an analysis stored before scores were kept shows its match rate and ACPL)."""
    if evidence is None:
        return "-"
    parts = []
    for side in ("white", "black"):
        stats = evidence[side]
        rating = "(no established rating)" if stats["rating"] is None else stats["rating"]
        if "score" in stats:
            shown = f"score {stats['score']:.1f}, {stats['match_rate']:.0%} match"
        else:
            shown = f"{stats['match_rate']:.0%} match, ACPL {stats['acpl']:.1f}"
        parts.append(f"{side} {rating}: {shown} ({stats['moves']} moves)")
    return "\t".join(parts)
