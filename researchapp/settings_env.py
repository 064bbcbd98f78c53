"""Reading settings from the environment, strictly: a malformed value stops the process.

Each reader returns its default when the variable is unset and raises ImproperlyConfigured naming
the variable and its value when the value cannot mean what the setting needs. ``settings`` and
``settings_production`` read every variable through these; nothing here is a setting itself.
"""

from __future__ import annotations

import ipaddress
import math
import os

from django.core.exceptions import ImproperlyConfigured


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    word = value.strip().lower()
    if word in {"1", "true", "yes", "on"}:
        return True
    if word in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean: use true/false, 1/0, yes/no or on/off.")


def env_int(name: str, default: int, *, minimum: int) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = int(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name}={value!r} is below its minimum, {minimum}.")
    return number


def env_positive_float(name: str, default: float) -> float:
    """Every fractional setting is a rate or a timeout, so it must be a finite number above zero."""
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = float(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number.") from None
    if not (math.isfinite(number) and number > 0):
        raise ImproperlyConfigured(f"{name}={value!r} must be a finite number above zero.")
    return number


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip() not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of: {', '.join(choices)}.")
    return value.strip()


def env_list(name: str, default: str = "") -> list[str]:
    """Comma-separated; an item with a space inside is a typo (a missing comma), not a host or origin."""
    value = os.environ.get(name, default)
    items = [item.strip() for item in value.split(",") if item.strip()]
    for item in items:
        if any(character.isspace() for character in item):
            raise ImproperlyConfigured(
                f"{name}={value!r}: {item!r} has a space in it; separate items with commas."
            )
    return items


def env_networks(name: str) -> list[str]:
    """Comma-separated IP addresses or networks ("10.0.0.1", "172.18.0.0/16"), each one checked."""
    items = env_list(name)
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {item!r} is not an IP address or network.") from None
    return items


def env_subset(name: str, default: str, choices: tuple[str, ...]) -> tuple[str, ...]:
    """Comma-separated names out of ``choices``, each once; "none" for none."""
    names = [item for item in env_list(name, default) if item != "none"]
    if unknown := [item for item in names if item not in choices]:
        raise ImproperlyConfigured(f"{name}: {', '.join(unknown)} unknown; choose from {', '.join(choices)}.")
    return tuple(dict.fromkeys(names))


def mailer_from_environment(default_backend: str) -> dict:
    """The default mailer: ``default_backend`` unless EMAIL_BACKEND says; "smtp" sends through EMAIL_HOST."""
    backends = {
        "console": "django.core.mail.backends.console.EmailBackend",
        "smtp": "django.core.mail.backends.smtp.EmailBackend",
    }
    backend = env_choice("EMAIL_BACKEND", default_backend, tuple(backends))
    if backend != "smtp":
        return {"BACKEND": backends[backend]}
    options = {
        "host": os.environ.get("EMAIL_HOST", "localhost"),
        "port": env_int("EMAIL_PORT", 25, minimum=1),
        "username": os.environ.get("EMAIL_HOST_USER", ""),
        "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
        "use_tls": env_bool("EMAIL_USE_TLS", False),
        "use_ssl": env_bool("EMAIL_USE_SSL", False),
        "timeout": env_int("EMAIL_TIMEOUT", 30, minimum=1),
    }
    return {"BACKEND": backends[backend], "OPTIONS": options}
