# The two commands: `make demo` (main job) and `make test`. Both set up .venv themselves.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test install bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt torch==2.13.0
	$(BIN)/pip install -q -c constraints.txt -e '.[all]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 tests

demo: $(STAMP)
	$(BIN)/python -m cavallo_env.cli demo

bench: $(STAMP)
	$(BIN)/python benchmarks/env_speed.py

clean:
	rm -rf $(VENV) runs .pytest_cache
