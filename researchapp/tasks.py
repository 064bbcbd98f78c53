"""Thin Celery tasks: take ids, call one service. Every stage is idempotent, so acks_late is safe.

A stage message carries its job's id (``job_id``): the outbox row whose lease the worker holds while
it runs (see ``services.dispatch`` and ``services.leases``). Transient failures (a provider's 429 or
timeout, a database lock, deadlock or lost connection) are retried with exponential backoff and
jitter; past the last retry the sweeper takes over (``sweep_task``, run by Celery beat).
"""

from researchapp.celery import app
from researchapp.models import Stage
from researchapp.services import stages, sweeper
from researchapp.services.stage_harness import TransientStageError, run_stage

STAGE = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (TransientStageError,),
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 5,
}


def last_try(task) -> bool:
    return task.request.retries >= task.max_retries


@app.task(bind=True, **STAGE)
def plan_task(self, task_id: int, job_id: int | None = None) -> None:
    run_stage(task_id, Stage.PLANNING, stages.stage_plan, final_attempt=last_try(self), job_id=job_id)


@app.task(bind=True, **STAGE)
def collect_task(self, task_id: int, subquestion_id: int, round_no: int, job_id: int | None = None) -> None:
    run_stage(
        task_id,
        Stage.COLLECTING,
        lambda task: stages.stage_collect(task, subquestion_id, round_no),
        final_attempt=last_try(self),
        job_id=job_id,
    )


@app.task(bind=True, **STAGE)
def finish_collection_task(self, task_id: int, job_id: int | None = None) -> None:
    run_stage(
        task_id, Stage.COLLECTING, stages.collection_maybe_finish, final_attempt=last_try(self), job_id=job_id
    )


@app.task(bind=True, **STAGE)
def analyse_task(self, task_id: int, job_id: int | None = None) -> None:
    run_stage(task_id, Stage.ANALYSING, stages.stage_analyse, final_attempt=last_try(self), job_id=job_id)


@app.task(bind=True, **STAGE)
def write_task(self, task_id: int, job_id: int | None = None) -> None:
    run_stage(task_id, Stage.WRITING, stages.stage_write, final_attempt=last_try(self), job_id=job_id)


@app.task(ignore_result=True)
def sweep_task() -> None:
    sweeper.sweep()
