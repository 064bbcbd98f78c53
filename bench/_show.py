import sys
from pathlib import Path
from bench.docs_qa import manual_corpus

manual, page = sys.argv[1], sys.argv[2]
c = manual_corpus(Path("../shared/data/qa/docs") / manual)
d = c.fetch(f"corpus://{manual}/{page}")
text = d.text
if len(sys.argv) > 3:
    i = text.find(sys.argv[3])
    print(repr(text[max(0, i - 1500) : i + 1500]))
else:
    print(d.title)
    print(text[:4000])
