"""The pages' words for the ledger's sentences, without a server: ``said`` names the
game's players in a reason (linked, the id in the tooltip) and links rule ids;
``in_words`` puts words around corr's and arena's formulas; ``still_why`` says why a
games-list row did not move."""

from __future__ import annotations

from datetime import UTC, datetime

from chessrate.application.common import ChangePublic
from chessrate.application.players import PlayerGamePublic
from chessrate.ledger.views import Colour
from chessrate.records import Outcome, Result
from chessrate.web.pages import said, still_why
from chessrate.web.words import in_words


def test_said_names_the_games_players_by_whole_token_and_links_rules() -> None:
    text = "blitz: nadia is rated, fatima is not: A6 for fatima, A9 for nadia"
    html = str(said(text, {"nadia": "Nadia Petrova", "fatima": "Fatima Benali"}))
    assert "nadia is" not in html and "for fatima" not in html
    assert (
        html.count('<a class="player" href="/players/nadia" title="nadia">Nadia Petrova</a>') == 2
    )
    assert html.count('title="fatima">Fatima Benali</a>') == 2
    assert '<a class="rule" href="/how#A6">A6</a>' in html
    assert '<a class="rule" href="/how#A9">A9</a>' in html


def test_said_leaves_other_words_and_longer_tokens_alone() -> None:
    # only the ids given (the game's players), only whole tokens: "kai" in "kai-2",
    # "kaiser" or "kai.b" is not kai; a full stop after the id is the sentence's
    html = str(said("kai beat kaiser, kai-2 and kai.b. Then kai.", {"kai": "Kai Andersen"}))
    assert html.count("Kai Andersen") == 2
    assert "kaiser" in html and "kai-2" in html and "kai.b" in html
    assert html.endswith("Kai Andersen</a>.")
    # an id nobody passed stays a word
    assert str(said("a loss for kai", {})) == "a loss for kai"


def test_said_escapes_and_prefers_the_longest_id() -> None:
    html = str(said("<b>&amp; beat <b> (S8)", {"<b>": "B", "<b>&amp;": "Odd"}))
    assert html.startswith(
        '<a class="player" href="/players/%3Cb%3E%26amp%3B" title="&lt;b&gt;&amp;amp;">Odd</a>'
    )
    assert 'title="&lt;b&gt;">B</a>' in html
    assert '<a class="rule" href="/how#S8">S8</a>' in html
    assert "<b>" not in html.replace('class="player"', "")  # nothing unescaped
    assert str(said(None, {"kai": "Kai"})) == ""


def test_formulas_in_words() -> None:
    assert in_words("0.04 × diff 72.96 +16 = +18.92") == (
        "0.04 × the rating difference 72.96, +16 for the win = +18.92"
    )
    protected = in_words(
        "0.04 × diff 350 (clamped from 400.00) -16 = -2.00; protected against a unrated "
        "opponent: 0 (C6)"
    )
    assert protected == (
        "0.04 × the rating difference 350 (clamped from 400.00), -16 for the loss = -2.00; "
        "protected against an unrated opponent: 0 (C6)"
    )
    assert "+0 for the draw" in in_words("0.04 × diff -256.00 +0 = -10.24")
    assert in_words("D = 65 → PD 0.41; 1 − 0.41 = 0.59 × K 20 = +11.80") == (
        "rating difference D = 65 → expected score PD 0.41; score 1 − expected 0.41 = 0.59 "
        "× K 20 = +11.80"
    )
    first = in_words(
        "Ra = 1683.98, s = 3: over 50 %, Rf = Ra + 20 = 1703.98; rated from now on (A6)"
    )
    assert first == (
        "the opponents' mean rating Ra = 1683.98, points s = 3: over 50 %, first rating "
        "Rf = Ra + 20 = 1703.98; rated from now on (A6)"
    )
    site = "expected 0.50 (opponent 1500.00); K 32 × (1 − 0.50) = +16.00"
    assert in_words(site) == site  # site's notes have their words already


def _row(outcome: str, changes: list[ChangePublic], reason: str) -> PlayerGamePublic:
    return PlayerGamePublic(
        id="g", seq=1, played_at=datetime(2026, 1, 1, tzinfo=UTC), colour=Colour.WHITE,
        opponent="b", opponent_rating=None, result=Result.BLACK_WINS, score="0", rated=True,
        time_control="180+2", time_control_written="3+2", outcome=Outcome(outcome),
        reason=reason, annulled=False, annulment_reason=None, changes=changes,
    )  # fmt: skip


def _change(rule: str, change: str | None, note: str) -> ChangePublic:
    return ChangePublic(
        game="g", player="a", pool="corr", rule=rule, opponent="b", opponent_rating="1500.00",
        score="0", before="1500.00" if change else None, after=None, change=change,
        delta=None, k=None, d=None, pd=None, state_before="established",
        state_after="established", games_before=30, games_after=31, note=note,
    )  # fmt: skip


def test_still_why_names_the_rule_of_a_row_that_did_not_move() -> None:
    protected = _change("corr C6", "0.00", "… protected against a provisional opponent: 0 (C6)")
    assert still_why(_row("rated", [protected], "rated: a corr C6"), False) == [
        ("corr C6", protected.note)
    ]
    moved = _change("corr C5", "-2.00", "…")
    assert still_why(_row("rated", [moved], "rated: a corr C5"), False) == []
    ignored = (
        "blitz: b is rated, a is not: A6 for a, A9 for b; a loss before the count starts "
        "is ignored (A6)"
    )
    assert still_why(_row("rated", [], ignored), False) == [(None, ignored)]
    assert (
        still_why(_row("rated", [], "blitz: type rating and site Elo (weight 0.75)"), True)[0][0]
        == "site S7"
    )
    c4 = ("corr C4", "not counted")
    assert still_why(_row("rated", [], "rated: b corr C5"), False, c4) == [
        c4,
        (None, "rated: b corr C5"),
    ]
    neither = "rated: counted for neither player (C4)"
    assert still_why(_row("rated", [], neither), False, c4) == [(None, neither)]
    aborted = "aborted: 1 plies, before both sides moved: void (S8)"
    assert still_why(_row("void", [], aborted), False) == [(None, aborted)]


def test_a_text_with_a_bidirectional_control_is_shown_without_it_set_apart() -> None:
    """A report's reason is anyone's text: an override left open (U+202E) would turn the
    rest of the page's sentence around. It is left out of the page, and the text is
    set apart in <bdi>; a text without one is as before."""
    html = str(said("kai \u202eplayed like an engine", {"kai": "Kai Andersen"}))
    assert html.startswith("<bdi>") and html.endswith("</bdi>")
    assert "\u202e" not in html and "played like an engine" in html
    assert 'title="kai">Kai Andersen</a>' in html
    assert str(said("\u2067x", {})) == "<bdi>x</bdi>"
    assert "<bdi>" not in str(said("كاي played like an engine", {}))  # right-to-left letters
