"""The content of the stub web: an invented topic, written for these tests.

Everything here is made up: the town of Marrowby, its tidal lagoon, the people and the numbers.
Articles 3 and 4 are the same story, the second a syndicated reprint with its own header,
footer and one edited sentence, as news agencies' copies are.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Article:
    path: str
    title: str
    published: str  # ISO date, in the page's metadata
    paragraphs: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.paragraphs)


_ENVIRONMENT = (
    "Three years after the sluice gates first closed, the Marrowby tidal lagoon has become the most "
    "closely watched stretch of mud on the Cardell coast. Ecologists from the Cardell Estuary Trust have "
    "counted wading birds on the lagoon flats every fortnight since the spring of 2021, and their latest "
    "report, published in February, paints a more mixed picture than either the developer or its critics "
    "predicted.",
    "The headline finding is that dunlin and redshank numbers inside the lagoon wall fell by roughly a "
    "fifth in the first two winters, while numbers on the open flats to the north rose by almost the same "
    "amount. The trust's senior ecologist, Hana Oduya, said the birds appear to have moved rather than "
    "vanished. The lagoon holds water longer than the natural flats did, so the feeding window at low "
    "tide is shorter, and the birds follow the mud.",
    "Silt is the second story. Because the turbines slow the water as it enters and leaves, fine sediment "
    "settles inside the wall at about four centimetres a year, twice the rate modelled in the 2018 "
    "environmental statement. The operator, Marrowby Tidal Power, now dredges the turbine channels every "
    "autumn, at a cost it puts at 310,000 pounds a year, and it has asked the harbour authority for "
    "permission to place the dredged material on the eroding beach at Saltfleet.",
    "Fish were the main worry before construction. The lagoon's four bulb turbines turn slowly, at about "
    "sixty revolutions a minute, and the operator installed an acoustic deterrent at each intake. Tagging "
    "studies of sea trout and eels, run by the University of Cardell, found that fewer than two per cent "
    "of tagged fish passed through a turbine, and that most of those survived the passage. The "
    "researchers cautioned that the sample was small and that one season of data cannot show a trend.",
    "Not every effect was expected. Saltmarsh has begun to spread along the inner face of the wall, where "
    "the gentler water lets seedlings take hold, and the trust counted eleven hectares of new marsh last "
    "summer. Oduya called it the quiet success of the project, though she warned that the marsh could be "
    "lost again if the operator changes how often it holds water behind the gates.",
    "The trust recommends that monitoring continue for at least ten years and that the results be "
    "published in full, including the raw bird counts. Marrowby Tidal Power said it would fund the "
    "surveys until 2030 and would release the data through the county's open data portal.",
)

ARTICLES: tuple[Article, ...] = (
    Article(
        path="/article-1",
        title="Marrowby tidal lagoon pilot passes its first winter",
        published="2022-03-14",
        paragraphs=(
            "The Marrowby tidal lagoon, the first project of its kind on the Cardell coast, has come through "
            "its first full winter of operation with its four turbines running for 91 per cent of the hours "
            "the tide allowed. The lagoon encloses 2.3 square kilometres of the bay behind a rock wall 3.1 "
            "kilometres long, and generates power twice a day as water flows in and out through the turbine "
            "house.",
            "The pilot has an installed capacity of 12 megawatts. Over the winter months it produced 9.8 "
            "gigawatt hours, slightly above the 9.2 gigawatt hours its engineers had forecast, because two "
            "storms in January pushed unusually high tides into the bay. The operator, Marrowby Tidal Power, "
            "says the lagoon should produce about 26 gigawatt hours in a normal year, enough for roughly "
            "seven thousand homes.",
            "Tidal power has one great advantage over wind and sun: it is predictable years in advance. The "
            "lagoon's output for any day of the next decade can be read from the tide tables, and the "
            "regional grid operator has already used that forecast to schedule maintenance on the Saltfleet "
            "substation around the lagoon's quiet hours, the short slack-water periods when the turbines "
            "stand still.",
            "The winter was not free of trouble. In December a seal of the second turbine failed and the "
            "unit was stopped for eleven days while divers replaced it. Engineers also found that kelp "
            "collected on the intake screens far faster than expected, and the screens are now cleaned every "
            "week rather than every month. Chief engineer Tomas Brennick said the problems were the kind a "
            "pilot exists to find.",
            "Local opinion has warmed since construction ended. A survey by the Marrowby parish council "
            "found that 64 per cent of residents supported the lagoon, up from 41 per cent before building "
            "began, and the footpath along the top of the wall has become one of the busiest walks on the "
            "coast.",
        ),
    ),
    Article(
        path="/article-2",
        title="What the Marrowby lagoon costs, and who pays for it",
        published="2022-09-02",
        paragraphs=(
            "Building the Marrowby tidal lagoon cost 48 million pounds, according to the accounts Marrowby "
            "Tidal Power filed this summer, about nine per cent more than the budget approved in 2018. The "
            "overrun came mostly from the rock wall, where a shortage of barges in 2020 forced the "
            "contractor to ship stone from a quarry twice as far away as planned.",
            "The lagoon sells its power under a fifteen-year contract at a guaranteed price of 168 pounds "
            "per megawatt hour, well above the wholesale price in most recent years. The difference is paid "
            "by a levy on electricity bills across the region, which the energy regulator estimates at about "
            "1.40 pounds per household per year while the contract lasts.",
            "Supporters argue that the comparison with wholesale prices is unfair. The wall is designed to "
            "last a hundred and twenty years, far longer than any wind turbine, and once the contract ends "
            "the lagoon's running costs are low. Finance director Ilse Carrow said the real test is the cost "
            "of a megawatt hour over the whole life of the structure, which the company puts at 71 pounds, "
            "less than new nuclear power.",
            "Critics point out that those lifetime figures depend on assumptions about interest rates and "
            "maintenance that nobody can check for decades. The Cardell Ratepayers' Association says a "
            "lagoon five times larger, which the company has proposed for the Veyne estuary, should not "
            "receive a similar contract until the pilot has run for at least five years and its costs are "
            "audited.",
            "Operating costs in the first year were 2.1 million pounds, including insurance, staff, the "
            "autumn dredging of the turbine channels and the weekly cleaning of the intake screens. The "
            "company expects those costs to fall as the crew learns the machines, but it has set aside a "
            "reserve for replacing turbine seals, the part that failed during the first winter.",
        ),
    ),
    Article(
        path="/article-3",
        title="Seabirds and silt: the Marrowby lagoon's environmental record",
        published="2024-02-20",
        paragraphs=_ENVIRONMENT,
    ),
    Article(
        path="/article-4",
        title="Birds move, silt builds up at Marrowby tidal lagoon",
        published="2024-02-22",
        paragraphs=(
            "This story first appeared in the Cardell Coastal Ledger and is republished with permission.",
            *_ENVIRONMENT[:2],
            _ENVIRONMENT[2].replace("twice the rate", "double the rate"),
            *_ENVIRONMENT[3:],
        ),
    ),
    Article(
        path="/article-5",
        title="Grid connection for the Veyne lagoon delayed to 2029",
        published="2024-06-11",
        paragraphs=(
            "The larger tidal lagoon proposed for the Veyne estuary will not be connected to the grid before "
            "2029, two years later than its developers hoped, because the regional network needs a new "
            "substation to carry its output. The Veyne project would have an installed capacity of 60 "
            "megawatts, five times the size of the Marrowby pilot that has operated on the same coast since "
            "2021.",
            "The regional grid operator told the planning inquiry that the existing Saltfleet substation is "
            "already close to its limit, carrying both the Marrowby lagoon and the Cardell offshore wind "
            "farm. A new substation at Hollin Cross, with a cable route of fourteen kilometres, is expected "
            "to cost about 35 million pounds and cannot be finished before the winter of 2028.",
            "Marrowby Tidal Power, which is behind both projects, said the delay would not change its plans "
            "but would add interest costs while the wall is built. Chief executive Petra Lindqvist told the "
            "inquiry that the Veyne lagoon would use the same turbine design as Marrowby, with improved "
            "seals, and that lessons from the pilot had cut the expected construction time by eight months.",
            "Environmental groups asked the inspector to require the same bird and fish monitoring at Veyne "
            "as at Marrowby, and to make the developer publish the raw data. The inspector is expected to "
            "report to the energy minister in the autumn, and a decision on consent could follow early next "
            "year.",
            "Residents of Hollin Cross have objected to the substation itself, which would stand on farmland "
            "next to the village school. The grid operator says it has looked at three other sites and that "
            "all of them would need longer cable routes across the marshes, with more disturbance to "
            "wildlife.",
            "The county council, which must approve the substation separately, has asked for a noise study "
            "and for screening with native hedges before it will consider the application.",
        ),
    ),
)

LINK_FARM_LINES: tuple[str, ...] = tuple(
    f"Best tidal lagoon deal #{n} - click here - www.tidal-deals-{n}.com" for n in range(1, 41)
)

LISTICLE_LINES: tuple[str, ...] = (
    "1. Tidal lagoons are big.",
    "2. The wall is long.",
    "3. Turbines spin twice a day.",
    "4. Birds like mud.",
    "5. Silt builds up.",
    "6. Kelp clogs screens.",
    "7. Seals fail sometimes.",
    "8. Costs went up.",
    "9. Bills pay a levy.",
    "10. Walkers love the path.",
    "Share this list with your friends!",
    "Subscribe for more lists.",
)

CP1252_TEXT = (
    "“The lagoon’s café is the best on the coast,” said Renée Dufort, who runs it — and at €4.50 "
    "a bowl, the chowder is a bargain. Visitors walk the wall from the naïve mural at the south gate "
    "to the turbine house, about three kilometres, and many stop for soup on the way back. The café "
    "opened in 2022 and now employs nine people in summer. Dufort said the footpath brings more "
    "customers than the village’s old pier ever did, and that the tide tables pinned by the till are "
    "the most consulted document in the building."
)

CHINESE_TEXT = (
    "马罗比潮汐泻湖是卡德尔海岸第一个潮汐发电试点项目。泻湖由一道长三点一公里的石堤围成，"
    "面积约二点三平方公里，四台水轮机每天随潮水进出发电两次。项目装机容量为十二兆瓦，"
    "运营公司表示，正常年份的发电量约为二十六吉瓦时，足够大约七千户家庭使用。"
    "潮汐发电最大的优点是可以提前多年预测，电网公司已经根据潮汐表安排变电站的检修时间。"
    "第一个冬季，第二台水轮机的密封件出现故障，停机十一天。工程师还发现海带在进水口滤网上"
    "堆积的速度远超预期，现在每周清理一次滤网。当地居民对项目的支持率从百分之四十一上升到"
    "百分之六十四，石堤顶上的步道已经成为海岸上最热闹的散步路线之一。"
)


def page_html(title: str, body_html: str, *, published: str = "", head_extra: str = "") -> str:
    """A page with the usual furniture around its article: navigation, a footer, metadata."""
    date_meta = (
        f'<meta property="article:published_time" content="{published}T08:00:00Z">' if published else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head>'
        f"{head_extra}<title>{escape(title)} | Cardell Coast News</title>"
        f'<meta property="og:title" content="{escape(title)}">{date_meta}'
        "</head><body>"
        '<header><nav><a href="/">Home</a> <a href="/links">Links</a> '
        '<a href="/listicle">Lists</a></nav></header>'
        f"<main><article>{body_html}</article></main>"
        "<footer><p>Cardell Coast News. All rights reserved.</p></footer>"
        "</body></html>"
    )


def article_html(article: Article) -> str:
    body = f"<h1>{escape(article.title)}</h1>" + "".join(f"<p>{escape(p)}</p>" for p in article.paragraphs)
    return page_html(article.title, body, published=article.published)


def link_farm_html() -> str:
    items = "".join(
        f'<li><a href="/go/{n}">{escape(line)}</a></li>' for n, line in enumerate(LINK_FARM_LINES)
    )
    return page_html("Tidal lagoon deals", f"<h1>Tidal lagoon deals</h1><ul>{items}</ul>")


def listicle_html() -> str:
    items = "".join(f"<p>{escape(line)}</p>" for line in LISTICLE_LINES)
    return page_html("Ten things about tidal lagoons", f"<h1>Ten things about tidal lagoons</h1>{items}")


def empty_html() -> str:
    return (
        "<!DOCTYPE html><html><head><title>Loading</title><script>window.app = {};</script></head>"
        '<body><nav><a href="/">Home</a></nav><div id="app"></div></body></html>'
    )


def short_html() -> str:
    return page_html("A note", "<p>The lagoon footpath is closed today for repairs to the wall.</p>")
