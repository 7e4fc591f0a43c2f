"""The variants of an evaluation: the base rules and every combination of the varied
``Rules`` fields (``--vary FIELD=V1,V2,...``), each a real ``Rules`` object, so that a
value a field cannot take is refused naming the field."""

from __future__ import annotations

import dataclasses
import itertools
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import InvalidInput
from ..systems.base import Rules


class InvalidVariant(InvalidInput):
    """A ``--vary`` the system's rules cannot take: an unknown field, or a value its
    type or the lab's checks refuse. Names the field and the value."""


# -- variants -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Variant:
    """One set of rules to replay with: ``label`` names the varied values (``base``
    for the system's own rules)."""

    label: str
    rules: Rules
    varied: tuple[tuple[str, str], ...] = ()


def parse_vary(spec: str) -> tuple[str, list[str]]:
    """``FIELD=V1,V2,...`` as the field and its values (text)."""
    name, sep, values = spec.partition("=")
    name = name.strip()
    texts = [v.strip() for v in values.split(",")] if sep else []
    if not name or not texts or any(not v for v in texts):
        raise InvalidVariant(f"--vary {spec!r}: expected FIELD=V1,V2,... (no empty value)")
    return name, texts


def _field_types(rules: Rules) -> dict[str, Any]:
    try:
        return typing.get_type_hints(type(rules))
    except Exception:  # an annotation that does not resolve: the default's type
        return {f.name: type(getattr(rules, f.name)) for f in dataclasses.fields(rules)}  # type: ignore[arg-type]


def _parse_scalar(kind: Any, text: str, name: str) -> Any:
    """``text`` as a value of ``kind`` (int, Decimal, str or an enum; for an optional
    field, ``X | None``, an X or ``none``: the rule switched off), refused with the field
    and the value named."""
    args = typing.get_args(kind)
    if type(None) in args and len(args) == 2:
        if text.lower() == "none":
            return None
        kind = next(arg for arg in args if arg is not type(None))
    refused = f"--vary {name}: {text!r} is not "
    if kind is bool:
        lowered = text.lower()
        if lowered in ("true", "yes", "1"):
            return True
        if lowered in ("false", "no", "0"):
            return False
        raise InvalidVariant(refused + "true or false")
    if kind is int:
        try:
            value: Any = int(text)
        except ValueError:
            raise InvalidVariant(refused + "a whole number") from None
        if value < 0:
            raise InvalidVariant(f"--vary {name}: {text!r}: a rule's number is never negative")
        return value
    if kind is Decimal:
        try:
            number = Decimal(text)
        except InvalidOperation:
            raise InvalidVariant(refused + "a decimal number") from None
        if not number.is_finite():
            raise InvalidVariant(refused + "a finite number")
        if number < 0:
            raise InvalidVariant(f"--vary {name}: {text!r}: a rule's number is never negative")
        return number
    if kind is str:
        return text
    raise InvalidVariant(f"--vary {name}: a field of type {kind!r} cannot be varied")


def parse_value(rules: Rules, name: str, text: str) -> Any:
    """The value of rule field ``name`` for ``text``, parsed by the field's type: a
    whole number, a decimal, or (``FIELD.KEY``) one entry of a mapping field such as
    arena's ``k.blitz`` or site's ``weights.bullet``. Returns the whole field's new
    value (a mapping with the one entry replaced)."""
    top, _, key = name.partition(".")
    fields = {f.name for f in dataclasses.fields(rules)}  # type: ignore[arg-type]
    if top not in fields:
        known = ", ".join(sorted(fields))
        raise InvalidVariant(
            f"--vary {name}: the {type(rules).__name__} has no field {top!r} (fields: {known})"
        )
    kind = _field_types(rules)[top]
    current = getattr(rules, top)
    if isinstance(current, dict):
        if not key:
            keys = ", ".join(str(k) for k in current)
            raise InvalidVariant(
                f"--vary {name}: {top} is a mapping; vary one entry, {top}.KEY (keys: {keys})"
            )
        matching = [k for k in current if str(k) == key]
        if not matching:
            keys = ", ".join(str(k) for k in current)
            raise InvalidVariant(f"--vary {name}: {top} has no key {key!r} (keys: {keys})")
        args = typing.get_args(kind)
        value_kind = args[1] if len(args) == 2 else type(current[matching[0]])
        updated = dict(current)
        updated[matching[0]] = _parse_scalar(value_kind, text, name)
        return updated
    if key:
        raise InvalidVariant(f"--vary {name}: {top} is not a mapping (no .KEY)")
    return _parse_scalar(kind, text, name)


def variants(rules: Rules, specs: Sequence[str]) -> list[Variant]:
    """The base rules, then every combination (the cartesian product) of the varied
    fields' values, each a real ``Rules`` built with :func:`dataclasses.replace`."""
    axes: list[tuple[str, list[tuple[str, Any]]]] = []
    seen: set[str] = set()
    for spec in specs:
        name, texts = parse_vary(spec)
        if name in seen:
            raise InvalidVariant(f"--vary {name}: given twice")
        seen.add(name)
        axes.append((name, [(text, parse_value(rules, name, text)) for text in texts]))
    result = [Variant("base", rules)]
    if not axes:
        return result
    for combination in itertools.product(*(values for _, values in axes)):
        changed = rules
        varied: list[tuple[str, str]] = []
        for (name, _), (text, value) in zip(axes, combination, strict=True):
            top = name.partition(".")[0]
            if top == name or not isinstance(getattr(changed, top), dict):
                changed = dataclasses.replace(changed, **{top: value})  # type: ignore[type-var]
            else:  # merge the one entry into what earlier axes set
                merged = dict(getattr(changed, top))
                key = name.partition(".")[2]
                for k, v in value.items():
                    if str(k) == key:
                        merged[k] = v
                changed = dataclasses.replace(changed, **{top: merged})  # type: ignore[type-var]
            varied.append((name, text))
        label = " ".join(f"{n}={t}" for n, t in varied)
        result.append(Variant(label, changed, tuple(varied)))
    return result
