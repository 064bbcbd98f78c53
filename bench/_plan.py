import json, sys
from researchapp.pipeline.planner.extractive import plan_extractive

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/qa/docs_questions.jsonl"
for l in list(open(path))[: int(sys.argv[2]) if len(sys.argv) > 2 else 100]:
    r = json.loads(l)
    q = r["question"]
    p = plan_extractive(q)
    print(q)
    [print("   -", sq.text, "|", sq.queries) for sq in p.subquestions]
