"""Hypotheses proposed after the first round: claims worth testing, each with what would support
or refute it, and the evidence already on each side.

``propose_extractive`` needs no model and is deterministic: one hypothesis per conflict (the first
side's account holds) and one per finding that rests on a single source (it holds beyond that
source). ``ModelHypothesisProposer`` asks a chat model, and copes with what models do: a duplicate
statement is kept once, an id that was not shown is dropped, a statement without evidence is kept
with none (it is still worth testing).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from researchapp.core.enums import FindingStatus, HypothesisStance, Stance
from researchapp.pipeline import structured
from researchapp.pipeline.values import ReviewedFinding, UsageLog

MAX_HYPOTHESES = 5
MAX_LINKS = 6
CONFLICT_EN = re.compile(r"^Sources disagree on (?P<topic>.+?): (?P<first>.+) vs (?P<second>.+)$")
CONFLICT_ZH = re.compile(r"^来源在(?P<topic>.+?)上存在分歧：(?P<first>.+) 对 (?P<second>.+)$")


@dataclass(frozen=True)
class HypothesisLink:
    evidence_id: int
    stance: HypothesisStance


@dataclass(frozen=True)
class ProposedHypothesis:
    """``key`` is stable for the same input, so proposing again upserts rather than adds."""

    key: str
    statement: str
    supports_if: str
    refutes_if: str
    links: tuple[HypothesisLink, ...] = ()


def propose_extractive(
    question: str, findings: Sequence[ReviewedFinding], *, limit: int = MAX_HYPOTHESES
) -> list[ProposedHypothesis]:
    """Conflicts first (in the order given), then single-source findings; at most ``limit``."""
    proposed = [conflict_hypothesis(f) for f in findings if f.status == FindingStatus.CONFLICT]
    proposed += [
        single_source_hypothesis(f)
        for f in findings
        if f.status == FindingStatus.SUPPORTED and f.confidence == "medium" and f.links
    ]
    return dedupe(proposed)[:limit]


def conflict_hypothesis(finding: ReviewedFinding) -> ProposedHypothesis:
    statement = finding.statement.strip()
    english, chinese = CONFLICT_EN.match(statement), CONFLICT_ZH.match(statement)
    if chinese:
        topic, first, second = chinese["topic"], chinese["first"], chinese["second"]
        claim = f"{topic}是{first}，而不是{second}"
        supports_if = f"更多独立来源给出{first}"
        refutes_if = f"独立来源给出{second}，或说明{first}有误"
    elif english:
        topic, first, second = english["topic"], english["first"], english["second"]
        claim = f"{_capitalised(topic)} is {first}, not {second}"
        supports_if = f"Further independent sources report {first} for {topic}."
        refutes_if = f"Independent sources report {second}, or explain why {first} is wrong."
    else:
        # A model's conflict states what its supporting passages say; the others say otherwise.
        claim = statement
        supports_if = "Further independent sources state it."
        refutes_if = "Independent sources state otherwise, as the contradicting passages do."
    return ProposedHypothesis(
        key=f"conflict:{finding.id}",
        statement=claim,
        supports_if=supports_if,
        refutes_if=refutes_if,
        links=_links_of(finding),
    )


def single_source_hypothesis(finding: ReviewedFinding) -> ProposedHypothesis:
    statement = finding.statement.strip()
    return ProposedHypothesis(
        key=f"single-source:{finding.id}",
        statement=statement,
        supports_if="A second, independent source states the same.",
        refutes_if="An independent source states otherwise, or the one source turns out to copy another.",
        links=_links_of(finding),
    )


def _links_of(finding: ReviewedFinding) -> tuple[HypothesisLink, ...]:
    """A finding's supporting passages support the hypothesis; its contradicting ones refute it."""
    stance = {Stance.SUPPORTS: HypothesisStance.SUPPORT, Stance.CONTRADICTS: HypothesisStance.REFUTE}
    every = (*finding.links, *finding.set_aside)
    return tuple(
        dict.fromkeys(HypothesisLink(link.evidence_id, stance[Stance(link.stance)]) for link in every)
    )


def dedupe(proposed: Sequence[ProposedHypothesis]) -> list[ProposedHypothesis]:
    """The first of hypotheses that say the same thing (case and spacing aside)."""
    seen: set[str] = set()
    kept = []
    for hypothesis in proposed:
        fingerprint = _fingerprint(hypothesis.statement)
        if fingerprint and fingerprint not in seen:
            seen.add(fingerprint)
            kept.append(hypothesis)
    return kept


def _fingerprint(statement: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", statement.casefold()).split())


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- the model engine ---------------------------------------------------------------------------

SYSTEM = f"""You propose hypotheses for a research question from the first round's findings.
{structured.UNTRUSTED_NOTICE}
- A hypothesis is one testable statement that the findings raise but do not settle: which side of \
a disagreement is right, whether a claim made by one source holds, how options compare.
- For each, say what evidence would support it and what would refute it.
- Cite passages already found that bear on it, by numeric id (E12 is cited as 12), with stance \
"support" or "refute". Cite only ids that appear below; cite none if none bears on it.
- At most {MAX_HYPOTHESES} hypotheses, no two saying the same thing.
Answer with one JSON object that matches the schema, nothing else."""


def hypotheses_schema(ids: Sequence[int]) -> dict[str, Any]:
    link = structured.json_object(
        {"id": structured.id_enum(ids), "stance": {"type": "string", "enum": ["support", "refute"]}}
    )
    return structured.json_object(
        {
            "hypotheses": {
                "type": "array",
                "maxItems": MAX_HYPOTHESES,
                "items": structured.json_object(
                    {
                        "statement": {"type": "string"},
                        "supports_if": {"type": "string"},
                        "refutes_if": {"type": "string"},
                        "evidence": {"type": "array", "maxItems": MAX_LINKS, "items": link},
                    }
                ),
            }
        }
    )


class ModelHypothesisProposer(structured.ModelStage):
    stage = "hypotheses"
    max_tokens = 60 + MAX_HYPOTHESES * (220 + 16 * MAX_LINKS)

    def propose(
        self, question: str, findings: Sequence[ReviewedFinding], *, usage: UsageLog
    ) -> list[ProposedHypothesis]:
        shown = [f for f in findings if f.status != FindingStatus.INSUFFICIENT]
        if not shown:
            return []  # nothing found yet: a model asked anyway would guess
        ids = sorted({item.id for finding in shown for item in finding.evidence})
        return self.ask(
            hypotheses_messages(question, shown),
            lambda data: hypotheses_from_answer(data, set(ids)),
            usage,
            schema=hypotheses_schema(ids) if ids else hypotheses_schema([0]),
        )


def hypotheses_messages(question: str, findings: Sequence[ReviewedFinding]) -> list[structured.Message]:
    blocks = []
    for finding in findings:
        passages = "\n".join(structured.untrusted_source(item) for item in finding.evidence)
        blocks.append(
            f'<finding id="{finding.id}" status="{finding.status}">\n'
            f"<statement>{structured.defuse(finding.statement)}</statement>\n{passages}\n</finding>"
        )
    user = f"<question>{structured.defuse(question)}</question>\n\n" + "\n".join(blocks)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def hypotheses_from_answer(data: dict[str, Any], allowed: set[int]) -> list[ProposedHypothesis]:
    """Check each hypothesis; invented ids are dropped (not fatal: the statement can still be
    tested), duplicates kept once. Keys hash the statement, so the same answer upserts."""
    proposed = []
    for where, item in structured.objects_in(data, "hypotheses", "the answer"):
        statement = structured.text_of(item, "statement", where)
        links: dict[int, HypothesisLink] = {}
        for link in structured.field_of(item, "evidence", list, where):
            if not isinstance(link, dict):
                continue
            evidence_id, stance = link.get("id"), link.get("stance")
            if isinstance(evidence_id, bool) or evidence_id not in allowed:
                continue
            if stance not in (HypothesisStance.SUPPORT, HypothesisStance.REFUTE):
                continue
            links.setdefault(evidence_id, HypothesisLink(evidence_id, HypothesisStance(stance)))
        digest = hashlib.sha256(_fingerprint(statement).encode()).hexdigest()[:16]
        proposed.append(
            ProposedHypothesis(
                key=f"model:{digest}",
                statement=statement,
                supports_if=structured.text_of(item, "supports_if", where),
                refutes_if=structured.text_of(item, "refutes_if", where),
                links=tuple(links.values())[:MAX_LINKS],
            )
        )
    return dedupe(proposed)[:MAX_HYPOTHESES]
