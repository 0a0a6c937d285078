"""The GraphiQL page (contract §11: a browser asking for HTML gets GraphiQL, served from the
repository's own files) and the few files it loads, all served by this service: no CDN, so
it works offline.

The files come from the exact npm packages `web/package.json` pins (installed by `make setup`,
`npm ci --prefix web`) plus the page's own start script and style sheet in `web/`. Only the
files named in `ASSETS` are served; nothing else under `web/` is reachable.

The page and its files carry no data and need no credentials (contract §8); every GraphQL
operation the page sends does, with the headers the user sets in GraphiQL's Headers editor.
The page runs under a Content-Security-Policy that allows this origin only: no inline script
or style, no other host. GraphiQL's style sheet embeds its fonts and icons as `data:` URLs,
hence `data:` for fonts and images.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response

from api.settings import SettingsError

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
PAGE = WEB_DIR / "graphiql.html"
ASSETS_PATH = "/graphiql/assets"

# Served name → file under web/. The page refers to these names only.
ASSETS = {
    "react.production.min.js": "node_modules/react/umd/react.production.min.js",
    "react-dom.production.min.js": "node_modules/react-dom/umd/react-dom.production.min.js",
    "graphiql.min.js": "node_modules/graphiql/graphiql.min.js",
    "graphiql.min.css": "node_modules/graphiql/graphiql.min.css",
    "plugin-explorer.umd.js": "node_modules/@graphiql/plugin-explorer/dist/index.umd.js",
    "plugin-explorer.css": "node_modules/@graphiql/plugin-explorer/dist/style.css",
    "graphiql-start.js": "graphiql-start.js",
    "graphiql-page.css": "graphiql-page.css",
}

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
ASSET_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=3600"}


def missing_assets(web_dir: Path = WEB_DIR) -> list[str]:
    """The files the page needs that are not installed (empty when it can be served)."""
    files = [PAGE, *(web_dir / relative for relative in ASSETS.values())]
    return [str(path) for path in files if not path.is_file()]


def check_installed() -> None:
    """Stop start-up with the fix when GraphiQL is enabled but its files are not installed."""
    missing = missing_assets()
    if missing:
        raise SettingsError(
            "GRAPHIQL_ENABLED is on, but GraphiQL's files are not installed "
            f"(missing: {', '.join(missing[:3])}). Run `make setup` (it runs "
            "`npm ci --prefix web`), or set GRAPHIQL_ENABLED=false."
        )


def graphiql_page() -> HTMLResponse:
    return HTMLResponse(PAGE.read_text(encoding="utf-8"), headers=PAGE_HEADERS)


async def graphiql_asset(request: Request) -> Response:
    """`GET /graphiql/assets/{name}`: one of the files in `ASSETS`, else 404."""
    relative = ASSETS.get(request.path_params["name"])
    if relative is None:
        return PlainTextResponse("Not Found", status_code=404)
    return FileResponse(WEB_DIR / relative, headers=ASSET_HEADERS)
