"""Write the ``corr`` sample data: ``corr_players.csv`` and ``corr_games.jsonl``.

Run it with ``.venv/bin/python examples/make_corr_sample.py``. It is deterministic
(``random.Random(1558)``) and uses only the standard library to write the files; it then
replays them through ``chessrate`` in-process and exits non-zero unless every scripted
storyline below happened as planned and every corr rule (C1-C6) occurs.

What the sample holds
---------------------
* 30 members of a correspondence chess site. 9 are established with an imported rating
  (1400.00-2250.00, 30-212 games behind it), 4 are provisional with an imported rating (2-20
  games) and 17 are newcomers without a rating. ``emre``, ``fiona`` and ``goran`` join in
  2026; ``wanda`` plays only casual games and a forfeit and is still unrated at the end.
* 342 games from 2025-01-08 to 2026-05-29, ids ``c0001``… (313 rated, 26 casual, 3 void
  forfeits), at 1, 2, 3, 5 or 7 days per move (``1d`` … ``7d``): the scripted games
  below, then rated games between members of similar (hidden) playing strength from
  February 2025 (results Elo-like, a quarter of them draws; resignations, checkmates,
  losses on time and a few forfeits), and casual games (``"rated": false``) between
  anyone.

Scripted storylines (January 2025, before random play; all ratings as imported)
---------------------------------------------------------------------------------
* **Ravi Menon (ravi, established 1558.00) loses to Petra Novak (petra, established
  2223.00), C5 clamped.** diff 665 is clamped to 350: 1558 + 0.04 × 350 − 16 = 1556.00
  (the seed's example); petra wins 0.04 × (−350) + 16 = +2.00 → 2225.00.
* **Two unrated players meet (C3).** ``nora`` beats ``omar``: 1500.00 and 1100.00, both
  provisional after 1 game; ``pia`` and ``quentin`` draw: 1300.00 each.
* **Dario Greco (dario), newcomer.** He loses to ``gordon`` (established 1400.00):
  performance 1400 − 400 = 1000.00 (C3 vs a rated opponent); gordon's C5 uses dario's
  performance in this very game, 1000, as the opponent's rating: diff −400 clamped to
  −350, +2.00 → 1402.00 (C5 Decision vs an unrated opponent). Then ``felix``
  (provisional 1450.00 after 4 games) beats him: 450 apart, the game is counted for
  neither (C4; felix still 1450.00 after 4 games, the seed's example). Then he loses to
  the unrated ``ugo``: performance 1100, (1000 + 1100) / 2 = 1050.00 — a loss that
  raises a provisional rating (C2); ugo earns 1000 + 400 = 1400.00.
* **Yara Haddad (yara, provisional 1800.00 after 2 games) beats the unrated ``sami``.**
  Performance 1500, (2 × 1800 + 1500) / 3 = 1700.00 — a win that lowers a provisional
  rating (C2, the seed's example); sami earns 1800 − 400 = 1400.00.
* **Rating protection (C6).** ``mei`` (established 1872.25) loses to ``alma``
  (provisional 1700.00 after 20 games): 0.04 × (−172.25) − 16 = −22.89 becomes 0;
  alma's performance 2272.25 gives (20 × 1700 + 2272.25) / 21 = 1727.25. ``gordon``
  (1402.00) loses to the unrated ``vera``: her performance 1802.00 is his opponent's
  rating, −2.00 becomes 0; vera 1802.00. ``tomas`` (established 1980.00) loses to
  ``felix``: C6 keeps tomas at 1980.00, and the game does not count for felix (530
  apart, C4).
* **Casual games and a forfeit.** ``wanda`` plays casual games (moving nothing) and wins
  by forfeit against ``karl`` (void); she ends unrated (C1).
* **Theo Brandt (theo), newcomer, becomes established.** From February 2025 he is the
  most active member; with this seed his 25th counted game (c0117, a C2 mean of 25
  performances: 1612.87) makes him established (C1), and from the next game on he is
  rated by C5 (31 more games), with C6 protection against provisional opponents. The
  newcomers ``nora`` and ``sami`` and the imported provisional ``alma`` also reach 25.
  At the end 15 members are established, 14 provisional and ``wanda`` unrated.
"""

from __future__ import annotations

import csv
import json
import math
import random
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).parent
GAMES_FILE = HERE / "corr_games.jsonl"
PLAYERS_FILE = HERE / "corr_players.csv"

RANDOM_FIRST_DAY = date(2025, 2, 1)
LAST_DAY = date(2026, 5, 31)
PLAYER_COLUMNS = ("id", "name", "rating_corr", "games_corr")

# id, name, imported "rating/games" ("" = a newcomer without a rating).
PLAYERS: tuple[tuple[str, str, str], ...] = (
    ("karl", "Karl Brenner", "2250.00/212"),
    ("petra", "Petra Novak", "2223.00/88"),
    ("ingrid", "Ingrid Halvorsen", "2105.40/96"),
    ("tomas", "Tomás Ruiz", "1980.00/64"),
    ("mei", "Mei Chen", "1872.25/51"),
    ("olek", "Oleksandr Bondar", "1760.00/38"),
    ("sophie", "Sophie Laurent", "1655.80/120"),
    ("ravi", "Ravi Menon", "1558.00/45"),
    ("gordon", "Gordon Reid", "1400.00/30"),
    ("yara", "Yara Haddad", "1800.00/2"),
    ("felix", "Felix Wagner", "1450.00/4"),
    ("hugo", "Hugo Lambert", "1620.00/12"),
    ("alma", "Alma Costa", "1700.00/20"),
    ("nora", "Nora Lindgren", ""),
    ("omar", "Omar Farouk", ""),
    ("pia", "Pia Schulz", ""),
    ("quentin", "Quentin Marchand", ""),
    ("sami", "Sami Virtanen", ""),
    ("dario", "Dario Greco", ""),
    ("ugo", "Ugo Bellini", ""),
    ("vera", "Vera Sokolova", ""),
    ("wanda", "Wanda Kowalska", ""),
    ("theo", "Theo Brandt", ""),
    ("aiko", "Aiko Mori", ""),
    ("bela", "Béla Horváth", ""),
    ("cyrus", "Cyrus Tehrani", ""),
    ("dina", "Dina Levi", ""),
    ("emre", "Emre Yilmaz", ""),
    ("fiona", "Fiona Walsh", ""),
    ("goran", "Goran Petrović", ""),
)

# Newcomers in random play: hidden playing strength, first day, activity weight.
# wanda plays casual games only.
NEWCOMERS: dict[str, tuple[int, str, float]] = {
    "nora": (1560, "2025-02-01", 1.0),
    "omar": (1180, "2025-02-01", 0.8),
    "pia": (1420, "2025-02-01", 1.0),
    "quentin": (1330, "2025-02-01", 0.8),
    "sami": (1450, "2025-02-01", 1.0),
    "dario": (1080, "2025-02-01", 0.6),
    "ugo": (1380, "2025-02-01", 1.0),
    "vera": (1760, "2025-02-01", 1.0),
    "theo": (1720, "2025-02-01", 2.2),
    "aiko": (1900, "2025-03-10", 1.2),
    "bela": (1620, "2025-04-01", 1.0),
    "cyrus": (1250, "2025-05-15", 0.8),
    "dina": (2000, "2025-07-01", 1.0),
    "emre": (1500, "2026-01-10", 1.5),
    "fiona": (1680, "2026-02-15", 1.5),
    "goran": (1350, "2026-03-20", 1.5),
}

RANDOM_RATED_GAMES = 305
RANDOM_CASUAL_GAMES = 22
DRAW_RATE = 0.25
CONTROLS = ("1d", "2d", "3d", "3d", "5d", "5d", "7d")


@dataclass
class Game:
    """A game before it gets its id; ``label`` names a scripted game for the checks."""

    played_at: datetime
    white: str
    black: str
    result: str
    rated: bool
    time_control: str
    termination: str | None = None
    label: str | None = None

    def as_json(self, game_id: str) -> dict[str, object]:
        data: dict[str, object] = {
            "id": game_id,
            "played_at": self.played_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "white": self.white,
            "black": self.black,
            "result": self.result,
            "rated": self.rated,
            "time_control": self.time_control,
        }
        if self.termination:
            data["termination"] = self.termination
        return data


def at(when: str) -> datetime:
    """``"2025-01-12 19:00"`` as an aware UTC datetime."""
    return datetime.fromisoformat(when).replace(tzinfo=UTC)


def day(text: str) -> date:
    return date.fromisoformat(text)


# -- the scripted storylines ---------------------------------------------------------


def story(
    label: str | None,
    when: str,
    white: str,
    black: str,
    result: str,
    control: str,
    termination: str | None = None,
    *,
    rated: bool = True,
) -> Game:
    return Game(at(when), white, black, result, rated, control, termination, label)


def scripted_games() -> list[Game]:
    """The January 2025 storylines (see the module docstring)."""
    casual = {"rated": False}
    return [
        story("ravi-petra", "2025-01-08 09:12", "ravi", "petra", "0-1", "5d", "resign"),
        story("dario-gordon", "2025-01-09 18:40", "dario", "gordon", "0-1", "3d", "resign"),
        story("nora-omar", "2025-01-10 21:05", "nora", "omar", "1-0", "3d", "resign"),
        story("pia-quentin", "2025-01-11 07:30", "pia", "quentin", "1/2-1/2", "5d"),
        story("yara-sami", "2025-01-13 16:00", "sami", "yara", "0-1", "3d", "timeout"),
        story("felix-dario", "2025-01-15 12:20", "felix", "dario", "1-0", "1d"),
        story("dario-ugo", "2025-01-17 20:45", "ugo", "dario", "1-0", "3d", "resign"),
        story("mei-alma", "2025-01-20 10:10", "mei", "alma", "0-1", "5d", "resign"),
        story("gordon-vera", "2025-01-22 08:55", "vera", "gordon", "1-0", "3d", "timeout"),
        story("tomas-felix", "2025-01-24 19:30", "tomas", "felix", "0-1", "7d", "resign"),
        story(None, "2025-01-12 11:00", "wanda", "sophie", "0-1", "3d", "resign", **casual),
        story("wanda-forfeit", "2025-01-18 09:00", "karl", "wanda", "0-1", "5d", "forfeit"),
        story(None, "2025-01-26 14:30", "omar", "wanda", "1/2-1/2", "1d", **casual),
        story(None, "2025-06-03 17:15", "wanda", "pia", "1-0", "2d", **casual),
        story(None, "2025-11-20 10:40", "karl", "wanda", "1-0", "3d", **casual),
    ]


# -- random play -------------------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    """A member in random rated play: hidden strength, from which day, how active."""

    player: str
    strength: float
    first: date
    weight: float


def members(rng: random.Random) -> list[Member]:
    result = []
    for player, _name, imported in PLAYERS:
        if imported:
            strength = float(imported.split("/")[0]) + rng.gauss(0, 40)
            result.append(Member(player, strength, RANDOM_FIRST_DAY, 1.0))
        elif player in NEWCOMERS:
            strength, first, weight = NEWCOMERS[player]
            result.append(Member(player, strength, day(first), weight))
    return result


def expected(strength: float, opponent: float) -> float:
    return 1 / (1 + 10 ** ((opponent - strength) / 400))


def play(rng: random.Random, white: float, black: float) -> tuple[str, str | None]:
    """A result drawn from the players' strengths, and how the game ended."""
    if rng.random() < DRAW_RATE:
        return "1/2-1/2", None
    result = "1-0" if rng.random() < expected(white, black) else "0-1"
    ending = rng.random()
    if ending < 0.02:
        return result, "forfeit"
    if ending < 0.14:
        return result, "timeout"  # ran out of days
    if ending < 0.80:
        return result, "resign"
    return result, None  # checkmate: a normal end


def moment(rng: random.Random, on: date) -> datetime:
    seconds = rng.randrange(24 * 3600)
    return datetime(on.year, on.month, on.day, tzinfo=UTC) + timedelta(seconds=seconds)


def random_day(rng: random.Random, first: date = RANDOM_FIRST_DAY) -> date:
    return first + timedelta(days=rng.randrange((LAST_DAY - first).days + 1))


def random_rated_games(rng: random.Random) -> list[Game]:
    """Rated games between members, opponents of similar strength."""
    field = members(rng)
    games = []
    for _ in range(RANDOM_RATED_GAMES):
        on = random_day(rng)
        here = [m for m in field if m.first <= on]
        first = rng.choices(here, [m.weight for m in here])[0]
        others = [m for m in here if m.player != first.player]
        closeness = [m.weight * math.exp(-abs(m.strength - first.strength) / 200) for m in others]
        second = rng.choices(others, closeness)[0]
        white, black = (first, second) if rng.random() < 0.5 else (second, first)
        result, ending = play(rng, white.strength, black.strength)
        control = rng.choice(CONTROLS)
        games.append(
            Game(moment(rng, on), white.player, black.player, result, True, control, ending)
        )
    return games


def random_casual_games(rng: random.Random) -> list[Game]:
    """Casual games between any two players (wanda excluded: she is scripted)."""
    ids = [row[0] for row in PLAYERS if row[0] != "wanda"]
    games = []
    for _ in range(RANDOM_CASUAL_GAMES):
        white, black = rng.sample(ids, 2)
        result, ending = play(rng, 1500, 1500)
        if ending == "forfeit":
            ending = "resign"
        control = rng.choice(CONTROLS)
        games.append(
            Game(moment(rng, random_day(rng)), white, black, result, False, control, ending)
        )
    return games


# -- the files ---------------------------------------------------------------------------


def write_players(path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(PLAYER_COLUMNS)
        for player, name, imported in PLAYERS:
            writer.writerow([player, name, *(imported.split("/") if imported else ["", ""])])


def write_games(path: Path, games: list[Game]) -> dict[str, str]:
    """Write the games in played_at order with ids c0001…; return label → id."""
    labels = {}
    with path.open("w", encoding="utf-8") as handle:
        for number, game in enumerate(sorted(games, key=lambda g: g.played_at), start=1):
            game_id = f"c{number:04d}"
            handle.write(json.dumps(game.as_json(game_id), ensure_ascii=False) + "\n")
            if game.label:
                labels[game.label] = game_id
    return labels


def generate() -> tuple[int, dict[str, str]]:
    rng = random.Random(1558)
    games = [*scripted_games(), *random_rated_games(rng), *random_casual_games(rng)]
    write_players(PLAYERS_FILE)
    labels = write_games(GAMES_FILE, games)
    return len(games), labels


# -- the coverage check --------------------------------------------------------------------


def load_chessrate() -> ModuleType:
    """Import chessrate, from the project's src/ if it is not installed."""
    try:
        import chessrate
    except ImportError:
        sys.path.insert(0, str(HERE.parent / "src"))
        import chessrate
    return chessrate


class Coverage:
    """Collects the checks: a line per scenario, failures make the script exit 1."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.lines: list[str] = []

    def check(self, scenario: str, ok: bool, detail: str) -> None:
        self.lines.append(f"  [{'ok' if ok else 'MISSING'}] {scenario}: {detail}")
        if not ok:
            self.failures.append(scenario)


def cents(value: Decimal) -> Decimal:
    """Half away from zero to two decimals (the rounding rule), done here by hand."""
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def performance(score: Decimal, opponent: Decimal | None) -> Decimal:
    """corr C3, restated here to check the engine independently."""
    if opponent is None:
        return {Decimal(1): Decimal(1500), Decimal("0.5"): Decimal(1300)}.get(score, Decimal(1100))
    return opponent + {Decimal(1): 400, Decimal("0.5"): 0}.get(score, -400)


def verify(labels: dict[str, str]) -> int:
    """Replay both files through the engine and check every storyline happened."""
    chessrate = load_chessrate()
    from chessrate.io.games import read_games, read_players
    from chessrate.systems.corr import CorrSystem

    # Read back the way `chessrate rate` reads them (FILE:LINE in any error).
    players = read_players(PLAYERS_FILE)
    games = read_games(GAMES_FILE)

    engine = chessrate.Engine(CorrSystem(), players)
    try:
        engine.replay(games)
    except chessrate.InvalidRecord as error:
        print(f"refused: {error}", file=sys.stderr)
        return 1

    cov = Coverage()
    by_id = {rating.game.id: rating for rating in engine.ratings}
    changes = list(engine.changes())
    outcomes = Counter(str(r.outcome) for r in engine.ratings)

    def game_of(label: str) -> Any:
        return by_id[labels[label]]

    def change(label: str, player: str) -> Any:
        found = [c for c in game_of(label).changes if c.player == player]
        return found[0] if found else None

    def moved(label: str, player: str) -> tuple[Any, ...]:
        """(before, after, state_after, games_after, rule) of a scripted change."""
        c = change(label, player)
        return () if c is None else (c.before, c.after, c.state_after, c.games_after, c.rule)

    states = {p.id: engine.state(p.id, "corr") for p in players}
    final = Counter(str(s.status) for s in states.values())

    # C1: all three states at the end.
    unrated = sorted(p for p, s in states.items() if str(s.status) == "unrated")
    cov.check(
        "C1 three states at the end",
        all(final[s] for s in ("unrated", "provisional", "established")) and "wanda" in unrated,
        ", ".join(f"{final[s]} {s}" for s in ("established", "provisional", "unrated"))
        + f" (unrated: {', '.join(unrated)})",
    )

    # C2: every provisional rating is the exact mean of its performances (C3 restated
    # above); the win that lowers and the loss that raises.
    sums: dict[str, Decimal] = {}
    for p in players:
        imported = p.imported.get("corr")
        if imported is not None and imported.games < 25:
            sums[p.id] = imported.rating * imported.games
    c2 = [c for c in changes if c.rule == "corr C2"]
    mean_ok = True
    for c in c2:
        sums[c.player] = sums.get(c.player, Decimal(0)) + performance(c.score, c.opponent_rating)
        mean_ok &= c.after == cents(sums[c.player] / c.games_after)
    lowers = [c for c in c2 if c.score == 1 and c.change is not None and c.change < 0]
    raises = [c for c in c2 if c.score == 0 and c.change is not None and c.change > 0]
    cov.check(
        "C2 provisional mean",
        mean_ok
        and moved("yara-sami", "yara")
        == (Decimal(1800), Decimal(1700), "provisional", 3, "corr C2")
        and moved("dario-ugo", "dario")
        == (Decimal(1000), Decimal(1050), "provisional", 2, "corr C2")
        and bool(lowers)
        and bool(raises),
        f"{len(c2)} C2 changes, each the exact mean of the player's performances; "
        f"wins that lower: {len(lowers)} (yara 1800.00 → 1700.00 beating unrated sami), "
        f"losses that raise: {len(raises)} (dario 1000.00 → 1050.00 losing to unrated ugo)",
    )

    # C3: performances against rated and unrated opponents; two unrated players meet.
    vs_unrated = [c for c in c2 if c.opponent_rating is None]
    cov.check(
        "C3 performances",
        moved("nora-omar", "nora") == (None, Decimal(1500), "provisional", 1, "corr C2")
        and moved("nora-omar", "omar") == (None, Decimal(1100), "provisional", 1, "corr C2")
        and moved("pia-quentin", "pia") == (None, Decimal(1300), "provisional", 1, "corr C2")
        and moved("pia-quentin", "quentin") == (None, Decimal(1300), "provisional", 1, "corr C2")
        and moved("yara-sami", "sami") == (None, Decimal(1400), "provisional", 1, "corr C2")
        and moved("dario-gordon", "dario") == (None, Decimal(1000), "provisional", 1, "corr C2")
        and moved("dario-ugo", "ugo") == (None, Decimal(1400), "provisional", 1, "corr C2")
        and len(vs_unrated) > 5,
        f"{len(c2) - len(vs_unrated)} performances vs rated opponents (R ± 400 / R), "
        f"{len(vs_unrated)} vs unrated (1500/1300/1100); unrated pairs: nora 1500 / omar 1100 "
        "(win), pia and quentin 1300 (draw)",
    )

    # C4: the 400-point rule.
    skipped = [
        (r.game.id, p)
        for r in engine.ratings
        if str(r.outcome) == "rated"
        for p in (r.game.white, r.game.black)
        if p not in {c.player for c in r.changes}
    ]
    felix_after = [c for c in changes if c.player == "felix"]
    cov.check(
        "C4 400-point rule",
        not game_of("felix-dario").changes
        and change("tomas-felix", "felix") is None
        and (felix_after[0].before, felix_after[0].games_before) == (Decimal(1450), 4)
        and len(skipped) > 2,
        f"felix (1450.00, 4 games) vs dario (1000.00) counted for neither, vs tomas (1980.00) "
        f"not for felix; felix's next counted game starts from 1450.00 after 4 games; "
        f"{len(skipped)} player-games not counted in all",
    )

    # C1/C5: a newcomer reaches 25 counted games, is established, then rated by C5.
    theo = [c for c in changes if c.player == "theo"]
    turned = [c for c in theo if c.rule == "corr C2" and c.state_after == "established"]
    after_25 = [c for c in theo if c.rule in ("corr C5", "corr C6")]
    newcomers = {p.id for p in players if not p.imported}
    became = sorted(
        {c.player for c in changes if c.player in newcomers and c.state_after == "established"}
    )
    cov.check(
        "C1/C5 newcomer becomes established",
        len(turned) == 1
        and turned[0].games_after == 25
        and bool(after_25)
        and after_25[0].games_before == 25,
        f"theo established on {turned[0].game_id if turned else '-'} at "
        f"{turned[0].after if turned else '-'} (mean of 25), then {len(after_25)} C5/C6 games; "
        f"newcomers established: {', '.join(became)}",
    )

    # C5: the formula, the clamp, and the Decision for an unrated opponent.
    def opponent_established(c: Any) -> bool:
        """Whether the opponent was established before the game (a C4-skipped opponent
        was provisional)."""
        return any(
            o.player == c.opponent and o.state_before == "established"
            for o in by_id[c.game_id].changes
        )

    c5 = [c for c in changes if c.rule in ("corr C5", "corr C6")]
    formula_ok = True
    for c in c5:
        diff = max(Decimal(-350), min(Decimal(350), c.opponent_rating - c.before))
        bonus = 16 if c.score == 1 else -16 if c.score == 0 else 0
        raw = cents(Decimal("0.04") * diff + bonus)
        formula_ok &= c.change == (Decimal(0) if c.rule == "corr C6" else raw)
        formula_ok &= (c.rule == "corr C6") == (raw < 0 and not opponent_established(c))
    clamped = [c for c in c5 if abs(c.d) > 350]
    gordon = change("dario-gordon", "gordon")
    cov.check(
        "C5 established ratings",
        formula_ok
        and moved("ravi-petra", "ravi")
        == (Decimal(1558), Decimal(1556), "established", 46, "corr C5")
        and moved("ravi-petra", "petra")
        == (Decimal(2223), Decimal(2225), "established", 89, "corr C5")
        and gordon is not None
        and (gordon.opponent_rating, gordon.change) == (Decimal(1000), Decimal(2))
        and len(clamped) > 2,
        f"{len(c5)} established changes by 0.04 × diff ± 16; {len(clamped)} with |diff| > 350 "
        "clamped (ravi 1558.00 → 1556.00, petra 2223.00 → 2225.00); vs unrated dario, gordon "
        f"uses dario's performance {gordon.opponent_rating if gordon else '-'}: +2.00",
    )

    # C6: rating protection.
    c6 = [c for c in c5 if c.rule == "corr C6"]
    never_lost = all(c.change >= 0 for c in c5 if not opponent_established(c))
    scripted_c6 = [change(x, p) for x, p in (("mei-alma", "mei"), ("gordon-vera", "gordon"))]
    scripted_c6.append(change("tomas-felix", "tomas"))
    cov.check(
        "C6 rating protection",
        all(c is not None and c.rule == "corr C6" and c.change == 0 for c in scripted_c6)
        and moved("mei-alma", "alma")
        == (Decimal(1700), Decimal("1727.25"), "provisional", 21, "corr C2")
        and moved("gordon-vera", "vera") == (None, Decimal(1802), "provisional", 1, "corr C2")
        and never_lost
        and len(c6) > 3,
        f"{len(c6)} losses or draws of established players against provisional or unrated "
        "opponents kept at 0 (mei vs alma, gordon vs unrated vera, tomas vs felix)",
    )

    # Casual games move nothing; forfeits are void.
    casual = [r for r in engine.ratings if not r.game.rated]
    forfeits = [r for r in engine.ratings if r.game.rated and r.game.termination == "forfeit"]
    cov.check(
        "casual games and forfeits",
        bool(casual)
        and all(str(r.outcome) == "unrated" and not r.changes for r in casual)
        and len(forfeits) > 1
        and all(str(r.outcome) == "void" and not r.changes for r in forfeits)
        and str(game_of("wanda-forfeit").outcome) == "void",
        f"{len(casual)} casual games unrated, {len(forfeits)} forfeits void (wanda's win by "
        "forfeit over karl among them: she stays unrated)",
    )

    rules = Counter(c.rule for c in changes)
    print(
        f"{len(players)} players, {len(games)} games "
        f"({outcomes['rated']} rated, {outcomes['unrated']} unrated, {outcomes['void']} void); "
        f"changes: {', '.join(f'{rule} {n}' for rule, n in sorted(rules.items()))}"
    )
    lists = engine.rating_list("corr")
    print("  " + ", ".join(f"{e.player} {e.display}" for e in lists))
    print("coverage:")
    print("\n".join(cov.lines))
    if cov.failures:
        print(f"missing: {', '.join(cov.failures)}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    count, labels = generate()
    print(f"wrote {PLAYERS_FILE.name} ({len(PLAYERS)} players), {GAMES_FILE.name} ({count} games)")
    return verify(labels)


if __name__ == "__main__":
    sys.exit(main())
