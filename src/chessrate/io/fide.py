"""The ``fide`` period's files: the starting rating list, TRF files as events, the
new list and the rating officer's report. No rating math here (that is
``systems/fide.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from decimal import Decimal
from pathlib import Path

from ..errors import InvalidInput, InvalidRecord
from ..records import FieldReader
from ..systems.base import ListEntry
from ..systems.fide import POOL, Event, EventEntry, EventGame, ListedPlayer, PeriodResult
from .tabular import RawRecord, parse_records, read_records
from .trf import Tournament, TrfPlayer, read_trf

LIST_FIELDS = ("id", "name", "rating", "games", "reached_2400")


def read_start_list(path: Path) -> dict[str, ListedPlayer]:
    """The starting list (CSV or JSON Lines): ``id, name, rating, games, reached_2400``;
    an empty rating is an unrated player. Errors name ``FILE:LINE`` and the field."""
    return start_list_from(read_records(path))


def parse_start_list(text: str, source: str) -> dict[str, ListedPlayer]:
    """The starting list from CSV text (an upload)."""
    return start_list_from(parse_records(text, source, "csv"))


def start_list_from(records: Iterable[RawRecord]) -> dict[str, ListedPlayer]:
    players: dict[str, ListedPlayer] = {}
    for where, data in records:
        fields = FieldReader(data, where)
        fields.reject_unknown(LIST_FIELDS)
        player_id = fields.ident("id")
        rating = fields.integer("rating", minimum=1)
        games = fields.integer("games") or 0
        reached = bool(fields.boolean("reached_2400"))
        if player_id in players:
            raise InvalidRecord(where, "id", f"duplicate player {player_id!r}")
        players[player_id] = ListedPlayer(
            player_id, fields.text("name") or player_id, rating, games, reached, where
        )
    return players


def player_key(player: TrfPlayer) -> str:
    """A TRF player's id in a period: the FIDE id, else the name as written."""
    return player.fide_id or player.name


def event_from_tournament(
    tournament: Tournament, round_robin: bool | None = None, warnings: list[str] | None = None
) -> Event:
    """A TRF tournament as an event: players keyed by FIDE id (else name as written),
    rated games only (results 1, = and 0 against a paired opponent).

    A player entered twice (one FIDE id, or one name without an id, at two start
    ranks), as Swiss-Manager files sometimes have him: when one of the two entries was
    never paired, it is left out and a warning naming both lines goes to
    ``warnings``; when both were paired, the file is refused (which entry's games are
    the player's is not for the officer's software to guess)."""
    is_round_robin = tournament.is_round_robin if round_robin is None else round_robin
    if is_round_robin is None:
        raise InvalidInput(
            f"{tournament.source}: the file (092 {tournament.kind!r}) does not say whether it is "
            "a round robin or a Swiss: pass --round-robin or --swiss"
        )
    keys: dict[int, str] = {}
    seen: dict[str, TrfPlayer] = {}
    for player in tournament.players:
        key = player_key(player)
        keys[player.start_rank] = key
        other = seen.get(key)
        if other is None:
            seen[key] = player
            continue
        field = "fide_id" if player.fide_id else "name"
        kept, dropped = (player, other) if _paired(player) else (other, player)
        if _paired(dropped):
            raise InvalidRecord(
                f"{tournament.source}:{player.line}",
                field,
                f"{key!r} is also start rank {other.start_rank} (line {other.line}), and both "
                "entries played: a player must be entered once",
            )
        seen[key] = kept
        if warnings is not None:
            warnings.append(
                f"{tournament.source}:{dropped.line}: {field}: {key!r} is entered twice (start "
                f"ranks {other.start_rank} at line {other.line} and {player.start_rank} at line "
                f"{player.line}); start rank {dropped.start_rank} was never paired and is left out"
            )
    entries = []
    for player in seen.values():
        games = tuple(
            EventGame(r.round, keys[r.opponent], r.score)
            for r in player.rounds
            if r.rated and r.opponent is not None and r.score is not None
        )
        entries.append(EventEntry(keys[player.start_rank], player.name, player.rating, games))
    return Event(tournament.name or tournament.source, tournament.source, is_round_robin,
                 tuple(entries))  # fmt: skip


def _paired(player: TrfPlayer) -> bool:
    """Whether the entry met an opponent in some round (played or forfeited)."""
    return any(r.opponent is not None for r in player.rounds)


def read_events(
    paths: Iterable[Path], round_robin: bool | None = None, warnings: list[str] | None = None
) -> list[Event]:
    return [event_from_tournament(read_trf(path), round_robin, warnings) for path in paths]


def new_list(result: PeriodResult) -> list[ListEntry]:
    """The new list in the spec's rating-list form (ratings published as integers)."""
    entries = []
    for report in result.reports:
        rating = None if report.new_rating is None else Decimal(report.new_rating)
        shown = "" if report.new_rating is None else str(report.new_rating)
        entries.append(
            ListEntry(report.player, POOL, rating, shown, report.state, report.new_games)
        )
    return entries


def _signed(value: Decimal | None) -> str:
    return "" if value is None else f"{value:+}"


def report_text(result: PeriodResult) -> str:
    """Every player's calculation, laid out the way a rating officer checks it."""
    names = {report.player: report.name for report in result.reports}
    out: list[str] = []
    rules = result.rules
    out.append(
        f"FIDE rating period: B = {rules.bonus_per_half_point} per half point, "
        f"K {rules.k}/{rules.k_top}, floor {rules.floor}, differences capped at "
        f"{rules.max_difference}"
    )
    for report in result.reports:
        out.append("")
        head = f"{report.name} ({report.player})" if report.name != report.player else report.name
        if report.old_rating is not None:
            k = f", K {report.k}" if report.k is not None else ""
            out.append(f"{head}: rated {report.old_rating}, {report.old_games} games{k}")
            if report.games:
                out.append(
                    f"  {'event':<24} {'rd':>3} {'opponent':<24} {'rating':>6} {'D':>5} "
                    f"{'PD':>5} {'score':>5} {'ΔR':>6}"
                )
            for line in report.games:
                opponent = names.get(line.opponent, line.opponent)
                if line.delta is None:
                    out.append(
                        f"  {line.event[:24]:<24} {line.round:>3} {opponent[:24]:<24}  {line.note}"
                    )
                    continue
                out.append(
                    f"  {line.event[:24]:<24} {line.round:>3} {opponent[:24]:<24} "
                    f"{line.opponent_rating:>6} {line.d:>5} {line.pd!s:>5} "
                    f"{line.score.normalize()!s:>5} {_signed(line.delta):>6}"
                    + (f"  {line.note}" if line.note else "")
                )
            if report.sum_delta is not None:
                score = sum((g.score for g in report.games if g.delta is not None), Decimal(0))
                out.append(
                    f"  ΣΔR = {_signed(report.sum_delta)} (score {score.normalize()}, expected "
                    f"{report.expected}); K {report.k} × {_signed(report.sum_delta)} = "
                    f"{_signed(report.change)}; {report.old_rating} → {report.new_rating}"
                )
            else:
                out.append("  no rated games this period: unchanged")
            continue
        out.append(f"{head}: unrated")
        for calc in report.first_rating:
            kind = "round robin" if calc.round_robin else "Swiss"
            out.append(
                f"  {calc.event} ({kind}): {calc.points.normalize()} in {calc.games} games "
                f"({calc.points_vs_rated.normalize()} against rated opponents)"
            )
            out.extend(f"    {step}" for step in calc.steps)
            if calc.discarded:
                out.append(f"    discarded: {calc.discarded}")
        if report.combined:
            out.append(f"  {report.combined}")
        out.extend(f"  {note}" for note in report.notes)
        if report.new_rating is not None:
            out.append(f"  new rating {report.new_rating}")
        else:
            out.append("  no rating this period")
    return "\n".join(out) + "\n"


def report_json(result: PeriodResult) -> str:
    """The reports as JSON (numbers as strings, exact)."""

    def convert(value: object) -> object:
        if isinstance(value, Decimal):
            return str(value)
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [convert(v) for v in value]
        return value

    rows = [convert(asdict(report)) for report in result.reports]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
