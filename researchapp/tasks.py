"""Thin Celery tasks: take ids, call one service. Every stage is idempotent, so acks_late is safe."""

from researchapp.celery import app
from researchapp.models import Stage
from researchapp.services import stages
from researchapp.services.stages import TransientStageError

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


@app.task(bind=True, **STAGE)
def plan_task(self, task_id: int) -> None:
    stages.run_stage(task_id, Stage.PLANNING, stages.stage_plan, final_attempt=last_try(self))


@app.task(bind=True, **STAGE)
def collect_task(self, task_id: int, subquestion_id: int, round_no: int) -> None:
    stages.run_stage(
        task_id,
        Stage.COLLECTING,
        lambda task: stages.stage_collect(task, subquestion_id, round_no),
        final_attempt=last_try(self),
    )


@app.task(bind=True, **STAGE)
def finish_collection_task(self, task_id: int) -> None:
    stages.run_stage(task_id, Stage.COLLECTING, stages.collection_maybe_finish, final_attempt=last_try(self))


@app.task(bind=True, **STAGE)
def analyse_task(self, task_id: int) -> None:
    stages.run_stage(task_id, Stage.ANALYSING, stages.stage_analyse, final_attempt=last_try(self))


@app.task(bind=True, **STAGE)
def write_task(self, task_id: int) -> None:
    stages.run_stage(task_id, Stage.WRITING, stages.stage_write, final_attempt=last_try(self))
