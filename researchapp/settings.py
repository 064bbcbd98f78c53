"""Settings for the embedded profile (SQLite, a filesystem broker, offline providers).

Everything a deployment changes comes from the environment; ``settings_production`` tightens the
rest. Every variable read here is documented in README.md. A malformed value stops the process with
ImproperlyConfigured naming the variable, rather than quietly meaning something else. Importing this
module creates nothing: ``ResearchConfig.ready`` makes the folders the embedded profile writes to.
"""

from __future__ import annotations

import os
import warnings
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from kombu import Queue

from researchapp.core.enums import ModelStage
from researchapp.settings_env import (
    env_bool,
    env_choice,
    env_int,
    env_list,
    env_networks,
    env_positive_float,
    env_subset,
    mailer_from_environment,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("RESEARCH_VAR_DIR", BASE_DIR / "var"))

# The embedded profile is for one person on their own machine; production overrides these.
PROFILE = "embedded"
SECRET_KEY = os.environ.get("SECRET_KEY", "embedded-profile-not-secret-do-not-deploy")
# Off unless asked for: with DEBUG on, a 404 is Django's debug page, not the desk's (WhiteNoise serves
# the static files either way).
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "researchapp",
    "reviews",
]

MIDDLEWARE = [
    # First: forwarding headers count only from TRUSTED_PROXIES, before anything reads them.
    "researchapp.middleware.TrustedProxyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "researchapp.middleware.VisibleTextMiddleware",  # no bidi controls or zero-width spaces in a page
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # After LocaleMiddleware: a signed-in person's own language and time zone win over the browser's.
    "reviews.middleware.PreferencesMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Login throttling (django-axes, researchapp/login_throttle.py): LOGIN_FAILURE_LIMIT wrong passwords
# for one username, or LOGIN_ADDRESS_FAILURE_LIMIT from one address, are answered as usual; the next
# attempt is refused with a message, and so is every attempt for LOGIN_COOLOFF_MINUTES after it. Then
# the desk's own backend, which refuses the demo accounts outside the embedded profile.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "researchapp.auth.DeskBackend"]
AXES_HANDLER = "researchapp.login_throttle.DeskLoginThrottle"
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1) + 1  # axes refuses the limit-th failure
AXES_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 50, minimum=1) + 1
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", ["username", "ip_address"], "ip_address"]  # what axes records
AXES_RESET_ON_SUCCESS = True
# The client's address is the peer's, or, from a proxy listed here (addresses or networks), the one it
# names in X-Forwarded-For; only such a proxy's X-Forwarded-Proto counts (researchapp/middleware.py).
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")
AXES_CLIENT_IP_CALLABLE = "researchapp.client_address.client_address"
AXES_LOCKOUT_TEMPLATE = "login_locked.html"
AXES_VERBOSE = False

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
                "django.template.context_processors.i18n",
                "django.template.context_processors.tz",
                "reviews.context_processors.review_desk",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"), conn_max_age=0
    )
}
# A statement waits at most this long for a lock, then fails with "lock not available", which the
# stages retry with backoff (services/leases.py): a stage never hangs on a lock with no word said.
DB_LOCK_TIMEOUT_MS = env_int("DB_LOCK_TIMEOUT_MS", 10_000, minimum=0)
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = f"-c lock_timeout={DB_LOCK_TIMEOUT_MS}"
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # WAL and IMMEDIATE transactions let the web server and the worker write without
    # "database is locked" errors.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=10000;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    if DATABASES["default"]["NAME"] != ":memory:":
        # A file, not shared-cache memory, so tests with a worker in threads lock like `make run` does.
        DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
# The embedded profile serves straight from static/ (no collectstatic); production serves STATIC_ROOT.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
# WhiteNoise warns while STATIC_ROOT has not been collected, which the embedded profile never needs.
warnings.filterwarnings("ignore", message="No directory at: ", category=UserWarning)


# Notifications go through the default mailer: the console in the embedded profile unless
# EMAIL_BACKEND=smtp (production's default), which sends through EMAIL_HOST.
MAILERS = {"default": mailer_from_environment("console")}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Research desk <research-desk@localhost>")
# Links in emails point here.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

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

# Sessions are read from the cache and written through to the database: a page reads no session row.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# --- Celery ---------------------------------------------------------------------------------
# With no broker configured, kombu's filesystem transport needs no server at all.
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # A message taken by a worker that dies unacknowledged goes back to the queue after this long.
        # It must outlast the longest stage (or a healthy run is delivered twice), so it is long; the
        # stage leases (RESEARCH_LEASE_SECONDS) are what bring a dead worker's stage back promptly.
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=1),
        # Ten priority steps (0 is taken first), one Redis list each: decided work before new work,
        # and fair shares between people (services/dispatch.py::job_priority).
        "priority_steps": list(range(10)),
        # Publishing to a broker that is down fails at once (the job stays in the outbox for the
        # sweeper) rather than holding a web request for seconds of reconnects.
        "max_retries": 1,
        "interval_start": 0,
        "interval_step": 0.2,
        "socket_connect_timeout": 5,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Queues, one per kind of work, so a slow PDF or model call never waits behind collection (nor the
# reverse); docker-compose.yml runs one worker per queue with its own concurrency (README, "Scaling
# out"). A worker started without `-Q` (`make run`, the tests) consumes every queue listed here.
# `celery` (the default queue) carries what no route names: the notification emails.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = tuple(
    Queue(name, routing_key=name) for name in ("celery", "collect", "model", "write", "export", "sweep")
)
CELERY_TASK_ROUTES = {
    "researchapp.tasks.collect_task": {"queue": "collect"},  # I/O: searches and page fetches
    "researchapp.tasks.finish_collection_task": {"queue": "collect"},
    "researchapp.tasks.plan_task": {"queue": "model"},  # the stages that call the model most
    "researchapp.tasks.analyse_task": {"queue": "model"},
    "researchapp.tasks.write_task": {"queue": "write"},  # writing and its checks
    "researchapp.tasks.sweep_task": {"queue": "sweep"},
}

# --- Research -------------------------------------------------------------------------------
# Allowed values are written at the call: an upper-case constant in this module would become a setting.
search_provider_name = env_choice("RESEARCH_SEARCH_PROVIDER", "local", ("local", "tavily"))
# Academic search: all three APIs with live web search, none offline (that profile reaches no outside host).
academic_names = ("openalex", "arxiv", "semantic_scholar")
academic_default = ",".join(academic_names) if search_provider_name == "tavily" else ""
RESEARCH = {
    # "local" searches the corpus stored in the database; "tavily" searches the web.
    "SEARCH_PROVIDER": search_provider_name,
    # "extractive" needs no model; "openai" talks to any OpenAI-compatible server.
    "ENGINE": env_choice("RESEARCH_ENGINE", "extractive", ("extractive", "openai")),
    "DEFAULT_CORPUS": os.environ.get("RESEARCH_DEFAULT_CORPUS", "demo"),
    "QUESTION_MAX_CHARS": env_int("RESEARCH_QUESTION_MAX_CHARS", 2000, minimum=1),
    "MAX_ROUNDS": env_int("RESEARCH_MAX_ROUNDS", 2, minimum=1),
    # Start a follow-up round by itself for thin sub-questions: "live" (web search only), "always", "never".
    "AUTO_FOLLOWUP": env_choice("RESEARCH_AUTO_FOLLOWUP", "live", ("live", "always", "never")),
    "MAX_SOURCES_PER_SUBQUESTION": env_int("RESEARCH_MAX_SOURCES", 8, minimum=1),
    "RESULTS_PER_QUERY": env_int("RESEARCH_RESULTS_PER_QUERY", 5, minimum=1),
    "MAX_PASSAGES_PER_SUBQUESTION": env_int("RESEARCH_MAX_PASSAGES", 8, minimum=1),
    "MAX_REVISIONS": env_int("RESEARCH_MAX_REVISIONS", 2, minimum=0),
    "CONCURRENCY": env_int("RESEARCH_CONCURRENCY", 6, minimum=1),
    "PDF_SECONDS": env_positive_float("RESEARCH_PDF_SECONDS", 120.0),  # before the renderer is stopped
    # How long an analyst's claim on a review item holds before others may take it.
    "CLAIM_MINUTES": env_int("RESEARCH_CLAIM_MINUTES", 30, minimum=1),
    # Deep mode's research loop, per sub-question and round: model turns, tool calls, tokens, seconds.
    "DEEP_MAX_STEPS": env_int("DEEP_MAX_STEPS", 8, minimum=1),
    "DEEP_MAX_TOOL_CALLS": env_int("DEEP_MAX_TOOL_CALLS", 12, minimum=1),
    "DEEP_MAX_TOKENS": env_int("DEEP_MAX_TOKENS", 60_000, minimum=1),
    "DEEP_DEADLINE_SECONDS": env_positive_float("DEEP_DEADLINE_SECONDS", 600.0),
    "TAVILY_API_KEY": os.environ.get("TAVILY_API_KEY", ""),  # live mode
    "TAVILY_API_BASE_URL": os.environ.get("TAVILY_API_BASE_URL", ""),
    "TAVILY_RATE_PER_SECOND": env_positive_float("TAVILY_RATE_PER_SECOND", 5.0),
    "TAVILY_RATE_BURST": env_int("TAVILY_RATE_BURST", 5, minimum=1),
    # Academic search (deep mode): which APIs, where they are, and how long to wait for them.
    "ACADEMIC_PROVIDERS": env_subset("RESEARCH_ACADEMIC_PROVIDERS", academic_default, academic_names),
    "OPENALEX_URL": os.environ.get("OPENALEX_URL", "https://api.openalex.org"),
    "OPENALEX_MAILTO": os.environ.get("OPENALEX_MAILTO", ""),
    "ARXIV_URL": os.environ.get("ARXIV_URL", "https://export.arxiv.org"),
    "SEMANTIC_SCHOLAR_URL": os.environ.get("SEMANTIC_SCHOLAR_URL", "https://api.semanticscholar.org"),
    "SEMANTIC_SCHOLAR_API_KEY": os.environ.get("SEMANTIC_SCHOLAR_API_KEY", ""),
    "ACADEMIC_TIMEOUT": env_positive_float("RESEARCH_ACADEMIC_TIMEOUT", 20.0),
    "OPENALEX_RATE_PER_SECOND": env_positive_float("OPENALEX_RATE_PER_SECOND", 10.0),
    "ARXIV_RATE_PER_SECOND": env_positive_float("ARXIV_RATE_PER_SECOND", 1 / 3),
    "SEMANTIC_SCHOLAR_RATE_PER_SECOND": env_positive_float("SEMANTIC_SCHOLAR_RATE_PER_SECOND", 1.0),
    "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", ""),
    "OPENAI_BASE_URL": os.environ.get("OPENAI_BASE_URL", ""),
    "OPENAI_MODEL": os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
    **{name: os.environ.get(name, "") for name in (f"OPENAI_MODEL_{stage.name}" for stage in ModelStage)},
    "OPENAI_TIMEOUT": env_positive_float("OPENAI_TIMEOUT", 60.0),
    # Fetcher limits; FETCH_ALLOWED_HOSTS lets tests reach stub servers on loopback.
    "FETCH_CONNECT_TIMEOUT": env_positive_float("FETCH_CONNECT_TIMEOUT", 5.0),
    "FETCH_READ_TIMEOUT": env_positive_float("FETCH_READ_TIMEOUT", 15.0),
    "FETCH_MAX_BYTES": env_int("FETCH_MAX_BYTES", 3_000_000, minimum=1),
    "FETCH_MAX_REDIRECTS": env_int("FETCH_MAX_REDIRECTS", 5, minimum=0),
    "FETCH_ALLOWED_HOSTS": frozenset(env_list("FETCH_ALLOWED_HOSTS")),
    "REDIS_URL": os.environ.get("REDIS_URL", ""),
    # Durability (services/leases.py, sweeper.py): a stage silent for LEASE_SECONDS (heartbeats every
    # HEARTBEAT_SECONDS) is sent again by the sweeper, at most MAX_STAGE_RESTARTS times, then fails.
    "HEARTBEAT_SECONDS": env_positive_float("RESEARCH_HEARTBEAT_SECONDS", 15.0),
    "LEASE_SECONDS": env_positive_float("RESEARCH_LEASE_SECONDS", 120.0),
    "SWEEP_SECONDS": env_positive_float("RESEARCH_SWEEP_SECONDS", 30.0),
    "MAX_STAGE_RESTARTS": env_int("RESEARCH_MAX_STAGE_RESTARTS", 3, minimum=0),
    # A job the broker took but no worker started for this long is sent again (a lost message).
    "RESEND_UNSTARTED_SECONDS": env_positive_float("RESEARCH_RESEND_UNSTARTED_SECONDS", 300.0),
    # The task page asks "is a worker running?" once a job has waited this long.
    "WORKER_WAIT_HINT_SECONDS": env_positive_float("RESEARCH_WORKER_WAIT_HINT_SECONDS", 10.0),
    # Send a job as soon as its transaction commits; false leaves every send to the sweeper's relay.
    "RELAY_ON_COMMIT": env_bool("RESEARCH_RELAY_ON_COMMIT", True),
    # Per-person submission limits (0: none); an administrator sets a person's own in the admin.
    "QUOTA_TASKS_IN_FLIGHT": env_int("RESEARCH_QUOTA_TASKS_IN_FLIGHT", 10, minimum=0),
    "QUOTA_TASKS_PER_DAY": env_int("RESEARCH_QUOTA_TASKS_PER_DAY", 100, minimum=0),
    "QUOTA_TOKENS_PER_DAY": env_int("RESEARCH_QUOTA_TOKENS_PER_DAY", 2_000_000, minimum=0),
}
if RESEARCH["HEARTBEAT_SECONDS"] * 2 > RESEARCH["LEASE_SECONDS"]:
    raise ImproperlyConfigured(
        "RESEARCH_LEASE_SECONDS must be at least twice RESEARCH_HEARTBEAT_SECONDS, "
        "or a live worker's lease could expire between two heartbeats."
    )
# `celery -A researchapp beat` sends the sweep (the devserver runs it itself); an unclaimed one expires.
# Beat writes its schedule file after every task it sends: its health check reads the file's age.
CELERY_BEAT_SYNC_EVERY = 1
CELERY_BEAT_SCHEDULE = {
    "sweep": {
        "task": "researchapp.tasks.sweep_task",
        "schedule": RESEARCH["SWEEP_SECONDS"],
        "options": {"expires": RESEARCH["SWEEP_SECONDS"]},
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {
        "handlers": ["console"],
        "level": env_choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")),
    },
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # WeasyPrint logs every layout step of every PDF at INFO.
        "weasyprint.progress": {"level": "WARNING"},
    },
}
