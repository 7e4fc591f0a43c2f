"""The layering (lower layers never import upper ones), checked on the source with ``ast``.

Every module under ``src/chessrate`` belongs to one layer; a module imports only from
its own layer or lower ones, whether the import is at the top, inside a function or
under ``TYPE_CHECKING``::

    numbers, errors, tables, timecontrol, folding, metrics (the Prometheus metrics
    every layer records into), logs (the JSON log lines), identifiers (what an id and
    a text may hold)
    -> records, moves (a game's moves read and checked) -> systems -> engine
    -> io -> fast                     (io never imports fast)
    -> rating (rate a file: the batch path's library call), lab (``chessrate
       evaluate``: rules replayed and measured), the package's face
       (chessrate/__init__.py)
    -> ledger
    -> operations, samples, application (the services the API and the pages share),
       fairplay (the detector, and its job over the ledger's live games)
    -> service (the HTTP API), web (the pages): neither imports the other
    -> server (the composition root: builds the app, mounts both)
    -> cli, __main__

And no module imports another package's private (underscore) names: neither
``from pkg.mod import _name`` nor ``mod._name`` on an imported module, nor a module
whose name starts with an underscore, from outside its package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "chessrate"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("numbers", "errors", "tables", "timecontrol", "folding", "metrics", "logs", "identifiers"),
    ("records", "moves"),
    ("systems",),
    ("engine",),
    ("io",),
    ("fast",),
    ("rating", "lab", ""),  # "": chessrate/__init__.py, the library's public face
    ("ledger",),
    ("operations", "samples", "application", "fairplay"),
    ("service", "web"),
    ("server",),
    ("cli", "__main__"),
)
"""Lowest first: the first component under ``chessrate`` decides a module's layer."""

APART = (("service", "web"),)
"""Pairs in one layer that must not import each other."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {
    _module_name(path): path
    for path in sorted((SRC / PACKAGE).rglob("*.py"))
    if "migrations" not in path.relative_to(SRC).parts
}
"""Every module of the package (Alembic's migration scripts are data, not modules)."""


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def _package_of(name: str) -> str:
    """The package a module belongs to (a package's ``__init__`` belongs to itself)."""
    return name if _is_package(name) else name.rpartition(".")[0]


def _area(name: str) -> str:
    """The first component under ``chessrate`` ("" for the package itself)."""
    return name.split(".")[1] if "." in name else ""


def layer_of(name: str) -> int:
    area = _area(name)
    for rank, areas in enumerate(LAYERS):
        if area in areas:
            return rank
    raise AssertionError(f"{name}: in no layer; add {area!r} to LAYERS in {__file__}")


@dataclass(frozen=True)
class Import:
    line: int
    module: str
    """The chessrate module imported from."""
    name: str | None = None
    """The name taken from it (``from module import name``), or an attribute read on it."""
    read: bool = False
    """An attribute read on a module bound by an import (checked for private names)."""


def _absolute(importer: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = _package_of(importer).split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(importer: str, source: str) -> Iterator[Import]:
    """Every import of a chessrate module in ``source``, and every attribute read on a
    chessrate module bound to a name."""
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # local name -> the chessrate module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    yield Import(node.lineno, alias.name)
                    if alias.asname:
                        modules[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source_module = _absolute(importer, node)
            if source_module.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                submodule = f"{source_module}.{alias.name}"
                if submodule in MODULES:
                    yield Import(node.lineno, submodule)
                    modules[alias.asname or alias.name] = submodule
                else:
                    yield Import(node.lineno, source_module, alias.name)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            yield Import(node.lineno, modules[node.value.id], node.attr, read=True)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_owner(found: Import) -> str | None:
    """The package a private name or module belongs to; None when nothing is private."""
    parts = found.module.split(".")
    for n, part in enumerate(parts):
        if _private(part):
            return ".".join(parts[:n])
    if found.name is not None and _private(found.name):
        return _package_of(found.module)
    return None


def layering_problems(importer: str, source: str) -> list[str]:
    rank = layer_of(importer)
    problems: list[str] = []
    for found in imports_of(importer, source):
        if found.read:
            continue  # the import that bound the module is checked
        if found.module not in MODULES:
            problems.append(f"line {found.line}: {found.module} is not a module of the package")
            continue
        target = layer_of(found.module)
        pair = {_area(importer), _area(found.module)}
        if target > rank:
            problems.append(
                f"line {found.line}: imports {found.module} (layer {target}: "
                f"{', '.join(LAYERS[target])}) from layer {rank} ({', '.join(LAYERS[rank])})"
            )
        elif any(pair == set(apart) for apart in APART):
            problems.append(f"line {found.line}: {importer} and {found.module} must not meet")
    return list(dict.fromkeys(problems))  # one line per import statement


def private_problems(importer: str, source: str) -> list[str]:
    problems: list[str] = []
    for found in imports_of(importer, source):
        owner = private_owner(found)
        if owner is None:
            continue
        mine = _package_of(importer)
        if mine != owner and not mine.startswith(owner + "."):
            what = f"{found.module}.{found.name}" if found.name else found.module
            problems.append(f"line {found.line}: uses {what}, private to {owner}")
    return list(dict.fromkeys(problems))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_its_own_layer_or_lower_ones(module: str) -> None:
    problems = layering_problems(module, MODULES[module].read_text(encoding="utf-8"))
    assert not problems, f"{module}:\n" + "\n".join(problems)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_uses_no_private_name_of_another_package(module: str) -> None:
    problems = private_problems(module, MODULES[module].read_text(encoding="utf-8"))
    assert not problems, f"{module}:\n" + "\n".join(problems)


def test_every_layer_has_modules_and_every_module_a_layer() -> None:
    found = {layer_of(module) for module in MODULES}
    assert found == set(range(len(LAYERS)))
    assert "chessrate.server" in MODULES


# -- the checker itself ------------------------------------------------------------------


def test_the_checker_sees_relative_lazy_and_type_only_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from .. import server\n"
        "if TYPE_CHECKING:\n"
        "    from ..cli import main\n"
        "def f():\n"
        "    import chessrate.web.pages\n"
    )
    problems = layering_problems("chessrate.ledger.store", source)
    assert [p.split(":")[0] for p in problems] == ["line 2", "line 4", "line 6"]


def test_the_checker_keeps_the_api_and_the_pages_apart() -> None:
    assert layering_problems("chessrate.web.pages", "from ..service import errors\n")
    assert layering_problems("chessrate.service.routes.games", "from ...web import charts\n")
    assert not layering_problems("chessrate.web.pages", "from ..application import services\n")
    assert not layering_problems("chessrate.server", "from .web import mount_web\n")


def test_the_checker_sees_io_importing_fast() -> None:
    assert layering_problems("chessrate.io.games", "from ..fast.batch import encode\n")
    assert not layering_problems("chessrate.fast.batch", "from ..io.games import read_games\n")


def test_the_checker_sees_private_names_across_packages() -> None:
    assert private_problems("chessrate.cli", "from ..ledger.common import _hundredths\n")
    assert private_problems("chessrate.cli", "from ..ledger import common\ncommon._hundredths\n")
    assert not private_problems("chessrate.ledger.store", "from .common import _hundredths\n")
    assert not private_problems("chessrate.cli", "from . import __version__\n")
