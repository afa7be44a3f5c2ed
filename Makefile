# gspa — build the book, run the tests, rerun a chapter.
#   make book                            execute stale chapters (paper profile) and build _build/html
#   make test                            lint and format check (ruff; the chapters' MyST sources by
#                                        tests/book/test_notebook_lint.py) + unit tests + smoke run of every
#                                        notebook + book build + browser check, on both cores
#   make check                           the inner loop: lint + the tests that start no process (minutes)
#   make rerun NB=fdp ARGS="-p mu 2.0"   re-execute one chapter with new parameters, then rebuild the book from
#                                        the other chapters' existing results (OTHERS=smoke: execute those that
#                                        have none with the smoke profile; without it rerun refuses)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready

.PHONY: book test check rerun clean env browser

env: $(READY)

$(READY): requirements.txt constraints.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

book: $(READY)
	$(BIN)/python -m gspa.book.pipeline build --profile paper

# NB, ARGS and OTHERS are user text: never expanded by make nor evaluated by the shell. make would
# expand them (running any $(shell ...) in them) wherever they are referenced or exported, so they are
# unexported and handed over, unexpanded ($(value ...)), in environment variables that Python reads;
# it splits ARGS with shlex, evaluating nothing.
unexport NB ARGS OTHERS
rerun: export GSPA_NB := $(value NB)
rerun: export GSPA_ARGS := $(value ARGS)
rerun: export GSPA_OTHERS := $(value OTHERS)
rerun: $(READY)
	$(BIN)/python -m gspa.book.pipeline make-rerun

# Headless Chromium and its driver for the browser check of the built book (Debian packages).
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

test: $(READY) browser
	$(BIN)/ruff check --no-cache
	$(BIN)/ruff format --no-cache --check
	$(BIN)/python -m pytest

# The inner loop (a few minutes): lint, and the tests that start no kernel, pipeline or command, train
# nothing and plant no mutant (tests/conftest.py's SLOW_FILES), without the smoke book.
check: $(READY)
	$(BIN)/ruff check --no-cache
	$(BIN)/ruff format --no-cache --check
	$(BIN)/python -m pytest -m "not slow and not book and not browser"

clean:
	rm -rf _build book/chapters book/_results book/ledger.md book/ledger-*.md
