"""The report as structure: what the writer decided to say, stored with each draft, rendered to every format.

Text here is data (claims, statements, queries, notes are other people's words): no value holds
markup, and every renderer escapes it for its format. Citation markers are not part of any text;
they are drawn from ``evidence_ids``. Quotes are not copied here either: a ``Passage`` names its
evidence row, whose quote the ledger holds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from researchapp.pipeline.report.labels import EN

# Where a passage stands in a dispute or a gap, or on which side of a hypothesis.
KEPT, SET_ASIDE, CLOSEST = "kept", "set aside", "closest"
READ_FROM = "read from"  # the passage a computed figure's input was read from
FOR, AGAINST = "for", "against"


@dataclass(frozen=True)
class Statement:
    """A sentence the report asserts, and the evidence ids that back it (its markers)."""

    text: str
    evidence_ids: tuple[int, ...]
    answer: str = ""  # the words of ``text`` that answer its sub-question, shown first; "" if none


@dataclass(frozen=True)
class Section:
    """One sub-question: its answer (stated in the report's opening lines), its other claims, or a
    note saying why there are none."""

    subquestion_id: int
    heading: str
    statements: tuple[Statement, ...] = ()
    note: str = ""
    answer: str = ""  # this sub-question's answer, as the opening lines state it


@dataclass(frozen=True)
class Passage:
    """A quote shown in full as part of a record (a dispute's side, a gap's closest passage)."""

    evidence_id: int
    role: str  # "supports", "contradicts", KEPT, SET_ASIDE or CLOSEST


AUTO_APPROVED = "auto-approved"  # the note a gate passed by ``--auto-approve`` leaves (services)


@dataclass(frozen=True)
class Decision:
    """What an analyst decided about a finding, who, when (ISO 8601, UTC) and why; empty if nobody did."""

    resolution: str = ""
    by: str = ""
    at: str = ""
    note: str = ""

    @property
    def reason(self) -> str:
        """The analyst's reason; an auto-approved decision's note is its summary already."""
        return "" if self.note == AUTO_APPROVED and not self.by else self.note

    @property
    def summary(self) -> str:
        """ "one side picked (by analyst, 2025-06-01 10:12 UTC)": the decision without its reason
        (in English; ``Labels.decision_summary`` in the report's language)."""
        return EN.decision_summary(self, auto_note=AUTO_APPROVED)


@dataclass(frozen=True)
class Dispute:
    """Sources that disagree: both sides quoted, the analyst's decision, and (unless a side was
    picked, which the body then states) the report's own neutral claim about the disagreement."""

    finding_id: int
    subquestion_id: int
    topic: str
    claim: Statement | None
    passages: tuple[Passage, ...]
    decision: Decision = field(default_factory=Decision)


@dataclass(frozen=True)
class Gap:
    """A point to verify ([证据不足]): what was searched and the closest passages, never as support."""

    finding_id: int
    subquestion_id: int
    statement: str
    searched: tuple[str, ...] = ()
    passages: tuple[Passage, ...] = ()
    decision: Decision = field(default_factory=Decision)


@dataclass(frozen=True)
class TestedHypothesis:
    """A hypothesis proposed after the first round: what would support or refute it, the passages
    on each side (quoted in full, roles ``FOR``/``AGAINST``) and the analyst's verdict."""

    hypothesis_id: int
    statement: str
    supports_if: str
    refutes_if: str
    passages: tuple[Passage, ...] = ()
    decision: Decision = field(default_factory=Decision)


@dataclass(frozen=True)
class ComputedInput:
    """A number a calculation took: ``value`` is figure ``number`` (1-based) of evidence ``evidence_id``'s
    quote, bound to ``name`` in the code."""

    name: str
    evidence_id: int
    number: int
    value: float


@dataclass(frozen=True)
class ComputedFigure:
    """A figure computed in the sandbox (deep mode's ``calculate``) from numbers of quoted passages:
    the derived finding's description, the code, its inputs with the quotes they were read from,
    and the result. The checker re-reads every input from its quote before it is shown."""

    finding_id: int
    subquestion_id: int
    description: str
    code: str
    result: float
    inputs: tuple[ComputedInput, ...] = ()


def figure_text(value: float) -> str:
    """A computed value as the report writes it: 26.0 as "26", 1250000.0 as "1250000", 0.25 as
    "0.25" (the shortest text that reads back as the same float; never rounded)."""
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


@dataclass(frozen=True)
class Document:
    title: str
    answer: tuple[Statement, ...] = ()
    answer_is_summary: bool = False  # no answer claims: the sections' first claims stand in for them
    sections: tuple[Section, ...] = ()
    disputes: tuple[Dispute, ...] = ()
    gaps: tuple[Gap, ...] = ()
    hypotheses: tuple[TestedHypothesis, ...] = ()
    computed: tuple[ComputedFigure, ...] = ()
    # The sub-questions (as asked) that no source answers: the opening says the sources do not state them.
    not_stated: tuple[str, ...] = ()
    # What the writer did with an analyst's comment on the version before ("acted on: …", "not acted on: …").
    responses: tuple[str, ...] = ()

    def statements(self) -> list[Statement]:
        """Every cited sentence in reading order (a summary repeats its sections' sentences)."""
        found = list(self.answer)
        for section in self.sections:
            found += section.statements
        found += [dispute.claim for dispute in self.disputes if dispute.claim]
        return found

    def cited_ids(self) -> list[int]:
        """Evidence ids in the order a reader meets their first marker."""
        return list(dict.fromkeys(i for statement in self.statements() for i in statement.evidence_ids))

    def quoted_ids(self) -> list[int]:
        """Evidence ids whose quotes the document shows in full as records (disputes and gaps)."""
        records: list[Dispute | Gap | TestedHypothesis] = [*self.disputes, *self.gaps, *self.hypotheses]
        found = [p.evidence_id for record in records for p in record.passages]
        return list(dict.fromkeys([*found, *self.computed_ids()]))

    def computed_ids(self) -> list[int]:
        """Evidence ids the computed figures read their inputs from, in reading order."""
        return list(dict.fromkeys(i.evidence_id for figure in self.computed for i in figure.inputs))


def document_json(document: Document) -> dict[str, Any]:
    return asdict(document)


def _statement(data: dict[str, Any]) -> Statement:
    return Statement(
        str(data["text"]), tuple(int(i) for i in data.get("evidence_ids", ())), str(data.get("answer", ""))
    )


def _passages(items: list[dict[str, Any]]) -> tuple[Passage, ...]:
    return tuple(Passage(int(item["evidence_id"]), str(item["role"])) for item in items)


def _section(item: dict[str, Any]) -> Section:
    return Section(
        subquestion_id=int(item["subquestion_id"]),
        heading=str(item["heading"]),
        statements=tuple(_statement(s) for s in item.get("statements", ())),
        note=str(item.get("note", "")),
        answer=str(item.get("answer", "")),
    )


def _dispute(item: dict[str, Any]) -> Dispute:
    claim = item.get("claim")
    return Dispute(
        finding_id=int(item["finding_id"]),
        subquestion_id=int(item["subquestion_id"]),
        topic=str(item["topic"]),
        claim=_statement(claim) if claim else None,
        passages=_passages(item.get("passages", [])),
        decision=Decision(**item.get("decision", {})),
    )


def _gap(item: dict[str, Any]) -> Gap:
    return Gap(
        finding_id=int(item["finding_id"]),
        subquestion_id=int(item["subquestion_id"]),
        statement=str(item["statement"]),
        searched=tuple(str(q) for q in item.get("searched", ())),
        passages=_passages(item.get("passages", [])),
        decision=Decision(**item.get("decision", {})),
    )


def _hypothesis(item: dict[str, Any]) -> TestedHypothesis:
    return TestedHypothesis(
        hypothesis_id=int(item["hypothesis_id"]),
        statement=str(item["statement"]),
        supports_if=str(item.get("supports_if", "")),
        refutes_if=str(item.get("refutes_if", "")),
        passages=_passages(item.get("passages", [])),
        decision=Decision(**item.get("decision", {})),
    )


def _computed(item: dict[str, Any]) -> ComputedFigure:
    return ComputedFigure(
        finding_id=int(item["finding_id"]),
        subquestion_id=int(item["subquestion_id"]),
        description=str(item["description"]),
        code=str(item["code"]),
        result=float(item["result"]),
        inputs=tuple(
            ComputedInput(str(i["name"]), int(i["evidence_id"]), int(i["number"]), float(i["value"]))
            for i in item.get("inputs", ())
        ),
    )


def document_from_json(data: dict[str, Any]) -> Document:
    """The stored document (``ReportDraft.document``) as values again."""
    return Document(
        title=str(data.get("title", "")),
        answer=tuple(_statement(item) for item in data.get("answer", ())),
        answer_is_summary=bool(data.get("answer_is_summary", False)),
        sections=tuple(_section(item) for item in data.get("sections", ())),
        disputes=tuple(_dispute(item) for item in data.get("disputes", ())),
        gaps=tuple(_gap(item) for item in data.get("gaps", ())),
        hypotheses=tuple(_hypothesis(item) for item in data.get("hypotheses", ())),
        computed=tuple(_computed(item) for item in data.get("computed", ())),
        not_stated=tuple(str(text) for text in data.get("not_stated", ())),
        responses=tuple(str(text) for text in data.get("responses", ())),
    )


def document_from_claims(title: str, claims: list[dict[str, Any]], headings: dict[int, str]) -> Document:
    """The structure of a draft stored without one: its claims in the sections they name."""
    statements = [
        (str(c.get("section", "")), Statement(str(c["text"]), tuple(c["evidence_ids"]))) for c in claims
    ]
    sections = tuple(
        Section(
            subquestion_id, heading, tuple(s for section, s in statements if section == str(subquestion_id))
        )
        for subquestion_id, heading in headings.items()
    )
    disputes = tuple(
        Dispute(finding_id=0, subquestion_id=0, topic=s.text, claim=s, passages=())
        for section, s in statements
        if section == "disputed"
    )
    return Document(
        title=" ".join(title.split()),
        answer=tuple(s for section, s in statements if section == "answer"),
        sections=sections,
        disputes=disputes,
    )
