"""Federation endpoint safety: `_service` and `_entities` for the gateway only.

A subgraph should be reachable by its gateway alone (Apollo's guidance); where the network
cannot promise that, `FEDERATION_GATEWAY_TOKEN` can. When it is set:

- `_service` and `_entities` answer only requests whose `X-Gateway-Token` header carries the
  token (compared as SHA-256 digests with `hmac.compare_digest`: constant time, whatever the
  length of what was sent); any other caller gets FORBIDDEN for those two fields. Every other
  field is unaffected.
- The gateway still forwards the end user's `Authorization`, so `_entities` applies that
  user's scope (contract §8).
- A request with the gateway token and no `Authorization` at all (the gateway composing the
  supergraph from `_service { sdl }`) is the gateway itself: it is granted no workspace, so it
  can read the schema and nothing else. An `Authorization` that does not verify is still
  UNAUTHENTICATED.

The two fields stay visible to introspection: the schema is published anyway
(`schema.graphql`), and hiding fields per caller would take a second schema.
"""

from __future__ import annotations

import hashlib
import hmac

from api.settings import Settings

GATEWAY_TOKEN_HEADER = "x-gateway-token"  # noqa: S105  (a header's name, not a secret)


def _digest(value: str) -> bytes:
    # surrogatepass: any str hashes (a header Starlette decoded as latin-1 never holds one).
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()


class GatewayToken:
    def __init__(self, token: str) -> None:
        self._digest = _digest(token)

    def __repr__(self) -> str:  # never the token
        return "GatewayToken('**********')"

    @classmethod
    def from_settings(cls, settings: Settings) -> GatewayToken | None:
        token = settings.federation_gateway_token
        if token is None:
            return None
        return cls(str(token))

    def matches(self, presented: str | None) -> bool:
        return presented is not None and hmac.compare_digest(self._digest, _digest(presented))
