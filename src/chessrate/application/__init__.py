"""The application layer: what the HTTP API (:mod:`chessrate.service`) and the web pages
(:mod:`chessrate.web`) both call, so that neither imports the other.

- :mod:`.services`: requests → records → ledger calls → public shapes; the only
  place a route or a page reaches the ledger through;
- :mod:`.schemas`: the public shapes (pydantic) the services answer with;
- :mod:`.deps`: the FastAPI dependencies (the ledger, the clock, the caller's token);
- :mod:`.settings`: the configuration from ``CHESSRATE_*`` environment variables.

It sits above the ledger and below the front ends; :mod:`chessrate.server` builds the
app and mounts both front ends on it (docs/internals.md, "Layers").
"""
