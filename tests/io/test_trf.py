"""FIDE TRF-16 reader and writer (chessrate.io.trf), on real files and on
hand-made ones: fields, round trips, byes and forfeits, every validation error."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from chessrate.errors import InvalidInput, InvalidRecord
from chessrate.io.trf import (
    RATED_CODES,
    RESULT_CODES,
    Tournament,
    TrfPlayer,
    TrfRound,
    parse_trf,
    read_trf,
    write_trf,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "trf"
FILES = sorted(path.name for path in DATA.glob("*.trf"))


def load(name: str) -> Tournament:
    return read_trf(DATA / name)


# --- real files -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "players", "rounds", "rated", "kind"),
    [
        ("example1.trf", 284, 7, 146, "Individual: Swiss-System (Standard)"),
        ("2020_06.trf", 13, 10, 0, "Individual: Swiss-System"),
        ("2021_03.trf", 9, 9, 0, "Individual: Swiss-System"),
        ("crete_friendship_cup_2024.trf", 129, 7, 84, "Team Swiss System"),
        ("crete_team_championship_2025.trf", 163, 4, 121, "Team Swiss System"),
        ("seed_round_robin.trf", 10, 9, 6, "Round Robin"),
    ],
)
def test_real_files_counts(name: str, players: int, rounds: int, rated: int, kind: str) -> None:
    tournament = load(name)
    assert len(tournament.players) == players
    assert max(len(player.rounds) for player in tournament.players) == rounds
    # the number of rated players agrees with the file's own 072 record
    assert sum(player.rating is not None for player in tournament.players) == rated
    assert dict(tournament.headers)["072"] == str(rated)
    assert tournament.kind == kind
    assert tournament.source == str(DATA / name)
    assert [player.start_rank for player in tournament.players] == list(range(1, players + 1))


def test_example1_tournament_and_players() -> None:
    tournament = load("example1.trf")
    assert tournament.name == "9. Karl-Mala-Gedenkturnier"
    assert tournament.city == "Frankfurt (Main) /GER"
    assert tournament.federation == ""
    assert (tournament.start, tournament.end) == ("28. 07. 2005", "31. 07. 2005")
    assert tournament.rate_of_play == "40/120, 60"
    assert tournament.is_round_robin is False
    assert tournament.headers[0] == ("012", "9. Karl-Mala-Gedenkturnier")
    assert ("001", "") not in tournament.headers  # every header precedes the players

    first = tournament.player(1)
    assert first == TrfPlayer(
        start_rank=1,
        sex="",
        title="g",
        name="Vasquez,Rodrigo",
        rating=2558,
        federation="CHI",
        fide_id="3400042",
        birth="1969.12.06",
        points=Decimal("6.0"),
        rank=4,
        rounds=(
            TrfRound(1, 141, "w", "1"),
            TrfRound(2, 78, "b", "1"),
            TrfRound(3, 42, "w", "1"),
            TrfRound(4, 21, "b", "1"),
            TrfRound(5, 16, "w", "1"),
            TrfRound(6, 25, "b", "="),
            TrfRound(7, 31, "w", "="),
        ),
        line=14,
    )
    assert first.line == 14
    assert sum(entry.score or 0 for entry in first.rounds) == first.points
    assert tournament.player(141).rounds[0] == TrfRound(1, 1, "b", "0")

    # no federation, no rating, no FIDE id
    leinberger = tournament.player(281)
    assert (leinberger.federation, leinberger.rating, leinberger.fide_id) == ("", None, None)
    assert leinberger.birth == "1971.07.11"
    assert leinberger.line == 294


def test_example1_forfeits_and_byes() -> None:
    tournament = load("example1.trf")
    # withdrawn after a forfeit in round 1; the rest of his line is blank
    withdrawn = tournament.player(13)
    assert withdrawn.rounds == (TrfRound(1, 153, "-", "-"),)
    assert withdrawn.rank == 0
    assert not withdrawn.rounds[0].rated
    assert withdrawn.rounds[0].score == 0
    winner = tournament.player(153).rounds[0]
    assert winner == TrfRound(1, 13, "-", "+")
    assert (winner.rated, winner.score) == (False, Decimal(1))
    # a forfeit win without an opponent (the pairing program's "spielfrei" bye)
    assert tournament.player(282).rounds[4] == TrfRound(5, None, "-", "+")
    # "spielfrei" (German: bye) is a pseudo-player: four blank rounds, then "0000 - -"
    bye = tournament.player(284)
    assert bye.name == "spielfrei"
    assert bye.rounds == (
        TrfRound(1, None, "-", " "),
        TrfRound(2, None, "-", " "),
        TrfRound(3, None, "-", " "),
        TrfRound(4, None, "-", " "),
        TrfRound(5, None, "-", "-"),
    )
    assert [entry.score for entry in bye.rounds] == [None, None, None, None, 0]
    forfeits = [
        entry for player in tournament.players for entry in player.rounds if entry.code in "+-"
    ]
    assert len(forfeits) == 22
    assert not any(entry.rated for entry in forfeits)


def test_lichess_export_byes_and_extension_records() -> None:
    tournament = load("2020_06.trf")
    assert tournament.name == "Mai 5 Plus 0 Turnier"
    assert tournament.start == "May 29, 2020"
    assert ("XXR", "10") in tournament.headers
    assert ("XXC", "white1") in tournament.headers
    assert ("132", "") in tournament.headers
    defrank = tournament.player(5)
    assert (defrank.name, defrank.rating, defrank.fide_id, defrank.rank) == (
        "defrank",
        None,
        None,
        None,
    )
    assert (defrank.sex, defrank.title, defrank.federation, defrank.birth) == ("", "", "", "")
    assert defrank.points == Decimal("5.5")
    # "    H": half-point bye; "    -": absent (written upper-case, stored lower-case)
    assert defrank.rounds[0] == TrfRound(1, None, "-", "h")
    assert defrank.rounds[1] == TrfRound(2, None, "-", "-")
    assert (defrank.rounds[0].rated, defrank.rounds[0].score) == (False, Decimal("0.5"))
    assert (defrank.rounds[1].rated, defrank.rounds[1].score) == (False, Decimal(0))
    assert tournament.player(6).rounds[1] == TrfRound(2, None, "-", "u")
    assert tournament.player(6).rounds[1].score == 1
    for player in tournament.players:
        assert sum(entry.score or 0 for entry in player.rounds) == player.points

    later = load("2021_03.trf")
    assert len(later.players) == 9
    assert later.player(1).rounds[8] == TrfRound(9, None, "-", "u")
    # every player got exactly one pairing-allocated bye
    assert all([entry.code for entry in player.rounds].count("u") == 1 for player in later.players)


def test_crete_team_swiss() -> None:
    tournament = load("crete_friendship_cup_2024.trf")
    assert tournament.name == "ΔΙΑΣΥΛΛΟΓΙΚΟ ΚΥΠΕΛΛΟ ΚΡΗΤΙΚΗΣ ΦΙΛΙΑΣ 2024"
    assert (tournament.city, tournament.federation) == ("Heraklion", "GRE")
    assert (tournament.start, tournament.end) == ("2024/11/23", "2024/11/24")
    assert tournament.rate_of_play == "15 minutes plus 10 sec per move"
    assert tournament.is_round_robin is False
    codes = [code for code, _ in tournament.headers]
    assert codes.count("013") == 15
    assert codes.count("112") == 2
    # the round dates keep their columns: round 1's date at column 92
    dates = dict(tournament.headers)["132"]
    assert ("132 " + dates)[91:99] == "24/11/23"
    # Swiss-Manager's column ruler lines are kept, and the players stand before the 013s
    assert tournament.headers[16][0].startswith("1234567890")
    assert tournament.headers[17][0] == "DDD"
    assert tournament.headers[18] == ("001", "")
    assert codes[19:] == ["013"] * 15
    assert tournament.headers[19] == (
        "013",
        "ΓΑΖΙ 1                            13   14   15   16   17   18   90  129",
    )

    first = tournament.player(1)
    assert (first.sex, first.name, first.rating, first.fide_id) == (
        "m",
        "Psarianos,Emmanouil",
        1442,
        "42143683",
    )
    assert (first.birth, first.points, first.rank, first.line) == (
        "2014/00/00",
        Decimal("3.5"),
        34,
        20,
    )
    assert first.rounds[0] == TrfRound(1, None, "-", "-")  # "0000 - -": not playing this round
    assert first.rounds[1] == TrfRound(2, 7, "w", "1")
    assert tournament.player(2).rating is None  # written "0000"
    assert tournament.player(12).sex == "f"  # Swiss-Manager writes "f" where TRF-16 says "w"
    # a double forfeit: both lose by forfeit
    assert tournament.player(41).rounds[6] == TrfRound(7, 74, "w", "-")
    assert tournament.player(74).rounds[6] == TrfRound(7, 41, "b", "-")

    championship = load("crete_team_championship_2025.trf")
    assert championship.name == "Διασυλλογικό Πρωτάθλημα Π.Ο.Α Κρήτης 2025"
    assert [code for code, _ in championship.headers].count("013") == 8
    assert championship.player(1).rounds[3] == TrfRound(4, 76, "w", "1")


# --- round trip -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_round_trip(name: str) -> None:
    tournament = load(name)
    again = parse_trf(write_trf(tournament), "written.trf")
    assert again == replace(tournament, source="written.trf")
    assert write_trf(again) == write_trf(tournament)


@pytest.mark.parametrize("name", ["example1.trf", "seed_round_robin.trf"])
def test_writer_reproduces_the_file(name: str) -> None:
    original = (DATA / name).read_text(encoding="utf-8")
    expected = "".join(line.rstrip() + "\n" for line in original.splitlines() if line.strip())
    assert write_trf(load(name)) == expected


def test_writer_keeps_ruler_and_team_lines_in_place() -> None:
    original = (DATA / "crete_friendship_cup_2024.trf").read_text(encoding="utf-8")
    written = write_trf(load("crete_friendship_cup_2024.trf")).splitlines()
    kept = [line.rstrip() for line in original.splitlines() if line.strip()]
    assert len(written) == len(kept)
    for mine, theirs in zip(written, kept, strict=True):
        if theirs.startswith("001"):
            # a rating "0000" and a FIDE id "0" are written blank; nothing else changes
            if theirs[48:52] == "0000":
                theirs = theirs[:48] + "    " + theirs[52:]
            if theirs[57:68] == "0".rjust(11):
                theirs = theirs[:57] + " " * 11 + theirs[68:]
            assert mine == theirs
        else:
            assert mine == theirs


def test_lichess_byes_are_written_with_0000() -> None:
    written = write_trf(load("2020_06.trf")).splitlines()
    defrank = next(line for line in written if line.startswith("001    5"))
    assert defrank[91:109] == "0000 - H  0000 - -"
    assert "112" in written and "XXR 10" in written


# --- reading details --------------------------------------------------------------------------

BASE = (
    "012 Test\n"
    "092 Individual: Swiss-System\n"
    "001    1 m GM Alpha,Anna                        2400 GER     1000001 1990/01/01  2.0    2"
    "     2 w 1     3 b =  0000 - H\n"
    "001    2 w    Beta,Berta                        2300 FRA     1000002 1991/02/02  1.0    3"
    "     1 b 0  0000 - F     3 w 0\n"
    "001    3 m    Gamma,Carl                             ITA             1992        2.5    1"
    "  0000 - U     1 w =     2 b 1\n"
)
WHERE = "t.trf"


def edited(*edits: tuple[int, int, str]) -> str:
    """BASE with text written over (line, 1-based column, text)."""
    lines = BASE.splitlines()
    for number, column, text in edits:
        lines += [""] * (number - len(lines))
        line = lines[number - 1].ljust(column - 1 + len(text))
        lines[number - 1] = line[: column - 1] + text + line[column - 1 + len(text) :]
    return "\n".join(lines) + "\n"


def cut(number: int, length: int, text: str = BASE) -> str:
    lines = text.splitlines()
    lines[number - 1] = lines[number - 1][:length]
    return "\n".join(lines) + "\n"


def test_base_fixture() -> None:
    tournament = parse_trf(BASE, WHERE)
    alpha, beta, gamma = tournament.players
    assert (alpha.sex, alpha.title, alpha.federation) == ("m", "GM", "GER")
    assert (beta.sex, beta.rounds[1]) == ("w", TrfRound(2, None, "-", "f"))
    assert (gamma.rating, gamma.fide_id, gamma.birth) == (None, None, "1992")
    assert alpha.rounds[2] == TrfRound(3, None, "-", "h")
    assert [player.line for player in tournament.players] == [3, 4, 5]
    assert write_trf(tournament) == BASE


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("Round Robin", True),
        ("Individual: Round-Robin", True),
        ("roundrobin", True),
        ("Double ROUND ROBIN (Standard)", True),
        ("Rundenturnier", True),
        ("Scheveningen", True),
        ("Team: Schev-System", True),
        ("Individual: Swiss-System (Standard)", False),
        ("Team Swiss System", False),
        ("Schweizer System", False),
        ("Knock-out", None),
        ("", None),
    ],
)
def test_is_round_robin(kind: str, expected: bool | None) -> None:
    text = BASE.replace("092 Individual: Swiss-System", f"092 {kind}")
    tournament = parse_trf(text, WHERE)
    assert tournament.kind == kind
    assert tournament.is_round_robin is expected


def test_no_092_record() -> None:
    tournament = parse_trf(BASE.replace("092 Individual: Swiss-System\n", ""), WHERE)
    assert (tournament.kind, tournament.is_round_robin) == ("", None)


@pytest.mark.parametrize("code", list(RESULT_CODES))
def test_rated_and_score_of_every_code(code: str) -> None:
    points = {"1": 1, "0": 0, "=": "0.5", "+": 1, "-": 0, "w": 1, "d": "0.5", "l": 0}
    points |= {"h": "0.5", "f": 1, "u": 1, "z": 0}
    played = TrfRound(1, 7, "w", code)
    bye = TrfRound(1, None, "-", code)
    assert played.rated is (code in RATED_CODES)
    assert bye.rated is False
    expected = None if code == " " else Decimal(str(points[code]))
    assert played.score == expected
    assert bye.score == expected


def test_result_codes_are_case_insensitive() -> None:
    text = edited((3, 119, "h"), (4, 109, "f"), (5, 99, "U"))
    alpha, beta, gamma = parse_trf(text, WHERE).players
    assert (alpha.rounds[2].code, beta.rounds[1].code, gamma.rounds[0].code) == ("h", "f", "u")
    text = edited((3, 99, "W"), (4, 99, "l"), (3, 97, "W"), (4, 97, "B"))
    alpha, beta, _ = parse_trf(text, WHERE).players
    assert alpha.rounds[0] == TrfRound(1, 2, "w", "w")
    assert beta.rounds[0] == TrfRound(1, 1, "b", "l")
    assert not alpha.rounds[0].rated


def test_crlf_latin1_bom_and_trailing_blanks(tmp_path: Path) -> None:
    text = BASE.replace("Beta,Berta", "Bëta,Bärta").replace("Test", "Zürich Open")
    crlf = "".join(line + "   \r\n" for line in text.splitlines())
    latin1 = tmp_path / "latin1.trf"
    latin1.write_bytes(("\r\n" + crlf + "\r\n\r\n").encode("latin-1"))
    tournament = read_trf(latin1)
    assert tournament.name == "Zürich Open"
    assert tournament.player(2).name == "Bëta,Bärta"
    assert [player.line for player in tournament.players] == [4, 5, 6]
    assert tournament.source == str(latin1)
    bom = tmp_path / "bom.trf"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert replace(read_trf(bom), source="x") == replace(tournament, source="x")


def test_unreadable_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.trf"
    with pytest.raises(InvalidInput, match=r"missing\.trf: cannot read: No such file"):
        read_trf(missing)


def test_unknown_records_are_kept_in_order() -> None:
    text = "### made by hand\n" + BASE + "XXR 3\nZZZ anything at all\n013 Team A  1    2\n"
    tournament = parse_trf(text, WHERE)
    assert tournament.headers == (
        ("###", "made by hand"),
        ("012", "Test"),
        ("092", "Individual: Swiss-System"),
        ("001", ""),
        ("XXR", "3"),
        ("ZZZ", "anything at all"),
        ("013", "Team A  1    2"),
    )
    assert write_trf(tournament) == text


def test_player_lookup() -> None:
    tournament = parse_trf(BASE, WHERE)
    assert tournament.player(3).name == "Gamma,Carl"
    with pytest.raises(KeyError):
        tournament.player(4)
    shuffled = replace(tournament, players=tournament.players[::-1])
    assert shuffled.player(1).name == "Alpha,Anna"


# --- validation -------------------------------------------------------------------------------


def refused(text: str) -> str:
    with pytest.raises(InvalidRecord) as caught:
        parse_trf(text, WHERE)
    error = caught.value
    assert str(error) == f"{error.where}: {error.field}: {error.reason}"
    return str(error)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            edited((3, 5, "   x")),
            "t.trf:3: start_rank: 'x' in columns 5-8 is not a whole number",
            id="start_rank",
        ),
        pytest.param(
            edited((3, 5, "    ")), "t.trf:3: start_rank: missing (columns 5-8)", id="no-start-rank"
        ),
        pytest.param(
            edited((3, 5, "   0")),
            "t.trf:3: start_rank: must be 1-9999 (columns 5-8)",
            id="start-rank-0",
        ),
        pytest.param(
            edited((3, 49, "24o0")),
            "t.trf:3: rating: '24o0' in columns 49-52 is not a whole number",
            id="rating",
        ),
        pytest.param(
            edited((3, 58, "    10000O1")),
            "t.trf:3: fide_id: '10000O1' in columns 58-68 is not a FIDE id (digits only)",
            id="fide_id",
        ),
        pytest.param(
            edited((3, 81, " 2,0")),
            "t.trf:3: points: '2,0' in columns 81-84 is not a number of points like 4.5",
            id="points",
        ),
        pytest.param(
            edited((3, 86, "  2.")),
            "t.trf:3: rank: '2.' in columns 86-89 is not a whole number",
            id="rank",
        ),
        pytest.param(
            edited((4, 112, "  3x")),
            "t.trf:4: round 3 opponent: '3x' in columns 112-115 is not a start rank",
            id="opponent",
        ),
        pytest.param(
            edited((4, 117, "x")),
            "t.trf:4: round 3 colour: 'x' is not a colour (w, b, - or blank; column 117)",
            id="colour",
        ),
        pytest.param(
            edited((4, 119, "?")),
            "t.trf:4: round 3 result: '?' is not a TRF-16 result code "
            "(1 0 = + - W D L H F U Z or blank; column 119)",
            id="result",
        ),
        pytest.param(
            edited((5, 5, "   2")),
            "t.trf:5: start_rank: 2 is already the start rank of line 4 (Beta,Berta)",
            id="duplicate",
        ),
        pytest.param(
            edited((3, 112, "   7 w 1")),
            "t.trf:3: round 3 opponent: no player has start rank 7 "
            "(the highest start rank in the file is 3: truncated file?)",
            id="unknown-opponent",
        ),
        pytest.param(
            edited((3, 112, "   7 w 1"), (6, 1, "001    9      Delta,Dan")),
            "t.trf:3: round 3 opponent: no player has start rank 7",
            id="unknown-opponent-in-a-gap",
        ),
        pytest.param(
            edited((3, 112, "   1 w 1")),
            "t.trf:3: round 3 opponent: 1 is the player's own start rank",
            id="self",
        ),
        pytest.param(
            edited((4, 92, "   3")),
            "t.trf:3: round 1 opponent: inconsistent pairing: 1 (Alpha,Anna) meets 2 "
            "(Beta,Berta), whose round 1 (line 4) has opponent 3",
            id="pairing",
        ),
        pytest.param(
            edited((4, 92, "0000 - F")),
            "t.trf:3: round 1 opponent: inconsistent pairing: 1 (Alpha,Anna) meets 2 "
            "(Beta,Berta), whose round 1 (line 4) has no opponent",
            id="pairing-bye",
        ),
        pytest.param(
            cut(5, 89),
            "t.trf:3: round 2 opponent: inconsistent pairing: 1 (Alpha,Anna) meets 3 "
            "(Gamma,Carl), whose round 2 (line 5) has no such round",
            id="pairing-missing-round",
        ),
        pytest.param(
            edited((4, 99, "1")),
            "t.trf:3: round 1 result: inconsistent result: 1 (Alpha,Anna) has '1' against 2 "
            "(Beta,Berta), whose round 1 (line 4) has '1'",
            id="result-mismatch",
        ),
        pytest.param(
            edited((4, 99, "-")),
            "t.trf:3: round 1 result: inconsistent result: 1 (Alpha,Anna) has '1' against 2 "
            "(Beta,Berta), whose round 1 (line 4) has '-'",
            id="rated-against-forfeit",
        ),
        pytest.param(
            BASE + "001    4\n",
            "t.trf:6: name: the line ends at column 8, before the name (columns 15-47): "
            "truncated record?",
            id="truncated-name",
        ),
        pytest.param(
            BASE + "001    4" + " " * 40 + "2000\n",
            "t.trf:6: name: blank (columns 15-47)",
            id="blank-name",
        ),
        pytest.param(
            cut(4, 50),
            "t.trf:4: rating: the line ends at column 50, inside the field (columns 49-52): "
            "truncated record?",
            id="truncated-rating",
        ),
        pytest.param(
            cut(4, 114, edited((4, 112, "  23"))),
            "t.trf:4: round 3 opponent: the line ends at column 114, inside the field "
            "(columns 112-115): truncated record?",
            id="truncated-round",
        ),
        pytest.param(
            edited((3, 48, "x")),
            "t.trf:3: name: 'x' in column 48, which must be blank: misaligned record or a "
            "value wider than its columns?",
            id="misaligned",
        ),
        pytest.param(
            edited((3, 96, "x")),
            "t.trf:3: round 1: 'x' in column 96, which must be blank (the round's block is "
            "'NNNN C R' in columns 92-99): misaligned record?",
            id="misaligned-round",
        ),
        pytest.param(
            "001 1 m GM Alpha,Anna 2400 GER 1000001 1990/01/01 2.0 2 2 w 1\n",
            "t.trf:1: start_rank: 'G' in column 9, which must be blank: misaligned record or "
            "a value wider than its columns?",
            id="not-fixed-columns",
        ),
    ],
)
def test_invalid_records(text: str, message: str) -> None:
    assert refused(text) == message


def test_no_player_records() -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_trf("012 Empty\n092 Round Robin\n", WHERE)
    assert str(caught.value) == "t.trf: no player records (001)"
    with pytest.raises(InvalidInput, match=r"^t\.trf: no player records \(001\)$"):
        parse_trf("", WHERE)


@pytest.mark.parametrize(
    ("length", "message"),
    [
        (
            10,
            "example1.trf:163: name: the line ends at column 8, before the name "
            "(columns 15-47): truncated record?",
        ),
        (
            20,
            "example1.trf:23: round 1 opponent: inconsistent pairing: 10 (Ksieski,Zbigniew) "
            "meets 150 (Holzap), whose round 1 (line 163) has no such round",
        ),
        (
            83,
            "example1.trf:163: points: the line ends at column 83, inside the field "
            "(columns 81-84): truncated record?",
        ),
        (
            95,
            "example1.trf:23: round 1 result: inconsistent result: 10 (Ksieski,Zbigniew) has "
            "'1' against 150 (Holzapfel,Johannes), whose round 1 (line 163) has a blank result",
        ),
        (
            140,
            "example1.trf:93: round 7 opponent: inconsistent pairing: 80 (Hilbenz,Guntram,Dr.) "
            "meets 150 (Holzapfel,Johannes), whose round 7 (line 163) has no such round",
        ),
    ],
)
def test_truncated_file(length: int, message: str) -> None:
    """example1.trf cut in the middle of player 150's line (line 163)."""
    lines = (DATA / "example1.trf").read_text(encoding="utf-8").splitlines()
    text = "\n".join(lines[:162]) + "\n" + lines[162][:length]
    with pytest.raises(InvalidRecord) as caught:
        parse_trf(text, "example1.trf")
    assert str(caught.value) == message


# --- writing ----------------------------------------------------------------------------------


def test_writer_for_a_tournament_built_by_hand() -> None:
    players = (
        TrfPlayer(1, "w", "WGM", "Alpha,Anna", 2400, "GER", "1000001", "", Decimal(1), 1,
                  (TrfRound(1, 2, "w", "1"),), 0),
        TrfPlayer(2, "", "", "Beta,Berta", None, "", None, "", Decimal("0"), 2,
                  (TrfRound(1, 1, "b", "0"),), 0),
    )  # fmt: skip
    tournament = Tournament(
        name="Hand made",
        city="Lyon",
        federation="",
        start="2026/02/01",
        end="",
        kind="Round Robin",
        rate_of_play="",
        players=players,
        headers=(("022", "Paris"), ("XXR", "1")),
        source="hand",
    )
    text = write_trf(tournament)
    assert text.splitlines() == [
        "012 Hand made",
        "042 2026/02/01",
        "092 Round Robin",
        "022 Lyon",
        "XXR 1",
        "001    1 wWGM Alpha,Anna                        2400 GER     1000001             1.0"
        "    1     2 w 1",
        "001    2      Beta,Berta                                                         0.0"
        "    2     1 b 0",
    ]
    again = parse_trf(text, "hand")
    assert (again.name, again.city, again.start, again.is_round_robin) == (
        "Hand made",
        "Lyon",
        "2026/02/01",
        True,
    )
    assert again.players == players


def test_writer_replaces_a_changed_field() -> None:
    tournament = replace(load("example1.trf"), name="Karl Mala 2005")
    again = parse_trf(write_trf(tournament), "x")
    assert again.name == "Karl Mala 2005"
    assert again.headers[0] == ("012", "Karl Mala 2005")
    assert again.players == tournament.players


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"name": "A" * 34},
            "t.trf: player 1 (" + "A" * 34 + "): name: '" + "A" * 34 + "' does not fit "
            "columns 15-47",
        ),
        (
            {"rating": 12345},
            "t.trf: player 1 (Alpha,Anna): rating: '12345' does not fit columns 49-52",
        ),
        ({"start_rank": 0}, "t.trf: player 0 (Alpha,Anna): start_rank: must be 1-9999"),
        (
            {"rounds": (TrfRound(2, 2, "w", "1"),)},
            "t.trf: player 1 (Alpha,Anna): round 1: numbered 2; rounds must be 1, 2, 3, ... "
            "in order",
        ),
        (
            {"rounds": (TrfRound(1, 2, "x", "1"),)},
            "t.trf: player 1 (Alpha,Anna): round 1: colour 'x' is not w, b or -",
        ),
        (
            {"rounds": (TrfRound(1, 2, "w", "X"),)},
            "t.trf: player 1 (Alpha,Anna): round 1: result 'X' is not one of '10=+-wdlhfuz '",
        ),
    ],
)
def test_writer_refuses_what_does_not_fit(change: dict[str, object], message: str) -> None:
    tournament = parse_trf(BASE, WHERE)
    first = replace(tournament.players[0], **change)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput) as caught:
        write_trf(replace(tournament, players=(first, *tournament.players[1:])))
    assert str(caught.value) == message


# --- the seed's worked example (the spec's fide system) ------------------------------------

SEED_CROSSTABLE = """
   A B C D E F G H I J
A  x 1 1 1 1 1 1 1 1 0   8
B  0 x 1 1 0 1 1 1 1 1   7
C  0 0 x 1 1 1 1 1 1 1   7
D  0 0 0 x 1 1 1 1 1 1   6
E  0 1 0 0 x 1 1 1 1 1   6
F  0 0 0 0 0 x 1 1 1 1   4
G  0 0 0 0 0 0 x 1 1 1   3
H  0 0 0 0 0 0 0 x 1 1   2
I  0 0 0 0 0 0 0 0 x 1   1
J  1 0 0 0 0 0 0 0 0 x   1
"""


def test_seed_round_robin_gives_the_crosstable_back() -> None:
    tournament = load("seed_round_robin.trf")
    assert tournament.kind == "Round Robin"
    assert tournament.is_round_robin is True
    letters = "ABCDEFGHIJ"
    assert [player.name for player in tournament.players] == [f"Player {x}" for x in letters]

    expected: dict[tuple[str, str], Decimal] = {}
    rows = SEED_CROSSTABLE.strip().splitlines()[1:]
    for row in rows:
        cells = row.split()
        for column, cell in zip(letters, cells[1:11], strict=True):
            if cell != "x":
                expected[cells[0], column] = Decimal(cell)

    found: dict[tuple[str, str], Decimal] = {}
    for player in tournament.players:
        assert len(player.rounds) == 9
        for entry in player.rounds:
            assert entry.rated and entry.opponent is not None and entry.score is not None
            pair = (letters[player.start_rank - 1], letters[entry.opponent - 1])
            assert pair not in found  # each pair meets once
            found[pair] = entry.score
    assert found == expected

    totals = [sum(entry.score or 0 for entry in player.rounds) for player in tournament.players]
    assert totals == [8, 7, 7, 6, 6, 4, 3, 2, 1, 1]
    assert [player.points for player in tournament.players] == totals
    assert [row.split()[-1] for row in rows] == [str(total) for total in totals]

    # a round-robin schedule: everyone plays once a round, colours opposite
    for number in range(1, 10):
        opponents = {player.start_rank: player.rounds[number - 1] for player in tournament.players}
        assert sorted(entry.opponent or 0 for entry in opponents.values()) == list(range(1, 11))
        for rank, entry in opponents.items():
            assert entry.opponent is not None
            assert {entry.colour, opponents[entry.opponent].colour} == {"w", "b"}
            assert opponents[entry.opponent].opponent == rank

    ratings = {letters[p.start_rank - 1]: p.rating for p in tournament.players}
    assert ratings == {
        "A": 2600, "B": 2500, "C": None, "D": 2400, "E": None,
        "F": 2150, "G": 2300, "H": None, "I": None, "J": 2300,
    }  # fmt: skip
    ids = {letters[p.start_rank - 1]: p.fide_id for p in tournament.players}
    assert ids == {
        "A": "9000001", "B": "9000002", "C": None, "D": "9000004", "E": None,
        "F": "9000006", "G": "9000007", "H": None, "I": None, "J": "9000010",
    }  # fmt: skip
