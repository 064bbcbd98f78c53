"""Production profile: PostgreSQL, Redis, secrets and hosts from the environment, DEBUG off."""

import os

from django.core.exceptions import ImproperlyConfigured

from researchapp.settings import *  # noqa: F403
from researchapp.settings_env import env_bool, env_int, env_list, mailer_from_environment

PROFILE = "production"
DEBUG = False


def required(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise ImproperlyConfigured(f"{name} must be set in the production profile.")
    return value


SECRET_KEY = required("SECRET_KEY")
# No silent fallback to the embedded profile's SQLite file and filesystem broker: in production they
# would split one desk across containers (and keep the demo database, accounts and all).
required("DATABASE_URL")
required("CELERY_BROKER_URL")
# The page and search cache and the providers' rate limits are shared through Redis: without it each
# worker (on each machine) would keep its own cache folder and spend the whole rate limit on its own.
required("REDIS_URL")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set in the production profile.")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
for origin in CSRF_TRUSTED_ORIGINS:
    if not origin.startswith(("https://", "http://")):
        raise ImproperlyConfigured(
            f"CSRF_TRUSTED_ORIGINS: {origin!r} needs its scheme, e.g. https://{origin}."
        )

# Keep database connections between requests (healthz showed a new connection costing most of a
# trivial request); health checks drop one that broke.
DATABASES["default"]["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", 60, minimum=0)  # noqa: F405
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # noqa: F405

# Notifications by SMTP: EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS.
MAILERS = {"default": mailer_from_environment("smtp")}

SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
# The health check is asked over plain HTTP from inside the container (and by load balancers):
# redirecting it to https would keep the web service "unhealthy" forever.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Static files (CSS, htmx) are served by the app itself through WhiteNoise, from STATIC_ROOT as
# `collectstatic` (run when the image is built) left it: compressed, with hashed names cached forever.
MIDDLEWARE = [*MIDDLEWARE]  # noqa: F405
if "whitenoise.middleware.WhiteNoiseMiddleware" not in MIDDLEWARE:  # right after SecurityMiddleware
    MIDDLEWARE.insert(
        MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
        "whitenoise.middleware.WhiteNoiseMiddleware",
    )
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
