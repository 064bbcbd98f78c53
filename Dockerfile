FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpango-1.0-0 libpangoft2-1.0-0 poppler-utils && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The runtime lock only (no test or lint tools), every package checked against its hash. The project
# itself is not installed: manage.py, gunicorn and celery run from /app with it on sys.path.
COPY requirements.txt ./
RUN pip install --no-cache-dir --require-hashes -r requirements.txt
# .dockerignore keeps secrets (.env), local state (var/), the virtualenv, .git and caches out of the
# context, so out of this copy too (CI checks the context: .ci/build_context.py).
COPY . .
# Static files are collected into the image; WhiteNoise serves them (see settings_production). The
# variables only let the production settings load: collectstatic connects to nothing.
ENV STATIC_ROOT=/app/staticfiles
RUN DJANGO_SETTINGS_MODULE=researchapp.settings_production SECRET_KEY=collectstatic-only \
    ALLOWED_HOSTS=localhost DATABASE_URL=postgres://build@localhost/build CELERY_BROKER_URL=redis://localhost \
    python manage.py collectstatic --noinput
# Every process of the image runs as this user, which owns nothing in /app: the code and the static
# files stay root's, read-only to it. It writes only where RESEARCH_VAR_DIR and /tmp say.
RUN useradd --system --uid 10001 --user-group --home-dir /nonexistent --shell /usr/sbin/nologin desk \
    && mkdir -p /var/lib/research && chown desk:desk /var/lib/research
USER desk
EXPOSE 8000
