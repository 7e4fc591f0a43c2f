"""Make ``{system}_v2.json.gz``: a ledger of each system's sample as the schema of
migration 0002 stored it (every table's rows), for the test of migration 0003.

Run with chessrate at commit bacbb72 (the last with that schema)::

    git worktree add /tmp/v2 bacbb72
    PYTHONPATH=/tmp/v2/src python tests/data/ledgers/dump_v2.py tests/data/ledgers
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import inspect, text

from chessrate.ledger import Ledger
from chessrate.samples import load_sample

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def main(out: Path) -> None:
    for system in ("arena", "corr", "site"):
        with tempfile.TemporaryDirectory() as folder:
            ledger = Ledger.create(f"sqlite:///{folder}/v2.db", system, NOW)
            load_sample(ledger, NOW)
            tables = {}
            with ledger.engine.connect() as conn:
                for name in inspect(conn).get_table_names():
                    result = conn.execute(text(f"SELECT * FROM {name}"))
                    tables[name] = {
                        "columns": list(result.keys()),
                        "rows": [[v if not isinstance(v, datetime) else v.isoformat()
                                  for v in row] for row in result],
                    }  # fmt: skip
            ledger.dispose()
        data = json.dumps(tables, ensure_ascii=False, sort_keys=True).encode()
        (out / f"{system}_v2.json.gz").write_bytes(gzip.compress(data, mtime=0))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
