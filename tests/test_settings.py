"""Settings read the environment strictly, and importing them touches no file.

None of these needs a database: the import-time behaviour runs in a fresh interpreter, the parsers
run here with a patched environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from researchapp.settings_env import env_bool, env_choice, env_int, env_list, env_positive_float

ROOT = Path(__file__).resolve().parent.parent
# Variables that would move the settings off the embedded profile (SQLite and the filesystem
# broker in RESEARCH_VAR_DIR), which is the profile that used to create folders when imported.
PROFILE_VARIABLES = ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DEBUG")


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {
        k: v for k, v in os.environ.items() if k not in PROFILE_VARIABLES and not k.startswith("RESEARCH_")
    }
    environment.update(DJANGO_SETTINGS_MODULE="researchapp.settings", **env)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_it_creates_no_folder_or_file_when_the_settings_are_imported(tmp_path):
    # given a var folder that does not exist yet
    var_dir = tmp_path / "var"

    # when the embedded and the production settings are imported
    result = run_python(
        "import researchapp.settings, researchapp.settings_production",
        RESEARCH_VAR_DIR=str(var_dir),
        SECRET_KEY="s" * 60,
        ALLOWED_HOSTS="desk.example.org",
        DATABASE_URL="postgres://desk@db.example.org/desk",
        CELERY_BROKER_URL="redis://broker.example.org:6379/0",
        REDIS_URL="redis://broker.example.org:6379/1",
    )

    # then they load, and nothing was created
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("missing", ["DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"])
def test_it_refuses_to_fall_back_to_the_embedded_database_or_broker_in_production(missing):
    # given the production profile with everything set but one of its services
    services = {
        "DATABASE_URL": "postgres://desk@db.example.org/desk",
        "CELERY_BROKER_URL": "redis://broker.example.org:6379/0",
        "REDIS_URL": "redis://broker.example.org:6379/1",
    }
    del services[missing]

    # when its settings are loaded
    result = run_python(
        "import researchapp.settings_production",
        SECRET_KEY="s" * 60,
        ALLOWED_HOSTS="desk.example.org",
        **services,
    )

    # then they refuse, naming what is missing (no SQLite file, no filesystem broker, no demo accounts)
    assert result.returncode != 0
    assert f"{missing} must be set in the production profile" in result.stderr


def test_it_makes_the_embedded_profile_folders_when_django_starts(tmp_path):
    # given the embedded profile in a var folder that does not exist yet
    var_dir = tmp_path / "var"

    # when Django starts, as migrate, runserver and the worker do
    result = run_python("import django; django.setup()", RESEARCH_VAR_DIR=str(var_dir))

    # then the SQLite file's folder and the broker's folders are there, and no database file yet
    assert result.returncode == 0, result.stderr
    for folder in ("broker/queue", "broker/processed", "broker/control"):
        assert (var_dir / folder).is_dir(), folder
    assert not (var_dir / "db.sqlite3").exists()


def test_it_makes_no_folder_when_django_starts_on_postgresql_and_redis(tmp_path):
    # given PostgreSQL, a Redis broker and a Redis cache (nothing is connected to at start-up)
    var_dir = tmp_path / "var"

    # when Django starts
    result = run_python(
        "import django; django.setup()",
        RESEARCH_VAR_DIR=str(var_dir),
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/not_used",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )

    # then it needed no folder, and made none
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("variable", "value"),
    [("DEBUG", "maybe"), ("RESEARCH_MAX_ROUNDS", "two"), ("RESEARCH_SEARCH_PROVIDER", "google")],
)
def test_it_refuses_to_start_on_a_malformed_value(tmp_path, variable, value):
    # given a value that the variable cannot mean
    # when the settings are imported
    result = run_python("import researchapp.settings", RESEARCH_VAR_DIR=str(tmp_path), **{variable: value})

    # then the import fails with ImproperlyConfigured naming the variable and the value
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("django.core.exceptions.ImproperlyConfigured:"), result.stderr
    assert f"{variable}={value!r}" in last_line


def test_it_parses_valid_values(tmp_path):
    # given well-formed values, written as people write them
    env = {
        "DEBUG": " Off ",
        "RESEARCH_MAX_ROUNDS": "3",
        "RESEARCH_ENGINE": "openai",
        "RESEARCH_AUTO_FOLLOWUP": "never",
        "TAVILY_RATE_PER_SECOND": "2.5",
        "FETCH_ALLOWED_HOSTS": "127.0.0.1:8001, localhost",
    }

    # when the settings are imported
    result = run_python(
        "import json\n"
        "from researchapp.settings import DEBUG, RESEARCH\n"
        "names = ('MAX_ROUNDS', 'ENGINE', 'AUTO_FOLLOWUP', 'TAVILY_RATE_PER_SECOND')\n"
        "parsed = {name: RESEARCH[name] for name in names}\n"
        "parsed.update(DEBUG=DEBUG, FETCH_ALLOWED_HOSTS=sorted(RESEARCH['FETCH_ALLOWED_HOSTS']))\n"
        "print(json.dumps(parsed))\n",
        RESEARCH_VAR_DIR=str(tmp_path),
        **env,
    )

    # then each has its typed value
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "DEBUG": False,
        "MAX_ROUNDS": 3,
        "ENGINE": "openai",
        "AUTO_FOLLOWUP": "never",
        "TAVILY_RATE_PER_SECOND": 2.5,
        "FETCH_ALLOWED_HOSTS": ["127.0.0.1:8001", "localhost"],
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", True), ("TRUE", True), ("yes", True), ("On", True), ("0", False), ("false", False), ("NO", False)],
)
def test_it_reads_each_boolean_word(monkeypatch, value, expected):
    # given a boolean variable spelt one of the accepted ways
    monkeypatch.setenv("DESK_FLAG", value)

    # when it is read, then it means what it says
    assert env_bool("DESK_FLAG", not expected) is expected


@pytest.mark.parametrize("value", ["", "maybe", "2", "enabled"])
def test_it_refuses_any_other_boolean_word(monkeypatch, value):
    # given a boolean variable set to something that is not a boolean word
    monkeypatch.setenv("DESK_FLAG", value)

    # when it is read, then the error names the variable and the value
    with pytest.raises(ImproperlyConfigured, match=re.escape(f"DESK_FLAG={value!r}")):
        env_bool("DESK_FLAG", True)


def test_it_uses_the_default_when_a_variable_is_unset(monkeypatch):
    # given no variable at all
    monkeypatch.delenv("DESK_SETTING", raising=False)

    # when each parser reads it, then each returns its default
    assert env_bool("DESK_SETTING", True) is True
    assert env_int("DESK_SETTING", 7, minimum=1) == 7
    assert env_positive_float("DESK_SETTING", 1.5) == 1.5
    assert env_choice("DESK_SETTING", "local", ("local", "tavily")) == "local"
    assert env_list("DESK_SETTING", "a,b") == ["a", "b"]


@pytest.mark.parametrize(
    ("read", "value"),
    [
        (lambda: env_int("DESK_SETTING", 2, minimum=1), "0"),
        (lambda: env_int("DESK_SETTING", 2, minimum=1), "2.5"),
        (lambda: env_positive_float("DESK_SETTING", 5.0), "0"),
        (lambda: env_positive_float("DESK_SETTING", 5.0), "inf"),
        (lambda: env_positive_float("DESK_SETTING", 5.0), "fast"),
        (lambda: env_choice("DESK_SETTING", "live", ("live", "always", "never")), "sometimes"),
        (lambda: env_list("DESK_SETTING"), "a.example.org b.example.org"),
    ],
)
def test_it_refuses_numbers_choices_and_lists_that_are_out_of_bounds(monkeypatch, read, value):
    # given a number below its minimum, not a number, an unknown choice, or a list missing a comma
    monkeypatch.setenv("DESK_SETTING", value)

    # when it is read, then the error names the variable and the value
    with pytest.raises(ImproperlyConfigured, match=re.escape(f"DESK_SETTING={value!r}")):
        read()
