"""Write the ``site`` sample data: ``site_players.csv``, ``site_games.jsonl`` and
``site_annulments.txt``.

Run it with ``.venv/bin/python examples/make_site_sample.py``. It is deterministic
(``random.Random(404)``) and uses only the standard library to write the files; it then
replays them through ``chessrate`` in-process, applies the annulments, and exits
non-zero unless every scripted storyline below happened as planned and every site rule
(S1-S10) occurs.

What the sample holds
---------------------
* 40 humans and 3 bots (``bot-easy`` 1200, ``bot-medium`` 1700, ``bot-hard`` 2300) of a
  chess site. 6 humans start with imported ratings (``kai``, ``lars``, ``mira``; and the
  low-rated ``hal``, ``ida``, ``jon``); everyone else starts at 1500 in every rating.
  ``dora``, ``enzo``, ``flo``, ``gil`` and ``hugo`` join in May 2026 and end with fewer
  than 10 games, their site Elo shown with ``?`` (S6).
* 485 games from 2026-01-02 to 2026-05-31, ids ``s0001``…, every one with ``plies``
  (430 rated, 35 unrated, 20 void; 3 rated games are annulled afterwards):
  the scripted games below, then random games of every type between humans of similar
  (hidden) playing strength, each human playing a few types: bullet (``1m+0s``,
  ``2m+1s``, ``60``, ``120+1``), blitz (``3m+2s``, ``300+3``, ``5m+3s``, ``180+2``, ``5m``),
  rapid (``10m``, ``15m+10s``, ``600+5``, ``900``), classical (``30m``, ``25m+0s``,
  ``30m+20s``, ``1800``), unclocked (``-``), correspondence (``1d``, ``2d``, ``3d``,
  ``7d``), over the board (``"venue": "otb"``, mostly confirmed, a few pending) and
  against the bots. Games end by checkmate, resignation, time, abandonment,
  disconnection, a few forfeits (void), aborts before both sides moved (void), expiry
  of unclocked and correspondence games (S9), and casual games (``"rated": false``).
* ``site_annulments.txt``: three games annulled by moderation (S10).

Scripted storylines
-------------------
* **Opening day (2026-01-02): every type reached, weights applied (S2, S3).** Seven pairs
  of new players (1500 everywhere, no games) play their first game, White wins: ``ana``
  / ``ben`` bullet ``1m+0s``, ``cleo`` / ``dev`` blitz ``3m+2s``, ``eli`` / ``faye`` rapid
  ``10m``, ``gus`` / ``hanna`` classical ``30m``, ``ivo`` / ``june`` unclocked ``-``,
  ``kemal`` / ``lia`` correspondence ``2d``, ``milo`` / ``nia`` over the board (confirmed).
  Each type rating goes to 1516.00 / 1484.00 (K 32 × ½), each site Elo by 16 × the
  type's weight: ±8.00 (bullet, correspondence), ±12.00 (blitz — the spec's example
  1512.00 / 1488.00 —, unclocked, otb), ±16.00 (rapid, classical). ``omar`` beats
  ``bot-easy``: bots rating +4.80 (expected 0.85 against the bot's fixed 1200), site
  Elo +2.40 (weight 0.5).
* **`1500?` (S6).** On 2026-01-03 ``ana`` and ``ben`` draw their first classical game
  (``25m+0s``): both classical ratings stay 1500.00 after 1 game, shown ``1500?`` at the
  end (neither plays classical again).
* **Kai Andersen (kai): K 32 → 20 (S4).** Imported blitz 1650.00 after 28 games and site
  Elo 1700.00 after 29, he plays three blitz games against ``mira`` on 2026-01-03: blitz
  K 32, 32, 20; site Elo K 32, 20, 20 (each rating counts its own games).
* **Hal Porter (hal): the floor (S5).** Imported at 130.00 (blitz and site Elo, 40 games,
  K 20), he loses five blitz games on 2026-01-04 to ``ida`` and ``jon`` (both about as
  low): blitz 130.00 → 120.00 → 110.40 → 101.20 → 100.00 (−9.20 stops at the floor)
  → 100.00 (floor again); site Elo 130.00 → 122.65 → 115.45 → 108.70 → 101.95 →
  100.00 (stops at the floor). Then he beats ``jon``: 111.60 and 108.55.
* **Aborts (S8).** Void before both sides moved: ``pavel``–``quinn`` (0 plies, resign),
  ``rosa``–``sami`` (1 ply, abandon), ``tara``–``uri`` (1 ply, timeout), ``vik`` against
  ``bot-medium`` (0 plies, abandon). After both moved it is a rated loss: ``wes`` loses
  on time to ``xena`` after 2 plies, ``zed`` abandons against ``yuri`` after 3.
* **Bots (S7).** ``abel``'s game against ``bot-hard`` stops with ``bot_no_move`` after 12
  plies (move 7): void. ``bea``'s against ``bot-medium`` stops after 24 plies (move 13):
  her loss. ``cruz`` loses on time to ``bot-easy``: rated. Bots appear in no list.
* **Expiry (S9).** ``ivo`` (White) lets an unclocked game expire after 24 plies (White to
  move): 0-1; ``lia`` (Black) lets a ``2d`` correspondence game expire after 31 plies:
  1-0. A casual unclocked game between ``june`` and ``ivo`` moves nothing.
* **Forfeits, casual games, a pending otb game.** ``eli`` wins a rapid game by forfeit
  over ``faye`` (void); casual games of every kind move nothing (S1); ``rosa`` and
  ``sami`` register an otb game that ``sami`` has not confirmed: pending, unrated (S2).
* **Zed Morrow (zed): fair-play annulment (S10).** He beats ``lars`` in rapid
  (2026-02-10) and ``mira`` in blitz (2026-02-12); moderation confirms engine
  assistance and both games are annulled; ``pavel``'s bullet win over ``quinn`` on
  2026-03-03 is annulled for sandbagging. The check applies the annulments on
  2026-06-01 and finds every rating touched moved back by exactly the game's change.
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
GAMES_FILE = HERE / "site_games.jsonl"
PLAYERS_FILE = HERE / "site_players.csv"
ANNULMENTS_FILE = HERE / "site_annulments.txt"

RANDOM_FIRST_DAY = date(2026, 1, 5)
LAST_DAY = date(2026, 5, 31)
IMPORTED_POOLS = ("site", "bullet", "blitz", "rapid", "classical")
PLAYER_COLUMNS = (
    "id",
    "name",
    "bot",
    "bot_rating",
    *(f"{kind}_{pool}" for pool in IMPORTED_POOLS for kind in ("rating", "games")),
)

BOTS: tuple[tuple[str, str, str], ...] = (
    ("bot-easy", "Bot (easy)", "1200.00"),
    ("bot-medium", "Bot (medium)", "1700.00"),
    ("bot-hard", "Bot (hard)", "2300.00"),
)

# id, name, hidden playing strength, first day of random play (None: scripted only),
# activity weight, the types the player plays.
HUMANS: tuple[tuple[str, str, int, str | None, float, str], ...] = (
    ("kai", "Kai Andersen", 1680, "2026-01-05", 1.2, "blitz bullet rapid bots"),
    ("lars", "Lars Eriksen", 2120, "2026-01-05", 1.0, "rapid classical otb correspondence"),
    ("mira", "Mira Sato", 1910, "2026-01-05", 1.2, "bullet blitz rapid"),
    ("hal", "Hal Porter", 130, None, 0.0, ""),
    ("ida", "Ida Berg", 140, None, 0.0, ""),
    ("jon", "Jon Kerr", 135, None, 0.0, ""),
    ("ana", "Ana Ribeiro", 1550, "2026-01-05", 1.0, "bullet blitz bots unclocked"),
    ("ben", "Ben Okafor", 1450, "2026-01-05", 1.0, "bullet blitz rapid"),
    ("cleo", "Cleo Martin", 1620, "2026-01-05", 1.0, "blitz rapid classical"),
    ("dev", "Dev Sharma", 1480, "2026-01-05", 1.0, "blitz bullet otb"),
    ("eli", "Eli Cohen", 1700, "2026-01-05", 1.0, "rapid classical correspondence"),
    ("faye", "Faye Dubois", 1400, "2026-01-05", 1.0, "rapid unclocked bots"),
    ("gus", "Gus Lindholm", 1850, "2026-01-05", 1.0, "classical rapid otb"),
    ("hanna", "Hanna Nieminen", 1500, "2026-01-05", 1.0, "classical correspondence unclocked"),
    ("ivo", "Ivo Marković", 1350, "2026-01-05", 1.0, "unclocked correspondence bots"),
    ("june", "June Park", 1580, "2026-01-05", 1.0, "unclocked blitz bots"),
    ("kemal", "Kemal Aydın", 1650, "2026-01-05", 1.0, "correspondence unclocked rapid"),
    ("lia", "Lia Rossi", 1300, "2026-01-05", 1.0, "correspondence bots blitz"),
    ("milo", "Milo Jensen", 1750, "2026-01-05", 1.0, "otb classical rapid"),
    ("nia", "Nia Adeyemi", 1600, "2026-01-05", 1.0, "otb blitz bullet"),
    ("omar", "Omar Haddad", 1250, "2026-01-05", 1.0, "bots unclocked blitz"),
    ("pavel", "Pavel Novák", 1520, "2026-01-05", 1.0, "bullet blitz"),
    ("quinn", "Quinn Foster", 1480, "2026-01-05", 1.0, "bullet blitz bots"),
    ("rosa", "Rosa Jiménez", 1600, "2026-01-05", 1.0, "rapid otb classical"),
    ("sami", "Sami Laine", 1560, "2026-01-05", 1.0, "rapid otb correspondence"),
    ("tara", "Tara Singh", 1700, "2026-01-05", 1.0, "blitz bullet rapid"),
    ("uri", "Uri Levin", 1650, "2026-01-05", 1.0, "blitz classical"),
    ("vik", "Vik Rao", 1400, "2026-01-05", 1.0, "bots bullet"),
    ("wes", "Wes Carter", 1530, "2026-01-05", 1.0, "blitz rapid"),
    ("xena", "Xena Pappas", 1580, "2026-01-05", 1.0, "blitz unclocked"),
    ("yuri", "Yuri Orlov", 1800, "2026-01-05", 1.0, "rapid classical bullet"),
    ("zed", "Zed Morrow", 1450, "2026-01-05", 1.0, "rapid blitz bullet"),
    ("abel", "Abel Tesfaye", 1350, "2026-01-05", 1.0, "bots rapid"),
    ("bea", "Bea Schmidt", 1500, "2026-01-05", 1.0, "bots blitz"),
    ("cruz", "Cruz Delgado", 1620, "2026-01-05", 1.0, "bots bullet blitz"),
    ("dora", "Dora Kiss", 1550, "2026-05-01", 2.5, "blitz rapid"),
    ("enzo", "Enzo Ferri", 1600, "2026-05-10", 2.5, "bullet blitz"),
    ("flo", "Flo Girard", 1450, "2026-05-05", 2.5, "rapid bots"),
    ("gil", "Gil Amaral", 1700, "2026-05-15", 2.5, "classical rapid"),
    ("hugo", "Hugo Weiss", 1500, "2026-05-12", 2.5, "blitz unclocked"),
)

# Imported ratings: player -> pool -> "rating/games".
IMPORTED: dict[str, dict[str, str]] = {
    "kai": {"site": "1700.00/29", "blitz": "1650.00/28"},
    "lars": {"site": "2120.00/300", "rapid": "2105.00/150", "classical": "2150.00/60"},
    "mira": {"site": "1910.00/700", "bullet": "1890.00/400", "blitz": "1925.50/220"},
    "hal": {"site": "130.00/40", "blitz": "130.00/40"},
    "ida": {"site": "140.00/45", "blitz": "130.00/40"},
    "jon": {"site": "135.00/40", "blitz": "135.00/40"},
}

RANDOM_RATED_GAMES = {
    "bullet": 70,
    "blitz": 115,
    "rapid": 80,
    "classical": 30,
    "unclocked": 30,
    "correspondence": 28,
    "otb": 20,
    "bots": 45,
}
RANDOM_CASUAL_GAMES = 30
DRAW_RATE = 0.12
CONTROLS = {
    "bullet": ("1m+0s", "2m+1s", "60", "120+1", "1m + 1s"),
    "blitz": ("3m+2s", "300+3", "5m+3s", "180+2", "5m"),
    "rapid": ("10m", "15m+10s", "600+5", "900", "10m + 5s"),
    "classical": ("30m", "25m+0s", "30m+20s", "1800", "45m+15s"),
    "unclocked": ("-",),
    "correspondence": ("1d", "2d", "3d", "7d"),
    "otb": ("90m+30s", "60m+30s"),
    "bots": ("10m", "5m+3s", "-", "15m+10s", "3m+2s"),
}
LIVE = ("bullet", "blitz", "rapid", "classical")

# Annulled games (S10): label of a scripted game, reason.
ANNULMENTS = (
    ("zed-rapid", "engine assistance confirmed by moderation"),
    ("zed-blitz", "engine assistance confirmed by moderation"),
    ("sandbag", "sandbagging: intentional loss confirmed by moderation"),
)
ANNULLED_AT = datetime(2026, 6, 1, tzinfo=UTC)


@dataclass
class Game:
    """A game before it gets its id. ``kind`` is the type it is written for (S2);
    ``label`` names a scripted game for the checks."""

    played_at: datetime
    white: str
    black: str
    result: str
    kind: str
    time_control: str | None
    plies: int
    termination: str | None = None
    rated: bool = True
    confirmed: bool | None = None
    label: str | None = None

    def as_json(self, game_id: str) -> dict[str, object]:
        data: dict[str, object] = {
            "id": game_id,
            "played_at": self.played_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "white": self.white,
            "black": self.black,
            "result": self.result,
            "rated": self.rated,
        }
        if self.time_control is not None:
            data["time_control"] = self.time_control
        if self.termination:
            data["termination"] = self.termination
        data["plies"] = self.plies
        if self.kind == "otb":
            data["venue"] = "otb"
            data["confirmed"] = bool(self.confirmed)
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
    kind: str,
    control: str | None,
    plies: int,
    termination: str | None = None,
    *,
    rated: bool = True,
    confirmed: bool | None = None,
) -> Game:
    return Game(
        at(when), white, black, result, kind, control, plies, termination, rated, confirmed, label
    )


def opening_day() -> list[Game]:
    """S2/S3: one first game per type between new players; omar's first game vs a bot."""
    return [
        story("first-bullet", "2026-01-02 10:00", "ana", "ben", "1-0", "bullet", "1m+0s", 58),
        story("first-blitz", "2026-01-02 10:20", "cleo", "dev", "1-0", "blitz", "3m+2s", 71),
        story("first-rapid", "2026-01-02 11:00", "eli", "faye", "1-0", "rapid", "10m", 64),
        story("first-classical", "2026-01-02 12:00", "gus", "hanna", "1-0", "classical", "30m", 89),
        story("first-unclocked", "2026-01-02 13:00", "ivo", "june", "1-0", "unclocked", "-", 45),
        story("first-corr", "2026-01-02 14:00", "kemal", "lia", "1-0", "correspondence", "2d", 52),
        story(
            "first-otb", "2026-01-02 15:00", "milo", "nia", "1-0", "otb", "90m+30s", 77,
            confirmed=True,
        ),
        story("first-bots", "2026-01-02 16:00", "omar", "bot-easy", "1-0", "bots", "10m", 66),
    ]  # fmt: skip


def scripted_games() -> list[Game]:
    """The storylines of the module docstring after the opening day."""
    casual = {"rated": False}
    return [
        *opening_day(),
        # S6: 1500? after one drawn classical game.
        story("ana-ben", "2026-01-03 09:00", "ben", "ana", "1/2-1/2", "classical", "25m+0s", 80),
        # S4: kai's K 32 -> 20.
        story("kai-1", "2026-01-03 18:00", "kai", "mira", "0-1", "blitz", "300+3", 60, "resign"),
        story("kai-2", "2026-01-03 18:20", "mira", "kai", "1/2-1/2", "blitz", "300+3", 92),
        story("kai-3", "2026-01-03 18:40", "kai", "mira", "1-0", "blitz", "5m+3s", 67, "timeout"),
        # S5: hal falls to the floor, then wins once.
        story("hal-1", "2026-01-04 19:00", "hal", "ida", "0-1", "blitz", "3m+2s", 40, "resign"),
        story("hal-2", "2026-01-04 19:15", "jon", "hal", "1-0", "blitz", "300+3", 35),
        story("hal-3", "2026-01-04 19:30", "hal", "ida", "0-1", "blitz", "5m+3s", 52, "timeout"),
        story("hal-4", "2026-01-04 19:45", "jon", "hal", "1-0", "blitz", "180+2", 44, "resign"),
        story("hal-5", "2026-01-04 20:00", "ida", "hal", "1-0", "blitz", "3m+2s", 61, "resign"),
        story("hal-6", "2026-01-04 20:15", "hal", "jon", "1-0", "blitz", "300+3", 57, "resign"),
        # S8: aborts are void; after both moved a timeout or an abandonment is a loss.
        story("abort-0", "2026-01-06 20:00", "pavel", "quinn", "0-1", "bullet", "1m+0s", 0,
              "resign"),
        story("abort-1", "2026-01-07 20:00", "rosa", "sami", "1-0", "rapid", "15m+10s", 1,
              "abandon"),
        story("abort-2", "2026-01-08 20:00", "tara", "uri", "*", "blitz", "300+3", 1, "timeout"),
        story("abort-bot", "2026-01-09 20:00", "vik", "bot-medium", "0-1", "bots", "5m+3s", 0,
              "abandon"),
        story("timeout-2", "2026-01-10 20:00", "wes", "xena", "0-1", "blitz", "3m+2s", 2,
              "timeout"),
        story("abandon-3", "2026-01-11 20:00", "yuri", "zed", "1-0", "rapid", "10m", 3,
              "abandon"),
        # S7: bots.
        story("bot-early", "2026-01-12 18:00", "abel", "bot-hard", "*", "bots", "10m", 12,
              "bot_no_move"),
        story("bot-late", "2026-01-13 18:00", "bea", "bot-medium", "0-1", "bots", "5m+3s", 24,
              "bot_no_move"),
        story("bot-timeout", "2026-01-14 18:00", "cruz", "bot-easy", "0-1", "bots", "3m+2s", 47,
              "timeout"),
        # S9: expiry, the player to move loses.
        story("expired-even", "2026-01-20 08:00", "ivo", "june", "0-1", "unclocked", "-", 24,
              "expired"),
        story("expired-odd", "2026-01-25 08:00", "kemal", "lia", "1-0", "correspondence", "2d",
              31, "expired"),
        story(None, "2026-01-26 08:00", "june", "ivo", "1/2-1/2", "unclocked", "-", 38,
              **casual),
        # Forfeit, pending otb, casual games.
        story("forfeit", "2026-01-15 19:00", "eli", "faye", "1-0", "rapid", "15m+10s", 0,
              "forfeit"),
        story("otb-pending", "2026-01-17 15:00", "rosa", "sami", "1-0", "otb", "60m+30s", 83,
              confirmed=False),
        story(None, "2026-01-18 12:00", "omar", "bot-hard", "0-1", "bots", "10m", 30, "resign",
              **casual),
        story(None, "2026-01-19 21:00", "lars", "mira", "1/2-1/2", "blitz", "3m+2s", 70,
              **casual),
        # S10: annulled later.
        story("zed-rapid", "2026-02-10 20:00", "lars", "zed", "0-1", "rapid", "15m+10s", 73,
              "resign"),
        story("zed-blitz", "2026-02-12 20:00", "zed", "mira", "1-0", "blitz", "5m+3s", 81,
              "resign"),
        story("sandbag", "2026-03-03 20:00", "quinn", "pavel", "0-1", "bullet", "2m+1s", 26,
              "resign"),
    ]  # fmt: skip


# -- random play -------------------------------------------------------------------------


@dataclass(frozen=True)
class Human:
    """A human in random play: hidden strength, from which day, how active, which types."""

    player: str
    strength: float
    first: date
    weight: float
    kinds: frozenset[str]


def humans() -> list[Human]:
    return [
        Human(player, strength, day(first), weight, frozenset(kinds.split()))
        for player, _name, strength, first, weight, kinds in HUMANS
        if first is not None
    ]


def expected(strength: float, opponent: float) -> float:
    return 1 / (1 + 10 ** ((opponent - strength) / 400))


def moment(rng: random.Random, on: date) -> datetime:
    seconds = rng.randrange(6 * 3600, 24 * 3600)
    return datetime(on.year, on.month, on.day, tzinfo=UTC) + timedelta(seconds=seconds)


def random_day(rng: random.Random) -> date:
    return RANDOM_FIRST_DAY + timedelta(days=rng.randrange((LAST_DAY - RANDOM_FIRST_DAY).days + 1))


def ending(rng: random.Random, kind: str, result: str, human_lost_to_bot: bool) -> tuple[str, ...]:
    """How a game with this result ended: (termination or "", plies as text)."""
    plies = rng.randrange(20, 141)
    if result == "1/2-1/2":
        return "", str(plies)
    roll = rng.random()
    if kind in LIVE:
        if roll < 0.03:  # an abort: void (S8)
            return rng.choice(("abandon", "timeout", "resign")), str(rng.randrange(2))
        if roll < 0.05:
            return "forfeit", str(plies)
        for limit, termination in ((0.25, "timeout"), (0.29, "abandon"), (0.31, "disconnect")):
            if roll < limit:
                return termination, str(plies)
    elif kind in ("unclocked", "correspondence"):
        if roll < 0.12:  # S9: the player to move loses (White when plies is even)
            white_lost = result == "0-1"
            return "expired", str(plies + (plies % 2 != (0 if white_lost else 1)))
        if roll < 0.14:
            return "forfeit", str(plies)
    elif kind == "bots" and human_lost_to_bot and roll < 0.2:
        return "timeout", str(plies)
    return ("resign" if rng.random() < 0.7 else ""), str(plies)


def random_rated_games(rng: random.Random) -> list[Game]:
    """Rated games of each type; opponents of similar strength, or the closest bot."""
    field = humans()
    bots = [(bot, float(rating)) for bot, _name, rating in BOTS]
    games = []
    for kind, count in RANDOM_RATED_GAMES.items():
        for _ in range(count):
            on = random_day(rng)
            here = [h for h in field if kind in h.kinds and h.first <= on]
            first = rng.choices(here, [h.weight for h in here])[0]
            if kind == "bots":
                closeness = [math.exp(-abs(r - first.strength) / 300) for _, r in bots]
                bot, rating = rng.choices(bots, closeness)[0]
                sides = [(first.player, first.strength), (bot, rating)]
            else:
                others = [h for h in here if h.player != first.player]
                near = [
                    h.weight * math.exp(-abs(h.strength - first.strength) / 250) for h in others
                ]
                second = rng.choices(others, near)[0]
                sides = [(first.player, first.strength), (second.player, second.strength)]
            rng.shuffle(sides)
            (white, white_strength), (black, black_strength) = sides
            draw = rng.random() < (DRAW_RATE if kind != "bots" else 0.05)
            won = rng.random() < expected(white_strength, black_strength)
            result = "1/2-1/2" if draw else "1-0" if won else "0-1"
            lost_to_bot = kind == "bots" and result == (
                "0-1" if black.startswith("bot-") else "1-0"
            )
            termination, plies = ending(rng, kind, result, lost_to_bot)
            confirmed = (rng.random() < 0.9) if kind == "otb" else None
            games.append(
                Game(
                    moment(rng, on), white, black, result, kind, rng.choice(CONTROLS[kind]),
                    int(plies), termination or None, True, confirmed,
                )
            )  # fmt: skip
    return games


def random_casual_games(rng: random.Random) -> list[Game]:
    """Casual games between any two humans (or a human and a bot), any type."""
    field = [h for h in humans() if h.first < date(2026, 5, 1)]
    games = []
    for _ in range(RANDOM_CASUAL_GAMES):
        kind = rng.choice([k for k in RANDOM_RATED_GAMES if k != "otb"])
        white, black = (h.player for h in rng.sample(field, 2))
        if kind == "bots":
            black = rng.choice(BOTS)[0]
        result = rng.choice(("1-0", "0-1", "1/2-1/2"))
        plies = rng.randrange(20, 141)
        termination = "resign" if result != "1/2-1/2" and rng.random() < 0.6 else None
        games.append(
            Game(
                moment(rng, random_day(rng)), white, black, result, kind,
                rng.choice(CONTROLS[kind]), plies, termination, False,
            )
        )  # fmt: skip
    return games


# -- the files ---------------------------------------------------------------------------


def write_players(path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(PLAYER_COLUMNS)
        for player, name, *_ in HUMANS:
            row = [player, name, "false", ""]
            for pool in IMPORTED_POOLS:
                imported = IMPORTED.get(player, {}).get(pool)
                row += imported.split("/") if imported else ["", ""]
            writer.writerow(row)
        for bot, name, rating in BOTS:
            writer.writerow([bot, name, "true", rating] + [""] * 2 * len(IMPORTED_POOLS))


def write_games(path: Path, games: list[Game]) -> tuple[dict[str, str], dict[str, str]]:
    """Write the games in played_at order with ids s0001…; return label → id and
    id → the type each game is written for."""
    labels, kinds = {}, {}
    with path.open("w", encoding="utf-8") as handle:
        for number, game in enumerate(sorted(games, key=lambda g: g.played_at), start=1):
            game_id = f"s{number:04d}"
            handle.write(json.dumps(game.as_json(game_id), ensure_ascii=False) + "\n")
            kinds[game_id] = game.kind
            if game.label:
                labels[game.label] = game_id
    return labels, kinds


def write_annulments(path: Path, labels: dict[str, str]) -> None:
    lines = [f"{labels[label]} {reason}\n" for label, reason in ANNULMENTS]
    path.write_text("".join(lines), encoding="utf-8")


def generate() -> tuple[int, dict[str, str], dict[str, str]]:
    rng = random.Random(404)
    games = [*scripted_games(), *random_rated_games(rng), *random_casual_games(rng)]
    write_players(PLAYERS_FILE)
    labels, kinds = write_games(GAMES_FILE, games)
    write_annulments(ANNULMENTS_FILE, labels)
    return len(games), labels, kinds


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


WEIGHTS = {
    "bots": Decimal("0.5"),
    "otb": Decimal("0.75"),
    "correspondence": Decimal("0.5"),
    "unclocked": Decimal("0.75"),
    "bullet": Decimal("0.5"),
    "blitz": Decimal("0.75"),
    "rapid": Decimal("1.0"),
    "classical": Decimal("1.0"),
}
"""site S2, restated here to check the engine independently."""


def cents(value: Decimal) -> Decimal:
    """Half away from zero to two decimals (the rounding rule), done here by hand."""
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def verify(labels: dict[str, str], kinds: dict[str, str]) -> int:
    """Replay the files through the engine, apply the annulments, and check every
    storyline happened."""
    chessrate = load_chessrate()
    from chessrate.io.games import read_annulments, read_games, read_players
    from chessrate.systems.site import SiteSystem

    # Read back the way `chessrate rate` reads them (FILE:LINE in any error).
    players = read_players(PLAYERS_FILE)
    games = read_games(GAMES_FILE)

    engine = chessrate.Engine(SiteSystem(), players)
    try:
        engine.replay(games)
    except chessrate.InvalidRecord as error:
        print(f"refused: {error}", file=sys.stderr)
        return 1

    cov = Coverage()
    by_id = {rating.game.id: rating for rating in engine.ratings}
    changes = [c for rating in engine.ratings for c in rating.changes]
    outcomes = Counter(str(r.outcome) for r in engine.ratings)
    bots = {p.id for p in players if p.bot}
    rated = [r for r in engine.ratings if str(r.outcome) == "rated"]

    def game_of(label: str) -> Any:
        return by_id[labels[label]]

    def moves(label: str, player: str) -> dict[str, tuple[Any, ...]]:
        """pool -> (before, after, k, rule) of one player's changes in a scripted game."""
        return {
            c.pool: (c.before, c.after, c.k, c.rule)
            for c in game_of(label).changes
            if c.player == player
        }

    # S1: casual games move nothing.
    casual = [r for r in engine.ratings if not r.game.rated]
    casual_kinds = sorted({kinds[r.game.id] for r in casual})
    cov.check(
        "S1 casual games",
        len(casual) > 20 and all(str(r.outcome) == "unrated" and not r.changes for r in casual),
        f"{len(casual)} casual games ({', '.join(casual_kinds)}) move nothing",
    )

    # S2/S3: every type; every rated game in the type it was written for; the formula with
    # each type's weight; the opening day's exact numbers.
    per_type = Counter(c.pool for c in changes if c.pool != "site")
    in_type = all({c.pool for c in r.changes} == {kinds[r.game.id], "site"} for r in rated)
    formula_ok = all(
        c.change == cents(c.k * (WEIGHTS[kinds[c.game_id]] if c.pool == "site" else 1) * c.delta)
        for c in changes
        if c.rule == "site S3"
    )
    same = 0
    weighted_ok = True
    for r in rated:
        for player in {c.player for c in r.changes}:
            pair = {c.pool: c for c in r.changes if c.player == player}
            typed, site = pair[kinds[r.game.id]], pair["site"]
            if (typed.k, typed.pd, typed.rule, site.rule) == (
                site.k,
                site.pd,
                "site S3",
                "site S3",
            ):
                same += 1
                weight = WEIGHTS[kinds[r.game.id]]
                weighted_ok &= abs(site.change - weight * typed.change) <= Decimal("0.01")
    opening = {}
    for label, kind in (
        ("first-bullet", "bullet"),
        ("first-blitz", "blitz"),
        ("first-rapid", "rapid"),
        ("first-classical", "classical"),
        ("first-unclocked", "unclocked"),
        ("first-corr", "correspondence"),
        ("first-otb", "otb"),
    ):
        white, black = game_of(label).game.white, game_of(label).game.black
        step = 16 * WEIGHTS[kind]
        opening[kind] = moves(label, white) == {
            kind: (Decimal(1500), Decimal(1516), 32, "site S3"),
            "site": (Decimal(1500), Decimal(1500) + step, 32, "site S3"),
        } and moves(label, black) == {
            kind: (Decimal(1500), Decimal(1484), 32, "site S3"),
            "site": (Decimal(1500), Decimal(1500) - step, 32, "site S3"),
        }
    omar = moves("first-bots", "omar")
    opening["bots"] = omar == {
        "bots": (Decimal(1500), Decimal("1504.80"), 32, "site S3"),
        "site": (Decimal(1500), Decimal("1502.40"), 32, "site S3"),
    }
    cov.check(
        "S2 every type, weights",
        all(per_type[k] for k in WEIGHTS) and in_type and formula_ok and all(opening.values()),
        ", ".join(f"{k} {per_type[k]}" for k in WEIGHTS)
        + " type changes; every rated game in the type written for; every change = "
        "K × weight × (score − expected); opening-day first games: type ±16.00, site Elo "
        "±8.00/12.00/16.00 by weight, omar vs bot-easy +4.80 / +2.40"
        + ("" if all(opening.values()) else f" ({opening})"),
    )
    cov.check(
        "S2 site change = weight × type change",
        same > 10 and weighted_ok,
        f"{same} player-games with the same K and expected score in both ratings: "
        "site Elo change = weight × type change (within the 0.01 of rounding)",
    )

    # S4: K 32 -> 20, each rating counting its own games.
    kai_blitz = [moves(f"kai-{n}", "kai")["blitz"][2] for n in (1, 2, 3)]
    kai_site = [moves(f"kai-{n}", "kai")["site"][2] for n in (1, 2, 3)]
    crossed = sorted(
        {
            (c.player, c.pool)
            for c in changes
            if c.games_before == 30 and c.k == 20 and any(
                o.player == c.player and o.pool == c.pool and o.games_before == 29 and o.k == 32
                for o in changes
            )
        }
    )  # fmt: skip
    k_ok = all(c.k == (32 if c.games_before < 30 else 20) for c in changes if c.k is not None)
    cov.check(
        "S4 K 32 → 20",
        kai_blitz == [32, 32, 20] and kai_site == [32, 20, 20] and k_ok and len(crossed) > 1,
        f"kai blitz K {kai_blitz}, site Elo K {kai_site}; crossing 30 games: "
        + ", ".join(f"{p} {pool}" for p, pool in crossed),
    )

    # S5: the floor.
    hal = [c for c in changes if c.player == "hal"]
    floored = sorted({(c.player, c.pool) for c in changes if c.rule == "site S5"})
    hal_blitz = [str(c.after) for c in hal if c.pool == "blitz"]
    hal_site = [str(c.after) for c in hal if c.pool == "site"]
    cov.check(
        "S5 floor at 100",
        ("hal", "blitz") in floored
        and ("hal", "site") in floored
        and all(c.after >= 100 for c in changes)
        and hal_blitz[4] == "100.00"
        and Decimal(hal_blitz[5]) > 100,
        f"hal blitz {' → '.join(hal_blitz)}; site Elo {' → '.join(hal_site)}; "
        f"stopped at the floor: {', '.join(f'{p} {pool}' for p, pool in floored)}",
    )

    # S6: 1500? under 10 games (checked after the annulments too, below).
    def s6() -> tuple[bool, list[str], list[str]]:
        lists = engine.rating_lists()
        entries = [e for pool in lists.values() for e in pool]
        ok = all(e.display.endswith("?") == (e.games < 10) for e in entries)
        exact = sorted(f"{e.player} {e.pool}" for e in entries if e.display == "1500?")
        marked = sorted(e.player for e in lists["site"] if e.display.endswith("?"))
        return ok and bool(marked), exact, marked

    # S7: bots.
    bot_games = [r for r in rated if kinds[r.game.id] == "bots"]
    fixed = all(
        c.player not in bots
        and c.opponent_rating == next(p.bot_rating for p in players if p.id == c.opponent)
        for r in bot_games
        for c in r.changes
    )
    late = moves("bot-late", "bea")
    in_lists = [
        e.player for pool in engine.rating_lists().values() for e in pool if e.player in bots
    ]
    cov.check(
        "S7 bots",
        len(bot_games) > 30
        and fixed
        and str(game_of("bot-early").outcome) == "void"
        and str(game_of("bot-late").outcome) == "rated"
        and late["bots"][1] < late["bots"][0]
        and str(game_of("bot-timeout").outcome) == "rated"
        and not in_lists
        and not any((b, pool) in engine.states for b in bots for pool in engine.system.pools),
        f"{len(bot_games)} rated bot games move only the human's bots rating and site Elo, "
        "against the bot's fixed rating; bot_no_move after 12 plies void (abel), after 24 "
        f"plies bea's loss ({late['bots'][0]} → {late['bots'][1]}); cruz loses on time to "
        "bot-easy; no bot in any list",
    )

    # S8: aborts.
    aborts = [
        r
        for r in engine.ratings
        if r.game.rated and r.game.plies < 2 and r.game.termination != "forfeit"
    ]
    scripted_aborts = [game_of(x) for x in ("abort-0", "abort-1", "abort-2", "abort-bot")]
    after_move = [game_of("timeout-2"), game_of("abandon-3")]
    late_losses = [
        r for r in rated if r.game.termination in ("timeout", "abandon") and r.game.plies >= 2
    ]
    cov.check(
        "S8 aborts",
        all(str(r.outcome) == "void" and not r.changes for r in aborts)
        and all(r in aborts for r in scripted_aborts)
        and all(str(r.outcome) == "rated" for r in after_move)
        and moves("timeout-2", "wes")["blitz"][1] < Decimal(1500)
        and moves("abandon-3", "zed")["rapid"][1] < Decimal(1500),
        f"{len(aborts)} games ended before both sides moved (0 or 1 ply: resign, abandon, "
        f"timeout, one against a bot) are void; {len(late_losses)} timeouts and abandonments "
        "after both moved are rated (wes after 2 plies, zed after 3)",
    )

    # S9: expiry.
    expired = [r for r in engine.ratings if r.game.termination == "expired"]
    to_move_loses = all(
        r.game.result == ("0-1" if r.game.plies % 2 == 0 else "1-0") for r in expired
    )
    cov.check(
        "S9 expired games",
        len(expired) > 2
        and all(str(r.outcome) == "rated" for r in expired)
        and to_move_loses
        and {kinds[r.game.id] for r in expired} == {"unclocked", "correspondence"},
        f"{len(expired)} rated unclocked/correspondence games expired, each the loss of the "
        "player to move (ivo after 24 plies: 0-1; lia after 31: 1-0)",
    )

    # Forfeits void; otb confirmed and pending.
    forfeits = [r for r in engine.ratings if r.game.termination == "forfeit" and r.game.rated]
    otb = [r for r in engine.ratings if r.game.rated and kinds[r.game.id] == "otb"]
    pending = [r for r in otb if not r.game.confirmed]
    cov.check(
        "forfeits void, otb pending",
        len(forfeits) > 1
        and all(str(r.outcome) == "void" and not r.changes for r in forfeits)
        and bool(pending)
        and all(str(r.outcome) == "unrated" and "pending" in r.reason for r in pending)
        and all(str(r.outcome) == "rated" for r in otb if r.game.confirmed),
        f"{len(forfeits)} forfeits void; {len(otb) - len(pending)} confirmed otb games rated, "
        f"{len(pending)} pending (rosa–sami among them) moving nothing",
    )

    # S10: annulments, applied the way the CLI does, then the checks.
    requests = read_annulments(ANNULMENTS_FILE)
    reversed_ok = len(requests) == len(ANNULMENTS)
    details = []
    for _where, game_id, reason in requests:
        original = by_id[game_id].changes
        keys = [(c.player, c.pool) for c in original]
        before = {key: engine.state(*key) for key in keys}
        engine.annul(game_id, reason, at=ANNULLED_AT, by="moderation")
        for c in original:
            now = engine.state(c.player, c.pool)
            was = before[(c.player, c.pool)]
            reversed_ok &= now.rating == was.rating - c.change and now.games == was.games - 1
        reversed_ok &= len(keys) == 4 and str(engine.outcome(game_id)) == "void"
        details.append(
            f"{game_id} ({', '.join(f'{c.player} {c.pool} {-c.change:+}' for c in original)})"
        )
    cov.check(
        "S10 annulments",
        reversed_ok,
        "both players' type rating and site Elo moved back by exactly the game's change, "
        f"one game fewer: {'; '.join(details)}",
    )

    s6_ok, exact, marked = s6()
    cov.check(
        "S6 1500? under 10 games",
        s6_ok and {"ana classical", "ben classical"} <= set(exact),
        f"every list entry with fewer than 10 games shows '?', the others not; shown "
        f"'1500?': {', '.join(exact)}; {len(marked)} site Elos with '?': {', '.join(marked)}",
    )

    rules = Counter(c.rule for c in engine.changes())
    outcomes_now = Counter(str(engine.outcome(r.game.id)) for r in engine.ratings)
    print(
        f"{len(players) - len(bots)} humans and {len(bots)} bots, {len(games)} games "
        f"({outcomes['rated']} rated, {outcomes['unrated']} unrated, {outcomes['void']} void; "
        f"after {len(requests)} annulments {outcomes_now['rated']} rated, "
        f"{outcomes_now['void']} void); changes: "
        + ", ".join(f"{rule} {n}" for rule, n in sorted(rules.items()))
    )
    for pool, entries in engine.rating_lists().items():
        top = ", ".join(f"{e.player} {e.display}" for e in entries[:3])
        print(f"  {pool}: {len(entries)} players (top: {top})")
    print("coverage:")
    print("\n".join(cov.lines))
    if cov.failures:
        print(f"missing: {', '.join(cov.failures)}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    count, labels, kinds = generate()
    print(
        f"wrote {PLAYERS_FILE.name} ({len(HUMANS)} humans, {len(BOTS)} bots), "
        f"{GAMES_FILE.name} ({count} games), {ANNULMENTS_FILE.name} ({len(ANNULMENTS)} games)"
    )
    return verify(labels, kinds)


if __name__ == "__main__":
    sys.exit(main())
