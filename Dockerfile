FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpango-1.0-0 libpangoft2-1.0-0 fonts-noto-cjk poppler-utils && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY researchapp researchapp
COPY reviews reviews
RUN pip install --no-cache-dir .
COPY . .
EXPOSE 8000
