"""The ledger: durable players, games, rating changes and current ratings of one rating
system, in SQLite (default) or PostgreSQL.

:class:`Ledger` is the one public class: the connection (``connection``: URL,
engines, migrations, system, transactions), the whole-ledger check (:meth:`verify`)
and counts, and its named parts, each built once over that connection and each
in its module: ``players``, ``games``, ``annulments``, ``boards`` (leaderboards),
``people`` (a player's games list, record per pool, chart), ``bulk`` (the bulk
import), ``tokens``, ``reviews`` (fair play), ``audit`` (the moderation log),
``marks`` (players marked for confirmed cheating), ``periods`` (a ``fide`` ledger's
rating periods), ``live`` (a ``site`` ledger's live
games, by the ledger's own ``SiteRules``), ``seeks`` (its seeks and pairing, with the
default pairing rules; build :class:`Seeks` over the ledger for others) and
``analyses`` (the fair-play detector's). The parts share their internal helpers
through ``common``, never each other's private methods.
"""

from __future__ import annotations

from functools import cached_property

from sqlalchemy import func, select

from .analyses import Analyses
from .annulments import Annulments
from .audit import Audit
from .bulk import Bulk
from .connection import LedgerConnection
from .games import Games
from .leaderboards import Boards
from .live import LiveGames
from .marks import Marks
from .people import People
from .periods import Periods
from .players import Players
from .reviews import Reviews
from .schema import games, players
from .seeks import Seeks
from .sessions import Sessions
from .tokens import Tokens
from .verify import Verifier


class Ledger(LedgerConnection):
    """One rating system's ledger in one database: the connection and its parts (each
    built at its first use, once)."""

    @cached_property
    def players(self) -> Players:
        """The players: register, change, read, search, a rating's history."""
        return Players(self)

    @cached_property
    def games(self) -> Games:
        """The games: submit (rated as stored), read, preview, export."""
        return Games(self)

    @cached_property
    def annulments(self) -> Annulments:
        """The annulments (site S10): annul a game; list them."""
        return Annulments(self)

    @cached_property
    def boards(self) -> Boards:
        """The leaderboards, a player's rank, the ledger's date."""
        return Boards(self)

    @cached_property
    def people(self) -> People:
        """One player's games list, record per pool, rating chart."""
        return People(self)

    @cached_property
    def bulk(self) -> Bulk:
        """The bulk import of a whole file."""
        return Bulk(self)

    @cached_property
    def tokens(self) -> Tokens:
        """The API's bearer tokens."""
        return Tokens(self)

    @cached_property
    def reviews(self) -> Reviews:
        """Fair play: reports and review cases."""
        return Reviews(self)

    @cached_property
    def sessions(self) -> Sessions:
        """Moderators' web sessions."""
        return Sessions(self)

    @cached_property
    def audit(self) -> Audit:
        """The moderation audit log."""
        return Audit(self)

    @cached_property
    def marks(self) -> Marks:
        """Players marked for confirmed cheating (paired only with each other)."""
        return Marks(self)

    @cached_property
    def periods(self) -> Periods:
        """A ``fide`` ledger's rating periods (InvalidInput on another ledger)."""
        return Periods(self)

    @cached_property
    def live(self) -> LiveGames:
        """A ``site`` ledger's live games, under the default
        :class:`~chessrate.systems.site_live.LiveRules`."""
        return LiveGames(self)

    @cached_property
    def seeks(self) -> Seeks:
        """A ``site`` ledger's seeks, under the default pairing and live rules."""
        return Seeks(self)

    @cached_property
    def analyses(self) -> Analyses:
        """The fair-play detector's stored analyses."""
        return Analyses(self)

    def verify(self, engine: str = "auto") -> list[str]:
        """Replay every event in commit order and compare every stored number to the
        replay's; the differences (:meth:`Verifier.verify
        <chessrate.ledger.verify.Verifier.verify>`, which says what ``engine``
        chooses)."""
        return Verifier(self).verify(engine)

    def counts(self) -> dict[str, int]:
        """How many players and games the ledger holds."""
        with self.reading() as conn:
            return {
                "players": conn.execute(select(func.count()).select_from(players)).scalar_one(),
                "games": conn.execute(select(func.count()).select_from(games)).scalar_one(),
            }


__all__ = ["Ledger"]
