import cProfile, pstats, sys
from pathlib import Path
from bench.docs_qa import manual_corpus
from bench.task_run import run_task

corpus = manual_corpus(Path("../shared/data/qa/docs/sqlite"))
q = (
    sys.argv[1]
    if len(sys.argv) > 1
    else "What value does PRAGMA cache_size have unless it is changed, and how much memory does that correspond to?"
)
cProfile.run("run_task(q, corpus)", "/tmp/prof.out")
pstats.Stats("/tmp/prof.out").sort_stats("cumulative").print_stats(40)
