"""The tag-to-field functions (chessrate.io.pgn.tags): what game_from_tags is made of,
and what the columnar reader calls per distinct value."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime

import pytest

from chessrate.errors import InvalidRecord
from chessrate.io.pgn import RECORD_TAGS, game_from_tags
from chessrate.io.pgn.tags import (
    GAME_ID_TAGS,
    RefusedTag,
    check_ending,
    check_fen,
    check_variant,
    clock_seconds,
    date_tags,
    day_start,
    fide_id,
    game_id,
    game_result,
    id_from_game_id,
    id_from_link,
    id_from_url,
    played_at,
    player_id,
    player_name,
    plies,
    rated,
    termination_word,
    time_control,
)
from chessrate.records import FieldReader, Result, Termination

GAME = {
    "Event": "Rated Blitz game", "Site": "https://lichess.org/abcdEFGH", "White": "Ann",
    "Black": "Bob", "Result": "1-0", "UTCDate": "2024.03.01", "UTCTime": "10:00:00",
    "TimeControl": "180+2", "Termination": "Normal", "PlyCount": "40", "Variant": "Standard",
    "WhiteElo": "1500", "ECO": "C20", "Opening": "King's Pawn",
}  # fmt: skip


class Reads(Mapping[str, str]):
    """A game's tags that remembers which tags were asked for."""

    def __init__(self, tags: dict[str, str]) -> None:
        self.tags = tags
        self.asked: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        return self.tags[name]

    def __contains__(self, name: object) -> bool:
        self.asked.add(str(name))
        return name in self.tags

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("game_from_tags reads tags by name")

    def __len__(self) -> int:
        return len(self.tags)


@pytest.mark.parametrize("player_ids", ["name", "fide"])
def test_game_from_tags_reads_only_record_tags(player_ids: str) -> None:
    tags = Reads(dict(GAME))
    record = game_from_tags(tags, "f:1", player_ids)  # type: ignore[arg-type]
    assert record.id == "abcdEFGH"
    assert tags.asked <= set(RECORD_TAGS)
    tags = Reads({k: v for k, v in GAME.items() if k not in ("Site", "UTCDate")} | {"Date": "x"})
    with pytest.raises(InvalidRecord):
        game_from_tags(tags, "f:1", player_ids)  # type: ignore[arg-type]
    assert tags.asked <= set(RECORD_TAGS)


def test_a_refused_tag_names_the_tag_and_the_reason() -> None:
    with pytest.raises(InvalidRecord) as raised:
        game_from_tags(GAME | {"Variant": "Chess960"}, "games.pgn:7")
    assert str(raised.value).startswith("games.pgn:7: Variant: 'Chess960' is not standard")
    refused = RefusedTag("Variant", "why")
    assert isinstance(refused, ValueError) and (refused.tag, refused.reason) == ("Variant", "why")


def test_value_functions_read_an_absent_tag_as_empty() -> None:
    """What game_from_tags makes of a game without the tag."""
    check_variant("")
    check_fen("")
    assert termination_word("") is Termination.NORMAL
    assert plies("") is None
    assert time_control("") is None
    assert rated("") is True
    assert clock_seconds("", "UTCTime") == 0
    assert [read("") for _, read in GAME_ID_TAGS] == [None, None, None]
    with pytest.raises(RefusedTag, match="is required"):
        game_result("")


def test_value_functions() -> None:
    with pytest.raises(RefusedTag) as raised:
        check_fen("8/8/8/8/8/8/8/K6k w - - 0 1")
    assert raised.value.tag == "FEN"
    assert termination_word(" time   FORFEIT ") is Termination.TIMEOUT
    assert termination_word("Ann won by resignation") is None  # the game decides
    assert plies("0999") == 999
    for text in ("x", "²", "1.5"):
        with pytest.raises(RefusedTag, match="is not a whole number"):
            plies(text)  # ("²" is a digit to str.isdigit, not to int)
    assert rated(" casual Blitz") is False and rated("Rated Blitz game") is True
    assert day_start("2024/02/29", "Date") == datetime(2024, 2, 29, tzinfo=UTC)
    with pytest.raises(RefusedTag, match="is partial"):
        day_start("2024.??.??", "Date")
    with pytest.raises(ValueError, match="day is out of range") as out_of_range:
        day_start("2023.02.29", "Date")
    assert not isinstance(out_of_range.value, RefusedTag)  # a date, not on the calendar
    assert clock_seconds("9:05", "Time") == 9 * 3600 + 5 * 60
    assert clock_seconds(" ??:??:?? ", "Time") == 0
    with pytest.raises(RefusedTag, match="is not a time"):
        clock_seconds("9h05", "Time")
    with pytest.raises(ValueError, match=r"hour must be in 0\.\.23"):
        clock_seconds("24:00:00", "Time")


def test_game_functions() -> None:
    assert date_tags({"Date": "x", "UTCDate": "y"}) == ("UTCDate", "UTCTime")
    assert date_tags({"Date": "x"}) == ("Date", "Time")
    with pytest.raises(RefusedTag, match="is required"):
        date_tags({})
    assert played_at({"Date": "2024.03.01", "Time": "7:00"}) == datetime(2024, 3, 1, 7, tzinfo=UTC)
    with pytest.raises(RefusedTag) as raised:  # the reference's message and tag
        played_at({"UTCDate": "2024.02.30", "UTCTime": "10:00:00"})
    assert (raised.value.tag, raised.value.reason) == (
        "UTCDate", "2024.02.30 10:00:00: day is out of range for month"
    )  # fmt: skip
    with pytest.raises(RefusedTag) as raised:  # a time that is not one comes first
        played_at({"UTCDate": "2024.02.30", "UTCTime": "x"})
    assert raised.value.tag == "UTCTime"
    with pytest.raises(RefusedTag) as raised:  # then the date that is not on the calendar
        played_at({"UTCDate": "2024.02.30", "UTCTime": "25:00"})
    assert (raised.value.tag, raised.value.reason) == (
        "UTCDate", "2024.02.30 25:00: day is out of range for month"
    )  # fmt: skip
    with pytest.raises(RefusedTag) as raised:  # (datetime says "year 0": the date's fault)
        played_at({"Date": "0000.01.01", "Time": "25:00"})
    assert (raised.value.tag, raised.value.reason) == (
        "Date",
        "0000.01.01 25:00: year 0 is out of range",
    )
    with pytest.raises(RefusedTag) as raised:  # the records' range: from 1800
        played_at({"Date": "0001.01.01", "Time": "10:00"})
    assert (raised.value.tag, raised.value.reason) == (
        "Date", "'0001.01.01' is out of range: a day from 1800.01.01 up to 2200.01.01"
    )  # fmt: skip
    assert played_at({"UTCDate": "2199.12.31", "UTCTime": "23:59:59"}) == datetime(
        2199, 12, 31, 23, 59, 59, tzinfo=UTC
    )
    with pytest.raises(RefusedTag, match="out of range"):
        played_at({"UTCDate": "2200.01.01"})
    assert player_id(" Ann ", "123", "White", "name") == "Ann"
    assert player_id("Ann", "123", "White", "fide") == "123"
    assert player_id("Ann", "000", "White", "fide") == "Ann"
    with pytest.raises(RefusedTag) as raised:
        player_id("?", "", "Black", "fide")
    assert (raised.value.tag, raised.value.reason) == (
        "Black",
        "is required (the player is unknown)",
    )
    check_ending(Result.DRAW, Termination.TIMEOUT)  # (timeout vs insufficient material)
    with pytest.raises(RefusedTag, match="is not a draw"):
        check_ending(Result.DRAW, Termination.RESIGN)
    assert game_id({"GameId": " g1 ", "Site": "https://lichess.org/abcdEFGH"}) == "g1"
    assert game_id({"Site": "https://lichess.org/abcdEFGH1234/"}) == "abcdEFGH"
    assert game_id({"Link": "https://chess.com/1"}) == "chess.com:1"
    assert game_id({"White": "Ann"}).startswith("pgn-")
    with pytest.raises(RefusedTag, match="is not a valid id"):
        game_id({"GameId": "bad\x01id"})


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://www.chess.com/game/live/123456789", "chess.com:game:live:123456789"),
        ("http://chess.com/game/live/123456789/", "chess.com:game:live:123456789"),
        ("https://WWW.Chess.COM/game/daily/5", "chess.com:game:daily:5"),
        (
            "https://www.chess.com/game/live/1?tab=a/b:c#m/1",
            "chess.com:game:live:1?tab=a%2Fb%3Ac#m%2F1",
        ),
        ("https://me@example.org:8080/a:b//c", "example.org%3A8080:a%3Ab:c"),
        ("https://example.org", "example.org"),
        ("https://example.org/Game/ABC", "example.org:Game:ABC"),
    ],
)
def test_a_url_becomes_an_id_without_a_slash(url: str, expected: str) -> None:
    """Ids hold no ``/``; a game URL maps to ``HOST:SEGMENT:…``."""
    assert id_from_url(url, "Link") == expected
    assert id_from_link(f" {url} ") == expected
    assert id_from_game_id(url) == expected
    assert FieldReader({"id": expected}, "").ident("id") == expected


def test_urls_that_differ_give_different_ids() -> None:
    """The mapping is injective but for the scheme, ``www.``, the host's case, empty
    segments and percent-encoding: ``:`` and ``/`` inside a piece are escaped."""
    urls = [
        "https://chess.com/game/live/1", "https://chess.com/game/live/12",
        "https://chess.com/game/live:1", "https://chess.com/game:live/1",
        "https://chess.com/game/live/1?x", "https://chess.com/game/live/1#x",
        "https://chess.com/game/live/1?a/b", "https://chess.com/game/live/1?a:b",
        "https://chess.com:1/game/live", "https://chess.org/game/live/1",
        "https://lichess.org/game/live/1", "https://chess.com/Game/live/1",
    ]  # fmt: skip
    ids = [id_from_url(url, "Link") for url in urls]
    assert len(set(ids)) == len(urls)
    assert all("/" not in found for found in ids)


def test_a_slash_in_a_player_or_a_game_id_tag_is_refused() -> None:
    for tags, tag in (
        ({"GameId": "2024/round-1/board-3"}, "GameId"),
        ({"Link": "https:///x"}, "Link"),
        ({"Link": "https://x.org/\x00"}, "Link"),
    ):
        with pytest.raises(RefusedTag) as raised:
            game_id(tags)
        assert raised.value.tag == tag
    assert game_id({"Link": "not a url/at all"}).startswith("pgn-")  # (not a URL: no id)
    with pytest.raises(RefusedTag) as raised:
        player_name("Smith/Jones", "White")
    assert (raised.value.tag, raised.value.reason) == (
        "White",
        "'Smith/Jones' is not a valid id: '/' is not allowed in an id (the API's paths could "
        "not reach it)",
    )
    with pytest.raises(RefusedTag) as raised:
        player_id("Ann", "12/34", "Black", "fide")
    assert raised.value.tag == "BlackFideId"
    assert player_id("Ann", "12/34", "Black", "name") == "Ann"  # (not read by name)
    assert fide_id(" 0123 ") == "0123"
