# The two commands: `make demo` (main job) and `make test`. Both set up .venv themselves.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test install bench clean browser

# Debian's Chromium for the browser tests (Playwright's own download is not used);
# installed with apt-get when missing and run as root, as on CI
CHROMIUM ?= /usr/bin/chromium

# the compiled core's sources (not the C file Cython generates from the .pyx): an edit rebuilds it
CORE_SRC := setup.py $(wildcard cavallo_env/core/*.pyx cavallo_env/core/*.pxi cavallo_env/core/*.h cavallo_env/core/[!_]*.c)

$(STAMP): pyproject.toml constraints.txt $(CORE_SRC)
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt torch==2.13.0
	$(BIN)/pip install -q -c constraints.txt -e '.[all]'
	touch $(STAMP)

install: $(STAMP)

browser:
	@test -x $(CHROMIUM) || [ "$$(id -u)" != 0 ] || \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium) >/dev/null
	@test -x $(CHROMIUM) || { echo "no Chromium at $(CHROMIUM): run 'sudo apt-get install chromium' (the browser tests need it)"; exit 1; }

test: $(STAMP) browser
	CAVALLO_CHROMIUM=$(CHROMIUM) CAVALLO_REQUIRE_BROWSER=1 CAVALLO_REQUIRE_CORE=1 $(BIN)/python -m pytest -n 2 tests

demo: $(STAMP)
	$(BIN)/python -m cavallo_env.cli demo

bench: $(STAMP)
	$(BIN)/python benchmarks/env_speed.py

clean:
	rm -rf $(VENV) runs .pytest_cache
