"""The web pages: leaderboards, player pages with rating charts, explained games,
annulments, search, live games and the FIDE periods. Server-rendered HTML (Jinja2)
that works without JavaScript; the numbers come from the same services as the API's
(:mod:`chessrate.application`). This package never imports
:mod:`chessrate.service`; :mod:`chessrate.server` mounts both."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from .errors import error_page, is_page
from .moderation import router as moderation_router
from .pages import router, templates

HERE = Path(__file__).parent
SWAGGER = "/static/swagger"
"""Where the vendored Swagger UI is served (see static/swagger/README.md)."""


SITE_HEADER = """<a class="skip" href="#swagger-ui">Skip to the content</a>
<header class="site-bar">
  <a class="brand" href="/">chessrate</a>
  <h1>The API's documentation</h1>
  <nav aria-label="Site"><a href="/">Leaderboards</a> <a href="/how">How ratings work</a></nav>
</header>
"""
"""What /docs shows above the Swagger UI: a skip link, the way back to the site and a
heading (the UI draws its own ``<main>``)."""


def with_site_header(html: str) -> str:
    """The Swagger UI page (FastAPI's) with the site's header, the page's language and the
    stylesheet ``static/docs.css``; each anchor must be found (else a newer FastAPI
    changed its page: fail loudly rather than serve a page without the header)."""
    edits = [
        ("<html>", '<html lang="en">'),
        ("</head>", '<link rel="stylesheet" href="/static/docs.css">\n</head>'),
        ('<div id="swagger-ui">', SITE_HEADER + '<div id="swagger-ui">'),
    ]
    for old, new in edits:
        if old not in html:
            raise RuntimeError(f"the Swagger UI page has no {old!r}: update with_site_header")
        html = html.replace(old, new, 1)
    return html


def mount_web(app: FastAPI) -> None:
    """Serve the pages at ``/``, their static files at ``/static``, and the API's
    documentation at ``/docs`` with the vendored Swagger UI (``static/swagger``: it
    works offline)."""
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(moderation_router)
    app.include_router(router)
    openapi_url = app.openapi_url or "/openapi.json"

    async def docs() -> HTMLResponse:
        swagger = get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} · API",
            swagger_js_url=f"{SWAGGER}/swagger-ui-bundle.js",
            swagger_css_url=f"{SWAGGER}/swagger-ui.css",
            swagger_favicon_url=f"{SWAGGER}/favicon-32x32.png",
            oauth2_redirect_url="/docs/oauth2-redirect",
        )
        return HTMLResponse(with_site_header(bytes(swagger.body).decode()))

    async def favicon() -> FileResponse:
        return FileResponse(HERE / "static" / "favicon.svg", media_type="image/svg+xml")

    async def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    app.add_api_route("/docs", docs, include_in_schema=False)
    app.add_api_route("/docs/oauth2-redirect", oauth2_redirect, include_in_schema=False)
    app.add_api_route("/favicon.ico", favicon, include_in_schema=False)
    # the service's error handlers answer a page route with this page (HTML)
    app.state.error_page = lambda request, status, message, details=(): (
        error_page(templates, request, status, message, details) if is_page(request) else None
    )


__all__ = ["mount_web"]
