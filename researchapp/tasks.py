"""Thin Celery tasks: take ids, call one service. Every stage is idempotent, so acks_late is safe."""

from celery import shared_task

from researchapp.services import tasks as services
from researchapp.services.tasks import TransientStageError

STAGE = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (TransientStageError,),
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 3,
}


def last_try(task) -> bool:
    return task.request.retries >= task.max_retries


@shared_task(bind=True, **STAGE)
def plan_task(self, task_id: int) -> None:
    services.run_stage(task_id, "planning", services.stage_plan, final_attempt=last_try(self))


@shared_task(bind=True, **STAGE)
def collect_task(self, task_id: int, subquestion_id: int, round: int) -> None:
    services.run_stage(
        task_id,
        "collecting",
        lambda task: services.stage_collect(task, subquestion_id, round),
        final_attempt=last_try(self),
    )


@shared_task(bind=True, **STAGE)
def finish_collection_task(self, task_id: int) -> None:
    services.run_stage(task_id, "collecting", services.collection_maybe_finish, final_attempt=last_try(self))


@shared_task(bind=True, **STAGE)
def analyse_task(self, task_id: int) -> None:
    services.run_stage(task_id, "analysing", services.stage_analyse, final_attempt=last_try(self))


@shared_task(bind=True, **STAGE)
def write_task(self, task_id: int) -> None:
    services.run_stage(task_id, "writing", services.stage_write, final_attempt=last_try(self))
