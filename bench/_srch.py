import sys
from pathlib import Path
from bench.docs_qa import manual_corpus
c = manual_corpus(Path('../shared/data/qa/docs')/sys.argv[1])
for h in c.search(sys.argv[2], max_results=8): print(round(h.score,3), h.url, '|', h.snippet[:100])
