FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpango-1.0-0 libpangoft2-1.0-0 poppler-utils && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The runtime lock only (no test or lint tools), every package checked against its hash. The project
# itself is not installed: manage.py, gunicorn and celery run from /app with it on sys.path.
COPY requirements.txt ./
RUN pip install --no-cache-dir --require-hashes -r requirements.txt
COPY . .
# Static files are collected into the image; WhiteNoise serves them (see settings_production). The
# variables only let the production settings load: collectstatic connects to nothing.
ENV STATIC_ROOT=/app/staticfiles
RUN DJANGO_SETTINGS_MODULE=researchapp.settings_production SECRET_KEY=collectstatic-only \
    ALLOWED_HOSTS=localhost DATABASE_URL=postgres://build@localhost/build CELERY_BROKER_URL=redis://localhost \
    python manage.py collectstatic --noinput
EXPOSE 8000
