"""The ledger (``chessrate.ledger.store``) on SQLite and on a real PostgreSQL: set-up,
players, games and their outcomes, idempotency, atomic batches, history, leaderboards,
previews, annulments (site S10), tokens, verify, migrations, and the samples."""

from __future__ import annotations

import hashlib
from decimal import Decimal
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select, text, update

from chessrate.engine import Engine
from chessrate.errors import Conflict, InvalidInput, InvalidRecord, LedgerUnavailable, NotFound
from chessrate.io.games import read_annulments, read_games, read_players
from chessrate.ledger import Ledger
from chessrate.ledger.schema import metadata, ratings, tokens
from chessrate.records import Player
from chessrate.samples import CHECKOUT_FOLDER, load_sample
from chessrate.systems import get_system

from .helpers import NOW, game, ledger_with, table_counts

# -- set-up -------------------------------------------------------------------------------


def test_create_then_open_by_url(ledger_url: str) -> None:
    created = Ledger.create(ledger_url, "site", NOW)
    assert created.system_id == "site"
    assert created.counts() == {"players": 0, "games": 0}
    created.dispose()
    opened = Ledger(ledger_url)
    assert opened.system_id == "site"
    assert opened.system.id == "site"
    opened.dispose()


def test_create_again_with_the_same_system_keeps_the_data(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    ledger.games.submit(game("g1"), NOW)
    again = Ledger.create(ledger_url, "site", NOW)
    assert again.counts() == {"players": 2, "games": 1}
    assert again.verify() == []


def test_one_system_per_ledger(ledger_url: str) -> None:
    Ledger.create(ledger_url, "site", NOW)
    with pytest.raises(InvalidInput, match="already rates by 'site'"):
        Ledger.create(ledger_url, "arena", NOW)
    assert Ledger(ledger_url).system_id == "site"


def test_an_unknown_system_is_refused(ledger_url: str) -> None:
    with pytest.raises(InvalidInput, match="unknown rating system 'glicko'"):
        Ledger.create(ledger_url, "glicko", NOW)


def test_a_database_without_a_ledger_says_run_init(ledger_url: str) -> None:
    with pytest.raises(InvalidInput, match="not a chessrate ledger"):
        _ = Ledger(ledger_url).system_id


def test_a_database_that_does_not_answer_is_unavailable(tmp_path: Path) -> None:
    ledger = Ledger(f"postgresql+psycopg://nobody@/x?host={tmp_path}&port=1")
    try:
        with pytest.raises(LedgerUnavailable, match=r"^database: ") as caught:
            _ = ledger.system_id
        assert not caught.value.url
        with pytest.raises(LedgerUnavailable, match=r"^database: "):
            ledger.ping()
    finally:
        ledger.dispose()


def test_a_url_sqlalchemy_cannot_use_is_unavailable(tmp_path: Path) -> None:
    for url in ("nosuchdialect://x", "::not a url::"):
        with pytest.raises(LedgerUnavailable, match="not a usable database URL") as caught:
            Ledger(url)
        assert caught.value.url


def test_ping_reads_the_system_now_and_says_when_there_is_no_ledger(ledger_url: str) -> None:
    with pytest.raises(LedgerUnavailable, match="not a chessrate ledger"):
        Ledger(ledger_url).ping()
    assert ledger_with(ledger_url, "corr").ping() == "corr"


def test_a_fide_ledger_rates_periods_not_games(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "fide")
    with pytest.raises(InvalidInput, match="fide ledger rates periods"):
        ledger.players.create(Player("ana"), NOW)
    with pytest.raises(InvalidInput, match="fide ledger rates periods"):
        _ = ledger.system


# -- players ------------------------------------------------------------------------------


def test_players_create_get_and_duplicate(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site")
    imported = Player.from_mapping(
        {"id": "kai", "name": "Kai Andersen", "rating_blitz": "1650.00", "games_blitz": "28"},
        "test",
    )
    view = ledger.players.create(imported, NOW)
    assert view.player == imported
    assert ledger.players.get("kai").player.imported["blitz"].rating == Decimal("1650.00")
    with pytest.raises(Conflict, match="player kai: id: already exists"):
        ledger.players.create(Player("kai"), NOW)
    with pytest.raises(NotFound, match="player nobody"):
        ledger.players.get("nobody")


def test_a_player_the_system_cannot_use_is_refused(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "arena")
    with pytest.raises(InvalidRecord, match="bot: arena has no bots"):
        ledger.players.create(Player("robo", bot=True, bot_rating=Decimal(1500)), NOW)
    assert ledger.counts()["players"] == 0


def test_update_player_changes_only_the_given_fields(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "arena")
    ledger.players.create(Player("alice", name="Alice"), NOW)
    view = ledger.players.update("alice", {"membership_until": "2026-12-31"}, NOW)
    assert view.player.name == "Alice"
    assert str(view.player.membership_until) == "2026-12-31"
    with pytest.raises(NotFound):
        ledger.players.update("nobody", {"name": "X"}, NOW)
    with pytest.raises(InvalidRecord, match="membership_until"):
        ledger.players.update("alice", {"membership_until": "soon"}, NOW)
    assert str(ledger.players.get("alice").player.membership_until) == "2026-12-31"


def test_search_players_by_id_or_name_case_insensitive(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site")
    for player_id, name in (("ana", "Ana Ribeiro"), ("ben", "Benoît Roy"), ("cleo", None)):
        ledger.players.create(Player(player_id, name=name), NOW)
    assert [p.id for p in ledger.players.search("RIB")] == ["ana"]
    assert [p.id for p in ledger.players.search("roy")] == ["ben"]
    assert [p.id for p in ledger.players.search("e")] == ["ana", "ben", "cleo"]
    assert [p.id for p in ledger.players.search("e", limit=2)] == ["ana", "ben"]
    assert ledger.players.search("zz") == []


def test_search_folds_case_and_accents_in_any_script_and_escapes_wildcards(
    ledger_url: str,
) -> None:
    ledger = ledger_with(ledger_url, "site")
    people = (("p1", "Jan Novák"), ("p2", "Иван Петров"), ("p3", "Łukasz Øberg"),
              ("p4", "STRASSE"), ("50%_off", None), ("p5", "Anna Müller"))  # fmt: skip
    for player_id, name in people:
        ledger.players.create(Player(player_id, name=name), NOW)
    assert [p.id for p in ledger.players.search("novak")] == ["p1"]
    assert [p.id for p in ledger.players.search("NOVÁK")] == ["p1"]
    assert [p.id for p in ledger.players.search("иван")] == ["p2"]
    assert [p.id for p in ledger.players.search("ИВАН")] == ["p2"]
    assert [p.id for p in ledger.players.search("lukasz oberg")] == ["p3"]
    assert [p.id for p in ledger.players.search("straße")] == ["p4"]
    assert [p.id for p in ledger.players.search("muller")] == ["p5"]
    # % and _ match themselves, not everyone
    assert [p.id for p in ledger.players.search("%")] == ["50%_off"]
    assert [p.id for p in ledger.players.search("_")] == ["50%_off"]
    assert ledger.players.search("\\") == []
    # a name changed later is found by its new name only
    ledger.players.update("p5", {"name": "Anna Šimková"}, NOW)
    assert [p.id for p in ledger.players.search("simkova")] == ["p5"]
    assert ledger.players.search("muller") == []
    # those whose id or name starts with the text come first
    ledger.players.create(Player("a-ivan", name="Zz"), NOW)
    ledger.players.create(Player("zed", name="Ivan Sokolov"), NOW)
    assert [p.id for p in ledger.players.search("ivan")] == ["zed", "a-ivan"]


# -- games --------------------------------------------------------------------------------


def test_a_rated_game_moves_the_type_rating_and_the_site_elo(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    view, created = ledger.games.submit(game("g1"), NOW)
    assert created
    assert view.outcome == "rated"
    assert not view.annulled
    # site S3/S4: K 32, expected 0.5, weight 1 for rapid: +16.00 in both ratings.
    assert {(c.player, c.pool, c.change) for c in view.changes} == {
        ("ana", "rapid", Decimal("16.00")), ("ana", "site", Decimal("16.00")),
        ("ben", "rapid", Decimal("-16.00")), ("ben", "site", Decimal("-16.00")),
    }  # fmt: skip
    ana = {r.pool: r for r in ledger.players.get("ana").ratings}
    assert ana["rapid"].rating == Decimal("1516.00")
    assert ana["rapid"].display == "1516?"
    assert ana["site"].games == 1
    assert ledger.games.get("g1").record == game("g1")


def test_unrated_and_void_games_move_nothing(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    casual, _ = ledger.games.submit(game("g1", rated=False), NOW)
    aborted, _ = ledger.games.submit(game("g2", plies=1, termination="resign"), NOW)
    unfinished, _ = ledger.games.submit(game("g3", result="*"), NOW)
    assert (casual.outcome, casual.changes) == ("unrated", ())
    assert "S1" in casual.reason
    assert (aborted.outcome, aborted.changes) == ("void", ())
    assert "S8" in aborted.reason
    assert unfinished.outcome == "void"
    assert ledger.players.get("ana").ratings == ()
    assert ledger.counts()["games"] == 3
    assert ledger.verify() == []


def test_the_same_game_again_is_answered_and_changes_nothing(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    first, created = ledger.games.submit(game("g1"), NOW)
    before = table_counts(ledger)
    again, created_again = ledger.games.submit(game("g1"), NOW)
    assert created and not created_again
    assert again == first
    assert table_counts(ledger) == before


def test_a_game_id_reused_for_another_game_is_a_conflict(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    ledger.games.submit(game("g1"), NOW)
    before = table_counts(ledger)
    with pytest.raises(Conflict, match="game g1: id: already used for a different game"):
        ledger.games.submit(game("g1", result="0-1"), NOW)
    assert table_counts(ledger) == before
    assert ledger.games.get("g1").record.result.value == "1-0"


@pytest.mark.parametrize(
    ("side", "white", "black"), [("white", "zoe", "ben"), ("black", "ana", "zoe")]
)
def test_an_unknown_player_names_the_side_and_stores_nothing(
    ledger_url: str, side: str, white: str, black: str
) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    before = table_counts(ledger)
    with pytest.raises(InvalidRecord, match=f"test:g1: {side}: unknown player 'zoe'") as error:
        ledger.games.submit(game("g1", white, black), NOW)
    assert error.value.field == side
    assert table_counts(ledger) == before
    with pytest.raises(NotFound):
        ledger.games.get("g1")


def test_a_refused_game_stores_nothing(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    before = table_counts(ledger)
    with pytest.raises(InvalidRecord, match="time_control: is required for a rated game"):
        ledger.games.submit(game("g1", time_control=None), NOW)
    assert table_counts(ledger) == before


def test_submit_games_is_all_or_nothing(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben", "cleo")
    batch = [game("g1"), game("g2", "cleo", "ana"), game("g3", "ben", "nobody"), game("g4")]
    with pytest.raises(InvalidRecord, match="test:g3: black: unknown player 'nobody'"):
        ledger.games.submit_many(batch, NOW)
    assert table_counts(ledger) == {"events": 3, "games": 0, "changes": 0, "ratings": 0}
    stored = ledger.games.submit_many([batch[0], batch[1], batch[3]], NOW)
    assert [(view.id, created) for view, created in stored] == [
        ("g1", True), ("g2", True), ("g4", True)
    ]  # fmt: skip
    assert ledger.verify() == []


def test_submit_games_answers_repeats_inside_and_across_batches(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    ledger.games.submit(game("g1"), NOW)
    stored = ledger.games.submit_many([game("g1"), game("g2"), game("g2")], NOW)
    assert [created for _, created in stored] == [False, True, False]
    assert ledger.counts()["games"] == 2


def test_history_is_per_pool_oldest_first(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    ledger.games.submit(game("g1", played_at="2026-01-02T10:00:00Z"), NOW)
    ledger.games.submit(game("g2", "ben", "ana", played_at="2026-01-03T10:00:00Z"), NOW)
    ledger.games.submit(game("g3", time_control="3m+2s", played_at="2026-01-04T10:00:00Z"), NOW)
    rapid = ledger.players.history("ana", "rapid")
    assert [(h.change.game_id, h.kind) for h in rapid] == [("g1", "game"), ("g2", "game")]
    # g2: ana 1516 loses to ben 1484; expected 0.55 (two decimals, spec Rounding): -17.60.
    assert [h.change.after for h in rapid] == [Decimal("1516.00"), Decimal("1498.40")]
    assert [h.change.game_id for h in ledger.players.history("ana", "blitz")] == ["g3"]
    assert [h.change.game_id for h in ledger.players.history("ana", "site")] == ["g1", "g2", "g3"]
    assert [h.seq for h in ledger.players.history("ana", "site")] == sorted(
        h.seq for h in ledger.players.history("ana", "site")
    )
    assert ledger.players.history("ana", "bullet") == []
    with pytest.raises(NotFound):
        ledger.players.history("nobody", "rapid")


def test_leaderboard_is_best_first_and_paged(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "p1", "p2", "p3", "p4", "p5")
    # p1 beats everyone, p2 beats p3..p5, ...: a strict order p1 > p2 > ... > p5.
    ids = ["p1", "p2", "p3", "p4", "p5"]
    for i, white in enumerate(ids):
        for black in ids[i + 1 :]:
            ledger.games.submit(game(f"{white}-{black}", white, black), NOW)
    board, total = ledger.boards.leaderboard("rapid")
    assert total == 5
    assert [r.player for r in board] == ids
    assert [r.rating for r in board] == sorted(
        (r.rating for r in board if r.rating is not None), reverse=True
    )
    page, total = ledger.boards.leaderboard("rapid", offset=1, limit=2)
    assert ([r.player for r in page], total) == (["p2", "p3"], 5)
    assert ledger.boards.leaderboard("rapid", offset=5)[0] == []
    assert ledger.boards.leaderboard("bullet") == ([], 0)
    with pytest.raises(NotFound, match="pool chess960: not a pool of site"):
        ledger.boards.leaderboard("chess960")


@pytest.mark.slow  # the site sample, both engines
def test_leaderboard_matches_the_batch_engine_on_the_site_sample(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site")
    load_sample(ledger, NOW)
    engine = sample_engine("site")
    for pool in engine.system.pools:
        board, total = ledger.boards.leaderboard(pool, limit=1000)
        expected = [(e.player, e.rating, e.display, e.games) for e in engine.rating_list(pool)]
        assert [(r.player, r.rating, r.display, r.games) for r in board] == expected, pool
        assert total == len(expected)


def test_an_imported_rating_is_on_the_leaderboard_before_any_game(ledger_url: str) -> None:
    """The spec, "Pools and the rating list": a player with a rating is listed, also
    one imported and not moved by a game yet, as the batch engine lists it. (Regression:
    the ledger used to store a rating only with the player's first game.)"""
    ledger = ledger_with(ledger_url, "arena")
    player = Player.from_mapping(
        {"id": "victor", "membership_until": "2026-12-31", "rating_blitz": "1750.00",
         "games_blitz": "80"}, "test",
    )  # fmt: skip
    ledger.players.create(player, NOW)
    expected = Engine(get_system("arena"), [player]).rating_list("blitz")
    assert [(e.player, e.rating, e.games) for e in expected] == [("victor", Decimal("1750.00"), 80)]
    board, total = ledger.boards.leaderboard("blitz")
    assert [(r.player, r.rating, r.games) for r in board] == [("victor", Decimal("1750.00"), 80)]
    assert total == 1
    assert [r.pool for r in ledger.players.get("victor").ratings] == ["blitz"]
    assert ledger.verify() == []


@pytest.mark.parametrize(
    ("fields", "listed"),
    [({"rating_blitz": "1800.00"}, [("victor", Decimal("1800.00"))]),
     ({"rating_blitz": None, "games_blitz": None}, [])],
    ids=["changed", "removed"],
)  # fmt: skip
def test_an_imported_rating_changed_before_any_game_is_listed_as_changed(
    ledger_url: str, fields: dict[str, object], listed: list[tuple[str, Decimal]]
) -> None:
    ledger = ledger_with(ledger_url, "arena")
    ledger.players.create(
        Player.from_mapping(
            {"id": "victor", "membership_until": "2026-12-31", "rating_blitz": "1750.00",
             "games_blitz": "80"}, "test",
        ),
        NOW,
    )  # fmt: skip
    ledger.players.update("victor", fields, NOW)
    assert [(r.player, r.rating) for r in ledger.boards.leaderboard("blitz")[0]] == listed
    assert ledger.verify() == []


def test_preview_shows_each_result_and_stores_nothing(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    before = table_counts(ledger)
    previews = ledger.games.preview(game("g1"))
    assert set(previews) == {"1-0", "1/2-1/2", "0-1"}
    win = {(c.player, c.pool): c.change for c in previews["1-0"].changes}
    draw = {(c.player, c.pool): c.change for c in previews["1/2-1/2"].changes}
    assert win[("ana", "rapid")] == Decimal("16.00")
    assert draw[("ana", "rapid")] == Decimal("0.00")
    assert table_counts(ledger) == before
    with pytest.raises(NotFound):
        ledger.games.get("g1")
    with pytest.raises(InvalidRecord, match="black: unknown player"):
        ledger.games.preview(game("g1", "ana", "zoe"))


# -- annulments ---------------------------------------------------------------------------


def test_annulment_reverses_the_game_and_is_listed(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    ledger.games.submit(game("g1"), NOW)
    ledger.games.submit(game("g2", "ben", "ana"), NOW)
    annulment = ledger.annulments.annul("g1", "engine assistance", "mod", NOW)
    assert annulment.game_id == "g1"
    assert {c.rule for c in annulment.changes} == {"site S10"}
    assert {(c.player, c.pool): c.change for c in annulment.changes}[("ana", "rapid")] == Decimal(
        "-16.00"
    )
    view = ledger.games.get("g1")
    assert view.annulled
    assert view.outcome == "void"
    ana = {r.pool: r for r in ledger.players.get("ana").ratings}
    assert ana["rapid"].games == 1  # g1 no longer counts
    assert [(a.game_id, a.by, a.reason) for a in ledger.annulments.list()] == [
        ("g1", "mod", "engine assistance")
    ]
    assert [h.kind for h in ledger.players.history("ana", "rapid")] == ["game", "game", "annulment"]
    assert ledger.verify() == []


def test_annulling_twice_is_a_conflict(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    ledger.games.submit(game("g1"), NOW)
    ledger.annulments.annul("g1", "engine", "mod", NOW)
    before = table_counts(ledger)
    with pytest.raises(Conflict, match="game g1: id: already annulled"):
        ledger.annulments.annul("g1", "engine", "mod", NOW)
    assert table_counts(ledger) == before
    assert len(ledger.annulments.list()) == 1


def test_only_a_rated_game_can_be_annulled(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    ledger.games.submit(game("g1", rated=False), NOW)
    with pytest.raises(InvalidRecord, match="the game is unrated: no rating to annul"):
        ledger.annulments.annul("g1", "engine", "mod", NOW)
    with pytest.raises(NotFound):
        ledger.annulments.annul("g9", "engine", "mod", NOW)
    assert ledger.annulments.list() == []


def test_an_arena_ledger_refuses_annulment(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "arena")
    for player_id, rating in (("alice", "1800.00"), ("bob", "1700.00")):
        ledger.players.create(
            Player.from_mapping(
                {"id": player_id, "membership_until": "2026-12-31",
                 "rating_blitz": rating, "games_blitz": "40"}, "test",
            ),
            NOW,
        )  # fmt: skip
    view, _ = ledger.games.submit(game("g1", "alice", "bob", time_control="300+3"), NOW)
    assert view.outcome == "rated"
    before = table_counts(ledger)
    with pytest.raises(InvalidRecord, match="arena regulation has no fair-play annulment"):
        ledger.annulments.annul("g1", "engine", "mod", NOW)
    assert table_counts(ledger) == before
    assert not ledger.games.get("g1").annulled
    assert ledger.annulments.list() == []


# -- tokens -------------------------------------------------------------------------------


def test_tokens_store_only_their_hash(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site")
    writer = ledger.tokens.create("writer", "ci", NOW)
    moderator = ledger.tokens.create("moderator", "", NOW)
    assert writer != moderator
    assert ledger.tokens.role(writer) == "writer"
    assert ledger.tokens.role(moderator) == "moderator"
    assert ledger.tokens.role("cr_not-a-token") is None
    assert ledger.tokens.label(writer) == "ci"
    assert ledger.tokens.label("cr_not-a-token") is None
    with ledger.reader.connect() as conn:
        rows = conn.execute(select(tokens)).all()
    assert {row.hash for row in rows} == {
        hashlib.sha256(t.encode()).hexdigest() for t in (writer, moderator)
    }
    stored_text = " ".join(str(value) for row in rows for value in row)
    assert writer not in stored_text
    assert moderator not in stored_text
    with pytest.raises(InvalidInput, match="unknown role 'admin'"):
        ledger.tokens.create("admin", "", NOW)


# -- verify -------------------------------------------------------------------------------


@pytest.mark.slow  # the site sample verified
def test_verify_passes_on_the_site_sample_with_its_annulments(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site")
    load_sample(ledger, NOW)
    assert ledger.counts() == {"players": 43, "games": 485}
    assert len(ledger.annulments.list()) == 3
    assert ledger.verify() == []


def test_verify_finds_a_tampered_state(site_sample: str) -> None:
    ledger = Ledger(site_sample)
    with ledger.engine.begin() as conn:
        state = conn.execute(
            select(ratings.c.state).where(ratings.c.player_id == "ana", ratings.c.pool == "site")
        ).scalar_one()
        conn.execute(
            update(ratings)
            .where(ratings.c.player_id == "ana", ratings.c.pool == "site")
            .values(state=state.replace('"rating":"', '"rating":"1'))
        )
    problems = ledger.verify()
    assert len(problems) == 1
    assert problems[0].startswith("ana site: state is ")


@pytest.mark.parametrize(
    "column",
    ["before", "after", "opponent_rating", "k", "d", "pd", "basis", "code", "games_before",
     "games_after", "rule", "slot"],
)  # fmt: skip
def test_verify_finds_tampered_changes(site_sample: str, column: str) -> None:
    """Every stored number of a change is compared with the replay's."""
    ledger = Ledger(site_sample)
    with ledger.engine.begin() as conn:
        conn.execute(
            text(f"UPDATE changes SET {column} = coalesce({column}, 0) + 1 "
                 "WHERE seq = (SELECT seq FROM games WHERE id = 's0001') AND slot = 0")
        )  # fmt: skip
    problems = ledger.verify()
    assert len(problems) == 1
    assert problems[0].startswith("game s0001: ")


@pytest.mark.parametrize(("column", "value"), [("outcome", 1), ("reason", 0)])
def test_verify_finds_a_tampered_decision(site_sample: str, column: str, value: int) -> None:
    ledger = Ledger(site_sample)
    with ledger.engine.begin() as conn:
        conn.execute(text(f"UPDATE games SET {column} = {value} WHERE id = 's0001'"))
    problems = ledger.verify()
    assert len(problems) == 1
    assert problems[0].startswith(f"game s0001: {column}")


@pytest.mark.parametrize(
    ("column", "value", "shown"),
    [("rating_cents", 123456, "123456"), ("display", "2000", "'2000'"), ("games", 7, "7"),
     ("listed", False, "False")],
)  # fmt: skip
def test_verify_finds_a_tampered_rating_column(
    site_sample: str, column: str, value: object, shown: str
) -> None:
    """What leaderboards and player pages show is checked too, not only the state.
    (Regression: verify used to compare only the stored state with the replay.)"""
    ledger = Ledger(site_sample)
    where = (ratings.c.player_id == "ana") & (ratings.c.pool == "site")
    with ledger.engine.begin() as conn:
        conn.execute(update(ratings).where(where).values({column: value}))
    problems = ledger.verify()
    assert len(problems) == 1
    assert problems[0].startswith(f"ana site: {column} is {shown} in the ledger, ")


# -- migrations ---------------------------------------------------------------------------


def test_migrations_build_exactly_the_schema(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "site", NOW)
    with ledger.engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
        tables = set(inspect(conn).get_table_names())
    assert differences == []
    assert tables == set(metadata.tables) | {"alembic_version"}


def test_migrating_again_is_a_no_op(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    ledger.games.submit(game("g1"), NOW)
    ledger.migrate()
    with ledger.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    assert ledger.counts() == {"players": 2, "games": 1}


# -- the samples --------------------------------------------------------------------------


def sample_engine(system_id: str) -> Engine[object]:
    """The sample replayed by the batch engine, as ``chessrate rate`` does."""
    engine: Engine[object] = Engine(
        get_system(system_id), read_players(CHECKOUT_FOLDER / f"{system_id}_players.csv")
    )
    engine.replay(read_games(CHECKOUT_FOLDER / f"{system_id}_games.jsonl"))
    annulments = CHECKOUT_FOLDER / f"{system_id}_annulments.txt"
    if annulments.exists():
        for _, game_id, reason in read_annulments(annulments):
            engine.annul(game_id, reason, NOW, "sample")
    return engine


@pytest.mark.slow  # two samples loaded and verified
@pytest.mark.parametrize(("system_id", "players", "games"), [("arena", 36, 419), ("corr", 30, 342)])
def test_the_arena_and_corr_samples_load_and_verify(
    ledger_url: str, system_id: str, players: int, games: int
) -> None:
    ledger = ledger_with(ledger_url, system_id)
    load_sample(ledger, NOW)
    assert ledger.counts() == {"players": players, "games": games}
    assert ledger.verify() == []
    engine = sample_engine(system_id)
    for pool in engine.system.pools:
        # Players with an imported rating and no game are listed too (as the batch
        # engine lists them).
        rated = {e.player: e.rating for e in engine.rating_list(pool)}
        board = {r.player: r.rating for r in ledger.boards.leaderboard(pool, limit=1000)[0]}
        assert board == rated, pool


def test_verify_reports_an_unreadable_stored_change(site_sample: str) -> None:
    """A change corrupted into a code no system has is a difference, not a crash."""
    ledger = Ledger(site_sample)
    with ledger.engine.begin() as conn:
        conn.execute(
            text("UPDATE changes SET rule = 99 "
                 "WHERE seq = (SELECT seq FROM games WHERE id = 's0001')")
        )  # fmt: skip
    # the reference replay reads each change back; the compiled verify compares the
    # numbers (auto takes it: the sample's annulments are replayed in place)
    problems = ledger.verify("reference")
    assert len(problems) == 1
    assert problems[0].startswith("game s0001: a stored change cannot be read")
    assert ledger.verify() == ["game s0001: stored changes differ from the replay"]


def test_import_all_is_one_transaction(ledger_url: str) -> None:
    """Players, games and annulments are stored together or not at all: a game refused
    at the end leaves the new player and the earlier games unstored."""
    ledger = ledger_with(ledger_url, "site", "ana", "ben")
    before = table_counts(ledger)
    with pytest.raises(InvalidRecord) as caught:
        ledger.games.import_all(
            [Player("cleo")],
            [("ana", {"name": "Ana"})],
            [game("g1"), game("g2", "cleo", "ben"), game("g3", "ana", "nobody")],
            [],
            None,
            NOW,
        )
    assert caught.value.field == "black"
    assert table_counts(ledger) == before
    assert [p.id for p in ledger.players.all()] == ["ana", "ben"]
    assert ledger.players.get("ana").player.name is None
    stored, annulled = ledger.games.import_all(
        [Player("cleo")], [], [game("g1"), game("g2", "cleo", "ben")], [("g1", "engine")],
        "moderation", NOW,
    )  # fmt: skip
    assert [created for _, created in stored] == [True, True]
    assert [a.game_id for a in annulled] == ["g1"]
    assert ledger.verify() == []
