FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpango-1.0-0 libpangoft2-1.0-0 fonts-noto-cjk poppler-utils && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The runtime lock only (no test or lint tools), every package checked against its hash. The project
# itself is not installed: manage.py, gunicorn and celery run from /app with it on sys.path.
COPY requirements.txt ./
RUN pip install --no-cache-dir --require-hashes -r requirements.txt
COPY . .
EXPOSE 8000
