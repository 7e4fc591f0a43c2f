"""Write the ``arena`` sample data: ``arena_players.csv`` and ``arena_games.jsonl``.

Run it with ``.venv/bin/python examples/make_arena_sample.py``. It is deterministic
(``random.Random(2026)``) and uses only the standard library to write the files; it then
replays them through ``chessrate`` in-process and exits non-zero unless every scripted
storyline below happened as planned.

What the sample holds
---------------------
* 36 players of an online club. 19 start with imported ratings (1300-2300 for most, a few
  club beginners near 1000-1130; 10-200 games behind them, so both K = 40 and K 20 / 10
  occur). 17 have no rating anywhere. ``henrik``'s membership ends on 2026-02-15;
  ``victor`` (expired 2025-12-31) and ``zoe`` (expired 2025-10-31) play only casual games.
* 419 games from 2026-01-05 to 2026-03-31 in the three pools (rapid, blitz, bullet),
  with the official controls written in mixed forms (``300+3``, ``5m+3s``, ``3m + 2s``,
  ``15m``, ``600+10``, ``60``), casual games (``"rated": false``) on free controls
  (``7m+5s``, ``20m``, ``1200+5``), resignations, timeouts, disconnects and forfeits.
  Besides the storylines, members play random games (results drawn from a hidden
  playing strength, Elo-like, about 10 % draws). Newcomers join the pools along the way;
  with this seed ``pablo``, ``quinn``, ``uma`` and ``daria`` (blitz), ``cedric`` and
  ``rosa`` (rapid), ``sven`` and ``tariq`` (bullet) qualify, while ``emil`` (rapid, 3 / 5)
  and ``fatima`` (blitz, 2 / 5) are still qualifying on 03-31. ``gabriel``, ``hana``,
  ``igor`` and ``julia`` play only a few casual games (and ``hana`` one rated game).

Scripted storylines (not left to chance)
----------------------------------------
* **Nadia Petrova (nadia), blitz, January: a new member qualifies (A6).** Her loss to
  ``greta`` on 01-12 is ignored (the count has not started), a game against the
  equally unrated ``hana`` counts for neither, a draw with ``jonas`` on 01-14 starts the
  count; a forfeit win over ``kwame`` on 01-16 is void and not counted (A4); then a win
  over ``kwame``, a loss by disconnect to ``alice``, a win over ``elena`` and a draw with
  ``chiara`` on 01-23: 3 / 5, so Rf = Ra + 20 (1703.98) and she is rated. Her next games
  (from 01-26) are at K = 40 (A8). The three storylines use A6's three formulas: over,
  under and exactly 50 %.
* **Oscar Lindgren (oscar), rapid: a first rating below 1000 (A6).** From 01-20 to 01-30
  he beats ``ines`` and then loses four times to ``yusuf``, ``walter`` and ``ines``
  (club beginners rated 1060-1130): Ra = 1088.00, s = 1, Rf = 1088 − 240 = 848.00 < 1000,
  so he stays unrated and the count is reset. A loss to ``walter`` on 02-27 is ignored
  again; from 03-02 to 03-09 he scores 3 / 5 against the same players and is rated at
  1108.00, then plays at K = 40.
* **Walter Brandt (walter), bullet, February: the floor (A10).** Imported at 1010.00 with
  40 bullet games (K 10), he loses three games in a row to ``yusuf`` (1004.00) on 02-09:
  1010.00 → 1004.90 (D 6, PD 0.51) → 1000.00 exactly (D 4.2 → 4, PD 0.49; 1000.00 is not
  below the floor, he stays rated) → 995.20 (D 14, PD 0.48): the bullet rating is lost;
  his rapid rating (1130.00) is untouched (A1). A loss to ``kwame`` on 02-11 is ignored;
  from 02-12 to 02-20 he scores 2.5 / 5 against ``yusuf`` (three times), ``elena`` and
  ``kwame``, is rated again at Rf = Ra (1215.81) and plays at K = 40 again (A10, A8).
* **Henrik Olsen (henrik): membership until 2026-02-15 (A3, inclusive).** His last rated
  game is on that day; afterwards he plays only casual games.
* **The K = 40 period (A8):** besides the players above, ``chiara``, ``elena``,
  ``kwame``, ``mateo``, ``greta`` and ``bianca`` start with fewer than 30 games in some
  pool; ``bianca`` crosses from K 40 to K 20 in blitz after her first game (29 → 30).
"""

from __future__ import annotations

import csv
import json
import math
import random
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).parent
GAMES_FILE = HERE / "arena_games.jsonl"
PLAYERS_FILE = HERE / "arena_players.csv"

FIRST_DAY = date(2026, 1, 5)
LAST_DAY = date(2026, 3, 31)
POOLS = ("rapid", "blitz", "bullet")
PLAYER_COLUMNS = (
    "id",
    "name",
    "membership_until",
    "rating_rapid",
    "games_rapid",
    "rating_blitz",
    "games_blitz",
    "rating_bullet",
    "games_bullet",
)

# id, name, membership until, then "rating/games" in rapid, blitz, bullet ("" = none).
PLAYERS: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("alice", "Alice Moreau", "2026-12-31", "1845.50/64", "1902.00/120", ""),
    ("bruno", "Bruno Ferreira", "2026-12-31", "", "2105.00/180", "2150.25/200"),
    ("chiara", "Chiara Bianchi", "2026-09-30", "1620.00/22", "1580.40/45", ""),
    ("dmitri", "Dmitri Volkov", "2027-03-31", "2280.00/150", "2241.60/95", "2210.00/88"),
    ("elena", "Elena Kovacs", "2026-06-30", "", "1450.00/12", "1390.75/18"),
    ("farid", "Farid Haddad", "2026-12-31", "1730.00/35", "", ""),
    ("greta", "Greta Lindqvist", "2026-09-30", "1505.20/28", "1540.00/31", ""),
    ("hiro", "Hiro Tanaka", "2026-12-31", "", "1960.00/77", "1985.50/140"),
    ("ines", "Ines Duarte", "2026-06-30", "1095.00/45", "", ""),
    ("jonas", "Jonas Weber", "2026-12-31", "1800.00/40", "1775.30/52", ""),
    ("kwame", "Kwame Mensah", "2026-09-30", "", "1690.00/33", "1655.00/25"),
    ("lucia", "Lucia Navarro", "2027-01-31", "1910.80/110", "", ""),
    ("mateo", "Mateo Rossi", "2026-06-30", "1340.00/14", "1320.00/19", ""),
    ("henrik", "Henrik Olsen", "2026-02-15", "1700.00/90", "1655.50/60", ""),
    ("walter", "Walter Brandt", "2026-12-31", "1130.00/70", "", "1010.00/40"),
    ("yusuf", "Yusuf Demir", "2026-12-31", "1060.00/50", "", "1004.00/55"),
    ("victor", "Victor Laurent", "2025-12-31", "", "1750.00/80", ""),
    ("amara", "Amara Okafor", "2026-12-31", "2015.00/130", "1990.00/66", ""),
    ("bianca", "Bianca Popescu", "2026-09-30", "", "1725.00/29", "1780.00/10"),
    ("nadia", "Nadia Petrova", "2027-01-31", "", "", ""),
    ("oscar", "Oscar Lindgren", "2026-12-31", "", "", ""),
    ("pablo", "Pablo Ortega", "2026-12-31", "", "", ""),
    ("quinn", "Quinn Harper", "2026-07-31", "", "", ""),
    ("rosa", "Rosa Jiménez", "2026-12-31", "", "", ""),
    ("sven", "Sven Aalto", "2027-01-31", "", "", ""),
    ("tariq", "Tariq Rahman", "2026-08-31", "", "", ""),
    ("uma", "Uma Iyer", "2027-02-28", "", "", ""),
    ("cedric", "Cédric Dubois", "2026-12-31", "", "", ""),
    ("daria", "Daria Sokolova", "2026-10-31", "", "", ""),
    ("emil", "Emil Novak", "2027-02-28", "", "", ""),
    ("fatima", "Fatima Benali", "2027-03-31", "", "", ""),
    ("gabriel", "Gabriel Santos", "2026-12-31", "", "", ""),
    ("hana", "Hana Kim", "2026-12-31", "", "", ""),
    ("igor", "Igor Petrenko", "2026-12-31", "", "", ""),
    ("julia", "Julia Schmidt", "2026-12-31", "", "", ""),
    ("zoe", "Zoe Carter", "2025-10-31", "", "", ""),
)

# Newcomers without a rating who join random rated play: player, pool, hidden playing
# strength, first day, activity weight. gabriel, hana, igor, julia play casual games only.
NEWCOMERS: tuple[tuple[str, str, int, str, float], ...] = (
    ("pablo", "blitz", 1480, "2026-01-10", 1.0),
    ("quinn", "blitz", 1250, "2026-01-20", 0.8),
    ("rosa", "rapid", 1560, "2026-02-01", 1.0),
    ("sven", "bullet", 1620, "2026-01-15", 1.2),
    ("tariq", "bullet", 1180, "2026-02-10", 0.8),
    ("uma", "blitz", 1820, "2026-02-15", 1.0),
    ("cedric", "rapid", 1380, "2026-01-25", 0.8),
    ("daria", "blitz", 1080, "2026-02-05", 0.8),
    ("emil", "rapid", 1700, "2026-03-01", 1.0),
    ("fatima", "blitz", 1620, "2026-03-16", 0.8),
)

# (player, pool) kept out of random play until a day (None: never), so that the scripted
# storylines run on known ratings; then they play like everyone else at this strength.
RESERVED: dict[tuple[str, str], tuple[str | None, int]] = {
    ("nadia", "blitz"): ("2026-02-03", 1700),
    ("oscar", "rapid"): ("2026-03-14", 1180),
    ("ines", "rapid"): ("2026-03-14", 1100),
    ("yusuf", "rapid"): ("2026-03-14", 1070),
    ("walter", "rapid"): ("2026-03-14", 1120),
    ("yusuf", "bullet"): ("2026-02-26", 1030),
    ("walter", "bullet"): (None, 1050),
}

RANDOM_RATED_GAMES = {"blitz": 165, "rapid": 105, "bullet": 70}
RANDOM_CASUAL_GAMES = 36
DRAW_RATE = 0.10

# arena A2: the official controls, (minutes, increment seconds).
OFFICIAL = {
    "rapid": ((15, 0), (25, 0), (45, 0), (10, 10), (15, 10), (25, 10), (45, 10)),
    "blitz": ((3, 0), (5, 0), (10, 0), (3, 2), (3, 3), (5, 3)),
    "bullet": ((1, 0), (2, 0), (1, 1), (1, 2)),
}
# Free controls for casual games: none of them is official.
CASUAL_CONTROLS = ((7, 5), (20, 0), (30, 0), (4, 2), (12, 5), (20, 10), (8, 0), (2, 3))


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
    """``"2026-01-12 19:00"`` as an aware UTC datetime."""
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


def nadia_qualifies() -> list[Game]:
    """A6: ignored loss, a game between two unrated players, count start, a void forfeit,
    a disconnect loss that counts, the fifth game; then A8's K = 40."""
    return [
        story("nadia-ignored", "2026-01-12 19:00", "greta", "nadia", "1-0", "3m + 2s", "resign"),
        story("nadia-vs-unrated", "2026-01-12 19:20", "nadia", "hana", "1-0", "180+2", "resign"),
        story("nadia-q1", "2026-01-14 20:00", "jonas", "nadia", "1/2-1/2", "5m+3s"),
        story("nadia-forfeit", "2026-01-16 19:30", "nadia", "kwame", "1-0", "300+3", "forfeit"),
        story("nadia-q2", "2026-01-16 20:10", "kwame", "nadia", "0-1", "300+3", "resign"),
        story("nadia-q3", "2026-01-19 21:00", "nadia", "alice", "0-1", "3m+2s", "disconnect"),
        story("nadia-q4", "2026-01-21 19:45", "elena", "nadia", "0-1", "5m", "timeout"),
        story("nadia-q5", "2026-01-23 20:30", "nadia", "chiara", "1/2-1/2", "600"),
        story("nadia-k40", "2026-01-26 19:00", "nadia", "mateo", "1-0", "3m + 3s", "resign"),
        story(None, "2026-01-28 19:30", "hiro", "nadia", "1-0", "180"),
        story(None, "2026-02-02 20:00", "nadia", "greta", "1/2-1/2", "300+3"),
    ]


def oscar_fails_then_qualifies() -> list[Game]:
    """A6: 1 / 5 against players rated about 1088 gives 848.00 < 1000 (count reset);
    later 3 / 5 against the same players gives 1108.00."""
    return [
        story("oscar-q1", "2026-01-20 20:00", "oscar", "ines", "1-0", "15m", "resign"),
        story(None, "2026-01-22 20:00", "yusuf", "oscar", "1-0", "900+10", "resign"),
        story(None, "2026-01-24 18:00", "oscar", "walter", "0-1", "10m+10s", "resign"),
        story(None, "2026-01-27 20:00", "ines", "oscar", "1-0", "25m", "timeout"),
        story("oscar-fails", "2026-01-30 19:00", "oscar", "yusuf", "0-1", "1500+10", "resign"),
        story("oscar-ignored", "2026-02-27 19:00", "walter", "oscar", "1-0", "15m + 10s"),
        story("oscar-restart", "2026-03-02 19:00", "oscar", "yusuf", "1/2-1/2", "900"),
        story(None, "2026-03-04 19:00", "ines", "oscar", "0-1", "10m+10s", "resign"),
        story(None, "2026-03-05 19:00", "oscar", "walter", "1-0", "2700", "timeout"),
        story(None, "2026-03-06 19:00", "yusuf", "oscar", "1-0", "15m+10s", "resign"),
        story("oscar-qualifies", "2026-03-09 19:00", "oscar", "ines", "1/2-1/2", "25m + 10s"),
        story("oscar-k40", "2026-03-11 19:00", "walter", "oscar", "0-1", "15m", "resign"),
        story(None, "2026-03-13 19:00", "oscar", "ines", "1-0", "600+10", "resign"),
    ]


def walter_floor() -> list[Game]:
    """A10: 1010.00 → 1004.90 → 1000.00 (stays) → 995.20 (lost); A6 again; A8 K = 40."""
    return [
        story("walter-loss-1", "2026-02-09 21:00", "walter", "yusuf", "0-1", "60", "resign"),
        story("walter-loss-2", "2026-02-09 21:04", "yusuf", "walter", "1-0", "1m", "resign"),
        story("walter-floor", "2026-02-09 21:08", "walter", "yusuf", "0-1", "1m+0s", "timeout"),
        story("walter-ignored", "2026-02-11 20:00", "kwame", "walter", "1-0", "2m"),
        story("walter-restart", "2026-02-12 20:00", "walter", "yusuf", "1/2-1/2", "1m + 1s"),
        story(None, "2026-02-14 20:00", "elena", "walter", "1-0", "60+1", "timeout"),
        story(None, "2026-02-16 20:00", "walter", "yusuf", "1-0", "120", "resign"),
        story(None, "2026-02-18 20:00", "yusuf", "walter", "0-1", "1m+2s", "resign"),
        story("walter-requalifies", "2026-02-20 20:00", "walter", "kwame", "0-1", "60+2"),
        story("walter-k40", "2026-02-23 20:00", "walter", "yusuf", "1-0", "60", "timeout"),
        story(None, "2026-02-25 20:00", "bianca", "walter", "1-0", "2m", "resign"),
    ]


def memberships_and_casual() -> list[Game]:
    """A3: henrik's last rated game on the last day of his membership; casual games
    (A4) for him afterwards and for the expired members victor and zoe."""
    casual = {"rated": False}
    return [
        story("henrik-last-day", "2026-02-15 21:30", "henrik", "lucia", "1/2-1/2", "25m+10s"),
        story(None, "2026-02-20 18:00", "lucia", "henrik", "1-0", "30m", "resign", **casual),
        story(None, "2026-03-07 17:30", "henrik", "amara", "0-1", "7m+5s", "timeout", **casual),
        story(None, "2026-01-10 16:00", "victor", "zoe", "1-0", "20m", "resign", **casual),
        story(None, "2026-01-31 15:00", "alice", "victor", "1/2-1/2", "420+5", **casual),
        story(None, "2026-02-21 11:00", "zoe", "hana", "0-1", "4m+2s", "resign", **casual),
        story(None, "2026-03-14 16:30", "victor", "bruno", "0-1", "12m+5s", "resign", **casual),
        story(None, "2026-03-22 10:00", "igor", "julia", "1-0", "1200+5", "resign", **casual),
    ]


# -- random play -------------------------------------------------------------------------


@dataclass(frozen=True)
class Entrant:
    """A player in a pool's random play: hidden strength, from (and until) which day."""

    player: str
    pool: str
    strength: float
    first: date
    last: date
    weight: float


def membership(player: str) -> date | None:
    for row in PLAYERS:
        if row[0] == player:
            return day(row[2]) if row[2] else None
    raise KeyError(player)


def entrants(rng: random.Random) -> list[Entrant]:
    """Every (player, pool) that takes part in random rated play."""
    result = []
    for player, _name, until, *pools in PLAYERS:
        if not until or day(until) < FIRST_DAY:
            continue  # victor: casual games only
        for pool, imported in zip(POOLS, pools, strict=True):
            if not imported:
                continue
            first, strength = FIRST_DAY, float(imported.split("/")[0]) + rng.gauss(0, 40)
            if (player, pool) in RESERVED:
                released, strength = RESERVED[player, pool]
                if released is None:
                    continue
                first = day(released)
            result.append(Entrant(player, pool, strength, first, day(until), 1.0))
    for player, pool, strength, first, weight in NEWCOMERS:
        until = membership(player)
        assert until is not None
        result.append(Entrant(player, pool, strength, day(first), until, weight))
    for (player, pool), (released, strength) in RESERVED.items():
        until = membership(player)
        known = any(e.player == player and e.pool == pool for e in result)
        if released is not None and not known and until is not None:
            result.append(Entrant(player, pool, strength, day(released), until, 1.0))
    return result


def control_text(rng: random.Random, minutes: int, increment: int) -> str:
    """One time control written in one of the accepted forms."""
    forms = [
        f"{minutes * 60}+{increment}",
        f"{minutes}m+{increment}s",
        f"{minutes}m + {increment}s",
    ]
    if increment == 0:
        forms += [f"{minutes}m", f"{minutes * 60}"]
    return rng.choice(forms)


def expected(strength: float, opponent: float) -> float:
    return 1 / (1 + 10 ** ((opponent - strength) / 400))


def play(rng: random.Random, white: float, black: float, pool: str) -> tuple[str, str | None]:
    """A result drawn from the players' strengths, and how the game ended."""
    if rng.random() < DRAW_RATE:
        return "1/2-1/2", None
    result = "1-0" if rng.random() < expected(white, black) else "0-1"
    ending = rng.random()
    timeouts = 0.35 if pool == "bullet" else 0.15
    if ending < 0.02:
        return result, "forfeit"
    if ending < 0.06:
        return result, "disconnect"
    if ending < 0.06 + timeouts:
        return result, "timeout"
    if ending < 0.80:
        return result, "resign"
    return result, None  # checkmate: a normal end


def moment(rng: random.Random, on: date) -> datetime:
    seconds = rng.randrange(8 * 3600, 24 * 3600)
    return datetime(on.year, on.month, on.day, tzinfo=UTC) + timedelta(seconds=seconds)


def random_day(rng: random.Random) -> date:
    return FIRST_DAY + timedelta(days=rng.randrange((LAST_DAY - FIRST_DAY).days + 1))


def random_rated_games(rng: random.Random) -> list[Game]:
    """Rated games among the members in each pool, opponents of similar strength."""
    field = entrants(rng)
    games = []
    for pool, count in RANDOM_RATED_GAMES.items():
        made = 0
        while made < count:
            on = random_day(rng)
            here = [e for e in field if e.pool == pool and e.first <= on <= e.last]
            first = rng.choices(here, [e.weight for e in here])[0]
            others = [e for e in here if e.player != first.player]
            closeness = [
                e.weight * math.exp(-abs(e.strength - first.strength) / 250) for e in others
            ]
            second = rng.choices(others, closeness)[0]
            white, black = (first, second) if rng.random() < 0.5 else (second, first)
            result, ending = play(rng, white.strength, black.strength, pool)
            control = control_text(rng, *rng.choice(OFFICIAL[pool]))
            games.append(
                Game(moment(rng, on), white.player, black.player, result, True, control, ending)
            )
            made += 1
    return games


def random_casual_games(rng: random.Random) -> list[Game]:
    """Casual games between anyone (members or not) on free time controls."""
    ids = [row[0] for row in PLAYERS]
    games = []
    for _ in range(RANDOM_CASUAL_GAMES):
        white, black = rng.sample(ids, 2)
        result, ending = play(rng, 1500, 1500, "casual")
        if ending == "forfeit":
            ending = "resign"
        control = control_text(rng, *rng.choice(CASUAL_CONTROLS))
        games.append(
            Game(moment(rng, random_day(rng)), white, black, result, False, control, ending)
        )
    return games


# -- the files ---------------------------------------------------------------------------


def write_players(path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(PLAYER_COLUMNS)
        for player, name, until, *pools in PLAYERS:
            row = [player, name, until]
            for imported in pools:
                row += imported.split("/") if imported else ["", ""]
            writer.writerow(row)


def write_games(path: Path, games: list[Game]) -> dict[str, str]:
    """Write the games in played_at order with ids a0001…; return label → id."""
    labels = {}
    with path.open("w", encoding="utf-8") as handle:
        for number, game in enumerate(sorted(games, key=lambda g: g.played_at), start=1):
            game_id = f"a{number:04d}"
            handle.write(json.dumps(game.as_json(game_id), ensure_ascii=False) + "\n")
            if game.label:
                labels[game.label] = game_id
    return labels


def generate() -> tuple[int, dict[str, str]]:
    rng = random.Random(2026)
    games = [
        *nadia_qualifies(),
        *oscar_fails_then_qualifies(),
        *walter_floor(),
        *memberships_and_casual(),
        *random_rated_games(rng),
        *random_casual_games(rng),
    ]
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


def verify(labels: dict[str, str]) -> int:
    """Replay both files through the engine and check every storyline happened."""
    chessrate = load_chessrate()
    from chessrate.io.games import read_games, read_players
    from chessrate.systems.arena import ArenaSystem

    # Read back the way `chessrate rate` reads them (FILE:LINE in any error).
    players = read_players(PLAYERS_FILE)
    games = read_games(GAMES_FILE)

    engine = chessrate.Engine(ArenaSystem(), players)
    try:
        engine.replay(games)
    except chessrate.InvalidRecord as error:
        print(f"refused: {error}", file=sys.stderr)
        return 1

    cov = Coverage()
    by_id = {rating.game.id: rating for rating in engine.ratings}
    changes = list(engine.changes())

    def of(player: str, pool: str, rule: str | None = None) -> list[Any]:
        return [
            c
            for c in changes
            if c.player == player and c.pool == pool and (rule is None or c.rule == rule)
        ]

    def game_of(label: str) -> Any:
        return by_id[labels[label]]

    def after(label: str, items: Iterable[Any]) -> list[Any]:
        return [c for c in items if c.game_id > labels[label]]

    outcomes = Counter(str(r.outcome) for r in engine.ratings)
    imported_few = {(p.id, pool) for p in players for pool, i in p.imported.items() if i.games < 30}
    a6_rated = {(c.player, c.pool) for c in changes if c.rule == "arena A6"}

    # (1) nadia qualifies in blitz.
    a6 = of("nadia", "blitz", "arena A6")
    rated_at = a6[-1] if a6 else None
    k40 = [c for c in of("nadia", "blitz", "arena A7") if c.k == 40]
    only_nadia = all(
        {c.player for c in by_id[c.game_id].changes} == {"nadia"} for c in a6
    )  # A9: nothing for her rated opponents
    cov.check(
        "1 new player qualifies",
        len(a6) == 5
        and a6[0].game_id == labels["nadia-q1"]
        and a6[0].note.startswith("count starts")
        and rated_at is not None
        and rated_at.game_id == labels["nadia-q5"]
        and rated_at.state_after == "rated"
        and only_nadia
        and len(k40) >= 3,
        f"nadia (blitz) {rated_at.note if rated_at else '-'}; then {len(k40)} games at K 40",
    )

    # (2) oscar's first rating is below 1000: not rated, count reset; later qualifies.
    failed = [c for c in of("oscar", "rapid", "arena A6") if c.game_id == labels["oscar-fails"]]
    later = after("oscar-fails", of("oscar", "rapid", "arena A6"))
    cov.check(
        "2 first rating below 1000, count reset",
        len(failed) == 1
        and failed[0].after == Decimal("848.00")
        and failed[0].state_after == "unrated"
        and failed[0].games_after == 0
        and [(c.game_id, c.games_after) for c in later[:1]] == [(labels["oscar-restart"], 1)]
        and later[-1].state_after == "rated"
        and later[-1].after == Decimal("1108.00"),
        f"oscar (rapid) {failed[0].note if failed else '-'}; "
        f"requalified on {labels['oscar-qualifies']} at {later[-1].after if later else '-'}",
    )

    # (3) the K = 40 period, for imported players with < 30 games and new players.
    k40_imported = [c for c in changes if c.k == 40 and (c.player, c.pool) in imported_few]
    k40_new = [c for c in changes if c.k == 40 and (c.player, c.pool) in a6_rated]
    bianca = [c.k for c in of("bianca", "blitz", "arena A7")]
    cov.check(
        "3 K = 40 period",
        bool(k40_imported) and bool(k40_new) and bianca[:2] == [40, 20],
        f"{len(k40_imported)} changes at K 40 for imported players with < 30 games, "
        f"{len(k40_new)} for players rated through A6; bianca blitz K {bianca[:2]}",
    )

    # (4) walter: 1004.90, exactly 1000.00 (kept), 995.20 (lost); requalifies; K 40 again.
    steps = [
        c
        for label in ("walter-loss-1", "walter-loss-2", "walter-floor")
        for c in game_of(label).changes
        if c.player == "walter"
    ]
    yusuf_stands = [c for c in game_of("walter-floor").changes if c.player == "yusuf"]
    requalified = [
        c for c in of("walter", "bullet", "arena A6") if c.game_id == labels["walter-requalifies"]
    ]
    next_k = [c.k for c in of("walter", "bullet") if c.game_id == labels["walter-k40"]]
    # A1: meanwhile walter is still rated in rapid, as oscar's opponent.
    walter_rapid = [
        c.opponent_rating
        for c in after("walter-floor", of("oscar", "rapid", "arena A6"))
        if c.opponent == "walter"
    ]
    cov.check(
        "4 rating under the floor, requalifies",
        [c.after for c in steps] == [Decimal(x) for x in ("1004.90", "1000.00", "995.20")]
        and [c.rule for c in steps] == ["arena A7", "arena A7", "arena A10"]
        and steps[-1].state_after == "unrated"
        and [(c.state_after, c.after) for c in yusuf_stands] == [("rated", Decimal("1018.80"))]
        and len(requalified) == 1
        and requalified[0].state_after == "rated"
        and next_k == [40]
        and walter_rapid[:1] == [Decimal("1130.00")],
        f"walter (bullet) {' → '.join(str(c.after) for c in steps)} (A10); "
        f"requalified: {requalified[0].note if requalified else '-'}; then K {next_k}; "
        f"still rated {walter_rapid[0] if walter_rapid else '-'} in rapid (A1)",
    )

    # (5) forfeits are void and move nothing.
    forfeits = [r for r in engine.ratings if r.game.termination.value == "forfeit"]
    cov.check(
        "5 forfeits are void",
        bool(forfeits)
        and all(r.outcome.value == "void" and not r.changes for r in forfeits if r.game.rated)
        and game_of("nadia-forfeit").outcome.value == "void",
        f"{sum(r.game.rated for r in forfeits)} rated forfeits, all void "
        f"(one in nadia's qualification, not counted)",
    )

    # (6) unrated games; expired memberships play only those; henrik's last day.
    unrated = [r for r in engine.ratings if r.outcome.value == "unrated"]
    expired_rated = [
        r
        for r in engine.ratings
        if r.game.rated and {"victor", "zoe"} & {r.game.white, r.game.black}
    ]
    henrik_rated = [
        r.game.played_at.date()
        for r in engine.ratings
        if r.game.rated and "henrik" in (r.game.white, r.game.black)
    ]
    cov.check(
        "6 unrated games",
        len(unrated) >= 30
        and not expired_rated
        and max(henrik_rated, default=None) == date(2026, 2, 15)
        and game_of("henrik-last-day").outcome.value == "rated",
        f"{len(unrated)} casual games; victor and zoe (expired) play only those; "
        f"henrik's last rated game on {max(henrik_rated, default='-')} "
        "(membership until 2026-02-15)",
    )

    # (7) losses before the count starts are ignored.
    ignored = ("nadia-ignored", "oscar-ignored", "walter-ignored")
    cov.check(
        "7 losses before the count starts",
        all(game_of(x).outcome.value == "rated" and not game_of(x).changes for x in ignored)
        and not game_of("nadia-vs-unrated").changes,
        "nadia (blitz), oscar (rapid, after the reset), walter (bullet, after the floor): "
        "ignored; nadia vs hana (both unrated) counts for neither",
    )

    # (8) all three pools, each with its own K.
    ks = {pool: sorted({c.k for c in changes if c.pool == pool and c.k}) for pool in POOLS}
    per_pool = Counter(c.pool for c in changes if c.rule == "arena A7")
    cov.check(
        "8 all three pools",
        all(per_pool[pool] for pool in POOLS)
        and ks["rapid"] == [20, 40]
        and ks["blitz"] == [20, 40]
        and ks["bullet"] == [10, 40],
        ", ".join(f"{pool} {per_pool[pool]} A7 changes (K {ks[pool]})" for pool in POOLS),
    )

    # (9) disconnects are rated like any loss.
    disconnects = [
        r for r in engine.ratings if r.game.rated and r.game.termination.value == "disconnect"
    ]
    cov.check(
        "9 disconnects",
        bool(disconnects)
        and all(r.outcome.value == "rated" for r in disconnects)
        and any(r.changes for r in disconnects)
        and [c.games_after for c in game_of("nadia-q3").changes] == [3],
        f"{len(disconnects)} rated games lost by disconnect, "
        f"{sum(bool(r.changes) for r in disconnects)} of them moved a rating or a count",
    )

    rules = Counter(c.rule for c in changes)
    lists = engine.rating_lists()
    states = {pool: Counter(entry.state for entry in entries) for pool, entries in lists.items()}
    floors = sorted({c.player for c in changes if c.rule == "arena A10"})
    print(
        f"{len(players)} players, {len(games)} games "
        f"({outcomes['rated']} rated, {outcomes['unrated']} unrated, {outcomes['void']} void); "
        f"changes: {', '.join(f'{rule} {n}' for rule, n in sorted(rules.items()))}"
    )
    for pool in POOLS:
        print(f"  {pool}: " + ", ".join(f"{n} {state}" for state, n in states[pool].items()))
    print(f"  fell under the floor (A10): {', '.join(floors)}")
    fifth = [c for c in changes if c.rule == "arena A6" and c.after is not None]
    for state, word in (("rated", "qualified"), ("unrated", "failed (Rf < 1000)")):
        done = [f"{c.player} {c.pool} {c.after}" for c in fifth if c.state_after == state]
        print(f"  {word}: {', '.join(done)}")
    waiting = [
        f"{e.player} {e.pool} ({e.games}/5)"
        for entries in lists.values()
        for e in entries
        if e.state == "qualifying"
    ]
    print(f"  still qualifying: {', '.join(waiting)}")
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
