import sys, json
from pathlib import Path
from bench.docs_qa import manual_corpus, page_of
from bench.task_run import run_task

recs = {json.loads(l)["id"]: json.loads(l) for l in open("../shared/data/qa/docs_questions.jsonl")}
r = recs[sys.argv[1]]
print(r["question"], r["answers"], r["pages"])
run = run_task(r["question"], manual_corpus(Path("../shared/data/qa/docs") / r["manual"]))
for sq, cov in zip(run.subquestions, run.coverage):
    print("SQ", sq.id, sq.text, sq.queries, cov.status)
for e in run.evidence:
    if "-q" in sys.argv or e.clears_bar:
        print(
            f"  E{e.id} sq{e.subquestion_id} {page_of(e.source_url)} clears={e.clears_bar} rel={e.relevance} score={e.score:.3f} | {e.quote[:200]!r}"
        )
for f in run.findings:
    print("F", f.subquestion_id, f.status.value, [l.evidence_id for l in f.links], f.statement[:200])
if run.draft:
    for c in run.draft.claims:
        print("C", c.section, c.evidence_ids, c.text[:200])
print("ISSUES", run.issues, run.error)
