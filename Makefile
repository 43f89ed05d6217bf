# Two commands do all the set-up on a fresh machine: `make serve` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha256sum requirements.txt | cut -c1-12)
export NO_MKDOCS_2_WARNING := 1
# Reproducible output: dates in the sitemap come from the last commit, not the clock.
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: serve serve-en serve-fr serve-zh build check publish rollback test translations lock clean

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.txt
	rm -f $(VENV)/.installed-* && touch $@

## serve: build and serve every language on http://127.0.0.1:8000, rebuilding on every edit
serve: $(STAMP)
	$(BIN)/mkdocs serve -a 127.0.0.1:8000

## serve-fr, serve-zh, serve-en: a faster preview of one language only
serve-en serve-fr serve-zh: $(STAMP)
	BUILD_ONLY_LOCALE=$(subst serve-,,$@) $(BIN)/mkdocs serve -a 127.0.0.1:8000

## build: build the site into site/; a failed build leaves the previous site/ untouched
build: $(STAMP)
	$(BIN)/python scripts/build_site.py -d site

## check: check the built site in every language (links, anchors, pages per language, no template left)
check: $(STAMP)
	$(BIN)/python scripts/check_site.py site

## publish TARGET=/srv/guides: build, check, then switch the host directory to the new release atomically
publish: build check
	@test -n "$(TARGET)" || { echo "usage: make publish TARGET=/path/served/by/the/web/server"; exit 2; }
	$(BIN)/python scripts/publish.py --target "$(TARGET)" --site site

## rollback TARGET=/srv/guides: serve the previous release again
rollback: $(STAMP)
	@test -n "$(TARGET)" || { echo "usage: make rollback TARGET=/path/served/by/the/web/server"; exit 2; }
	$(BIN)/python scripts/publish.py --target "$(TARGET)" --rollback

## test: install what the tests need (Python packages, Debian's chromium, axe-core) and run every test
test: $(STAMP) $(CHROMIUM) node_modules/.installed
	$(BIN)/python -m pytest

node_modules/.installed: package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $@

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

## translations: the translation status of every page (--check fails on orphaned translations)
translations: $(STAMP)
	$(BIN)/python scripts/translations.py

## lock: recompile requirements.txt from requirements.in (pins and hashes)
lock: $(STAMP)
	$(BIN)/python -m pip install --quiet pip-tools
	$(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links -o requirements.txt requirements.in

clean:
	rm -rf site .site.new-* .site.old-* site.lock $(VENV)
