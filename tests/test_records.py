"""Game records and player attributes (the spec, "The game record")."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from chessrate import GameRecord, InvalidRecord, Player, Result, Termination, Venue
from chessrate.identifiers import PLAIN_ID, id_refusal
from chessrate.records import ImportedRating
from chessrate.timecontrol import ClockKind

WHERE = "games.jsonl:7"


def minimal(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "id": "g1",
        "played_at": "2026-03-01T18:30:00Z",
        "white": "alice",
        "black": "bob",
        "result": "1-0",
    }
    data.update(changes)
    return {name: value for name, value in data.items() if value is not None}


def refused(data: dict[str, object]) -> InvalidRecord:
    with pytest.raises(InvalidRecord) as caught:
        GameRecord.from_mapping(data, WHERE)
    error = caught.value
    assert error.where == WHERE
    assert str(error).startswith(f"{WHERE}: {error.field}: ")
    return error


def test_minimal_record_and_defaults() -> None:
    game = GameRecord.from_mapping(minimal(), WHERE)
    assert game.id == "g1"
    assert game.played_at == datetime(2026, 3, 1, 18, 30, tzinfo=UTC)
    assert (game.white, game.black) == ("alice", "bob")
    assert game.result is Result.WHITE_WINS
    assert game.rated is True
    assert game.time_control is None
    assert game.termination is Termination.NORMAL
    assert game.plies is None
    assert game.venue is Venue.ONLINE
    assert game.confirmed is None
    assert game.source == WHERE
    assert game.where == WHERE


def test_full_record_typed_values() -> None:
    game = GameRecord.from_mapping(
        minimal(
            rated=False,
            time_control="5m+3s",
            termination="disconnect",
            plies=57,
            venue="otb",
            confirmed=True,
        ),
        WHERE,
    )
    assert game.rated is False
    assert game.time_control is not None
    assert (game.time_control.base, game.time_control.increment) == (300, 3)
    assert game.termination is Termination.DISCONNECT
    assert game.plies == 57
    assert game.venue is Venue.OTB
    assert game.confirmed is True


def test_csv_style_string_values_are_accepted() -> None:
    """CSV gives every value as text: "true"/"false", "12", "" for absent."""
    game = GameRecord.from_mapping(
        minimal(
            rated="true",
            plies="12",
            time_control="300+3",
            termination="",
            venue="",
            confirmed="",
        ),
        WHERE,
    )
    assert game.rated is True
    assert game.plies == 12
    assert game.termination is Termination.NORMAL
    assert game.venue is Venue.ONLINE
    assert game.confirmed is None
    casual = GameRecord.from_mapping(minimal(rated="false", plies="0"), WHERE)
    assert casual.rated is False
    assert casual.plies == 0
    assert GameRecord.from_mapping(minimal(rated=""), WHERE).rated is True


@pytest.mark.parametrize(
    ("text", "result", "white_score", "black_score"),
    [
        ("1-0", Result.WHITE_WINS, Decimal(1), Decimal(0)),
        ("0-1", Result.BLACK_WINS, Decimal(0), Decimal(1)),
        ("1/2-1/2", Result.DRAW, Decimal("0.5"), Decimal("0.5")),
        ("*", Result.NO_RESULT, None, None),
    ],
)
def test_results_and_scores(
    text: str, result: Result, white_score: Decimal | None, black_score: Decimal | None
) -> None:
    game = GameRecord.from_mapping(minimal(result=text), WHERE)
    assert game.result is result
    assert game.score("alice") == white_score
    assert game.score("bob") == black_score
    assert game.opponent("alice") == "bob"
    assert game.opponent("bob") == "alice"


@pytest.mark.parametrize("name", ["id", "played_at", "white", "black", "result"])
@pytest.mark.parametrize("absent", [None, "", "   "], ids=["missing", "empty", "blank"])
def test_each_required_field_missing_is_refused(name: str, absent: str | None) -> None:
    data = minimal()
    if absent is None:
        del data[name]
    else:
        data[name] = absent
    error = refused(data)
    assert error.field == name
    assert "required" in error.reason


@pytest.mark.parametrize("text", ["2-0", "1-1", "win", "1/2", "0.5-0.5"])
def test_bad_result_is_refused(text: str) -> None:
    error = refused(minimal(result=text))
    assert error.field == "result"
    assert repr(text) in error.reason


@pytest.mark.parametrize("text", ["yesterday", "2026-13-01", "2026-03-01T25:00:00", "01/03/2026"])
def test_bad_played_at_is_refused(text: str) -> None:
    error = refused(minimal(played_at=text))
    assert error.field == "played_at"
    assert "ISO 8601" in error.reason


def test_played_at_without_zone_is_utc_and_offsets_are_kept() -> None:
    naive = GameRecord.from_mapping(minimal(played_at="2026-03-01T18:30:00"), WHERE)
    assert naive.played_at == datetime(2026, 3, 1, 18, 30, tzinfo=UTC)
    offset = GameRecord.from_mapping(minimal(played_at="2026-03-01T19:30:00+01:00"), WHERE)
    assert offset.played_at == datetime(2026, 3, 1, 18, 30, tzinfo=UTC)


@pytest.mark.parametrize("text", ["abc", "5+", "0+0", "5m+3m"])
def test_bad_time_control_is_refused(text: str) -> None:
    error = refused(minimal(time_control=text))
    assert error.field == "time_control"


@pytest.mark.parametrize(
    ("text", "kind"),
    [("-", ClockKind.UNCLOCKED), ("3d", ClockKind.CORRESPONDENCE), ("15m", ClockKind.CLOCKED)],
)
def test_time_control_forms(text: str, kind: ClockKind) -> None:
    game = GameRecord.from_mapping(minimal(time_control=text), WHERE)
    assert game.time_control is not None
    assert game.time_control.kind is kind


def test_unknown_field_is_refused() -> None:
    error = refused(minimal(colour="white"))
    assert error.field == "colour"
    assert "unknown field" in error.reason


def test_white_equal_to_black_is_refused() -> None:
    error = refused(minimal(white="alice", black="alice"))
    assert error.field in ("white", "black")
    assert "alice" in error.reason


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("termination", "resigned"),
        ("venue", "moon"),
        ("rated", "maybe"),
        ("plies", "-1"),
        ("plies", "12.5"),
        ("plies", True),
        ("confirmed", "true"),  # only an otb game is confirmed
        ("white", ["alice"]),
    ],
)
def test_bad_optional_field_is_refused(name: str, value: object) -> None:
    error = refused(minimal(**{name: value}))
    assert error.field == name


def test_record_round_trips_through_its_mapping() -> None:
    game = GameRecord.from_mapping(
        minimal(rated=False, time_control="5m+3s", termination="forfeit", plies=3), WHERE
    )
    again = GameRecord.from_mapping(game.to_mapping(), "again")
    assert again == game
    assert game.to_mapping()["played_at"] == "2026-03-01T18:30:00Z"


# -- players -----------------------------------------------------------------------------


def test_player_from_mapping_with_imported_rating() -> None:
    player = Player.from_mapping(
        {
            "id": "alice",
            "name": "Alice",
            "membership_until": "2026-12-31",
            "rating_blitz": "1800.20",
            "games_blitz": "31",
            "rating_rapid": "",
            "games_rapid": "",
        },
        "players.csv:2",
    )
    assert player.id == "alice"
    assert player.label == "Alice"
    assert player.membership_until == date(2026, 12, 31)
    assert player.imported == {"blitz": ImportedRating(Decimal("1800.20"), 31)}
    assert player.bot is False


def test_player_membership_is_inclusive() -> None:
    """arena A3: valid until membership_until, inclusive."""
    player = Player("p", membership_until=date(2026, 3, 1))
    assert player.is_member_on(date(2026, 3, 1))
    assert not player.is_member_on(date(2026, 3, 2))
    assert not Player("q").is_member_on(date(2026, 3, 1))


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"id": "p", "rating_blitz": "1800.00"}, "games_blitz"),
        ({"id": "p", "games_blitz": "40"}, "rating_blitz"),
        ({"id": "p", "rating_blitz": "1800.001", "games_blitz": "40"}, "rating_blitz"),
        ({"id": "p", "rating_blitz": "1800.00", "games_blitz": "-1"}, "games_blitz"),
        ({"id": "p", "rating_blitz": "0", "games_blitz": "1"}, "rating_blitz"),
        ({"id": "p", "bot": "true"}, "bot_rating"),
        ({"id": "p", "bot_rating": "1500"}, "bot_rating"),
        ({"id": "p", "membership_until": "31/12/2026"}, "membership_until"),
        ({"id": "p", "team": "x"}, "team"),
        ({"name": "no id"}, "id"),
    ],
)
def test_bad_player_is_refused(data: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidRecord) as caught:
        Player.from_mapping(data, "players.csv:3")
    assert caught.value.field == field
    assert caught.value.where == "players.csv:3"


def test_bot_player() -> None:
    player = Player.from_mapping({"id": "b", "bot": "true", "bot_rating": "1500"}, "x")
    assert player.bot is True
    assert player.bot_rating == Decimal("1500.00")


def test_a_ply_count_beyond_any_game_of_chess_is_refused() -> None:
    data = {"id": "g1", "played_at": "2026-01-01T10:00:00Z", "white": "a", "black": "b",
            "result": "1-0", "plies": 100_001}  # fmt: skip
    with pytest.raises(InvalidRecord) as refused:
        GameRecord.from_mapping(data, "games.jsonl:3")
    assert str(refused.value) == "games.jsonl:3: plies: must be at most 100,000"
    assert GameRecord.from_mapping({**data, "plies": 100_000}, "x").plies == 100_000


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (
            "a/b",
            "'a/b' is not a valid id: '/' is not allowed in an id (the API's paths could "
            "not reach it)",
        ),
        ("https://chess.com/game/1", "'/' is not allowed in an id"),
        ("/", "'/' is not allowed in an id"),
        ("tab\there", "no control characters"),
        ("x\x85y", "no control characters"),
        ("x\x7fy", "no control characters"),
        ("x" * 201, "is 201 characters long; at most 200"),
        ("x\x00y", "must not contain a NUL character"),
        ("\ud800", "must not contain a lone surrogate"),
    ],
)
@pytest.mark.parametrize("field", ["id", "white", "black"])
def test_an_id_is_refused_with_its_field_and_reason(field: str, value: str, reason: str) -> None:
    """Ids come from one documented character set (records' docstring)."""
    error = refused(minimal(**{field: value}))
    assert error.field == field
    assert reason in error.reason
    with pytest.raises(InvalidRecord) as caught:
        Player.from_mapping({"id": value}, "players.csv:3")
    assert (caught.value.field, caught.value.where) == ("id", "players.csv:3")
    assert reason in caught.value.reason


@pytest.mark.parametrize(
    "value",
    ["Новак", "a b", "x%2Fy", "50%", "q?x=1", "hash#1", "a:b", "a\\b", "é" * 200, "ü\u2028x"],
)
def test_ids_of_any_script_and_punctuation_but_slash_are_taken(value: str) -> None:
    assert GameRecord.from_mapping(minimal(id=value), WHERE).id == value
    assert id_refusal(value) is None
    assert GameRecord.from_mapping(minimal(id=f"  {value} "), WHERE).id == value  # (stripped)


def test_the_one_id_test() -> None:
    assert id_refusal("") == "is required"
    assert id_refusal(" a") == "' a' is not a valid id (no space at its start or end)"
    assert id_refusal("a\u3000") == "'a\\u3000' is not a valid id (no space at its start or end)"
    assert id_refusal("a/b", stored=True) is None  # (read back from an older ledger)
    assert id_refusal("a/\x01", stored=True) is not None
    assert PLAIN_ID.fullmatch("ab-c_1.2:~!") and not PLAIN_ID.fullmatch("a/b")
