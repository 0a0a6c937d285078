"""The evidence explorer (docs/explorer.md): a page at `/explore` and the files it loads, built
from `explorer/` by Vite (`make setup` runs `npm ci` and `npm run build` from the committed lock)
and served by this service: no CDN, so it works offline.

Only the built page and the files Vite wrote under `explorer/dist/assets/` are served, each by
its exact name; nothing else under `explorer/` is reachable. Like GraphiQL's, the page and its
files carry no data and need no credentials; every GraphQL operation the page sends does, with
the token the user enters. The loopback and Host guards of `api/app.py` cover these routes as
they cover `/graphql`. The page runs under a Content-Security-Policy that allows this origin
only: no inline script or style, no other host, no `data:` anything.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response

from api.settings import SettingsError

EXPLORER_DIR = Path(__file__).resolve().parents[1] / "explorer"
DIST_DIR = EXPLORER_DIR / "dist"
PAGE_PATH = "/explore"
ASSETS_PATH = "/explore/assets"

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "font-src 'self'",
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
# The built files' names carry their content's hash, so a new build is a new name.
ASSET_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "public, max-age=31536000, immutable",
}


def missing_build(dist_dir: Path = DIST_DIR) -> str | None:
    """What is missing for the page to be served, or None when the build is there."""
    if not (dist_dir / "index.html").is_file():
        return str(dist_dir / "index.html")
    if not any((dist_dir / "assets").glob("*.js")):
        return str(dist_dir / "assets")
    return None


def check_built(dist_dir: Path = DIST_DIR) -> None:
    """Stop start-up with the fix when the explorer is enabled but not built."""
    missing = missing_build(dist_dir)
    if missing is not None:
        raise SettingsError(
            f"EXPLORER_ENABLED is on, but the explorer is not built (missing: {missing}). "
            "Run `make setup` (it builds explorer/ from its lock), or set EXPLORER_ENABLED=false."
        )


class Explorer:
    """The page and its assets, as built when the service started."""

    def __init__(self, dist_dir: Path = DIST_DIR) -> None:
        self.page = (dist_dir / "index.html").read_text(encoding="utf-8")
        assets = dist_dir / "assets"
        self.assets = {path.name: path for path in assets.iterdir() if path.is_file()}

    async def page_endpoint(self, request: Request) -> Response:
        return HTMLResponse(self.page, headers=PAGE_HEADERS)

    async def asset_endpoint(self, request: Request) -> Response:
        """`GET /explore/assets/{name}`: a file the build wrote, by its exact name, else 404."""
        path = self.assets.get(request.path_params["name"])
        if path is None:
            return PlainTextResponse("Not Found", status_code=404)
        return FileResponse(path, headers=ASSET_HEADERS)
