"""``python -m chessrate`` runs the command line."""

from .cli import run

run()
