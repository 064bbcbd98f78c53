"""Loads a stage's inputs from the database, runs the stage, upserts what it returns.

The only package that turns rows into ``pipeline.values`` and back. Every function here is
idempotent: it checks what is already stored and stores nothing twice, so a stage that runs again
after a crashed worker (``acks_late``) finishes the job instead of duplicating it. Status moves
are the services' business, not the runner's.
"""

from researchapp.pipeline.runner.analyse import run_analyse
from researchapp.pipeline.runner.collect import collection_complete, run_collect
from researchapp.pipeline.runner.deep import run_deep
from researchapp.pipeline.runner.plan import run_plan, run_probe
from researchapp.pipeline.runner.rows import approved_subquestions, subquestion_value
from researchapp.pipeline.runner.write import recheck, run_write

__all__ = [
    "approved_subquestions",
    "collection_complete",
    "recheck",
    "run_analyse",
    "run_collect",
    "run_deep",
    "run_plan",
    "run_probe",
    "run_write",
    "subquestion_value",
]
