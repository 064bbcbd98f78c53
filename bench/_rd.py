import sys, json
from pathlib import Path
from bench.docs_qa import manual_corpus, page_of
from bench.task_run import run_task
from researchapp.pipeline.reader.extractive import readings_of, _candidates, FOCUS_BAR

recs = {json.loads(l)["id"]: json.loads(l) for l in open("../shared/data/qa/docs_questions.jsonl")}
r = recs[sys.argv[1]]
sqn = int(sys.argv[2]) if len(sys.argv) > 2 else 1
print(r["question"], r["answers"], r["pages"])
run = run_task(r["question"], manual_corpus(Path("../shared/data/qa/docs") / r["manual"]), write=False)
sq = run.subquestions[sqn - 1]
ev = [e for e in run.evidence if e.subquestion_id == sq.id and e.clears_bar]
print("SQ", sq.text, "evidence", len(ev))
for a in readings_of(sq, r["question"], ev, run.common):
    print("READING", a)
    cands = sorted(_candidates(a, ev, {}), key=lambda c: -c.score)
    for c in cands[:12]:
        print(
            f"  {c.score:.3f} f={c.focus:.2f} E{c.item.id} {page_of(c.item.source_url)} ans={c.answer!r} | {c.item.quote[c.unit.start : c.unit.end][:150]!r}"
        )
for f in run.findings:
    if f.subquestion_id == sq.id:
        print("F", f.status.value, f.answer, f.statement[:150])
