"""The ``fide`` period's files: the starting rating list, TRF files as events, the
new list and the rating officer's report. No rating math here (that is
``systems/fide/``)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, InvalidRecord
from ..identifiers import id_refusal
from ..records import INT_LARGEST, FieldReader, strict_json
from ..systems.base import ListEntry
from ..systems.fide import (
    POOL,
    Event,
    EventEntry,
    EventGame,
    FideRules,
    FideSystem,
    ListedPlayer,
    ListKind,
    PeriodResult,
    format_pending,
    parse_pending,
)
from .rate_of_play import minutes_for_60_moves
from .tabular import RawRecord, not_utf8, parse_records, read_records
from .trf import Tournament, TrfPlayer, read_trf

LIST_FIELDS = ("id", "name", "rating", "games", "reached_2400")
"""The five columns of a starting list typed by hand."""
CHAIN_FIELDS = (*LIST_FIELDS, "k", "birth_year", "met_rated", "pending", "sex", "federation",
                "title", "last_played")  # fmt: skip
"""What a new list carries for the next period besides the five: the K published for
the next period (information: it is computed again), the birth year (fide-2024's
junior K), whether the player has met rated opponents (8.21), the results still
pending towards a first rating (fide-2024 7.1.4, as ``PERIOD:RATING:SCORE`` joined by
spaces), sex (``m``/``w``), federation and title as the TRF files give them, and the
date of the list of his last rated games (7.2.2, inactivity)."""
PERIOD_FIELDS = ("old_rating", "change", "period_games", "period_k", "flag")
"""What the period did, for the officer (read back and ignored): the rating before,
the change, the games rated in the period, the K used, the Flag (``i`` inactive,
``w`` woman, ``wi``)."""
NEW_LIST_FIELDS = (*CHAIN_FIELDS, *PERIOD_FIELDS)
"""The columns of the new list ``fide rate --out`` writes (CSV, JSON, JSON Lines): the
next period's ``--list`` as it is."""


def read_start_list(path: Path) -> dict[str, ListedPlayer]:
    """The starting list: CSV, JSON Lines, or a JSON array of objects (a new list
    written by ``--out``) with the columns of :data:`NEW_LIST_FIELDS` (the five of
    :data:`LIST_FIELDS` are enough); an empty rating is an unrated player. Errors name
    ``FILE:LINE`` (a JSON array: ``FILE:ITEM``) and the field."""
    if path.suffix.lower() == ".json":
        return start_list_from(_json_array(path))
    return start_list_from(read_records(path))


def _json_array(path: Path) -> Iterator[RawRecord]:
    try:
        items = strict_json(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise not_utf8(path, error) from None
    except json.JSONDecodeError as error:
        raise InvalidRecord(
            f"{path}:{error.lineno}", "record", f"not a JSON array of players ({error.msg})"
        ) from None
    except ValueError as error:  # NaN, Infinity, nested too deep
        raise InvalidInput(f"{path}: not a JSON array of players ({error})") from None
    if not isinstance(items, list):
        raise InvalidInput(f"{path}: not a JSON array of players")
    for number, item in enumerate(items, start=1):
        where = f"{path}:{number}"
        if not isinstance(item, dict):
            raise InvalidRecord(where, "player", "each item must be an object")
        yield where, {k: "" if v is None else v for k, v in item.items()}


def parse_start_list(text: str, source: str, stored: bool = False) -> dict[str, ListedPlayer]:
    """The starting list from CSV text (an upload; ``stored``: a list the ledger holds,
    whose ids may be older than the rule against ``/``)."""
    return start_list_from(parse_records(text, source, "csv"), stored)


PENDING_LONGEST = 100_000
"""The longest ``pending`` field of a list (about 5,000 results of 20 characters): a
busy unrated player's results against rated opponents of 26 months (2024 7.1.4) run
far past the 1,000 characters of a text field, and below the CSV reader's limit."""


def start_list_from(records: Iterable[RawRecord], stored: bool = False) -> dict[str, ListedPlayer]:
    players: dict[str, ListedPlayer] = {}
    for where, data in records:
        fields = FieldReader(data, where)
        fields.reject_unknown(NEW_LIST_FIELDS)
        player_id = fields.ident("id", stored, normalise=False)  # the list is kept as sent
        # an upload's rating is a published one (1 or more); a stored list (the new list
        # of a period the ledger or the lab chains on) holds what the rules made, which
        # under the seed's edition can fall below 1 for a rated player (F6 floors first
        # ratings only)
        rating = fields.integer("rating", minimum=-INT_LARGEST if stored else 1)
        games = fields.integer("games") or 0
        reached = bool(fields.boolean("reached_2400"))
        k = fields.integer("k", minimum=1)
        birth_year = fields.integer("birth_year", minimum=1000, maximum=9999)
        met_rated = bool(fields.boolean("met_rated"))
        try:
            pending = parse_pending(fields.text("pending", longest=PENDING_LONGEST) or "")
        except ValueError as error:
            raise InvalidRecord(where, "pending", str(error)) from error
        sex = _sex(fields.text("sex") or "")
        if sex is None:
            raise InvalidRecord(where, "sex", "must be m, w (or f) or empty")
        last_played = _iso_date(fields.text("last_played") or "", where, "last_played")
        if player_id in players:
            raise InvalidRecord(where, "id", f"duplicate player {player_id!r}")
        players[player_id] = ListedPlayer(
            player_id, fields.text("name") or player_id, rating, games, reached, where,
            birth_year=birth_year, pending=pending, met_rated=met_rated, k=k, sex=sex,
            federation=fields.text("federation") or "", title=fields.text("title") or "",
            last_played=last_played,
        )  # fmt: skip
    return players


def _sex(text: str) -> str | None:
    """``m`` or ``w`` (``f``, as some programs write it, is ``w``), ``""`` when not
    given; None for anything else."""
    value = text.strip().lower()
    if value == "f":
        return "w"
    return value if value in ("", "m", "w") else None


def _iso_date(text: str, where: str, field: str) -> date | None:
    if not text.strip():
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise InvalidRecord(where, field, f"{text!r} is not a date (YYYY-MM-DD)") from None


def new_list_rows(result: PeriodResult, system: FideSystem) -> list[dict[str, Any]]:
    """The new list, a row per player in the list's order, with the columns of
    :data:`NEW_LIST_FIELDS`: what the next period starts from, and what this period
    did."""
    following = system.next_list(result)
    rows = []
    for report in result.reports:
        player = following[report.player]
        change = None
        if report.old_rating is not None and report.new_rating is not None:
            change = report.new_rating - report.old_rating
        rows.append(
            {
                "id": player.id,
                "name": player.name,
                "rating": player.rating,
                "games": player.games,
                "reached_2400": player.reached_2400,
                "k": player.k,
                "birth_year": player.birth_year,
                "met_rated": player.met_rated,
                "pending": format_pending(player.pending),
                "sex": player.sex,
                "federation": player.federation,
                "title": player.title,
                "last_played": None if player.last_played is None else player.last_played,
                "old_rating": report.old_rating,
                "change": change,
                "period_games": report.new_games - report.old_games,
                "period_k": report.k,
                "flag": report.flag,
            }
        )
    return rows


def new_list_text(rows: Sequence[Mapping[str, Any]], path: Path, period: date | None) -> str:
    """The new list as ``path``'s extension asks: ``.csv``, ``.json`` (an array),
    ``.jsonl`` (each readable as the next period's ``--list``), or ``.txt``: FIDE's
    fixed-width layout of the downloadable standard list (:func:`fide_txt_list`)."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, NEW_LIST_FIELDS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_value(v) for k, v in row.items()})
        return buffer.getvalue()
    if suffix == ".json":
        return json.dumps(json_value(list(rows)), indent=2, ensure_ascii=False) + "\n"
    if suffix in (".jsonl", ".ndjson"):
        return "".join(json.dumps(json_value(row), ensure_ascii=False) + "\n" for row in rows)
    if suffix == ".txt":
        return fide_txt_list(rows, period)
    raise InvalidInput(f"{path}: write the list as .csv, .json, .jsonl or .txt")


def _csv_value(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date):
        return value.isoformat()
    return value


# FIDE's downloadable standard rating list (TXT): fixed-width columns, each value
# left-aligned in its field: (header, width). The rating column's header is the list's
# month (e.g. APR24).
TXT_COLUMNS = (("ID Number", 15), ("Name", 61), ("Fed", 4), ("Sex", 4), ("Tit", 5),
               ("WTit", 5), ("OTit", 15), ("FOA", 4), ("RATING", 6), ("Gms", 4), ("K", 3),
               ("B-day", 6), ("Flag", 4))  # fmt: skip


TITLES = {"g": "GM", "m": "IM", "f": "FM", "c": "CM", "wg": "WGM", "wm": "WIM", "wf": "WFM",
          "wc": "WCM"}  # fmt: skip
"""TRF-16's title codes as FIDE's list writes the titles."""


def fide_txt_list(rows: Iterable[Mapping[str, Any]], period: date | None) -> str:
    """The rated players in the layout of FIDE's downloadable standard list
    (``standard_rating_list.txt``: 136 characters a line; rating at column 114, games
    of the period at 120, K at 124, birth year at 127, Flag at 133). The rating column
    is headed by the list's month (``APR24``; ``SRtng`` without a period date).
    Federation, sex and title are the TRF files'; the title as FIDE's list writes it
    (``GM``; a woman's title in WTit: ``WGM``); what no file gave (other titles, FOA)
    is left blank."""
    month = period.strftime("%b%y").upper() if period is not None else "SRtng"
    header = [(month if name == "RATING" else name, width) for name, width in TXT_COLUMNS]
    lines = ["".join(name.ljust(width) for name, width in header).rstrip()]
    for row in rows:
        if row["rating"] is None:
            continue
        title = TITLES.get(str(row.get("title") or "").lower(), str(row.get("title") or ""))
        values = {"ID Number": row["id"], "Name": row["name"], "RATING": row["rating"],
                  "Gms": row["period_games"], "K": row["k"] or "",
                  "B-day": row["birth_year"] or "", "Fed": row.get("federation") or "",
                  "Sex": {"m": "M", "w": "F"}.get(str(row.get("sex") or ""), ""),
                  "Tit" if not title.startswith("W") else "WTit": title,
                  "Flag": row.get("flag") or ""}  # fmt: skip
        line = "".join(
            str(values.get(name, ""))[: width - 1].ljust(width) for name, width in TXT_COLUMNS
        )
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def player_key(player: TrfPlayer) -> str:
    """A TRF player's id in a period: the FIDE id, else the name as written."""
    return player.fide_id or player.name


def event_from_tournament(
    tournament: Tournament,
    round_robin: bool | None = None,
    warnings: list[str] | None = None,
    stored: bool = False,
) -> Event:
    """A TRF tournament as an event: players keyed by FIDE id (else name as written),
    rated games only (results 1, = and 0 against a paired opponent). A name that keys
    a player must be an id (:func:`~chessrate.identifiers.id_refusal`: no ``/``; ``stored``:
    a file the ledger holds, which may be older than that rule).

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
        reason = None if player.fide_id else id_refusal(key, stored)
        if reason is not None:
            raise InvalidRecord(
                f"{tournament.source}:{player.line}", "name",
                f"{reason} (a player without a FIDE id is named by his name)",
            )  # fmt: skip
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
        entries.append(
            EventEntry(
                keys[player.start_rank], player.name, player.rating, games, _birth_year(player),
                sex=_sex(player.sex) or "", federation=player.federation, title=player.title,
            )
        )  # fmt: skip
    rounds = max((len(player.rounds) for player in seen.values()), default=0)
    return Event(tournament.name or tournament.source, tournament.source, is_round_robin,
                 tuple(entries), minutes=minutes_for_60_moves(tournament.rate_of_play),
                 match=len(entries) == 2, rounds=rounds)  # fmt: skip


def list_kind_of(minutes: Decimal | None, rules: FideRules) -> ListKind | None:
    """The list a rate of play belongs to (minutes for 60 moves): blitz more than 3 and
    at most 10 (R&B 1.1.2), rapid more than 10 and less than 60 (R&B 1.1.1), standard
    from 60 (1.1); None below blitz or when unknown."""
    if minutes is None:
        return None
    if minutes >= rules.standard_minutes:
        return ListKind.STANDARD
    if rules.rapid_more_than < minutes < rules.rapid_less_than:
        return ListKind.RAPID
    if rules.blitz_more_than < minutes <= rules.blitz_at_most:
        return ListKind.BLITZ
    return None


def rate_of_play_rule(kind: str, rules: FideRules) -> str:
    """The rate of play a list needs, in words, with its article."""
    if kind == ListKind.STANDARD:
        return f"at least {rules.standard_minutes} minutes for 60 moves (1.1)"
    if kind == ListKind.RAPID:
        return (
            f"more than {rules.rapid_more_than} and less than {rules.rapid_less_than} minutes "
            "for 60 moves (1.1.1 of the rapid and blitz regulations)"
        )
    return (
        f"more than {rules.blitz_more_than} and at most {rules.blitz_at_most} minutes for 60 "
        "moves (1.1.2 of the rapid and blitz regulations)"
    )


def check_rate_of_play(tournament: Tournament, rules: FideRules) -> None:
    """Refuse a file whose rate of play (``122``) does not belong to the list being
    rated (``rules.list_kind``), naming the line and the rule. A file without a
    readable rate of play is taken as it is (the officer chose the list)."""
    minutes = minutes_for_60_moves(tournament.rate_of_play)
    kind = list_kind_of(minutes, rules)
    if minutes is None or kind == rules.list_kind:
        return
    assert minutes is not None
    where = f"{tournament.source}:{tournament.rate_of_play_line}"
    belongs = f"a {kind.value} game" if kind is not None else "faster than blitz: not rated"
    raise InvalidRecord(
        where, "122",
        f"the rate of play {tournament.rate_of_play!r} gives {minutes.normalize():f} minutes for "
        f"60 moves, {belongs}; the {rules.list_kind} list needs "
        f"{rate_of_play_rule(rules.list_kind, rules)}",
    )  # fmt: skip


def birth_year_of(player: TrfPlayer) -> int | None:
    """The year of a TRF player's birth date, when it has one (``1969.12.06``,
    ``2014/00/00``, ``1975``; ``0000`` or blank: none)."""
    return _birth_year(player)


def _birth_year(player: TrfPlayer) -> int | None:
    """The year of a TRF birth date (``1969.12.06``, ``2014/00/00``, ``1975``), when
    it has one."""
    year = player.birth[:4]
    return int(year) if len(year) == 4 and year.isdigit() and year != "0000" else None


def _paired(player: TrfPlayer) -> bool:
    """Whether the entry met an opponent in some round (played or forfeited)."""
    return any(r.opponent is not None for r in player.rounds)


def read_events(
    paths: Iterable[Path],
    round_robin: bool | None = None,
    warnings: list[str] | None = None,
    rules: FideRules | None = None,
    refuse: bool = True,
) -> list[Event]:
    """The files as events; with ``rules``, each file's rate of play is checked against
    the list they rate (:func:`check_rate_of_play`): a file that does not belong is
    refused, or (``refuse`` off: the seed's edition, which has one list and no rate of
    play rule) named in ``warnings``."""
    events = []
    for path in paths:
        tournament = read_trf(path)
        if rules is not None:
            try:
                check_rate_of_play(tournament, rules)
            except InvalidRecord as error:
                if refuse or warnings is None:
                    raise
                warnings.append(f"{error}; rated on the seed's one list all the same")
        events.append(event_from_tournament(tournament, round_robin, warnings))
    return events


def list_kind_of_files(paths: Iterable[Path], rules: FideRules) -> ListKind:
    """The list a period's files belong to by their rate of play (``122``): the kind
    of the first file that says (standard when none does)."""
    for path in paths:
        kind = list_kind_of(minutes_for_60_moves(read_trf(path).rate_of_play), rules)
        if kind is not None:
            return kind
    return ListKind.STANDARD


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
    out.extend(rules_text(result))
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
            out.extend(f"  {note}" for note in report.notes)
            continue
        out.append(f"{head}: unrated")
        for calc in report.first_rating:
            kind = "round robin" if calc.round_robin else "Swiss"
            out.append(
                f"  {calc.event} ({kind}): {calc.points.normalize()} in {calc.games} games "
                f"({calc.points_vs_rated.normalize()} against rated opponents)"
            )
            for line in calc.lines:
                opponent = names.get(line.opponent, line.opponent)
                rating = "" if line.opponent_rating is None else line.opponent_rating
                out.append(
                    f"    {line.round:>3} {opponent[:24]:<24} {rating!s:>6} "
                    f"{line.score.normalize()!s:>5}" + (f"  {line.note}" if line.note else "")
                )
            out.extend(f"    {step}" for step in calc.steps)
            if calc.discarded:
                out.append(f"    discarded: {calc.discarded}")
        if report.pool is not None:
            for game in report.pool.earlier_games:
                when = "" if game.period is None else f" (rated {game.period.isoformat()})"
                out.append(f"  pending: {game.opponent_rating} {game.score.normalize()}{when}")
            if report.pool.hypothetical and report.pool.hypothetical_rating is not None:
                out.append(
                    f"  {report.pool.hypothetical} hypothetical draws against "
                    f"{report.pool.hypothetical_rating} (8.2.2)"
                )
        if report.combined:
            out.append(f"  {report.combined}")
        out.extend(f"  {note}" for note in report.notes)
        if report.new_rating is not None:
            out.append(f"  new rating {report.new_rating}")
        else:
            out.append("  no rating this period")
    return "\n".join(out) + "\n"


def rules_text(result: PeriodResult) -> list[str]:
    """The head of the period's report: which rules rated it, and each amendment of the
    2024 regulations for this list, in force for the period or not yet."""
    rules = result.rules
    when = "" if result.period is None else f", the list of {result.period.isoformat()}"
    lines = [
        f"FIDE rating period: {rules.name} rules, {rules.list_kind} list{when}",
        ("" if rules.first_rating_pooled else f"  B = {rules.bonus_per_half_point} per half point,")
        + f"  K {rules.k}/{rules.k_top}, floor {rules.floor}, differences capped at "
        f"{rules.max_difference}"
        + ("" if rules.uncapped_from is None else f" below {rules.uncapped_from}"),
    ]
    if rules.name == "seed":
        return lines
    for amendment, applied in rules.amendments_for(result.period):
        since = f"{amendment.since:%-d %B %Y}"
        state = "applied" if applied else "not applied: the period's games are before it"
        if not rules.dated and applied:
            state = "applied (no period date: the rules as they stand today)"
        lines.append(f"  {amendment.article}, from {since}: {amendment.says}: {state}")
    return lines


def json_value(value: Any) -> Any:
    """A report's value as JSON holds it: exact numbers as strings, dates in ISO form,
    tuples as lists."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    return value


def report_json(result: PeriodResult) -> str:
    """The reports as JSON (numbers as strings, exact)."""
    rows = [json_value(asdict(report)) for report in result.reports]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


MONTHS = {
    name: number
    for number, names in enumerate(
        (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")),
        start=1,
    )
    for name in names
}  # fmt: skip
"""The English month names and abbreviations a TRF date may be written with."""


def trf_date(text: str) -> date | None:
    """A TRF date as tournament software writes it: ``2024/11/24`` (TRF-16's
    YYYY/MM/DD, also with ``.`` or ``-``), ``24.11.2024`` (day first, with dots),
    ``Nov 24, 2024`` or ``24 November 2024``; None for anything else (``24/11/2024``
    is not read: day or month first cannot be told)."""
    value = text.strip().lower().replace(",", " ")
    numbers = re.fullmatch(r"(\d{4})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{1,2})", value)
    day_first = re.fullmatch(r"(\d{1,2})\s*\.\s*(\d{1,2})\s*\.\s*(\d{4})", value)
    words = value.split()
    try:
        if numbers:
            return date(int(numbers[1]), int(numbers[2]), int(numbers[3]))
        if day_first:
            return date(int(day_first[3]), int(day_first[2]), int(day_first[1]))
        if len(words) == 3 and words[0].rstrip(".") in MONTHS:
            return date(int(words[2]), MONTHS[words[0].rstrip(".")], int(words[1]))
        if len(words) == 3 and words[1].rstrip(".") in MONTHS:
            return date(int(words[2]), MONTHS[words[1].rstrip(".")], int(words[0]))
    except ValueError:  # a day or month out of range, or not a number
        return None
    return None


def tournament_end(tournament: Tournament) -> date:
    """The day a tournament ended: its end date (``052``), else its start date
    (``042``); InvalidRecord naming the file and the record when neither is a date
    :func:`trf_date` reads."""
    for written in (tournament.end, tournament.start):
        found = trf_date(written)
        if found is not None:
            return found
    shown = tournament.end or tournament.start
    raise InvalidRecord(
        tournament.source, "052",
        f"the end date {shown!r} is not a date (write YYYY/MM/DD, e.g. 2024/11/24)"
        if shown else "no end date (052) or start date (042): write YYYY/MM/DD",
    )  # fmt: skip
