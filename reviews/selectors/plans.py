"""Reads for the plan gate: the plan under review with its earlier versions, and what changed
between two versions (sub-questions added, removed, edited word by word, moved)."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from django.db.models import Prefetch

from researchapp.models import Plan, ResearchTask, SubQuestion
from researchapp.pipeline.text.tokens import tokenize


@dataclass(frozen=True)
class PlanReview:
    task: ResearchTask
    plan: Plan | None
    subquestions: list[SubQuestion]
    earlier: list[Plan]  # earlier versions, newest first, with the feedback that replaced them

    @property
    def uncovered(self) -> int:
        """Sub-questions the answerability probe found nothing relevant for."""
        return sum((sq.coverage or {}).get("status") == "uncovered" for sq in self.subquestions)

    @property
    def covers_nothing(self) -> bool:
        return bool(self.subquestions) and self.uncovered == len(self.subquestions)

    @property
    def editable(self) -> bool:
        return (
            self.plan is not None
            and self.plan.is_editable
            and self.task.status == ResearchTask.Status.AWAITING_PLAN_REVIEW
        )


def plan_for_review(task: ResearchTask) -> PlanReview:
    """Every version, newest first, each with its sub-questions (one query for all of them)."""
    ordered = SubQuestion.objects.order_by("order", "id")
    plans = list(
        task.plans.select_related("decided_by")
        .prefetch_related(Prefetch("subquestions", queryset=ordered, to_attr="ordered_subquestions"))
        .order_by("-version")
    )
    plan = plans[0] if plans else None
    subquestions = plan.ordered_subquestions if plan else []
    return PlanReview(task=task, plan=plan, subquestions=subquestions, earlier=plans[1:])


@dataclass(frozen=True)
class SubQuestionChange:
    """One line of a diff between two plan versions."""

    kind: str  # "added", "removed", "changed" or "moved"
    text: str
    before: str = ""  # the earlier text of a changed sub-question
    text_diff: tuple[tuple[str, str], ...] = ()  # (" ", "+" or "-", words) runs of a changed text
    queries_added: tuple[str, ...] = ()
    queries_removed: tuple[str, ...] = ()
    position: int = 0  # 1-based, in the later version (in the earlier one for "removed")
    was_position: int = 0


@dataclass(frozen=True)
class PlanVersion:
    plan: Plan
    changes: tuple[SubQuestionChange, ...]  # against the version before it (none for v1)
    previous: int | None  # that version's number


SAME_SUBQUESTION = 0.5  # distinctive words this alike (Jaccard) make two texts one sub-question, edited


def plan_versions(review: PlanReview) -> list[PlanVersion]:
    """Each version, newest first, with what changed from the one before it."""
    plans = [review.plan, *review.earlier] if review.plan else []
    versions = []
    for plan, older in zip(plans, [*plans[1:], None], strict=True):
        changes = plan_changes(older.ordered_subquestions, plan.ordered_subquestions) if older else ()
        versions.append(PlanVersion(plan, tuple(changes), older.version if older else None))
    return versions


def plan_changes(before: list[SubQuestion], after: list[SubQuestion]) -> list[SubQuestionChange]:
    """1. Pair each later sub-question with the earlier one of the same text, else the one left whose
    distinctive words are most alike (``SAME_SUBQUESTION``; the words every sub-question of both
    versions shares, like the question's subject, say nothing). 2. Paired: changed text or
    queries, or moved.
    3. Unpaired: added; earlier ones left over: removed. 4. Moved: paired rows out of their order."""
    words = {id(sq): set(tokenize(sq.text)) for sq in (*before, *after)}
    # Words every sub-question of each version has (the subject) tell none of them apart.
    everywhere = set.intersection(*words.values()) if len(before) > 1 and len(after) > 1 else set()
    left = dict(enumerate(before))
    pairs: dict[int, int] = {}
    for j, new in enumerate(after):
        same = next((i for i, old in left.items() if old.text == new.text), None)
        if same is None and left:
            score, best = max(
                (_alike(words[id(old)] - everywhere, words[id(new)] - everywhere), i)
                for i, old in left.items()
            )
            same = best if score >= SAME_SUBQUESTION else None
        if same is not None:
            pairs[j] = same
            del left[same]
    in_place = _in_order([pairs[j] for j in sorted(pairs)])
    changes = []
    for j, new in enumerate(after):
        if j not in pairs:
            changes.append(
                SubQuestionChange("added", new.text, queries_added=tuple(new.queries), position=j + 1)
            )
            continue
        old = before[pairs[j]]
        added = tuple(q for q in new.queries if q not in old.queries)
        removed = tuple(q for q in old.queries if q not in new.queries)
        if old.text != new.text or added or removed:
            changes.append(
                SubQuestionChange(
                    "changed", new.text, before=old.text if old.text != new.text else "",
                    text_diff=word_diff(old.text, new.text) if old.text != new.text else (),
                    queries_added=added, queries_removed=removed, position=j + 1, was_position=pairs[j] + 1,
                )
            )  # fmt: skip
        elif pairs[j] not in in_place:
            changes.append(SubQuestionChange("moved", new.text, position=j + 1, was_position=pairs[j] + 1))
    changes += [
        SubQuestionChange("removed", old.text, queries_removed=tuple(old.queries), was_position=i + 1)
        for i, old in left.items()
    ]
    return changes


def _alike(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _in_order(positions: list[int]) -> set[int]:
    """The longest run of earlier positions still in order: the rows that stayed; the others moved
    (one row moved to the top is one move, not a shift of every row after it)."""
    best: list[list[int]] = []
    for position in positions:
        longest = max((run for run in best if run[-1] < position), key=len, default=[])
        best.append([*longest, position])
    return set(max(best, key=len, default=[]))


def word_diff(before: str, after: str) -> tuple[tuple[str, str], ...]:
    """Runs of words kept (" "), removed ("-") and added ("+"); Chinese text by character."""
    split = (
        (lambda text: list(text)) if any("\u4e00" <= ch <= "\u9fff" for ch in before + after) else str.split
    )
    joiner = "" if split is not str.split else " "
    a, b = split(before), split(after)
    runs: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            runs.append((" ", joiner.join(a[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("-", joiner.join(a[i1:i2])))
        if j2 > j1:
            runs.append(("+", joiner.join(b[j1:j2])))
    return tuple(runs)
