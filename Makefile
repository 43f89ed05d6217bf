# Two commands do all the set-up on a fresh machine: `make serve` and `make test` (README: what each needs).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BUILD_STAMP := $(VENV)/.installed-build-$(shell sha256sum requirements.txt | cut -c1-12)
TEST_STAMP := $(VENV)/.installed-test-$(shell sha256sum requirements-test.txt | cut -c1-12)
export NO_MKDOCS_2_WARNING := 1
# Reproducible output: dates in the sitemap come from the last commit, not the clock.
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

# The browser of the browser tests: a Chromium executable, or `playwright` for Playwright's own pinned download
# (what CI uses). Read by tests/conftest.py.
export CHROMIUM ?= /usr/bin/chromium
CJK_FONT := /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get

.PHONY: serve serve-en serve-fr serve-zh build check publish rollback test lint browser translations lock clean

$(BUILD_STAMP): requirements.txt
	@echo "==> Python packages to build and serve the site (requirements.txt, about 220 MB) into $(VENV)/"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.txt
	@rm -f $(VENV)/.installed-build-* && touch $@

$(TEST_STAMP): $(BUILD_STAMP) requirements-test.txt
	@echo "==> Python packages the tests add (requirements-test.txt: pytest, Playwright, ruff, mypy; about 130 MB)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-test.txt
	@rm -f $(VENV)/.installed-test-* && touch $@

## serve: build and serve every language on http://127.0.0.1:8000, rebuilding on every edit
serve: $(BUILD_STAMP)
	$(BIN)/mkdocs serve -a 127.0.0.1:8000

## serve-fr, serve-zh, serve-en: a faster preview of one language only
serve-en serve-fr serve-zh: $(BUILD_STAMP)
	BUILD_ONLY_LOCALE=$(subst serve-,,$@) $(BIN)/mkdocs serve -a 127.0.0.1:8000

## build: build the site into site/ (for SITE_URL, the address it is published at); a failed build leaves
## the previous site/ untouched
build: $(BUILD_STAMP)
	$(BIN)/python scripts/build_site.py -d site

## check: check the built site in every language (links, anchors, pages per language, no template left, and
## every canonical, sitemap entry and hreflang under SITE_URL)
check: $(BUILD_STAMP)
	$(BIN)/python scripts/check_site.py site

## publish TARGET=/srv/guides: build, check, then switch the host directory to the new release atomically
publish: build check
	@test -n "$(TARGET)" || { echo "usage: make publish TARGET=/path/served/by/the/web/server"; exit 2; }
	$(BIN)/python scripts/publish.py --target "$(TARGET)" --site site

## rollback TARGET=/srv/guides: serve the previous release again
rollback: $(BUILD_STAMP)
	@test -n "$(TARGET)" || { echo "usage: make rollback TARGET=/path/served/by/the/web/server"; exit 2; }
	$(BIN)/python scripts/publish.py --target "$(TARGET)" --rollback

## test: install what the tests need (Python packages, a Chromium, CJK fonts, axe-core), lint, run every test
test: $(TEST_STAMP) browser node_modules/.installed lint
	@echo "==> Every test (pytest counts them as it starts), about 7 minutes on 2 cores: the unit tests first,"
	@echo "    while the sites the other tests read build in the background"
	$(BIN)/python -m pytest

## lint: ruff (lint and format) and mypy, settings in pyproject.toml
lint: $(TEST_STAMP)
	@echo "==> Lint: ruff check, ruff format --check, mypy"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/mypy --disable-error-code union-attr tests  # a test's optional value is what it asserts on

node_modules/.installed: package-lock.json
	@echo "==> axe-core for the accessibility tests (npm ci)"
	@npm ci --no-audit --no-fund --silent
	@touch $@

## browser: the browser tests' Chromium ($$CHROMIUM) and CJK fonts, installed where missing, then launched once
browser: $(TEST_STAMP) $(CJK_FONT)
ifeq ($(CHROMIUM),playwright)
	@echo "==> Chromium: Playwright's pinned download (cached in ~/.cache/ms-playwright)"
	@$(BIN)/python -m playwright install --with-deps chromium
else
	@test -x "$(CHROMIUM)" || { echo "==> Chromium: Debian's package (apt, as root)"; \
	  $(APT) update -qq && $(APT) install -y -qq chromium; }
endif
	@$(BIN)/python tests/chromium.py

$(CJK_FONT):
	@echo "==> Chinese and Japanese fonts for the chart tests: Debian's fonts-noto-cjk (apt, as root)"
	@$(APT) update -qq && $(APT) install -y -qq fonts-noto-cjk

## translations: the translation status of every page, and for an outdated one the English paragraphs that
## changed since its stamp (--check fails on orphaned translations)
translations: $(BUILD_STAMP)
	$(BIN)/python scripts/translations.py

## lock: recompile requirements.txt (build, serve) and requirements-test.txt (tests) from their .in files
lock: $(BUILD_STAMP)
	$(BIN)/python -m pip install --quiet pip-tools
	$(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links -o requirements.txt requirements.in
	$(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links -o requirements-test.txt requirements-test.in

clean:
	rm -rf site .site.new-* .site.old-* site.lock $(VENV)
