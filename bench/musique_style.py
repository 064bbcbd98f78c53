"""A MuSiQue-style multi-hop set, built from HotpotQA records at run time (nothing is copied into the repo).

MuSiQue differs from HotpotQA in what makes it hard for a retriever: 20 paragraphs per question
instead of 10, distractors chosen because they *look* relevant (retrieved with the question), and
gold at paragraph level. This module turns each HotpotQA record into that shape:

- its own 10 paragraphs (2 supporting, 8 distractors), each one MuSiQue ``paragraph``;
- 10 more hard distractors: the paragraphs of *other* records that BM25 ranks highest for the
  question (titles the record already has are skipped), so a question about a band meets other
  bands' paragraphs;
- paragraphs shuffled deterministically (seeded by the record id), ``is_supporting`` kept.

The records keep MuSiQue's keys (``id, question, answer, paragraphs: [{idx, title, paragraph_text,
is_supporting}]``), so ``bench.evidence_recall`` scores them exactly as it scores MuSiQue files.

    python -m bench.musique_style --data ../shared/data/multihop/hotpotqa_train100.jsonl --out /tmp/ms.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from bench.common import DATA_ROOT, require_path

HARD_DISTRACTORS = 10


def _paragraph(title: str, sentences: list[str]) -> str:
    return " ".join(sentence.strip() for sentence in sentences if sentence.strip())


def build(records: list[dict], *, hard: int = HARD_DISTRACTORS) -> list[dict]:
    """One MuSiQue-shaped record per HotpotQA record (see the module docstring)."""
    from researchapp.pipeline.text.bm25 import BM25
    from researchapp.pipeline.text.tokens import tokenize

    pool: list[tuple[int, str, str]] = []  # (record index, title, text)
    for index, record in enumerate(records):
        for title, sentences in record["context"]:
            text = _paragraph(title, sentences)
            if text:
                pool.append((index, title, text))
    index_bm25 = BM25([tokenize(f"{title} {text}") for _, title, text in pool])
    built = []
    for index, record in enumerate(records):
        supporting = {title for title, _ in record.get("supporting_facts", [])}
        own_titles = {title for title, _ in record["context"]}
        paragraphs = [
            {
                "title": title,
                "paragraph_text": _paragraph(title, sentences),
                "is_supporting": title in supporting,
            }
            for title, sentences in record["context"]
            if _paragraph(title, sentences)
        ]
        # Half the hard distractors look like the question, half like a supporting paragraph (as
        # MuSiQue's do: each hop's paragraph has look-alikes), taken in turn.
        gold_texts = [p["title"] + " " + p["paragraph_text"] for p in paragraphs if p["is_supporting"]]
        rankings = [index_bm25.top(tokenize(query), 200) for query in [record["question"], *gold_texts]]
        seen = set(own_titles)
        wanted = len(paragraphs) + hard
        for layer in range(200):
            for ranking in rankings:
                if layer >= len(ranking) or len(paragraphs) >= wanted:
                    continue
                owner, title, text = pool[ranking[layer][0]]
                if owner != index and title not in seen:
                    seen.add(title)
                    paragraphs.append({"title": title, "paragraph_text": text, "is_supporting": False})
            if len(paragraphs) >= wanted:
                break
        random.Random(record["id"]).shuffle(paragraphs)
        for idx, paragraph in enumerate(paragraphs):
            paragraph["idx"] = idx
        built.append(
            {
                "id": f"ms-{record['id']}",
                "question": record["question"],
                "answer": record.get("answer", ""),
                "paragraphs": paragraphs,
            }
        )
    return built


def load_hotpot(path: Path) -> list[dict]:
    with require_path(path).open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.musique_style")
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "multihop" / "hotpotqa_train100.jsonl")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    records = build(load_hotpot(args.data))
    with args.out.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{len(records)} MuSiQue-style records written to {args.out}")


if __name__ == "__main__":
    main()
