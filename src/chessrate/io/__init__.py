"""Streaming readers and writers for chessrate's file formats. They never touch
the ledger and never compute ratings."""
