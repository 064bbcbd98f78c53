# Research desk. `make run` starts the embedded profile; `make test` runs the whole suite.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# The test suite uses this machine's PostgreSQL and Redis unless the environment says otherwise.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test
TEST_BROKER_URL ?= redis://127.0.0.1:6379/15
TEST_REDIS_URL ?= redis://127.0.0.1:6379/10

.PHONY: run test install lint bench clean

# Find a Python 3.12+ (pyenv's shim honours .python-version; fall back to any python3.1x on PATH).
PYTHON := $(shell for c in python3 python3.14 python3.13 python3.12; do \
	if command -v $$c >/dev/null 2>&1 && $$c -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; \
	then echo $$c; break; fi; done)

$(VENV)/.installed: pyproject.toml
	@if [ -z "$(PYTHON)" ]; then echo "error: Python 3.12 or newer is needed (Django 6); none was found on PATH." >&2; exit 1; fi
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $@

install: $(VENV)/.installed

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo_setup
	$(PY) manage.py devserver --host $(HOST) --port $(PORT)

test: install
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} \
	CELERY_BROKER_URL=$${CELERY_BROKER_URL:-$(TEST_BROKER_URL)} \
	REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
	DJANGO_ALLOW_ASYNC_UNSAFE=true \
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(PY) -m ruff check .

bench: install
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(PY) -m bench.run

clean:
	rm -rf $(VENV) var .pytest_cache
