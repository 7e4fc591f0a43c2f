"""Log lines as JSON (``CHESSRATE_LOG_FORMAT=json``): one object a line, for a log
collector.

Every line has ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger`` and
``message``; a request's line (``chessrate.access``) also its ``client``, ``method``,
``path``, ``status``, ``duration_ms`` and ``route``; a line logged with an exception
its ``traceback``. ``chessrate serve`` configures it (:mod:`chessrate.cli.ledger`)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON (the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "request", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["traceback"] = record.exc_text
        return json.dumps(line, ensure_ascii=True, default=str)
