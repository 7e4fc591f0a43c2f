"""The moderators' pages: sign in with a moderator token, the review queue, a case with
its Confirm / Dismiss / Reopen forms, sign out.

Signing in sets a signed session cookie (:mod:`chessrate.application.sessions`:
HttpOnly, SameSite=Strict, path ``/moderation``, Secure over HTTPS) naming the token;
every request checks the cookie's signature and expiry and asks the ledger that the
token is still a valid moderator's (a revoked or expired token ends the session at
once). Without a session a page redirects to the sign-in form and a POST answers 403.
Every form carries the session's CSRF token; a POST without the right one answers a
403 page. Failed sign-ins count against the client's address with failed API tokens
(429 after too many). Forms are read without python-multipart (URL-encoded bodies, bounded)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, cast
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from ..application import marks, reviews
from ..application.deps import LedgerDep
from ..application.limits import FailedAuth, client_address
from ..application.sessions import COOKIE, Session, Sessions
from ..ledger import Ledger
from ..ledger.reviews import ReviewStatus
from ..ledger.tokens import TokenView
from .errors import error_page
from .pages import _page, templates

router = APIRouter(prefix="/moderation", include_in_schema=False)
SIGN_IN = "/moderation/sign-in"
MAX_FORM = 16_384
QUEUE_PAGE = 50


async def form_fields(request: Request) -> dict[str, str]:
    """A POSTed URL-encoded form's fields (first value of each; at most MAX_FORM bytes)."""
    body = await request.body()
    if len(body) > MAX_FORM:
        return {}
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {key: values[0] for key, values in parsed.items()}


Form = Annotated[dict[str, str], Depends(form_fields)]


def _now(request: Request) -> datetime:
    return cast(datetime, request.app.state.clock())


def _sessions(request: Request) -> Sessions:
    return cast(Sessions, request.app.state.sessions)


def _signed_in(request: Request, ledger: Ledger) -> tuple[Session, TokenView] | None:
    """The request's session and its moderator token, while both are valid."""
    now = _now(request)
    session = _sessions(request).read(request.cookies.get(COOKIE), now)
    if session is None:
        return None
    token = reviews.valid_moderator(ledger, session.token_id, session.fingerprint, now)
    return None if token is None else (session, token)


def _forbidden(request: Request, message: str) -> Response:
    return error_page(templates, request, 403, message)


def _checked(
    request: Request, ledger: Ledger, form: dict[str, str]
) -> tuple[Session, TokenView] | Response:
    """A POST's session and token, or the 403 page: no valid session, or a CSRF token
    that is missing or wrong."""
    found = _signed_in(request, ledger)
    if found is None:
        return _forbidden(request, "You are not signed in as a moderator (or your token is "
                                   "no longer valid). Sign in again.")  # fmt: skip
    if not _sessions(request).csrf_ok(found[0], form.get("csrf")):
        return _forbidden(request, "The form's security token is missing or wrong. Reload "
                                   "the page and try again.")  # fmt: skip
    return found


def _moderator_page(
    request: Request, ledger: Ledger, name: str, found: tuple[Session, TokenView],
    people: Any = (), status: int = 200, **context: Any,
) -> HTMLResponse:  # fmt: skip
    session, token = found
    people = set(people)
    marked = marks.marked_since(ledger, people)

    def badge(player_id: str) -> Markup:
        """A small "marked" badge after a marked player's name (else nothing)."""
        since = marked.get(player_id)
        if since is None:
            return Markup("")
        title = f"marked for confirmed cheating since {since:%Y-%m-%d %H:%M} UTC"
        return Markup(' <small class="badge marked" title="{}">marked</small>').format(title)

    return _page(
        request, ledger, name, status=status, people=people,
        csrf=_sessions(request).csrf(session), moderator=token.label or f"token {token.id}",
        badge=badge, **context,
    )  # fmt: skip


@router.get("/sign-in", response_class=HTMLResponse, response_model=None)
def sign_in_form(request: Request, ledger: LedgerDep) -> Response:
    if _signed_in(request, ledger) is not None:
        return RedirectResponse("/moderation", status_code=303)
    return _page(request, ledger, "moderation_sign_in.html", problem=None)


@router.post("/sign-in", response_class=HTMLResponse, response_model=None)
def sign_in(request: Request, ledger: LedgerDep, form: Form) -> Response:
    """A moderator's token (pasted) → a session cookie. Any other token: 401, the form
    again, and a failure counted against the client's address; after too many (as for
    API tokens, :mod:`chessrate.application.limits`): 429 with ``Retry-After``, the
    token not looked at. (No CSRF token here: there is no session yet, and only the
    token's holder can sign in with it.)"""
    now = _now(request)
    failures = cast(FailedAuth, request.app.state.auth_failures)
    address = client_address(request)
    wait = failures.retry_after(address)
    if wait is not None:  # the token is not looked at
        problem = f"Too many failed sign-ins from your address. Try again in {wait} seconds."
        page = _page(request, ledger, "moderation_sign_in.html", status=429, problem=problem)
        page.headers["Retry-After"] = str(wait)
        return page
    given = form.get("token", "").strip()
    token = ledger.tokens.find(given) if given else None
    if token is None or token.role != "moderator" or not token.valid(now):
        failures.failed(address)
        problem = "That is not a valid moderator token (unknown, revoked, expired or a writer's)."
        return _page(request, ledger, "moderation_sign_in.html", status=401, problem=problem)
    value, seconds = _sessions(request).issue(token.id, token.fingerprint, now, token.expires_at)
    response = RedirectResponse("/moderation", status_code=303)
    response.set_cookie(
        COOKIE, value, max_age=seconds, path="/moderation", httponly=True, samesite="strict",
        secure=request.url.scheme == "https",
    )  # fmt: skip
    return response


@router.post("/sign-out", response_model=None)
def sign_out(request: Request, ledger: LedgerDep, form: Form) -> Response:
    checked = _checked(request, ledger, form)
    if isinstance(checked, Response):
        return checked
    response = RedirectResponse(SIGN_IN, status_code=303)
    response.delete_cookie(COOKIE, path="/moderation", httponly=True, samesite="strict")
    return response


@router.get("", response_class=HTMLResponse, response_model=None)
def queue(
    request: Request,
    ledger: LedgerDep,
    status: reviews.Status = Query(ReviewStatus.OPEN),  # noqa: B008
    page: int = Query(1, ge=1, le=1_000_000),
) -> Response:
    """The review queue: most reported first, then the oldest report first."""
    found = _signed_in(request, ledger)
    if found is None:
        return RedirectResponse(SIGN_IN, status_code=303)
    cases = reviews.reviews(ledger, status, (page - 1) * QUEUE_PAGE, QUEUE_PAGE)
    people = {p for r in cases.reviews for p in (r.game.white, r.game.black)}
    pages = max(1, -(-cases.total // QUEUE_PAGE))
    return _moderator_page(
        request, ledger, "moderation_queue.html", found, people=people, cases=cases,
        status=200, shown_status=status, page=page, pages=pages,
    )  # fmt: skip


@router.get("/{game_id:path}", response_class=HTMLResponse, response_model=None)
def case(request: Request, ledger: LedgerDep, game_id: str) -> Response:
    found = _signed_in(request, ledger)
    if found is None:
        return RedirectResponse(SIGN_IN, status_code=303)
    review = reviews.review(ledger, game_id)
    log = reviews.audit_log(ledger, 0, 50, game_id)
    people = {review.game.white, review.game.black, *(r.by for r in review.reports)}
    people |= {c.player for c in review.game.changes}
    return _moderator_page(
        request, ledger, "moderation_case.html", found, people=people, review=review,
        log=log, evidence=lambda e: json.dumps(e, indent=2, sort_keys=True),
        action_url=f"/moderation/{quote(game_id, safe='')}",
    )  # fmt: skip


@router.post("/{game_id:path}", response_model=None)
def decide(request: Request, ledger: LedgerDep, game_id: str, form: Form) -> Response:
    """A decision from the case page's forms (``action``: confirm, dismiss, reopen;
    ``why``: the reason or note)."""
    checked = _checked(request, ledger, form)
    if isinstance(checked, Response):
        return checked
    _, token = checked
    by, why, now = token.label or f"token {token.id}", form.get("why", ""), _now(request)
    action = form.get("action")
    if action == "confirm":
        reviews.confirm(ledger, game_id, why, by, now)
    elif action == "dismiss":
        reviews.dismiss(ledger, game_id, why, by, now)
    elif action == "reopen":
        reviews.reopen(ledger, game_id, why, by, now)
    else:
        return error_page(templates, request, 422, "Unknown action.", [repr(action)])
    return RedirectResponse(f"/moderation/{quote(game_id, safe='')}", status_code=303)
