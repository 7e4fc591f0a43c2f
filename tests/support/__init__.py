"""Test support: a throw-away PostgreSQL cluster and ledger fixtures."""
