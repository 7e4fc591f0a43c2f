"""The moderators' pages: sign in with a moderator token, the review queue, a case with
its evidence (the accused, the moves with the suspicious ones marked on a board, the
accused's record, every report) and its Confirm / Dismiss / Reopen forms, sign out.

Signing in stores a session in the ledger and sets a cookie holding its random id
(:mod:`chessrate.application.sessions`: HttpOnly, SameSite=Strict, path
``/moderation``, Secure over HTTPS); every request looks the session up, so signing
out (which deletes it) ends it everywhere, and a revoked or expired token ends it at
once. Without a session a page redirects to the sign-in form and a POST answers 403.
Confirming takes two steps: the case's Confirm button shows what confirming will do
(the game annulled, whose ratings change) and only that page's button confirms. A
moderator who reported the game cannot confirm it (403; the case page says so).
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
from ..application import players as app_players
from ..application.deps import LedgerDep
from ..application.limits import FailedAuth, client_address
from ..application.sessions import COOKIE, Session, Sessions
from ..ledger import Ledger
from ..ledger.reviews import ReviewStatus, reason_problem
from .cases import case_view
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


def _signed_in(request: Request, ledger: Ledger) -> Session | None:
    """The request's session (stored, not expired, its moderator token valid)."""
    return _sessions(request).read(ledger, request.cookies.get(COOKIE), _now(request))


def _forbidden(request: Request, message: str) -> Response:
    return error_page(templates, request, 403, message)


def _checked(request: Request, ledger: Ledger, form: dict[str, str]) -> Session | Response:
    """A POST's session and token, or the 403 page: no valid session, or a CSRF token
    that is missing or wrong."""
    found = _signed_in(request, ledger)
    if found is None:
        return _forbidden(request, "You are not signed in as a moderator (or your token is "
                                   "no longer valid). Sign in again.")  # fmt: skip
    if not _sessions(request).csrf_ok(found, form.get("csrf")):
        return _forbidden(request, "The form's security token is missing or wrong. Reload "
                                   "the page and try again.")  # fmt: skip
    return found


def _moderator_page(
    request: Request, ledger: Ledger, name: str, session: Session,
    people: Any = (), status: int = 200, **context: Any,
) -> HTMLResponse:  # fmt: skip
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
        csrf=_sessions(request).csrf(session), moderator=session.moderator,
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
    value, seconds = _sessions(request).issue(ledger, token, now)
    response = RedirectResponse("/moderation", status_code=303)
    response.set_cookie(
        COOKIE, value, max_age=seconds, path="/moderation", httponly=True, samesite="strict",
        secure=request.url.scheme == "https",
    )  # fmt: skip
    return response


@router.post("/sign-out", response_model=None)
def sign_out(request: Request, ledger: LedgerDep, form: Form) -> Response:
    """Sign out: the session is deleted from the ledger (a copy of the cookie no longer
    works anywhere) and the cookie cleared."""
    checked = _checked(request, ledger, form)
    if isinstance(checked, Response):
        return checked
    _sessions(request).end(ledger, checked, _now(request))
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
    people |= {x.accused for r in cases.reviews for x in r.reports if x.accused}
    people |= {r.reports[-1].by for r in cases.reviews if r.reports}  # the latest reason's
    pages = max(1, -(-cases.total // QUEUE_PAGE))
    return _moderator_page(
        request, ledger, "moderation_queue.html", found, people=people, cases=cases,
        status=200, shown_status=status, page=page, pages=pages,
    )  # fmt: skip


@router.get("/{game_id:path}", response_class=HTMLResponse, response_model=None)
def case(
    request: Request,
    ledger: LedgerDep,
    game_id: str,
    ply: int | None = Query(None, ge=1, le=100_000),
) -> Response:
    """A case: the game, the accused, the moves with the suspicious ones marked and the
    position before ``ply`` (default: the first suspicious move) drawn, the accused's
    recent analysed games, every report, the decision forms and the audit rows."""
    found = _signed_in(request, ledger)
    if found is None:
        return RedirectResponse(SIGN_IN, status_code=303)
    review = reviews.review(ledger, game_id)
    log = reviews.audit_log(ledger, 0, 50, game_id)
    view = case_view(ledger, review, ply)
    people = {review.game.white, review.game.black, *(r.by for r in review.reports)}
    people |= {c.player for c in review.game.changes} | set(view["accused"])
    url = f"/moderation/{quote(game_id, safe='')}"
    return _moderator_page(
        request, ledger, "moderation_case.html", found, people=people, review=review,
        log=log, evidence=lambda e: json.dumps(e, indent=2, sort_keys=True),
        action_url=url, duty=ledger.reviews.duty(game_id, found.moderator, found.token_id),
        ply_url=lambda n: f"{url}?ply={n}#board", **view,
    )  # fmt: skip


def _confirm_step(
    request: Request, ledger: Ledger, session: Session, game_id: str, why: str
) -> Response:
    """Confirming's first step: what confirming will do (the game annulled, each
    rating the game changed put back), with the button that confirms."""
    review = reviews.review(ledger, game_id)
    if review.status != ReviewStatus.OPEN:
        return error_page(templates, request, 409, f"game {game_id}: the case is "
                          f"{review.status.value}: only an open case can be confirmed")  # fmt: skip
    duty = ledger.reviews.duty(game_id, session.moderator, session.token_id)
    if duty is not None:
        return _forbidden(request, duty)
    problem = reason_problem(why)
    if problem is not None:
        return error_page(templates, request, 422, "The request is not valid.",
                          [f"game {game_id}: reason: {problem}"])  # fmt: skip
    players = {c.player for c in review.game.changes}
    now_rating = {
        (p, r.pool): r for p in players for r in app_players.get_player(ledger, p).ratings
    }
    return _moderator_page(
        request, ledger, "moderation_confirm.html", session,
        people=players | {review.game.white, review.game.black}, review=review, why=why,
        now_rating=now_rating, action_url=f"/moderation/{quote(game_id, safe='')}",
    )  # fmt: skip


@router.post("/{game_id:path}", response_model=None)
def decide(request: Request, ledger: LedgerDep, game_id: str, form: Form) -> Response:
    """A decision from the case page's forms (``action``: confirm, dismiss, reopen;
    ``why``: the reason or note). ``confirm`` without ``step=final`` is the first step:
    the page saying what confirming will do; with it (that page's button), the case
    is confirmed."""
    checked = _checked(request, ledger, form)
    if isinstance(checked, Response):
        return checked
    by, why, now = checked.moderator, form.get("why", ""), _now(request)
    action = form.get("action")
    if action == "confirm" and form.get("step") != "final":
        return _confirm_step(request, ledger, checked, game_id, why)
    if action == "confirm":
        reviews.confirm(ledger, game_id, why, by, now, checked.token_id)
    elif action == "dismiss":
        reviews.dismiss(ledger, game_id, why, by, now)
    elif action == "reopen":
        reviews.reopen(ledger, game_id, why, by, now)
    else:
        return error_page(templates, request, 422, "Unknown action.", [repr(action)])
    return RedirectResponse(f"/moderation/{quote(game_id, safe='')}", status_code=303)
