# Two commands on a fresh clone: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo demo-research test lint typecheck unit bench crash-test compat-report clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# OTEL=1: also print OpenTelemetry spans (GRAPHENGINE_OTEL=console) of the research demo.
demo: $(STAMP)
	$(if $(OTEL),GRAPHENGINE_OTEL=console )$(BIN)/python -m examples.release
	$(if $(OTEL),GRAPHENGINE_OTEL=console $(BIN)/python -m examples.research)

demo-research: $(STAMP)
	$(BIN)/python -m examples.research

unit: $(STAMP)
	$(BIN)/python -m pytest -q

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/mypy --strict tests/typing

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src
	$(BIN)/lint-imports

test: unit typecheck lint

bench: $(STAMP)
	$(BIN)/python -m bench engine
	$(BIN)/python -m bench planner

# LangGOAP 0.1.2's own suite (downloaded into ~/.cache/graphengine, never into the repo) against goap.compat
compat-report: $(STAMP)
	$(BIN)/python -m tests.compat.report --by-file

crash-test: $(STAMP)
	CRASH_RUNS=300 $(BIN)/python -m pytest -q tests/engine/test_crash_sigkill.py

clean:
	rm -rf $(VENV) .venv-3.* .pytest_cache .mypy_cache .ruff_cache
