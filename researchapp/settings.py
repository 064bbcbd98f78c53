"""Settings for the embedded profile (SQLite, a filesystem broker, offline providers).

Everything a deployment changes comes from the environment; ``settings_production`` tightens the
rest. Every variable read here is documented in README.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("RESEARCH_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# The embedded profile is for one person on their own machine; production overrides these.
PROFILE = "embedded"
SECRET_KEY = os.environ.get("SECRET_KEY", "embedded-profile-not-secret-do-not-deploy")
DEBUG = env_bool("DEBUG", True)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "researchapp",
    "reviews",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

# Every script, style and the htmx library are served by the app, so nothing else is needed.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}

ROOT_URLCONF = "researchapp.urls"
WSGI_APPLICATION = "researchapp.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "researchapp.context_processors.desk",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"), conn_max_age=0
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # WAL and IMMEDIATE transactions let the web server and the worker write without
    # "database is locked" errors.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=10000;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    # A file, not shared-cache memory, so tests with a worker in threads lock like `make run` does.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "task_list"
LOGOUT_REDIRECT_URL = "login"

CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": os.environ["REDIS_URL"]}
        if os.environ.get("REDIS_URL")
        else {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    )
}

# --- Celery ---------------------------------------------------------------------------------
# With no broker configured, kombu's filesystem transport needs no server at all.
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # A message taken by a worker that dies unacknowledged goes back to the queue after this long.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- Research -------------------------------------------------------------------------------
RESEARCH = {
    # "local" searches the corpus stored in the database; "tavily" searches the web.
    "SEARCH_PROVIDER": os.environ.get("RESEARCH_SEARCH_PROVIDER", "local"),
    # "extractive" needs no model; "openai" talks to any OpenAI-compatible server.
    "ENGINE": os.environ.get("RESEARCH_ENGINE", "extractive"),
    "DEFAULT_CORPUS": os.environ.get("RESEARCH_DEFAULT_CORPUS", "demo"),
    "QUESTION_MAX_CHARS": int(os.environ.get("RESEARCH_QUESTION_MAX_CHARS", "2000")),
    "MAX_ROUNDS": int(os.environ.get("RESEARCH_MAX_ROUNDS", "2")),
    # Start a follow-up round by itself for thin sub-questions: "live" (web search only), "always", "never".
    "AUTO_FOLLOWUP": os.environ.get("RESEARCH_AUTO_FOLLOWUP", "live"),
    "MAX_SOURCES_PER_SUBQUESTION": int(os.environ.get("RESEARCH_MAX_SOURCES", "8")),
    "RESULTS_PER_QUERY": int(os.environ.get("RESEARCH_RESULTS_PER_QUERY", "5")),
    "MAX_PASSAGES_PER_SUBQUESTION": int(os.environ.get("RESEARCH_MAX_PASSAGES", "8")),
    "MAX_REVISIONS": int(os.environ.get("RESEARCH_MAX_REVISIONS", "2")),
    "CONCURRENCY": int(os.environ.get("RESEARCH_CONCURRENCY", "6")),
    # Live-mode providers.
    "TAVILY_API_KEY": os.environ.get("TAVILY_API_KEY", ""),
    "TAVILY_API_BASE_URL": os.environ.get("TAVILY_API_BASE_URL", ""),
    "TAVILY_RATE_PER_SECOND": float(os.environ.get("TAVILY_RATE_PER_SECOND", "5")),
    "TAVILY_RATE_BURST": int(os.environ.get("TAVILY_RATE_BURST", "5")),
    "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", ""),
    "OPENAI_BASE_URL": os.environ.get("OPENAI_BASE_URL", ""),
    "OPENAI_MODEL": os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
    "OPENAI_MODEL_PLAN": os.environ.get("OPENAI_MODEL_PLAN", ""),
    "OPENAI_MODEL_ANALYSE": os.environ.get("OPENAI_MODEL_ANALYSE", ""),
    "OPENAI_MODEL_WRITE": os.environ.get("OPENAI_MODEL_WRITE", ""),
    "OPENAI_TIMEOUT": float(os.environ.get("OPENAI_TIMEOUT", "60")),
    # Fetcher limits; FETCH_ALLOWED_HOSTS lets tests reach stub servers on loopback.
    "FETCH_CONNECT_TIMEOUT": float(os.environ.get("FETCH_CONNECT_TIMEOUT", "5")),
    "FETCH_READ_TIMEOUT": float(os.environ.get("FETCH_READ_TIMEOUT", "15")),
    "FETCH_MAX_BYTES": int(os.environ.get("FETCH_MAX_BYTES", str(3_000_000))),
    "FETCH_MAX_REDIRECTS": int(os.environ.get("FETCH_MAX_REDIRECTS", "5")),
    "FETCH_ALLOWED_HOSTS": frozenset(env_list("FETCH_ALLOWED_HOSTS")),
    "REDIS_URL": os.environ.get("REDIS_URL", ""),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}
