"""Tuning loop: cache each question's plan and evidence, re-run analysis and writing only."""

import sys, json, pickle, os
from pathlib import Path
from dataclasses import replace
from bench.docs_qa import manual_corpus, page_of, records_of
from bench import task_run
from researchapp.core.enums import FindingStatus

CACHE = Path("/tmp/reader_cache")
CACHE.mkdir(exist_ok=True)
half = sys.argv[1] if len(sys.argv) > 1 else "first"
only = sys.argv[2].split(",") if len(sys.argv) > 2 and sys.argv[2] else []
records = records_of(Path("../shared/data/qa/docs_questions.jsonl"), half)
ok = 0
tot = 0
honest = 0
un = 0
for r in records:
    if only and r["id"] not in only:
        continue
    f = CACHE / f"{r['id']}.pkl"
    corpus = manual_corpus(Path("../shared/data/qa/docs") / r["manual"])
    if f.exists():
        run = pickle.loads(f.read_bytes())
        run.findings = []
        run.draft = None
        run.issues = []
        from researchapp.pipeline.analyser.extractive import ExtractiveAnalyser
        from researchapp.pipeline.writer.extractive import ExtractiveWriter

        task_run.analyse_all(run, ExtractiveAnalyser())
        task_run.write_and_check(run, ExtractiveWriter())
    else:
        run = task_run.run_task(r["question"], corpus)
        f.write_bytes(pickle.dumps(replace(run, findings=[], draft=None, issues=[])))
    answers = [a.lower() for a in r["answers"]]
    claims = [c for c in run.draft.claims if c.section != "disputed"] if run.draft else []
    hit = any(
        any(a in c.text.lower() for a in answers)
        and any(page_of(run.source_url(i)) in r["pages"] for i in c.evidence_ids)
        for c in claims
    )
    allins = all(x.status is FindingStatus.INSUFFICIENT for x in run.findings)
    if r["answerable"]:
        tot += 1
        ok += hit
        print(("ok  " if hit else "MISS"), r["id"], r["kind"], r["question"][:80])
    else:
        un += 1
        honest += allins
        print(("ok  " if allins else "LIED"), r["id"], r["question"][:80])
    if "-v" in sys.argv or (r["answerable"] and not hit) or (not r["answerable"] and not allins):
        for x in run.findings:
            print(
                "    F",
                x.subquestion_id,
                x.status.value,
                repr(x.answer[:40]),
                "|",
                x.statement[:140].replace("\n", " "),
            )
    if run.issues or run.error:
        print("    FAILED", run.error, run.issues[:2])
print(f"answered {ok}/{tot} honest {honest}/{un}")
