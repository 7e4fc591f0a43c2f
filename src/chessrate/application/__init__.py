"""The application layer: what the HTTP API (:mod:`chessrate.service`) and the web pages
(:mod:`chessrate.web`) both call, so that neither imports the other. It is the only
way a route or a page reaches the ledger.

One module per resource, mirroring the API's routes (:mod:`chessrate.service.routes`),
each with its request and answer shapes (pydantic) beside the services that turn
requests into records, records into ledger calls and the ledger's views into those
shapes: :mod:`.players`, :mod:`.games`, :mod:`.preview`, :mod:`.leaderboards`,
:mod:`.annulments`, :mod:`.periods` (fide rating periods), :mod:`.live` (live games),
:mod:`.seeks`, :mod:`.reviews` (reports, the review queue, the audit log) and
:mod:`.health`. :mod:`.common` holds what several of them share (the request base
models, a page's place in its list, the public change and rating).

The shapes name the domain's values by the domain's enums (``Result``, ``Outcome``,
``LiveStatus``, …); a service validates input through the records' own validation and
raises the domain's exceptions, mapped to HTTP in one place
(:mod:`chessrate.service.errors`). Beside them: :mod:`.deps` (the FastAPI dependencies:
the ledger, the clock, the caller's token), :mod:`.settings` (the ``CHESSRATE_*``
environment variables), :mod:`.group` (the group committer of game submissions),
:mod:`.limits` (failed authentications per address) and :mod:`.sessions` (the
moderators' web sessions).

It sits above the ledger and below the front ends; :mod:`chessrate.server` builds the
app and mounts both front ends on it (docs/internals.md, "Layers").
"""
