"""Dimensions of a question ("cost", "risks") and the measured things a figure can be about.

A dimension sub-question ("How do A and B differ in cost?") is answered only by passages that
speak to the dimension: a paragraph that merely names A and B says nothing about their cost.
Each dimension has a few trigger words, which tell that a sub-question asks about it, and a
small vocabulary in English and Chinese, one of whose words a passage must contain.

Attributes are the measured nouns next to a figure ("efficiency", "market share", "price"):
two figures disagree only when they measure the same attribute, and an attribute belongs to
the dimension under which a disagreement about it is reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import SubQuestion


def _terms(words: str) -> frozenset[str]:
    """Words as the tokenizer folds them ("costs" → "cost"), so they meet passage tokens."""
    return frozenset(term for word in words.split() for term in tokenize(word))


@dataclass(frozen=True)
class Dimension:
    name: str
    triggers: frozenset[str]  # words of a sub-question that ask about this dimension
    vocabulary: frozenset[str]  # words of a passage that speak to it
    money: bool = False  # an amount of money speaks to it too ("€4,200")


def _dimension(name: str, triggers: str, vocabulary: str, *, money: bool = False) -> Dimension:
    return Dimension(name, _terms(triggers), _terms(f"{triggers} {vocabulary}"), money)


DIMENSIONS: tuple[Dimension, ...] = (
    _dimension(
        "cost",
        "cost price pricing 成本 价格",
        """priced cheap cheaper cheapest expensive afford affordable affordability fee fees euro
        euros dollar dollars spend spending pay paid budget subsidy subsidies tariff 费用 便宜 昂贵
        售价 花费 收费 元""",
        money=True,
    ),
    _dimension(
        "performance",
        "performance 性能",
        """perform performs performed efficiency efficient speed fast faster slow slower benchmark
        measured measurement capacity throughput latency test tested testing cycle cycles lifetime
        lifespan durability durable reliability reliable power output range result results score
        accuracy accurate 效率 速度 测试 容量 续航 寿命 功率 跑分""",
    ),
    _dimension(
        "adoption",
        "adoption popularity 采用 普及",
        """adopt adopted popular market share users customers subscribers sales sold sell selling
        bestseller installed installs downloads uptake penetration deployment deployed 市场 份额
        用户 销量 占有""",
    ),
    _dimension(
        "risks",
        "risk risks limitation limitations drawback drawbacks 风险 局限",
        """risky limit limits limited downside downsides disadvantage safety safe unsafe hazard
        hazardous danger dangerous failure failures fail fails failed recall recalls fire
        degradation degrade degrades weakness weak problem problems concern concerns criticism
        criticised criticized vulnerability vulnerable defect defects warning 缺点 不足 安全 隐患
        故障 问题 缺陷 危险""",
    ),
    _dimension(
        "recent",
        "recent latest 最近 最新 进展",
        """recently new newly launch launched announce announced introduce introduced unveil
        unveiled release released update updated upgrade today now currently 近期 推出 发布 宣布
        今年 目前""",
    ),
    _dimension(
        "causes",
        "cause causes driver drivers 原因 驱动",
        """caused because due reason reasons driven drive drives lead leads led result results
        factor factors owing 导致 因为 由于 推动""",
    ),
    _dimension(
        "outlook",
        "expected future outlook forecast coming 未来 预计",
        """expect expects expectation forecasts predict predicted prediction projected projection
        anticipate anticipated plan plans planned next 预测 展望 趋势 计划""",
    ),
    _dimension(
        "benefits",
        "benefit benefits 收益",
        "advantage advantages gain gains improve improved improvement saving savings save better"
        " 优点 优势 好处",
    ),
    _dimension(
        "evaluation",
        "evaluation evaluations 评测",
        """evaluate evaluated test tested review reviewed benchmark study studies measured trial
        trials assessment 测试 研究 评估""",
    ),
    _dimension(
        "experts",
        "expert experts 专家",
        "recommend recommended recommendation advice advise guidance guideline suggest 建议 推荐",
    ),
)


def dimensions_of(subquestion: SubQuestion) -> tuple[Dimension, ...]:
    """The dimensions a sub-question's text asks about ("... differ in cost?" → cost).

    A trigger word that is part of the subject's name ("The Price Is Right") makes its own
    passages qualify, since they name the subject: reading the text alone is safe.
    """
    asked = set(tokenize(subquestion.text))
    return tuple(dimension for dimension in DIMENSIONS if dimension.triggers & asked)


def dimension_vocabulary(dimensions: Iterable[Dimension]) -> frozenset[str]:
    return frozenset(term for dimension in dimensions for term in dimension.vocabulary)


def speaks_to(dimensions: Sequence[Dimension], terms: Iterable[str], *, has_money: bool = False) -> bool:
    """A passage (its terms) speaks to at least one of the dimensions; true when there are none."""
    if not dimensions:
        return True
    if has_money and any(dimension.money for dimension in dimensions):
        return True
    vocabulary = dimension_vocabulary(dimensions)
    return any(term in vocabulary for term in terms)


# --- attributes of figures --------------------------------------------------------------------

# name → (words, dimension a disagreement about it is reported under, "" for none)
_ATTRIBUTE_WORDS: dict[str, tuple[str, str]] = {
    "price": ("cost costs price priced pricing retail fee fees 价格 成本 售价 费用", "cost"),
    "efficiency": ("efficiency efficient 效率", "performance"),
    "share": ("share market 份额", "adoption"),
    "sales": ("sales sold shipments shipped 销量", "adoption"),
    "users": ("users customers subscribers downloads installations 用户", "adoption"),
    "cycles": ("cycle cycles", "performance"),
    "capacity": ("capacity stores kwh 容量", "performance"),
    "speed": ("speed throughput latency bandwidth 速度", "performance"),
    "power": ("power output watts 功率", "performance"),
    "range": ("range 续航", "performance"),
    "lifetime": ("lifetime lifespan 寿命", "performance"),
    "population": ("population inhabitants residents 人口", ""),
    "area": ("area 面积", ""),
    "height": ("height tall high altitude elevation 高度", ""),
    "length": ("length long 长度", ""),
    "depth": ("depth deep 深度", ""),
    "weight": ("weight weighs heavy 重量", ""),
    "age": ("age aged 年龄", ""),
    "revenue": ("revenue revenues turnover income 收入 营收", ""),
    "profit": ("profit profits earnings 利润", ""),
    "employees": ("employees staff workforce 员工", ""),
    "temperature": ("temperature 温度", ""),
}
ATTRIBUTES: dict[str, str] = {
    term: name for name, (words, _) in _ATTRIBUTE_WORDS.items() for term in _terms(words)
}
ATTRIBUTE_DIMENSION: dict[str, str] = {name: dimension for name, (_, dimension) in _ATTRIBUTE_WORDS.items()}


def attribute_in_scope(attribute: str, dimensions: Sequence[Dimension]) -> bool:
    """A figure's attribute belongs under these dimensions (an unknown one belongs anywhere)."""
    if not attribute or not dimensions:
        return True
    return ATTRIBUTE_DIMENSION.get(attribute, "") in {dimension.name for dimension in dimensions}
