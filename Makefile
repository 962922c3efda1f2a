# The README's two commands. Each works on a fresh machine: it makes its own .venv and installs what
# it needs. `make demo` runs OnFile on the embedded default; `make test` runs every check CI runs.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: demo test lint typecheck layers pytest bench screenshots build-packages system-packages clean

# Debian packages: ICU's headers and pkg-config, which PyICU is built against (both commands need
# them, before the Python packages); chromium for the browser tests, PostgreSQL's server binaries for
# the PostgreSQL tests. Installed only when missing, as root (as CI runs).
APT_GET := DEBIAN_FRONTEND=noninteractive apt-get
build-packages:
	@{ command -v pkg-config >/dev/null 2>&1 && pkg-config --exists icu-uc; } || \
		{ $(APT_GET) update -qq && $(APT_GET) install -y -qq libicu-dev pkg-config g++ >/dev/null; }

system-packages: build-packages
	@command -v chromium >/dev/null 2>&1 || { $(APT_GET) update -qq && $(APT_GET) install -y -qq chromium >/dev/null; }
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		{ $(APT_GET) update -qq && $(APT_GET) install -y -qq postgresql >/dev/null; }

# Debian's postgresql package keeps its server binaries off the PATH; the tests look them up there.
PG_BIN := $(lastword $(sort $(wildcard /usr/lib/postgresql/*/bin)))
export PATH := $(if $(PG_BIN),$(PATH):$(PG_BIN),$(PATH))

$(INSTALLED): pyproject.toml | build-packages
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(INSTALLED)

demo: $(INSTALLED)
	$(BIN)/onfile demo --port $(or $(PORT),8000)

test: $(INSTALLED) system-packages
	$(MAKE) --no-print-directory lint typecheck layers pytest

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(INSTALLED)
	$(BIN)/mypy

layers: $(INSTALLED)
	$(BIN)/lint-imports

# Branch coverage of store/domain must be total: the rules are the product.
pytest: $(INSTALLED)
	$(BIN)/coverage erase
	$(BIN)/coverage run -m pytest
	$(BIN)/coverage report --include='store/domain/*' --fail-under=100

bench: $(INSTALLED)
	$(BIN)/python -m bench.digest

# The dashboard's pages on a desktop and a phone, light and dark, into docs/images/screens/.
screenshots: $(INSTALLED) system-packages
	$(BIN)/python -m tests.browser.screenshots

clean:
	rm -rf $(VENV) .coverage .mypy_cache .pytest_cache .ruff_cache
