from pathlib import Path
from researchapp.providers.base import Document
from researchapp.pipeline.collector.local import LocalCorpus
from bench.task_run import run_task
docs=[]
for p in sorted(Path('researchapp/demo_corpus').glob('*.md')):
    t=p.read_text(); head, _, body = t[4:].partition("\n---\n")
    f=dict(l.split(":",1) for l in head.splitlines())
    docs.append(Document(f["url"].strip(), f["title"].strip(), body.strip(), extraction="corpus"))
Q="Compare the Kestrel sodium-ion home battery and the Osprey LFP home battery, including their fire safety"
run=run_task(Q, LocalCorpus(docs))
for sq in run.subquestions: print("SQ", sq.id, sq.text)
for f in run.findings: print("F", f.subquestion_id, f.status.value, repr(f.answer[:40]), f.statement[:120])
print(run.draft.markdown.split("## References")[0] if run.draft else run.error)
print(run.issues)
from researchapp.pipeline.reader.extractive import readings_of, _candidates
from researchapp.pipeline.text.aspects import dimension_vocabulary, dimensions_of
sq = run.subquestions[1]
ev = [e for e in run.evidence if e.subquestion_id == sq.id and e.clears_bar]
for a in readings_of(sq, Q, ev, run.common):
    print(a)
    for c in sorted(_candidates(a, ev, {}, dimension_vocabulary(dimensions_of(sq))), key=lambda c: -c.score)[:8]:
        print(f"  {c.score:.3f} f={c.focus:.2f} E{c.item.id} | {c.piece[:120]}")
