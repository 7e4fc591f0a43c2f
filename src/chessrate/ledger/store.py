"""The ledger: durable players, games, rating changes and current ratings of one rating
system, in SQLite (default) or PostgreSQL.

:class:`Ledger` is the one public class; its methods come by concern from
``connection`` (URL, engines, migrations, system, transactions), ``queries``
(reads), ``writes`` (writes that rate: players, games, annulments; previews),
``tokens``, ``reviews`` (reports, review cases; fair play), ``audit`` (the
moderation log), ``verify`` and ``people`` (reads about one player: games list, record
per pool, chart series). The rating periods (``periods``) and live games
(``live``) are built on a ledger.
"""

from __future__ import annotations

from .audit import LedgerAudit
from .people import LedgerPeople
from .reviews import LedgerReviews
from .tokens import LedgerTokens
from .verify import LedgerVerify


class Ledger(LedgerVerify, LedgerReviews, LedgerTokens, LedgerAudit, LedgerPeople):
    """One rating system's ledger in one database."""


__all__ = ["Ledger"]
