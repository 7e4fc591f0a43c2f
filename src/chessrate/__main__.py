"""``python -m chessrate`` runs the command line."""

from .cli import main

main()
