#!/usr/bin/env bash
# The README's "Loading your own data", step by step, as a script you can run from a fresh
# clone after `make setup` (CI runs it: tests/test_own_data_recipe.py).
#
#   examples/own-data-recipe.sh                      # the demo's GraphRAG folder into "acme"
#   GRAPHRAG_FOLDER=path/to/output WORKSPACE=mine examples/own-data-recipe.sh
#
# It starts a local Neo4j unless NEO4J_URI names one, loads a GraphRAG output folder into
# WORKSPACE, lists its documents, writes an API key file granting WORKSPACE, serves the API
# with AUTH_MODE=apikeys on 127.0.0.1:PORT, queries it with curl and the key, shows that a wrong
# key is refused, and stops the service. The key file stays (KEYS_FILE) for your own `serve`.
set -euo pipefail

cd "$(dirname "$0")/.."
EVIDENCEGRAPH=${EVIDENCEGRAPH:-.venv/bin/evidencegraph}
PYTHON=${PYTHON:-.venv/bin/python}
GRAPHRAG_FOLDER=${GRAPHRAG_FOLDER:-data/graphrag-operation-dulce}
WORKSPACE=${WORKSPACE:-acme}
PORT=${PORT:-8000}
KEYS_FILE=${KEYS_FILE:-${XDG_CONFIG_HOME:-$HOME/.config}/evidencegraph/api-keys-$WORKSPACE.json}
QUERY=${QUERY:-alien communication}
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

step "1. Neo4j"
if [ -z "${NEO4J_URI:-}" ]; then
  NEO4J_URI=$("$EVIDENCEGRAPH" neo4j start)  # prints its Bolt URI
fi
export NEO4J_URI
echo "NEO4J_URI=$NEO4J_URI"

step "2. Load $GRAPHRAG_FOLDER into workspace $WORKSPACE"
"$EVIDENCEGRAPH" load --workspace "$WORKSPACE" "$GRAPHRAG_FOLDER" | tee "$work/load.txt"
# One line per document: `document <id> (new|new version|unchanged|restored) in <workspace>: <title>`
document_ids=$(awk '$1 == "document" {print $2}' "$work/load.txt")
[ -n "$document_ids" ] || { echo "the load printed no document id" >&2; exit 1; }
echo "document ids (for \`evidencegraph delete --document\`): $document_ids"

step "3. The documents of $WORKSPACE"
"$EVIDENCEGRAPH" documents --workspace "$WORKSPACE"

step "4. An API key for $WORKSPACE, in $KEYS_FILE (readable by you only; kept when it exists)"
mkdir -p "$(dirname "$KEYS_FILE")"
key=$(umask 077 && KEYS_FILE="$KEYS_FILE" WORKSPACE="$WORKSPACE" "$PYTHON" -c '
import json, os, pathlib, secrets
path, workspace = pathlib.Path(os.environ["KEYS_FILE"]), os.environ["WORKSPACE"]
keys = json.loads(path.read_text()) if path.exists() else {}
key = next((k for k, granted in keys.items() if granted == [workspace]), None)
if key is None:
    key = secrets.token_urlsafe(32)
    path.write_text(json.dumps({**keys, key: [workspace]}) + "\n")
path.chmod(0o600)
print(key)')
echo "the key is in $KEYS_FILE"

step "5. Serve with AUTH_MODE=apikeys on 127.0.0.1:$PORT"
AUTH_MODE=apikeys AUTH_API_KEYS_FILE="$KEYS_FILE" \
  "$EVIDENCEGRAPH" serve --port "$PORT" > "$work/serve.log" 2>&1 &
server=$!
url="http://127.0.0.1:$PORT"
deadline=$((SECONDS + ${READY_SECONDS:-120}))  # a busy machine takes a while to start it
while [ "$SECONDS" -lt "$deadline" ]; do
  if curl -fsS "$url/readyz" > /dev/null 2>&1; then break; fi
  if ! kill -0 "$server" 2>/dev/null; then cat "$work/serve.log" >&2; exit 1; fi
  sleep 0.1
done
curl -fsS "$url/readyz" > /dev/null || { cat "$work/serve.log" >&2; exit 1; }
echo "serving $url/graphql"

step "6. A query with the key"
body=$(QUERY="$QUERY" "$PYTHON" -c 'import json, os; print(json.dumps({"query":
  "query($q: String!) { searchEntities(query: $q, limit: 3, supportLimit: 1)"
  " { entity { name } status evidence { text document { id title workspace } } } }",
  "variables": {"q": os.environ["QUERY"]}}))')
curl -sS "$url/graphql" \
  -H "authorization: Bearer $key" \
  -H 'content-type: application/json' \
  -H 'accept: application/graphql-response+json' \
  --data "$body" | tee "$work/answer.json"
echo
"$PYTHON" - "$work/answer.json" "$WORKSPACE" <<'CHECK'
import json, sys
answer = json.load(open(sys.argv[1]))
hits = (answer.get("data") or {}).get("searchEntities")
assert "errors" not in answer and hits, f"no hits: {answer}"
workspaces = {e["document"]["workspace"] for hit in hits for e in hit["evidence"]}
assert workspaces <= {sys.argv[2]}, f"evidence from {workspaces}"
print(f"{len(hits)} hits, first {hits[0]['entity']['name']!r}, evidence from {sorted(workspaces)}")
CHECK

step "7. A wrong key is refused"
status=$(curl -sS -o "$work/refused.json" -w '%{http_code}' "$url/graphql" \
  -H 'authorization: Bearer not-the-key-not-the-key' \
  -H 'content-type: application/json' \
  -H 'accept: application/graphql-response+json' \
  --data '{"query": "{ entityLabels { label } }"}')
cat "$work/refused.json"
echo
[ "$status" = 401 ] || { echo "expected 401, got $status" >&2; exit 1; }
echo "status $status"

step "done; the service is stopped. To serve it again:"
echo "AUTH_MODE=apikeys AUTH_API_KEYS_FILE=$KEYS_FILE $EVIDENCEGRAPH serve"
