import json, sys
from pathlib import Path
from bench.docs_qa import manual_corpus, page_of, records_of
from bench import task_run
half = sys.argv[1] if len(sys.argv) > 1 else "all"
hits = tot = 0; ev_hits = 0
for r in records_of(Path('../shared/data/qa/docs_questions.jsonl'), half):
    if not r["answerable"]: continue
    corpus = manual_corpus(Path('../shared/data/qa/docs')/r["manual"])
    sqs = task_run.plan_task(r["question"], corpus)
    run = task_run.TaskRun(r["question"], common=corpus.common_terms)
    srcs = task_run._Sources()
    own = task_run.collect_subquestion(run, sqs[0], corpus, srcs)
    pages = {page_of(s.url) for s in own}
    ev = task_run.evidence_for(run, sqs[0], own)
    evp = {page_of(e.source_url) for e in ev if e.clears_bar}
    h = any(p in pages for p in r["pages"]); eh = any(p in evp for p in r["pages"])
    hits += h; ev_hits += eh; tot += 1
    print("ok " if h else "MISS", "ev" if eh else "--", r["id"], r["pages"], sorted(pages)[:8])
print(f"page collected {hits}/{tot}, in clearing evidence {ev_hits}/{tot}")
