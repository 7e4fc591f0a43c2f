"""The rating lab's evaluation as text people read (:func:`as_text`) and JSON for
machines (:func:`as_json`); the HTML report is :mod:`.report`'s."""

from __future__ import annotations

import json
import math
from typing import Any

from .lists import Mover
from .quality import Quality, learning_label
from .results import Evaluation, counted_side


def number_text(value: float | None, places: int = 4) -> str:
    return "-" if value is None else f"{value:.{places}f}"


def _float(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _quality_json(q: Quality) -> dict[str, Any]:
    return {
        "games": q.games,
        "expectation": q.expectation,
        "deviance": _float(q.deviance),
        "brier": _float(q.brier),
        "calibration": [
            {
                "low": b.low,
                "high": b.high,
                "count": b.count,
                "mean_expected": _float(b.mean_expected),
                "mean_observed": _float(b.mean_observed),
            }
            for b in q.bins
        ],
        "by_games": [
            {"low": b.low, "high": b.high, "count": b.count, "deviance": _float(b.deviance)}
            for b in q.by_games
        ],
    }


def _mover_json(m: Mover) -> dict[str, str]:
    shown = {"player": m.player, "base": str(m.base), "variant": str(m.variant),
             "change": str(m.change)}  # fmt: skip
    if m.name:
        shown["name"] = m.name
    return shown


def as_json(evaluation: Evaluation) -> str:
    """The evaluation as JSON (keys stable; metrics as floats rounded to 6 places,
    ratings as strings with their exact digits)."""
    data = {
        "system": evaluation.system,
        "source": evaluation.source,
        "games": evaluation.games,
        "variants": [
            {
                "label": r.variant.label,
                "varied": {name: text for name, text in r.variant.varied},
                "deviance": _float(r.deviance if math.isfinite(r.deviance) else None),
                "pools": [
                    {
                        "pool": p.pool,
                        "quality": _quality_json(p.quality),
                        "against_base": None
                        if p.comparison is None
                        else {
                            "players": p.comparison.players,
                            "spearman": _float(p.comparison.spearman),
                            "risers": [_mover_json(m) for m in p.comparison.risers],
                            "fallers": [_mover_json(m) for m in p.comparison.fallers],
                            "state_changed": p.comparison.state_changed,
                        },
                    }
                    for p in r.pools
                ],
            }
            for r in evaluation.variants
        ],
        "predictors": [
            {
                "label": pr.label,
                "description": pr.description,
                "regulation": False,
                "pools": [{"pool": p.pool, "quality": _quality_json(p.quality)} for p in pr.pools],
            }
            for pr in evaluation.predictors
        ],
    }
    return json.dumps(data, indent=2)


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[n]) for row in rows) for n in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(w) if n < 2 else cell.rjust(w)
            for n, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def as_text(evaluation: Evaluation) -> str:
    """The evaluation as a readable text table: variants by mean deviance, best
    first, then the reference predictors, the calibration, and each variant's effect
    on the lists; pools no variant scored a game in are left out (the JSON has them)."""
    lines = [f"{evaluation.system} · {evaluation.games} games from {evaluation.source}", ""]
    active = {p.pool for r in evaluation.variants for p in r.pools if p.quality.games}
    header = ("variant", "pool", "games", "deviance", "brier", "expected")
    rows: list[tuple[str, ...]] = [header]
    for r in evaluation.variants:
        for p in r.pools:
            q = p.quality
            if q.games == 0 and p.pool not in active:
                continue
            rows.append((r.variant.label, p.pool, str(q.games), number_text(q.deviance),
                         number_text(q.brier), q.expectation))  # fmt: skip
    for pr in evaluation.predictors:
        for p in pr.pools:
            q = p.quality
            if p.pool not in active:
                continue
            rows.append((f"{pr.label} (not a regulation)", p.pool, str(q.games),
                         number_text(q.deviance), number_text(q.brier), q.expectation))  # fmt: skip
    lines += _table(rows)
    lines.append("")
    lines.append(
        "expected: system = the system's own expected score (pd), elo = "
        "1/(1+10^((Ro-R)/400)) from the pre-game ratings; one count per game "
        f"({counted_side(evaluation.system)})."
    )
    lines.append("")
    lines.append("calibration (bin: games, mean expected → mean observed):")
    labelled = [(r.variant.label, r.pools) for r in evaluation.variants] + [
        (f"{pr.label} (not a regulation)", pr.pools) for pr in evaluation.predictors
    ]
    for label, pools in labelled:
        for p in pools:
            if p.quality.games == 0:
                continue
            cells = [
                f"{b.low:.1f}-{b.high:.1f}: {b.count}, "
                f"{number_text(b.mean_expected, 2)} → {number_text(b.mean_observed, 2)}"
                for b in p.quality.bins
                if b.count
            ]
            lines.append(f"  {label} · {p.pool}: " + "; ".join(cells))
    lines.append("")
    lines.append("deviance by games played (the newer player's games in the pool before it):")
    for label, pools in labelled:
        for p in pools:
            if p.quality.games == 0:
                continue
            cells = [
                f"{learning_label(b)}: {b.count}, {number_text(b.deviance)}"
                for b in p.quality.by_games
                if b.count
            ]
            lines.append(f"  {label} · {p.pool}: " + "; ".join(cells))
    for r in evaluation.variants:
        for p in r.pools:
            c = p.comparison
            if c is None or (c.players == 0 and c.state_changed == 0):
                continue
            rho = number_text(c.spearman)
            lines.append("")
            lines.append(
                f"{r.variant.label} · {p.pool}: {c.players} players rated in both, "
                f"Spearman {rho}, {c.state_changed} in a different state"
            )
            for word, movers in (("risers", c.risers), ("fallers", c.fallers)):
                if movers:
                    shown = ", ".join(f"{m.shown} {m.base} → {m.variant}" for m in movers)
                    lines.append(f"  {word}: {shown}")
    return "\n".join(lines)
