# `make book` and `make test` do all set-up themselves: they create .venv and install into it.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
BOOK_DEPS := $(VENV)/.book-deps
TEST_DEPS := $(VENV)/.test-deps
LIB_STAMP := _build/.rope_lib-stamp
PORT ?= 8000

.PHONY: book test serve clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BOOK_DEPS): requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -r requirements.txt
	touch $@

$(TEST_DEPS): $(BOOK_DEPS)
	$(BIN)/python -m pip install -e '.[test]'
	touch $@

# jupyter-cache keys outputs by the cells' code alone; a change to rope_lib must re-run them too.
$(LIB_STAMP): $(wildcard rope_lib/*.py)
	rm -rf _build/.jupyter_cache
	mkdir -p _build && touch $@

book: $(BOOK_DEPS) $(LIB_STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going

test: $(TEST_DEPS)
	bash tests/install_chromium.sh
	$(BIN)/python -m pytest

serve:
	@test -d _build/html || { echo "no site yet: run 'make book' first"; exit 1; }
	@echo "serving _build/html at http://localhost:$(PORT)/"
	$(PYTHON) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

clean:
	rm -rf _build
