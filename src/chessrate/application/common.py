"""What several resources share: the base of every request model, the base of the
game-shaped requests, a page's place in its list, the OpenAPI body of a model that is
validated by the records, and the conversions of a rating change and of a rating to
their public shapes.

Exact numbers travel as strings with their digits (``"1516.00"``), never as floats.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

from ..errors import InvalidInput, NotFound
from ..identifiers import ID_LONGEST, NAME_LONGEST, normal_id, text_problem
from ..ledger import Ledger, RatingView
from ..ledger.codec import change_to_mapping
from ..numbers import format_rating
from ..records import INT_LARGEST, MAX_PLIES, Venue
from ..systems.base import Change, ListEntry

MAX_OFFSET = 2**31 - 1
"""The largest offset a list accepts (a larger one is a 422, never a database error)."""
LIST_PAGE_MAX = 1000
"""The most rows one page answers of the lists that had no paging before (a player's
history in a pool, the annulments, the fide periods, a period's new list, a player's
periods): their default ``limit`` is this most, so a list that fits one page answers
as it did."""


# -- requests ---------------------------------------------------------------------------

_NOT_IN_ID = (
    "/\\u0000-\\u001f\\u007f-\\u009f"  # "/", the control characters
    "\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff"  # invisible ones
)
ID_PATTERN = f"^[^{_NOT_IN_ID}]*[^\\s{_NOT_IN_ID}][^{_NOT_IN_ID}]*$"
"""What an id holds, as the OpenAPI document says it (:func:`chessrate.identifiers.id_refusal`):
no ``/``, no control character, no bidirectional control or zero-width character, and
something besides spaces (spaces around it are stripped)."""
ID_SCHEMA: dict[str, Any] = {
    "minLength": 1,
    "maxLength": ID_LONGEST,
    "pattern": ID_PATTERN,
    "description": f"an id: 1 to {ID_LONGEST} characters, no `/`, no control, "
    "bidirectional or zero-width character; taken in Unicode NFC",
}
"""The OpenAPI schema of an id in a request body (what the records refuse is declared;
the records' own validation still answers, with their words)."""
NAME_SCHEMA: dict[str, Any] = {"maxLength": NAME_LONGEST}
PLIES_SCHEMA: dict[str, Any] = {"maximum": MAX_PLIES}
COUNT_SCHEMA: dict[str, Any] = {"minimum": 0, "maximum": INT_LARGEST}


PlayerRef = Annotated[str, AfterValidator(normal_id)]
"""A player's id in a request model that names an existing player (a report's
reporter, a live game's mover): in NFC, the spelling ids are stored in
(:func:`chessrate.identifiers.normal_id`)."""


def id_field(description: str | None = None, **kwargs: Any) -> Any:
    """A request body's id field, declared as :data:`ID_SCHEMA` (with its own
    ``description`` before the rule's)."""
    extra = dict(ID_SCHEMA)
    if description is not None:
        extra["description"] = f"{description}; {ID_SCHEMA['description']}"
    return Field(json_schema_extra=extra, **kwargs)


class RequestModel(BaseModel):
    """What a client sends: every string field holds text as the records' fields do
    (no NUL character, no lone surrogate: :func:`chessrate.identifiers.text_problem`), so a
    request the model accepts never reaches a database that cannot store it (PostgreSQL
    refuses a NUL in text, and neither database stores a lone surrogate)."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The model's schema, every string property declaring what is refused of it:
        no NUL character (:data:`NO_NUL`; an id's own pattern says more)."""
        schema = handler(core_schema)
        found = handler.resolve_ref_schema(schema)
        for prop in found.get("properties", {}).values():
            _declare_no_nul(prop)
        return schema

    @field_validator("*", mode="after")
    @classmethod
    def _plain_text(cls, value: object) -> object:
        if isinstance(value, str):
            problem = text_problem(value)
            if problem is not None:
                raise ValueError(problem)
        return value


NO_NUL = "^[^\\u0000]*$"
"""The pattern of a request's text: no NUL character (nor a lone surrogate, which a
pattern cannot say)."""


def _declare_no_nul(node: Any) -> None:
    if not isinstance(node, dict):
        return
    if node.get("type") == "string" and not {"enum", "pattern", "format"} & node.keys():
        node["pattern"] = NO_NUL
    for key in ("anyOf", "oneOf", "allOf"):
        for item in node.get(key, ()):
            _declare_no_nul(item)
    _declare_no_nul(node.get("items"))


def _literal_error(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError as error:
        found = error.errors()
        if len(found) != 1 or found[0]["type"] != "enum":
            raise
        expected = (found[0].get("ctx") or {}).get("expected", "")
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected}
        ) from None


Choice = WrapValidator(_literal_error)
"""On a request's enum field (``Annotated[Result, Choice]``): a value that is none of
the enum's answers 422 with the error type ``literal_error``, the type the API has
always answered for such a field (its message names the values, as before)."""


class GameFields(RequestModel):
    """The fields every game-shaped request carries (a game to store, to preview, to
    play live), as a game record names them; each request adds its own and redefines
    the ones it documents differently."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = id_field(default=None)
    played_at: datetime | None = None
    white: str = id_field()
    black: str = id_field()
    rated: bool | None = True
    time_control: str | None = None
    venue: Venue | None = Venue.ONLINE


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return {**_inline(defs[ref.removeprefix("#/$defs/")], defs), **_inline(rest, defs)}
    return {k: _inline(v, defs) for k, v in node.items()}


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` documenting a JSON body by ``model`` for an endpoint that
    validates the body itself (through the records' own validation). The body's schema
    stands alone in the route's document: the enums it names are written in place."""
    schema = model.model_json_schema()
    defs: dict[str, Any] = schema.pop("$defs", {})
    assert all("enum" in d for d in defs.values()), f"{model.__name__}: keep bodies flat"
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _inline(schema, defs)}},
        }
    }


# -- answers ----------------------------------------------------------------------------


class PagePublic(BaseModel):
    """Where a page sits in its list."""

    total: int = Field(description="rows in the whole list")
    offset: int = Field(description="rows skipped before this page")
    limit: int = Field(description="the most rows this page could hold")


class ChangePublic(BaseModel):
    """One player's change in one pool, with the numbers that explain it (exact
    numbers as strings)."""

    game: str
    player: str
    pool: str
    rule: str = Field(description="the spec rule applied (`site S3`)")
    opponent: str
    score: str
    before: str | None
    after: str | None
    state_before: str
    state_after: str
    games_before: int
    games_after: int
    opponent_rating: str | None
    k: int | None
    d: str | None
    pd: str | None = Field(description="the expected score")
    delta: str | None = Field(description="score − expected")
    change: str | None
    note: str = Field(description="the calculation in words")


class RatingPublic(BaseModel):
    """One player's rating in one pool (a row of the rating list)."""

    player: str
    name: str | None = Field(default=None, description="the player's name, when known")
    pool: str
    rating: str | None = Field(description="exact, two decimals; null while unrated")
    display: str = Field(description="the displayed form (`1512`, `1512?`)")
    state: str
    games: int
    listed: bool = Field(description="whether the player is on the pool's list")


# -- conversions ------------------------------------------------------------------------


def pools_of(ledger: Ledger) -> tuple[str, ...]:
    """The pools of the ledger's rating system, in the system's order."""
    return ledger.pools


def check_pool(ledger: Ledger, pool: str) -> None:
    """NotFound (404) for a pool the ledger's system does not have."""
    known = pools_of(ledger)
    if pool not in known:
        raise NotFound(f"pool {pool}: not a pool of {ledger.system_id} ({', '.join(known)})")


def refuse_periods(ledger: Ledger) -> None:
    """InvalidInput (422) on a ledger that rates periods: it takes no single games."""
    if ledger.info.rates_periods:
        raise InvalidInput(
            f"a {ledger.system_id} ledger rates tournaments per rating period, not single "
            "games: upload TRF files to a period (POST /api/v1/fide/periods/{id}/files)"
        )


def change_public(change: Change) -> ChangePublic:
    return ChangePublic.model_validate(change_to_mapping(change))


def changes_public(items: Iterable[Change]) -> list[ChangePublic]:
    return [change_public(c) for c in items]


def rating_public(row: RatingView | ListEntry, listed: bool) -> RatingPublic:
    return RatingPublic(
        player=row.player,
        name=getattr(row, "name", None),
        pool=row.pool,
        rating=format_rating(row.rating),
        display=row.display,
        state=row.state,
        games=row.games,
        listed=listed,
    )
