import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")

app = Celery("researchapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Every thread (runserver's request threads included) sees this app, not Celery's fallback.
app.set_default()
