import json
from researchapp.pipeline.text.answer_type import analyse_question

for l in open("../shared/data/qa/docs_questions.jsonl"):
    r = json.loads(l)
    q = r["question"]
    a = analyse_question(q, common={"sqlite", "git"})
    print(
        f"{r['kind']:16} {a.answer_type.value:16} unit={a.unit:7} subj={a.subject} focus={a.focus} | {q[:90]}"
    )
