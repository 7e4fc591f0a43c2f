"""Generate a realistic, reproducible game stream for the benchmarks (bench/run.py).

One core stream of games (who played whom, when, and the result) is drawn once and
dressed per system with that system's features, so every measurement runs on the
same pairs:

* 100 k players (``--players``) with Zipf-like activity (weight ∝ 1 / (rank + 50)),
  a hidden playing strength, and 2 M games (``--games``) over about a year; results
  follow the strength difference (logistic, White +30), about 10 % draws.
* ``arena``: official rapid/blitz/bullet controls in several spellings, some
  unofficial controls (played unrated), members and non-members, memberships that
  expire during the year (their games after that are unrated), players imported as
  rated and new players who must qualify, casual games, forfeits, disconnects,
  games without a result.
* ``corr``: 1-14 days per move, imported established and provisional players and
  newcomers (so rating protection and the 400-point rule occur), casual games,
  forfeits, expiries.
* ``site``: bullet, blitz, rapid, classical, unclocked and correspondence controls,
  over-the-board games (most confirmed, some pending), 20 very active bots with fixed
  ratings (bot_no_move early = void, late = the human's loss), aborted games (fewer
  than 2 plies), resignations, timeouts, abandons, expiries of unclocked and
  correspondence games, casual games, and an annulments file (site S10).

Files (in ``--out``): ``{arena,corr,site}_games.csv`` (and ``.jsonl`` with
``--format jsonl|both``), ``{arena,corr,site}_players.csv``, ``site_annulments.txt``,
``pairs.bin`` (the core (white, black, score) stream for the C loop and the PyPI
libraries: int32 games, int32 players, then int32 white[games], int32 black[games],
int8 score in half points[games]), ``lichess.pgn`` (``--pgn-games`` games with
Lichess-style headers) and ``manifest.json`` (the parameters and counts).

    .venv/bin/python bench/generate_stream.py [--games 2000000] [--players 100000]
        [--seed 8] [--out bench/.data/NAME] [--format csv|jsonl|both] [--pgn-games 200000]

Every game in the files is valid for its system: the reference ``Engine`` rates
them all without refusing one (run.py replays a slice through it).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

I32 = NDArray[np.int32]
I64 = NDArray[np.int64]
F64 = NDArray[np.float64]
B = NDArray[np.bool_]

START = np.datetime64("2026-01-01T00:00:00", "s")
START_SECONDS = int(START.astype(np.int64))
GAME_COLUMNS = (
    "id", "played_at", "white", "black", "result", "rated", "time_control",
    "termination", "plies", "venue", "confirmed",
)  # fmt: skip
RESULTS = np.array(["0-1", "1/2-1/2", "1-0", "*"])  # score in half points; 3 = no result
NO_RESULT = 3
ACTIVITY_OFFSET = 50.0
BOT_COUNT = 20
BOT_RANKS = range(5, 5 + BOT_COUNT)  # bots are among the most active "players"
FORMAT_VERSION = 1

# arena A2: (spelling, pool); several spellings of the same control, as users write them.
ARENA_CONTROLS = (
    ("900+0", "rapid", 3), ("15m", "rapid", 2), ("600+10", "rapid", 4), ("10m+10s", "rapid", 2),
    ("900+10", "rapid", 4), ("15m + 10s", "rapid", 1), ("1500+0", "rapid", 1),
    ("1500+10", "rapid", 1), ("2700+0", "rapid", 1), ("45m+10s", "rapid", 1),
    ("180+0", "blitz", 6), ("3m+2s", "blitz", 8), ("180+2", "blitz", 6), ("300+0", "blitz", 8),
    ("5m+3s", "blitz", 6), ("300+3", "blitz", 8), ("600+0", "blitz", 4), ("3m + 3s", "blitz", 2),
    ("60+0", "bullet", 8), ("1m+0s", "bullet", 2), ("60+1", "bullet", 6), ("1m+1s", "bullet", 2),
    ("60+2", "bullet", 3), ("120+0", "bullet", 5), ("2m", "bullet", 1),
)  # fmt: skip
ARENA_UNOFFICIAL = ("600+5", "420+0", "20m", "30+0", "1200+5")
CORR_CONTROLS = ("1d", "2d", "3d", "3d", "5d", "5d", "7d", "10d", "14d")
SITE_CONTROLS = {
    "bullet": ("60+0", "1m+0s", "120+1", "2m+1s", "30+0", "60+1"),
    "blitz": ("180+0", "3m+2s", "300+0", "300+3", "5m+3s", "180+2", "5m"),
    "rapid": ("600+0", "10m", "900+10", "15m+10s", "600+5", "900+0"),
    "classical": ("1800+0", "30m", "1800+20", "25m+0s", "2700+15"),
    "unclocked": ("-",),
    "correspondence": ("1d", "2d", "3d", "5d", "7d"),
    "otb": ("90m+30s", "5400+30", "25m+10s", "-"),
}
SITE_TYPE_SHARE = {  # of the games between two humans
    "bullet": 0.26, "blitz": 0.37, "rapid": 0.19, "classical": 0.05,
    "unclocked": 0.03, "correspondence": 0.06, "otb": 0.04,
}  # fmt: skip
# How decisive games end (draws end "normal"), as (termination, weight); the rest normal.
ARENA_ENDINGS = (("resign", 0.45), ("timeout", 0.40), ("disconnect", 0.04), ("forfeit", 0.01))
CORR_ENDINGS = (("resign", 0.55), ("timeout", 0.15), ("expired", 0.20), ("forfeit", 0.005))
SITE_ENDINGS = (
    ("resign", 0.40), ("timeout", 0.20), ("abandon", 0.03), ("disconnect", 0.01), ("forfeit", 0.01),
)  # fmt: skip
ANNULMENT_REASONS = (
    "engine assistance confirmed by moderation",
    "sandbagging: intentional loss confirmed by moderation",
    "account sharing confirmed by moderation",
)
NAME_PARTS = (
    "Magnus", "Hikaru", "Judit", "Anna", "Mikhail", "Vera", "Pia", "Levon", "Ding", "Alireza",
    "Nodir", "Hou", "Fabi", "Wesley", "Ian", "Maia", "Zhu", "Ju", "Koneru", "Elisabeth",
)  # fmt: skip


class Rng:
    """numpy's PCG64 with the few draws used here."""

    def __init__(self, seed: int) -> None:
        self.gen = np.random.default_rng(seed)

    def pick(self, weights: Sequence[float] | NDArray[np.floating[Any]], size: int) -> I64:
        w = np.asarray(weights, dtype=np.float64)
        cumulative = np.cumsum(w / w.sum())
        cumulative[-1] = 1.0
        return np.searchsorted(cumulative, self.gen.random(size), side="right").astype(np.int64)

    def chance(self, p: float, size: int) -> B:
        return self.gen.random(size) < p


# -- the core stream ------------------------------------------------------------------


class Core:
    """Who played whom, when, and the result (score in half points for White)."""

    def __init__(self, games: int, players: int, seed: int) -> None:
        if players < 2 * BOT_COUNT + 10:
            raise SystemExit(f"--players must be at least {2 * BOT_COUNT + 10}")
        rng = Rng(seed)
        self.games, self.players, self.seed = games, players, seed
        rank = rng.gen.permutation(players)  # player index -> activity rank (0 = most active)
        self.rank = rank
        weights = 1.0 / (rank + ACTIVITY_OFFSET)
        self.white = rng.pick(weights, games).astype(np.int32)
        self.black = rng.pick(weights, games).astype(np.int32)
        clash = np.flatnonzero(self.white == self.black)
        while clash.size:
            self.black[clash] = rng.pick(weights, clash.size)
            clash = clash[self.white[clash] == self.black[clash]]
        strength = np.clip(rng.gen.normal(1550.0, 320.0, players), 700.0, 2900.0)
        # the most active players are a bit stronger, as on real sites
        strength += 120.0 * (rank < players // 100)
        self.strength = strength
        gaps = 1 + rng.gen.poisson(14.0, games)
        self.t = START_SECONDS + np.cumsum(gaps)  # strictly increasing: no order ties
        edge = strength[self.white] - strength[self.black] + 30.0
        p_white = 1.0 / (1.0 + 10.0 ** (-edge / 400.0))
        draw = rng.chance(0.10, games)
        white_wins = rng.gen.random(games) < p_white
        self.score2 = np.where(draw, 1, np.where(white_wins, 2, 0)).astype(np.int8)
        self.plies = np.where(
            draw, rng.gen.integers(30, 160, games), rng.gen.integers(16, 140, games)
        ).astype(np.int32)
        self.ids = player_ids(players)
        self.bots = np.flatnonzero(np.isin(rank, np.array(BOT_RANKS)))
        self.rng = rng

    def shared_columns(self) -> dict[str, list[str]]:
        """The columns every system's games file shares (made once)."""
        if not hasattr(self, "_shared"):
            self._shared = {
                "id": [f"g{i}" for i in range(self.games)],
                "played_at": timestamps(self.t),
                "white": lookup(self.ids, self.white),
                "black": lookup(self.ids, self.black),
            }
        return self._shared

    def stream_for(self, salt: int) -> Rng:
        """A separate random stream per system, so that systems do not shift each other."""
        return Rng(self.seed * 1000 + salt)

    def write_pairs(self, path: Path) -> None:
        with path.open("wb") as handle:
            handle.write(np.array([self.games, self.players], dtype=np.int32).tobytes())
            handle.write(self.white.astype("<i4").tobytes())
            handle.write(self.black.astype("<i4").tobytes())
            handle.write(self.score2.astype("i1").tobytes())


def player_ids(players: int) -> list[str]:
    """Lichess-like user names, unique: ``Magnus_Hikaru17``-style stems with the index."""
    parts = NAME_PARTS
    n = len(parts)
    return [f"{parts[i % n]}{parts[(i // n) % n].lower()}{i}" for i in range(players)]


def read_pairs(path: Path) -> tuple[I32, I32, NDArray[np.int8], int]:
    """The (white, black, score in half points) stream of ``pairs.bin`` and the players."""
    raw = path.read_bytes()
    games, players = (int(v) for v in np.frombuffer(raw, dtype="<i4", count=2))
    white = np.frombuffer(raw, dtype="<i4", count=games, offset=8)
    black = np.frombuffer(raw, dtype="<i4", count=games, offset=8 + 4 * games)
    score2 = np.frombuffer(raw, dtype="i1", count=games, offset=8 + 8 * games)
    return white, black, score2, players


# -- writing ---------------------------------------------------------------------------


def timestamps(seconds: I64) -> list[str]:
    text = np.datetime_as_string(seconds.astype("datetime64[s]"), unit="s")
    return [s + "Z" for s in text.tolist()]


def lookup(table: Sequence[str] | NDArray[np.str_], index: NDArray[np.integer]) -> list[str]:
    values = list(table)
    return [values[i] for i in index.tolist()]


def write_table(path: Path, columns: dict[str, list[str]], fmt: str) -> None:
    """Write columns of text cells as CSV (empty cell = absent) and/or JSON Lines."""
    names = list(columns)
    cells = list(columns.values())
    if fmt in ("csv", "both"):
        for column in cells:  # cells never need quoting: check it rather than assume it
            bad = next((c for c in column[:1000] if "," in c or '"' in c), None)
            if bad is not None:
                raise ValueError(f"cell {bad!r} would need CSV quoting")
        with path.with_suffix(".csv").open("w", encoding="utf-8", newline="") as handle:
            handle.write(",".join(names) + "\n")
            for start in range(0, len(cells[0]), 200_000):
                chunk = [column[start : start + 200_000] for column in cells]
                handle.write("\n".join(map(",".join, zip(*chunk, strict=True))))
                handle.write("\n")
    if fmt in ("jsonl", "both"):
        typed = {"rated": "bool", "confirmed": "bool", "plies": "int", "bot": "bool"}
        with path.with_suffix(".jsonl").open("w", encoding="utf-8") as handle:
            for row in zip(*cells, strict=True):
                record: dict[str, object] = {}
                for name, cell in zip(names, row, strict=True):
                    if not cell:
                        continue
                    kind = typed.get(name)
                    record[name] = (
                        cell == "true" if kind == "bool" else int(cell) if kind == "int" else cell
                    )
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def hundredths_text(values: NDArray[np.floating[Any]]) -> NDArray[np.str_]:
    return np.char.mod("%.2f", np.round(values, 2))


def games_columns(
    core: Core,
    result: NDArray[np.integer],
    rated: B,
    control: list[str],
    termination: list[str],
    plies: list[str] | None = None,
    venue: list[str] | None = None,
    confirmed: list[str] | None = None,
) -> dict[str, list[str]]:
    columns = {
        **core.shared_columns(),
        "result": lookup(RESULTS, result),
        "rated": lookup(("false", "true"), rated.astype(np.int64)),
        "time_control": control,
        "termination": termination,
    }
    if plies is not None:
        columns["plies"] = plies
    if venue is not None:
        columns["venue"] = venue
    if confirmed is not None:
        columns["confirmed"] = confirmed
    return columns


def decisive_endings(
    rng: Rng, score2: NDArray[np.int8], choices: Sequence[tuple[str, float]]
) -> NDArray[np.int64]:
    """Termination index per game: draws end ``normal`` (index 0); decisive games by
    ``choices`` (index into [normal, *names])."""
    names = [name for name, _ in choices]
    weights = [w for _, w in choices]
    weights.append(1.0 - sum(weights))  # the rest: normal (checkmate, stalemate...)
    picked = rng.pick(weights, score2.size) + 1
    picked[picked == len(weights)] = 0
    assert "normal" not in names
    return np.where(score2 == 1, 0, picked)


# -- arena -----------------------------------------------------------------------------


def write_arena(core: Core, out: Path, fmt: str) -> dict[str, int]:
    rng = core.stream_for(1)
    n, players = core.games, core.players
    # A3: 85 % members; a fifth of them see their membership end during the year.
    member = rng.chance(0.85, players)
    end_day = np.where(
        rng.chance(0.2, players),
        rng.gen.integers(30, 330, players),
        365 * 2,
    )
    day = (core.t - START_SECONDS) // 86_400
    member_on = (
        member[core.white]
        & (day <= end_day[core.white])
        & member[core.black]
        & (day <= end_day[core.black])
    )
    official = rng.pick([w for _, _, w in ARENA_CONTROLS], n)
    unofficial = rng.chance(0.03, n)
    control_text = np.array([c for c, _, _ in ARENA_CONTROLS] + list(ARENA_UNOFFICIAL))
    control_index = np.where(
        unofficial, len(ARENA_CONTROLS) + rng.gen.integers(0, len(ARENA_UNOFFICIAL), n), official
    )
    casual = rng.chance(0.05, n)
    rated = member_on & ~unofficial & ~casual
    endings = ("normal", "resign", "timeout", "disconnect", "forfeit")
    termination = decisive_endings(rng, core.score2, ARENA_ENDINGS)
    result = core.score2.astype(np.int64)
    no_result = rng.chance(0.002, n) & (termination == 0)
    result[no_result] = NO_RESULT
    columns = games_columns(
        core, result, rated, lookup(control_text, control_index),
        lookup(("", *endings[1:]), termination),
    )  # fmt: skip
    write_table(out / "arena_games", columns, fmt)

    # Players: 65 % imported as rated per pool (A8 counts), the others qualify (A6).
    player_cols: dict[str, list[str]] = {
        "id": core.ids,
        "membership_until": [
            str(START.astype("datetime64[D]") + int(d)) if m else ""
            for m, d in zip(member.tolist(), end_day.tolist(), strict=True)
        ],
    }
    for pool, noise in (("rapid", 60.0), ("blitz", 40.0), ("bullet", 80.0)):
        has = rng.chance(0.65, players)
        rating = np.maximum(1000.0, core.strength + rng.gen.normal(0.0, noise, players))
        games = rng.gen.integers(0, 400, players)
        player_cols[f"rating_{pool}"] = np.where(has, hundredths_text(rating), "").tolist()
        player_cols[f"games_{pool}"] = np.where(has, games.astype(str), "").tolist()
    write_table(out / "arena_players", player_cols, "csv")
    return {"rated": int(rated.sum()), "members": int(member.sum())}


# -- corr ------------------------------------------------------------------------------


def write_corr(core: Core, out: Path, fmt: str) -> dict[str, int]:
    rng = core.stream_for(2)
    n, players = core.games, core.players
    control = rng.gen.integers(0, len(CORR_CONTROLS), n)
    casual = rng.chance(0.05, n)
    endings = ("normal", "resign", "timeout", "expired", "forfeit")
    termination = decisive_endings(rng, core.score2, CORR_ENDINGS)
    result = core.score2.astype(np.int64)
    result[rng.chance(0.002, n) & (termination == 0)] = NO_RESULT
    columns = games_columns(
        core, result, ~casual, lookup(CORR_CONTROLS, control),
        lookup(("", *endings[1:]), termination),
    )  # fmt: skip
    write_table(out / "corr_games", columns, fmt)
    # C1: 40 % established (25+ games), 20 % provisional, 40 % newcomers.
    kind = rng.pick([0.4, 0.2, 0.4], players)
    rating = np.maximum(200.0, core.strength + rng.gen.normal(0.0, 50.0, players))
    established = rng.gen.integers(25, 500, players)
    games = np.where(kind == 0, established, rng.gen.integers(1, 25, players))
    has = kind < 2
    write_table(
        out / "corr_players",
        {
            "id": core.ids,
            "rating_corr": np.where(has, hundredths_text(rating), "").tolist(),
            "games_corr": np.where(has, games.astype(str), "").tolist(),
        },
        "csv",
    )
    return {"rated": int((~casual).sum())}


# -- site ------------------------------------------------------------------------------


def write_site(core: Core, out: Path, fmt: str) -> dict[str, int]:
    rng = core.stream_for(3)
    n, players = core.games, core.players
    is_bot = np.zeros(players, dtype=bool)
    is_bot[core.bots] = True
    bot_game = is_bot[core.white] | is_bot[core.black]
    two_bots = is_bot[core.white] & is_bot[core.black]
    types = list(SITE_TYPE_SHARE)
    kind = rng.pick(list(SITE_TYPE_SHARE.values()), n)
    # bots play live games: bullet/blitz/rapid, sometimes unclocked
    kind = np.where(bot_game, rng.pick([0.3, 0.45, 0.2, 0.0, 0.05], n), kind)
    control_text: list[str] = []
    offsets = {}
    for name in types:
        offsets[name] = len(control_text)
        control_text.extend(SITE_CONTROLS[name])
    type_offset = np.array([offsets[t] for t in types])
    type_count = np.array([len(SITE_CONTROLS[t]) for t in types])
    control = type_offset[kind] + (rng.gen.integers(0, 1 << 30, n) % type_count[kind])
    otb = kind == types.index("otb")
    slow = (kind == types.index("unclocked")) | (kind == types.index("correspondence"))
    confirmed = otb & rng.chance(0.9, n)
    casual = rng.chance(0.06, n)
    result = core.score2.astype(np.int64)
    plies = core.plies.copy()
    endings = ("normal", "resign", "timeout", "abandon", "disconnect", "forfeit", "expired",
               "bot_no_move")  # fmt: skip
    termination = decisive_endings(rng, core.score2, SITE_ENDINGS)
    # S7: a bot never loses on time or by abandonment: such a loss is a resignation.
    bot_lost = (is_bot[core.white] & (result == 0)) | (is_bot[core.black] & (result == 2))
    termination[bot_lost & ((termination == 2) | (termination == 3))] = 1
    # S9: rated unclocked/correspondence games expire: the player to move loses.
    expire = slow & ~otb & ~bot_game & ~casual & (result != 1) & rng.chance(0.15, n)
    termination[expire] = endings.index("expired")
    result[expire] = np.where(plies[expire] % 2 == 0, 0, 2)  # White to move after even plies
    # S7: the bot's move did not arrive: void before move 10, the human's loss after.
    no_move = bot_game & ~two_bots & rng.chance(0.02, n)
    termination[no_move] = endings.index("bot_no_move")
    plies[no_move] = rng.gen.integers(2, 60, int(no_move.sum()))
    human_loses = np.where(is_bot[core.white], 2, 0)
    result[no_move] = np.where(plies[no_move] < 18, NO_RESULT, human_loses[no_move])
    # S8: aborted before both sides moved (0 or 1 ply): no result, void.
    aborted = ~no_move & ~expire & rng.chance(0.02, n)
    plies[aborted] = rng.gen.integers(0, 2, int(aborted.sum()))
    termination[aborted] = rng.gen.choice(np.array([1, 2, 3]), int(aborted.sum()))
    result[aborted] = NO_RESULT
    # a few games end without a result: void
    unfinished = ~no_move & ~expire & ~aborted & (termination == 0) & rng.chance(0.002, n)
    result[unfinished] = NO_RESULT
    # S10: annul a few games that are certainly rated.
    certainly_rated = (
        ~casual & ~two_bots & (~otb | confirmed) & (result != NO_RESULT) & (plies >= 2)
        & (termination != endings.index("forfeit"))
    )  # fmt: skip
    annul = np.flatnonzero(certainly_rated & rng.chance(0.0005, n))
    columns = games_columns(
        core, result, ~casual, lookup(control_text, control),
        lookup(("", *endings[1:]), termination), lookup([str(i) for i in range(200)], plies),
        np.where(otb, "otb", "").tolist(),
        np.where(otb, np.where(confirmed, "true", "false"), "").tolist(),
    )  # fmt: skip
    write_table(out / "site_games", columns, fmt)
    with (out / "site_annulments.txt").open("w", encoding="utf-8") as handle:
        reasons = rng.gen.integers(0, len(ANNULMENT_REASONS), annul.size)
        for game, reason in zip(annul.tolist(), reasons.tolist(), strict=True):
            handle.write(f"g{game}\t{ANNULMENT_REASONS[reason]}\n")
    # Players: bots with fixed ratings; 30 % of humans imported (site Elo + blitz).
    bot_rating = np.round(np.clip(core.strength + 200.0, 800.0, 3000.0), 0)
    imported = ~is_bot & rng.chance(0.3, players)
    site_rating = np.maximum(100.0, core.strength + rng.gen.normal(0.0, 60.0, players))
    blitz_rating = np.maximum(100.0, core.strength + rng.gen.normal(0.0, 60.0, players))
    site_games = rng.gen.integers(0, 1500, players)
    blitz_games = site_games // 2
    write_table(
        out / "site_players",
        {
            "id": core.ids,
            "bot": np.where(is_bot, "true", "").tolist(),
            "bot_rating": np.where(is_bot, hundredths_text(bot_rating), "").tolist(),
            "rating_site": np.where(imported, hundredths_text(site_rating), "").tolist(),
            "games_site": np.where(imported, site_games.astype(str), "").tolist(),
            "rating_blitz": np.where(imported, hundredths_text(blitz_rating), "").tolist(),
            "games_blitz": np.where(imported, blitz_games.astype(str), "").tolist(),
        },
        "csv",
    )
    return {
        "rated": int((~casual).sum()),
        "bot_games": int(bot_game.sum()),
        "aborted": int(aborted.sum()),
        "otb": int(otb.sum()),
        "expired": int(expire.sum()),
        "bot_no_move": int(no_move.sum()),
        "annulments": int(annul.size),
    }


# -- PGN -------------------------------------------------------------------------------

OPENINGS = (  # (ECO, opening, plies of legal movetext)
    ("C50", "Italian Game", "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d3 d6 O-O O-O"),
    ("B01", "Scandinavian Defense", "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 Nf6 Nf3 Bf5"),
    ("D02", "Queen's Pawn Game: London System", "d4 d5 Nf3 Nf6 Bf4 e6 e3 c5 c3 Nc6"),
    ("B20", "Sicilian Defense", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5"),
    ("C00", "French Defense: Normal Variation", "e4 e6 d4 d5 Nc3 Bb4 e5 c5 a3 Bxc3+ bxc3"),
    ("A00", "Van't Kruijs Opening", "e3 e5 d4 exd4 exd4 d5 Nf3 Nf6"),
    ("C42", "Russian Game", "e4 e5 Nf3 Nf6 Nxe5 d6 Nf3 Nxe4 d4 d5 Bd3"),
    ("A45", "Indian Defense", "d4 Nf6 c4 e6 Nc3 Bb4 Qc2 O-O a3 Bxc3+ Qxc3"),
)
SPEEDS = (("Bullet", "60+0"), ("Blitz", "180+2"), ("Blitz", "300+0"), ("Rapid", "600+0"),
          ("Rapid", "900+10"), ("Classical", "1800+0"), ("Correspondence", "-"))  # fmt: skip
TERMINATIONS = ("Normal", "Time forfeit", "Normal", "Abandoned", "Normal")
EXTRA_TAG_ORDERS = (
    ("Event", "Site", "Date", "Round", "White", "Black", "Result", "GameId", "UTCDate", "UTCTime",
     "WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff", "Variant", "TimeControl",
     "ECO", "Opening", "Termination"),
    ("Event", "Site", "Date", "White", "Black", "Result", "UTCDate", "UTCTime", "WhiteElo",
     "BlackElo", "WhiteRatingDiff", "BlackRatingDiff", "WhiteTitle", "Variant", "TimeControl",
     "ECO", "Termination", "Round"),
    ("Site", "Event", "White", "Black", "Date", "Round", "Result", "TimeControl", "WhiteElo",
     "BlackElo", "ECO", "Opening", "Annotator", "Termination", "UTCDate", "UTCTime"),
    ("Event", "Site", "Date", "Round", "White", "Black", "Result", "BlackElo", "WhiteElo",
     "TimeControl", "Termination", "Variant", "FEN", "SetUp"),
)  # fmt: skip
QUOTED_NAMES = ('Dr. \\"Knight\\" Rider', "back\\\\slash", 'The \\"Hammer\\"')
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def write_pgn(core: Core, path: Path, count: int) -> int:
    """``count`` games (the first of the core stream) as a Lichess-style PGN export:
    varied tag orders, escaped quotes and backslashes in some names and events,
    short movetext with clock comments, NAGs and a variation. Returns the game count."""
    rng = core.stream_for(4)
    count = min(count, core.games)
    speed = rng.gen.integers(0, len(SPEEDS), count)
    opening = rng.gen.integers(0, len(OPENINGS), count)
    order = rng.pick([0.7, 0.15, 0.1, 0.05], count)
    quoted = rng.chance(0.01, count)
    casual = rng.chance(0.1, count)
    elo_w = (core.strength[core.white[:count]] + 100).astype(int)
    elo_b = (core.strength[core.black[:count]] + 100).astype(int)
    stamp = np.datetime_as_string(core.t[:count].astype("datetime64[s]"), unit="s").tolist()
    diff = rng.gen.integers(1, 12, count)
    result_text = ("0-1", "1/2-1/2", "1-0")
    lines: list[str] = []
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            s = int(core.score2[i])
            sp_name, control = SPEEDS[speed[i]]
            eco, name, moves = OPENINGS[opening[i]]
            day, clock = stamp[i].split("T")
            white = core.ids[core.white[i]]
            black = core.ids[core.black[i]]
            event = f"{'Casual' if casual[i] else 'Rated'} {sp_name} game"
            if quoted[i]:
                white = QUOTED_NAMES[i % len(QUOTED_NAMES)]
                event = 'Titled Arena \\"Blitz\\" \\\\ Open'
            d = int(diff[i])
            w_diff, b_diff = (d, -d) if s == 2 else (-d, d) if s == 0 else (0, 0)
            tags = {
                "Event": event, "Site": f"https://lichess.org/{i:08x}",
                "Date": day.replace("-", "."),
                "Round": "-", "White": white, "Black": black, "Result": result_text[s],
                "GameId": f"{i:08x}", "UTCDate": day.replace("-", "."), "UTCTime": clock,
                "WhiteElo": str(elo_w[i]), "BlackElo": str(elo_b[i]),
                "WhiteRatingDiff": f"{w_diff:+d}", "BlackRatingDiff": f"{b_diff:+d}",
                "WhiteTitle": "BOT", "Variant": "Standard", "TimeControl": control, "ECO": eco,
                "Opening": name, "Termination": TERMINATIONS[i % len(TERMINATIONS)],
                "Annotator": "lichess.org", "FEN": START_FEN, "SetUp": "1",
            }  # fmt: skip
            for tag in EXTRA_TAG_ORDERS[order[i]]:
                lines.append(f'[{tag} "{tags[tag]}"]')
            lines.append("")
            lines.append(movetext(moves.split(), i) + " " + result_text[s])
            lines.append("")
            if len(lines) > 50_000:
                handle.write("\n".join(lines) + "\n")
                lines.clear()
        if lines:
            handle.write("\n".join(lines) + "\n")
    return count


def movetext(plies: list[str], number: int) -> str:
    parts = []
    for index, san in enumerate(plies):
        if index % 2 == 0:
            parts.append(f"{index // 2 + 1}.")
        elif number % 3 == 0:
            parts.append(f"{index // 2 + 1}...")
        parts.append(san)
        if number % 3 == 0:
            parts.append(f"{{ [%clk 0:0{9 - index % 10}:{(number + index) % 60:02d}] }}")
        if index == 3 and number % 5 == 0:
            parts.append("$1 { a book move; White keeps the initiative }")
        if index == 5 and number % 7 == 0:
            parts.append("( 3... a6 4. a3 )")
    return " ".join(parts)


# -- main ------------------------------------------------------------------------------


def generate(
    out: Path, games: int, players: int, seed: int = 8, fmt: str = "csv", pgn_games: int = 200_000
) -> dict[str, object]:
    """Write the whole stream into ``out``; returns the manifest (also in manifest.json)."""
    out.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    core = Core(games, players, seed)
    core.write_pairs(out / "pairs.bin")
    counts = {
        "arena": write_arena(core, out, fmt),
        "corr": write_corr(core, out, fmt),
        "site": write_site(core, out, fmt),
    }
    pgn_count = write_pgn(core, out / "lichess.pgn", pgn_games) if pgn_games else 0
    manifest: dict[str, object] = {
        "format_version": FORMAT_VERSION,
        "games": games,
        "players": players,
        "seed": seed,
        "formats": fmt,
        "pgn_games": pgn_count,
        "draws": int((core.score2 == 1).sum()),
        "counts": counts,
        "seconds": round(time.perf_counter() - began, 2),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=2_000_000)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--out", type=Path, default=None, help="default: bench/.data/NAME")
    parser.add_argument("--format", dest="fmt", choices=("csv", "jsonl", "both"), default="csv")
    parser.add_argument("--pgn-games", type=int, default=200_000)
    args = parser.parse_args(argv)
    out = args.out or default_dir(args.games, args.players, args.seed)
    manifest = generate(out, args.games, args.players, args.seed, args.fmt, args.pgn_games)
    print(f"wrote {out}: {json.dumps(manifest)}")


def default_dir(games: int, players: int, seed: int) -> Path:
    return Path(__file__).resolve().parent / ".data" / f"g{games}_p{players}_s{seed}"


if __name__ == "__main__":
    main()
