"""The reviews app's Celery task: one email job per notified move (ids in, one service call)."""

from researchapp.celery import app
from reviews import notifications


@app.task(acks_late=True, autoretry_for=(OSError,), retry_backoff=30, retry_jitter=True, max_retries=5)
def notify_task(event_id: int) -> None:
    notifications.notify_move(event_id)
