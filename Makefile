# `make book` and `make test` do all set-up themselves: they create .venv and install into it.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
BOOK_DEPS := $(VENV)/.book-deps
TEST_DEPS := $(VENV)/.test-deps
LIB_STAMP := _build/.rope_lib-stamp
# The Chinese edition (book/zh/, its own _config.yml and _toc.yml) builds into _build/zh/_build/ and its site is copied
# into the English site's zh/, so one site serves both and each page links the other's.
ZH_SOURCE := book/zh
ZH_BUILD  := _build/zh
PORT ?= 8000
# reveal.js for the slide decks, from npm, pinned: the 4.x series that nbconvert 7.17's reveal template is written for.
REVEAL_VERSION := 4.6.0
REVEAL_STAMP := $(VENV)/reveal.js/.reveal-$(REVEAL_VERSION)

.PHONY: help html book slides test test-fast serve bench gpu-check experiments pdf clean

# `make` alone lists the targets: the lines below that start with `##`.
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## book         the whole book: both editions' PDFs, then the website of both into _build/html (Debian, root or sudo)
## html         the website of both editions into _build/html with Python and npm alone: no apt, no TeX, no root
## test         all the tests: set-up as `make book`, plus Chromium, then pytest (Debian, root or sudo)
## test-fast    the library and teaching-helper tests: no book build, no browser, no apt (a few minutes)
## serve        serve the built site on http://localhost:8000/ (PORT=... for another port)
## pdf          both editions' PDFs, _build/latex/ and _build/zh/_build/latex/ (Debian, root or sudo)
## slides       the slide decks: the book build writes them (same as `make book`)
## bench        time RoPE and decoding; writes book/data/bench_<device>.json
## gpu-check    on a CUDA machine: the gpu tests, then RoPE and decoding timed there; writes book/data/bench_cuda.json (DEVICE=cpu: its dry run)
## experiments  train the small position-encoding models; writes book/data/experiments.json
## clean        remove _build (the site, the PDFs and the execution cache)
## help         this list

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BOOK_DEPS): requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -r requirements.txt
	touch $@

# cffconvert, which validates CITATION.cff in the tests, declares jsonschema<4, though it runs with jsonschema 4, which
# jupyterlab needs: it is installed after the test extra (which holds its other dependencies), without its own list.
CFFCONVERT := cffconvert==2.0.0

$(TEST_DEPS): $(BOOK_DEPS)
	$(BIN)/python -m pip install -e '.[book,test]'
	$(BIN)/python -m pip install --no-deps $(CFFCONVERT)
	touch $@

# jupyter-cache keys outputs by the cells' code alone, and Sphinx re-reads only the pages whose source changed: a
# change to rope_lib, or to the data the chapters read (book/data), must re-run every page, so both caches go.
$(LIB_STAMP): $(shell find rope_lib -name '*.py') $(wildcard book/data/*)
	rm -rf _build/.jupyter_cache _build/.doctrees $(ZH_BUILD)/_build/.jupyter_cache $(ZH_BUILD)/_build/.doctrees
	mkdir -p _build && touch $@

$(REVEAL_STAMP): | $(BIN)/python
	npm install --prefix $(VENV)/reveal.js --no-audit --no-fund --no-save reveal.js@$(REVEAL_VERSION)
	touch $@

# The website of both editions, with one reveal.js deck per tagged chapter in _build/html/_static/slides/: the book
# build writes them itself (the `slides` extension, book/_ext/slides.py), so decks and pages never disagree. The
# English edition first, then the Chinese one into _build/zh, copied into _build/html/zh/. A PDF that `make pdf` built
# is offered for download (book/_ext/book_pdf.py copies it in); without one the site has no PDF link.
html: $(BOOK_DEPS) $(LIB_STAMP) $(REVEAL_STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/jupyter-book build $(ZH_SOURCE) --path-output $(ZH_BUILD) -W -n --keep-going
	rm -rf _build/html/zh
	cp -r $(ZH_BUILD)/_build/html _build/html/zh

# The full build: the PDFs first, so that the site offers them; the HTML build reuses the cells the PDF build executed.
book: pdf
	$(MAKE) html

# The decks are made from the notebooks the book build executed: `make slides` is `make book`.
slides: book

test: $(TEST_DEPS) $(REVEAL_STAMP)
	bash scripts/install_chromium.sh
	bash scripts/install_tex.sh
	$(BIN)/python -m pytest -n 2 --dist loadscope --durations=30

# The tests of rope_lib and its teaching helpers (tests/, not tests/book_site/), but the slow ones: no book build, no
# browser, no apt. Two workers (pytest-xdist).
test-fast: $(TEST_DEPS)
	$(BIN)/python -m pytest -n 2 --ignore=tests/book_site -m "not slow and not gpu"

# RoPE implementations timed against a copy of the same bytes (benchmarks/rope_speed.py), then whole-model decoding against Hugging Face (benchmarks/decode_speed.py): prints the tables and
# writes book/data/bench_<device>.json. The peers it times (transformers, llama-models, …) are test extras.
bench: $(TEST_DEPS)
	$(BIN)/python -m benchmarks.rope_speed

# What a GPU is needed for, in one command (benchmarks/gpu_check.py): the gpu tests, then RoPE and whole-model decoding
# timed on CUDA, written to book/data/bench_cuda.json. DEVICE=cpu runs the same steps on the CPU at tiny sizes into
# _build/gpu-check/ (`make test` runs that dry run too). On CUDA it also installs requirements-gpu.txt.
DEVICE ?= cuda
gpu-check: $(TEST_DEPS)
	$(if $(filter cuda,$(DEVICE)),$(BIN)/python -m pip install -r requirements-gpu.txt)
	$(BIN)/python -m benchmarks.gpu_check --device $(DEVICE)

# Five position encodings trained on two tasks that need position and asked at 1×, 2× and 4× the trained length
# (benchmarks/position_encodings.py): writes book/data/experiments.json, which chapter "RoPE in a trained model" reads.
experiments: $(BOOK_DEPS)
	$(BIN)/python -m benchmarks.position_encodings

# The whole book as one PDF, _build/latex/rope-from-first-principles.pdf, with Sphinx's LaTeX writer and XeLaTeX,
# from the notebooks of the execution cache; the TeX packages and the Chinese font come from Debian
# (scripts/install_tex.sh). The Chinese edition's is _build/zh/_build/latex/…-zh.pdf.
pdf: $(BOOK_DEPS) $(LIB_STAMP)
	bash scripts/install_tex.sh
	$(BIN)/jupyter-book build . -W -n --keep-going --builder pdflatex
	$(BIN)/jupyter-book build $(ZH_SOURCE) --path-output $(ZH_BUILD) -W -n --keep-going --builder pdflatex

serve:
	@test -d _build/html || { echo "no site yet: run 'make book' first"; exit 1; }
	@echo "serving _build/html at http://localhost:$(PORT)/"
	$(PYTHON) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

clean:
	rm -rf _build
