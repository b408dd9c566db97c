# Everything a contributor or a reader needs, with one virtual environment in
# .venv built from the pinned constraints.txt. Each target sets up on demand:
# make serve installs only what serving needs (the docs extra: no torch, no test
# tools); every other target installs everything (a stamp per level in .venv).
#   make serve   set up for serving if needed, then serve the site at http://127.0.0.1:8000
#   make test    set up if needed, then lint, type-check and run every test
#   make build   strict static build into site/ (it serves the wheel), wheel and sdist into dist/
#   make bench   measure speed, accuracy and memory; update benchmarks/results/
#   make trained train one decoder per position method, test each RoPE scaling rule (~30 min on 2 cores)
#   make archive build, then zip site/ into dist/pe-site.zip for reading offline
#   make timing  time a cold and a warm build, an edit under serve, one figure
#   make weight  build, then load every page in Chromium and print its weight
#   make screens build, then check every page at 4 widths x 2 schemes (axe, overflow)
#   make lighthouse  build, then run Lighthouse (mobile) on every page, served compressed
#   make blocking  build, then measure what the site's own scripts add to a phone's main thread
#   make readme  write the measured figures into README.md's Development section
#   make lock    re-resolve constraints.txt from pyproject.toml with uv (maintainers)
#   make katex   re-fetch the pinned KaTeX from npm into vendor/ and docs/assets/katex/ (maintainers)
#   make hooks   install the git pre-commit hooks of .pre-commit-config.yaml

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXTRAS := torch,docs,test,dev,conventions
# make serve: MkDocs and what the pages' blocks and figures run (numpy,
# matplotlib); torch and the libraries compared with are left out (see serve).
SERVE_STAMP := $(VENV)/.installed-serve
SERVE_EXTRAS := docs
# Installed without dependencies (see the conventions extra in pyproject.toml).
NO_DEPS := keras-hub timm

export NO_MKDOCS_2_WARNING := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: hooks setup setup-serve setup-serve-pip serve build test lint bench bench-cuda trained archive timing weight screens lighthouse blocking readme clean lock katex

setup: $(STAMP)
setup-serve: $(SERVE_STAMP)

# The virtual environment itself, with the build tools that the editable install needs.
# Its pip is installed by the pip of $(PYTHON) where that one can (pip 22.3 or newer:
# --python), else by ensurepip, which installs and compiles a pip only for it to be
# replaced (the environment with its pinned pip: 61 s that way, 20 s this way, on
# two cores at load average 10).
define VENV_BOOTSTRAP
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "pe needs Python 3.10 or newer; found " + sys.version.split()[0])'
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	$(BIN)/python -m pip --version >/dev/null 2>&1 || $(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile -c constraints.txt pip || $(BIN)/python -m ensurepip --default-pip
	$(BIN)/python -m pip install --quiet --no-compile -c constraints.txt pip hatchling editables
endef

$(STAMP): pyproject.toml constraints.txt
	$(VENV_BOOTSTRAP)
	$(BIN)/python -m pip install --quiet --no-build-isolation -c constraints.txt -e ".[$(EXTRAS)]"
	$(BIN)/python -m pip install --quiet --no-deps -c constraints.txt $(NO_DEPS)
	touch $(STAMP) $(SERVE_STAMP)

# make serve's environment is installed by uv (pinned in constraints.txt, put
# into .venv by $(PYTHON)'s pip, which also brings it to the pinned version when
# constraints.txt changes). In make timing's fresh clones, from git clone to
# installed, uv took 6.9-8.7 s with its cache warm, where pip had taken 24-38 s
# with its own cache warm (benchmarks/results/timing.json, then and now): the
# larger part of a newcomer's wait before the first page. uv reads neither pip's
# configuration nor its cache, so where it cannot install (no uv for this
# platform, no pip 22.3+ for --python, an index that only pip is configured
# for), pip installs instead, as setup-serve-pip below. hatchling: the build
# makes the wheel the Install page serves (sitegen/reader.py); -b: uv's build
# of the editable pe uses the pinned hatchling too. uv compiles nothing up front.
$(SERVE_STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "pe needs Python 3.10 or newer; found " + sys.version.split()[0])'
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile -c constraints.txt uv \
	  && $(BIN)/uv pip install --quiet --python $(BIN)/python -c constraints.txt -b constraints.txt -e ".[$(SERVE_EXTRAS)]" hatchling \
	  || { echo "uv could not install make serve's environment; pip installs it instead"; \
	       $(MAKE) --no-print-directory setup-serve-pip; }
	touch $(SERVE_STAMP)

# make serve's environment installed by pip alone (what the above falls back to).
# --no-compile: Python compiles a module as it is first imported, and serving
# imports a fraction of what is installed (compiling all of it up front was a
# quarter of make serve's install on two cores).
setup-serve-pip:
	$(VENV_BOOTSTRAP)
	$(BIN)/python -m pip install --quiet --no-compile --no-build-isolation -c constraints.txt -e ".[$(SERVE_EXTRAS)]"

# PE_SERVE=1: a block or figure that needs torch (or a library the Conventions
# page compares with) and finds it missing shows a note saying so instead of
# failing; every other build fails on it. After make test (or make setup) the
# same .venv has everything and serve shows every output. tools/serve.py runs
# mkdocs serve --dirty: an edited page alone is rebuilt, every page after a code edit.
SERVE_ADDR ?= 127.0.0.1:8000
serve: $(SERVE_STAMP)
	PE_SERVE=1 $(BIN)/python -m tools.serve --dev-addr $(SERVE_ADDR)

build: $(STAMP)
	$(BIN)/python -m mkdocs build --strict
	$(BIN)/python -m hatchling build -d dist

# The whole site in one zip; unzip it and run: python -m http.server --directory pe-site
archive: build
	$(BIN)/python -m tools.archive site dist/pe-site.zip

# Cold and warm build, a page edited under serve, one figure script edited and
# make test, in a scratch copy; writes benchmarks/results/timing.json, fails if
# a target is missed (about four minutes).
timing: $(STAMP)
	$(BIN)/python -m tools.build_timing; status=$$?; $(BIN)/python -m tools.readme && exit $$status

# Bytes each page needs (raw, and gzip-compressed as GitHub Pages sends them);
# writes benchmarks/results/weight.json; fails if a page needs over 1.5 MiB compressed.
weight: build
	$(BIN)/python -m tools.page_weight site --record; status=$$?; $(BIN)/python -m tools.readme && exit $$status

# Every page at 320, 375, 768, 1280 px in both schemes: sideways scrolling and
# axe-core violations, and seconds to draw math on a throttled phone; writes
# benchmarks/results/screens.json; fails if any is found or math is late.
screens: build
	$(BIN)/python -m tools.screens site --record; status=$$?; $(BIN)/python -m tools.readme && exit $$status

# Lighthouse 12 (pinned in tools/lighthouse/, installed by npm ci into
# .cache/lighthouse/ on first use: needs Node.js and npm) on every page, as a
# phone, with the site served gzip-compressed as GitHub Pages serves it; writes
# benchmarks/results/lighthouse.json; fails if a page scores under 95 for
# performance or under 100 for accessibility, best practices or SEO.
lighthouse: build
	$(BIN)/python -m tools.lighthouse site --record; status=$$?; $(BIN)/python -m tools.readme && exit $$status

# Every page loaded as a 4x slower phone with the site's own scripts and without them
# (Chromium's trace of the main thread); writes benchmarks/results/blocking.json;
# fails if the scripts add 150 ms or more of total blocking time to a page.
blocking: build
	$(BIN)/python -m tools.blocking site --record

# The README's figures, from benchmarks/results/ (bench, timing, weight, screens and
# lighthouse run it too, also when a target is missed: the README then shows the miss).
readme: $(STAMP)
	$(BIN)/python -m tools.readme

# ruff, mypy and the fast tests before each commit, from this .venv (offline).
hooks: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt pre-commit
	$(BIN)/pre-commit install

lint: $(STAMP)
	$(BIN)/python -m ruff check .
	$(BIN)/python -m ruff format --check .
	$(BIN)/python -m mypy

# Every test, ruff and mypy among them (tests/test_lint.py runs make lint's commands
# in the background of the session).
test: $(STAMP)
	$(BIN)/python -m pytest

# Timings and memory against reference implementations, measured in one run;
# writes benchmarks/results/*.json, which the pages read. Fails if a target is missed.
bench: $(STAMP)
	$(BIN)/python -m benchmarks.table
	$(BIN)/python -m benchmarks.modes
	$(BIN)/python -m benchmarks.rope
	$(BIN)/python -m tools.readme

# RoPE on a CUDA device against transformers and a copy (benchmarks/results/rope_cuda.json).
# Needs a torch that sees a GPU: the environment here has the CPU build, so on a GPU
# machine install a CUDA build of torch into .venv first. Not part of make bench.
bench-cuda: $(STAMP)
	$(BIN)/python -m benchmarks.rope_cuda

# One small decoder trained with every position method (five seeds, processes of one
# thread each), its RoPE model served with every scaling rule in two settings, zero-shot
# and fine-tuned: the one record of the pages "Comparing the methods" and "RoPE scaling
# rules on a trained model". About half an hour on two shared cores, so not part of
# make bench or make test. Writes benchmarks/results/trained.json.
trained: $(STAMP)
	$(BIN)/python -m benchmarks.trained

# Re-fetch the pinned KaTeX from npm (needs npm: maintainers only), check its
# integrity and rewrite vendor/katex/ and docs/assets/katex/; CHECK=1 only compares.
katex: $(SERVE_STAMP)
	$(BIN)/python -m tools.vendor_katex $(if $(CHECK),--check)

clean:
	rm -rf site .cache .pytest_cache .mypy_cache .ruff_cache

# Re-resolve constraints.txt with uv (pinned there, from the lock extra): one
# universal lock for Python 3.10 and newer on every platform, from the loose
# ranges in pyproject.toml (every extra), tools/lock.in and tools/lock-no-deps.in.
# uv keeps the pins already in the file where they still fit; UPGRADE=1 takes
# the newest versions. Needs the registries.
lock: $(SERVE_STAMP)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet -c constraints.txt uv
	mkdir -p .cache && grep -iE '^(keras-hub|timm)==' constraints.txt > .cache/lock-no-deps.txt || true
	$(BIN)/uv pip compile $(UV_LOCK) --no-deps -o .cache/lock-no-deps.txt tools/lock-no-deps.in
	$(BIN)/uv pip compile $(UV_LOCK) --all-extras -o constraints.txt pyproject.toml tools/lock.in
	grep -v '^#' .cache/lock-no-deps.txt >> constraints.txt
UV_LOCK = --universal --python-version 3.10 --no-annotate --quiet --custom-compile-command "make lock" $(if $(UPGRADE),--upgrade)
