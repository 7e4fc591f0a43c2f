"""The registry of rating systems (``chessrate.systems.REGISTRY``): what the layers above
the systems ask instead of comparing ids."""

from __future__ import annotations

import pytest

from chessrate.systems import (
    LEDGER_SYSTEMS,
    REGISTRY,
    SYSTEM_IDS,
    SystemKind,
    get_system,
    system_info,
)
from chessrate.systems.fide import FideSystem


def test_every_system_is_registered_once_in_order() -> None:
    assert LEDGER_SYSTEMS == ("arena", "corr", "site", "fide")
    assert [info.id for info in REGISTRY.values()] == list(REGISTRY)
    assert all(info.description and "\n" not in info.description for info in REGISTRY.values())


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_a_system_that_rates_games_is_built_by_get_system_with_its_pools(system_id: str) -> None:
    info = system_info(system_id)
    assert info.kind is SystemKind.GAMES
    assert (info.rates_games, info.rates_periods) == (True, False)
    system = get_system(system_id)
    assert (system.id, system.pools) == (system_id, info.pools)


def test_fide_rates_periods_in_a_pool_per_list() -> None:
    info = system_info("fide")
    assert info.kind is SystemKind.PERIODS
    assert (info.rates_games, info.rates_periods) == (False, True)
    assert info.pools == ("fide", "fide-rapid", "fide-blitz") == FideSystem.pools
    assert [info.pool_label(pool) for pool in info.pools] == ["standard", "rapid", "blitz"]
    assert "fide" not in SYSTEM_IDS
    with pytest.raises(ValueError, match="unknown rating system 'fide'"):
        get_system("fide")


def test_only_site_plays_live_games() -> None:
    assert [info.id for info in REGISTRY.values() if info.live_games] == ["site"]


def test_an_unknown_id_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"'glicko' \(known: arena, corr, site, fide\)"):
        system_info("glicko")
