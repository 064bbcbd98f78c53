"""The outside world of a standard task, on 127.0.0.1, with realistic latency and a log of every wait.

- a web of article pages (invented: the tram lines of made-up cities), each answering after a
  latency fixed by its URL (200–1500 ms, from a hash: the same page is always as slow);
- a Tavily-shaped search API (``tests.stubs.tavily_api.StubTavily``) answering after 300 ms;
- an OpenAI-shaped chat API (``tests.stubs.openai_api.StubOpenAI``, its default answers) after 1 s,
  planning the standard task's 5 sub-questions of 2 queries each. Each sub-question's two queries
  return 5 of its 6 pages each, so collection opens exactly 6 pages per sub-question.

Each task's question names its own city (``question_for(case)``); its planned queries and its
pages (under ``/<city>/``) name that city, so no two tasks share a search or a page.

Every answer is logged as a ``Wait`` (kind, key, sub-question, started, seconds). ``scale``
multiplies every latency (the throughput benchmark runs at 0.1 to fit its time budget).
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
import time
from dataclasses import dataclass, replace
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, override

from tests.stubs.openai_api import StubOpenAI, by_stage, schema_name
from tests.stubs.tavily_api import StubTavily, tavily_result

QUESTION = "How has the {city} tram line performed since it opened in 2021?"
# Every task asks about the tram of its own (invented) city: its queries and pages differ from
# every other task's, so the app's page and search cache (a real feature) cannot answer one task
# from another's fetches, and the city's name is in its pages as it would be in real ones.
_CITY_IN_QUESTION = re.compile(r"How has the (?P<city>[A-Z][a-z]+) tram line")
_CITY_QUERY = re.compile(r"^(?P<city>[a-z]+) (?P<query>tram .+)$")
_SYLLABLES = "ka lo mi ru se ta vo ne di fa go hu ji ke pa ro si tu wa ze".split()
SEARCH_SECONDS = 0.3
LLM_SECONDS = 1.0
PAGE_SECONDS = (0.2, 1.5)

# (sub-question, its two search queries, the template of every third paragraph of its pages)
SUBQUESTIONS = (
    (
        "What is the daily ridership of the {city} tram line?",
        ("{city} tram ridership", "{city} tram passengers per day"),
        "The {city} tram line carried {n:,} passengers a day in {year}, according to {org}. "
        "Ridership on weekdays peaks between seven and nine in the morning, "
        "when trams run every {m} minutes.",
    ),
    (
        "How punctual is the {city} tram service?",
        ("{city} tram punctuality", "{city} tram delays"),
        "{org} reported that {p} per cent of {city} trams arrived within three minutes of the timetable "
        "in {year}. Most delays were caused by traffic signals at the Old Market junction.",
    ),
    (
        "What did the {city} tram line cost to build and to run?",
        ("{city} tram construction cost", "{city} tram operating budget"),
        "Building the {city} tram line cost {n:,} thousand dollars, {org} said in {year}, and running it "
        "costs about {m} million dollars a year, of which fares cover a little under half.",
    ),
    (
        "How safe is the {city} tram line?",
        ("{city} tram safety record", "{city} tram accidents"),
        "The {city} tram line has a good safety record: {org} counted {m} accidents in {year}, all of them "
        "collisions with cars at unsignalled crossings and none fatal; "
        "{p} of those crossings now have barriers.",
    ),
    (
        "What do riders think of the {city} tram line?",
        ("{city} tram rider survey", "{city} tram satisfaction"),
        "In a survey by {org} in {year}, {p} per cent of {city} tram riders said they were satisfied with "
        "the service. Riders most often complained about crowding and about the distance between stations.",
    ),
)
ORGS = (
    "the transit authority",
    "the riders' association",
    "the city auditor",
    "{city} Council",
    "the regional transport board",
    "the Harbor Herald",
)
FILLER = (
    "{city} sits at the mouth of the Grey River and has grown by a third since the 1990s.",
    "The council published its ten-year transport plan after two rounds of public consultation.",
    "Local businesses along the route say footfall changed in ways that are hard to measure.",
    "The old bus routes that the tram replaced were redrawn to feed its stations instead.",
    "Critics and supporters agree that the next extension will be decided by the state budget.",
)


def city_name(case: int) -> str:
    """A made-up one-word city name per case number (0 → "Kakaka", 1 → "Lokaka"), unique below 8,000."""
    digits = [case % 20, (case // 20) % 20, (case // 400) % 20]
    return "".join(_SYLLABLES[d] for d in digits).capitalize()


def question_for(case: int) -> str:
    return QUESTION.format(city=city_name(case))


def page_latency(url_path: str, scale: float = 1.0) -> float:
    """200–1500 ms, fixed by the page's path (not its port), so every run sees the same web."""
    fraction = int(hashlib.sha256(url_path.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    low, high = PAGE_SECONDS
    return scale * (low + (high - low) * fraction)


def page_html(city: str, sq: int, page: int) -> str:
    """An article about sub-question ``sq`` in a news site's furniture (~12 KB of HTML, ~4 KB of text)."""
    rng = random.Random(f"{sq}-{page}")
    _, _, template = SUBQUESTIONS[sq]
    paragraphs = []
    for k in range(16):
        if k % 3 == 0:
            paragraphs.append(
                template.format(
                    city=city,
                    org=rng.choice(ORGS).format(city=city),
                    year=rng.choice((2021, 2022, 2023)),
                    n=rng.randint(20, 90) * 1000,
                    m=rng.randint(3, 15),
                    p=rng.randint(55, 97),
                )
            )
        else:
            paragraphs.append(" ".join(rng.sample(FILLER, 3)).format(city=city))
    title = f"{SUBQUESTIONS[sq][0].format(city=city).rstrip('?')}: report {page + 1}"
    nav = "".join(f'<li><a href="/section/{n}">Section {n}</a></li>' for n in range(80))
    related = "".join(
        f'<li><a href="/story/{n}">Related story {n} about the city</a></li>' for n in range(30)
    )
    body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)} | Harbor Herald</title>"
        f'<meta property="og:title" content="{escape(title)}">'
        '<meta property="article:published_time" content="2023-05-02T08:00:00Z">'
        "<script>window.analytics = {queue: []};</script><style>body{font-family:serif}</style></head><body>"
        f"<header><nav><ul>{nav}</ul></nav></header><main><article><h1>{escape(title)}</h1>{body}</article>"
        f"<aside><h2>Related</h2><ul>{related}</ul></aside></main>"
        "<footer><p>Harbor Herald. All rights reserved.</p><p>Cookie settings. Privacy. Terms.</p></footer>"
        "</body></html>"
    )


@dataclass(frozen=True)
class Wait:
    kind: str  # "search", "page", "plan", "analyse", "write"
    key: str
    subquestion: int | None
    started: float  # time.time() when the request arrived
    seconds: float  # how long the stub made it wait


class WaitLog:
    def __init__(self) -> None:
        self.waits: list[Wait] = []
        self._lock = threading.Lock()

    def add(self, wait: Wait) -> None:
        with self._lock:
            self.waits.append(wait)


class _SiteHandler(BaseHTTPRequestHandler):
    server: _Site
    protocol_version = "HTTP/1.0"

    @override
    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        site = self.server
        parts = self.path.strip("/").split("/")  # <city>/sq<i>/page<j>
        if len(parts) != 3 or not parts[1].startswith("sq") or not parts[2].startswith("page"):
            self.send_response(404)
            self.end_headers()
            return
        sq, page = int(parts[1][2:]), int(parts[2][4:])
        delay = page_latency(self.path, site.scale)
        site.log.add(Wait("page", self.path, sq, time.time(), delay))
        if site.stopping.wait(delay):
            return
        body = page_html(parts[0].capitalize(), sq, page).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class _Site(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256

    def __init__(self, log: WaitLog, scale: float) -> None:
        super().__init__(("127.0.0.1", 0), _SiteHandler)
        self.log, self.scale, self.stopping = log, scale, threading.Event()


class LatentTavily(StubTavily):
    def __init__(self, log: WaitLog, site_origin: str, scale: float) -> None:
        super().__init__(self._results)
        self.log, self.site_origin, self.scale = log, site_origin, scale
        self.query_of = {
            q: (i, n) for i, (_, queries, _) in enumerate(SUBQUESTIONS) for n, q in enumerate(queries)
        }

    def locate(self, query: str) -> tuple[str, int | None, int]:
        """(city, sub-question, which of its queries) of a planned query; sub-question None if unknown."""
        match = _CITY_QUERY.match(query.lower())
        if not match:
            return "", None, 0
        sq, which = self.query_of.get("{city} " + match["query"], (None, 0))
        return match["city"], sq, which

    def _results(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        city, sq, which = self.locate(body.get("query", ""))
        if sq is None:
            return []
        pages = range(0, 5) if which == 0 else range(1, 6)  # the two queries share 4 of 6 pages
        return [
            tavily_result(
                f"{self.site_origin}/{city}/sq{sq}/page{p}",
                f"Report {p + 1}",
                f"How the {city.capitalize()} tram line performs.",
                score=1 - p / 10,
            )
            for p in pages
        ]

    def respond(self, request, failure):
        response = super().respond(request, failure)
        query = (request.json or {}).get("query", "") if request.path == "/search" else ""
        sq = self.locate(query)[1]
        delay = SEARCH_SECONDS * self.scale
        self.log.add(Wait("search", query, sq, time.time(), delay))
        return replace(response, delay=max(response.delay, delay))


def _plan_answer(request: dict[str, Any]) -> dict[str, Any]:
    prompt = "".join(str(m.get("content") or "") for m in request.get("messages", []))
    found = _CITY_IN_QUESTION.search(prompt)
    city = found["city"] if found else "Nowhere"
    return {
        "intent": "descriptive",
        "subquestions": [
            {
                "text": text.format(city=city),
                "rationale": "Part of how the line performs.",
                "queries": [q.format(city=city.lower()) for q in queries],
            }
            for text, queries, _ in SUBQUESTIONS
        ],
    }


class LatentOpenAI(StubOpenAI):
    def __init__(self, log: WaitLog, scale: float) -> None:
        super().__init__(by_stage(plan=_plan_answer))
        self.log, self.scale = log, scale

    def respond(self, request, failure):
        response = super().respond(request, failure)
        stage = schema_name(request.json or {}) if request.path.endswith("/chat/completions") else "?"
        delay = LLM_SECONDS * self.scale
        self.log.add(Wait(stage or "llm", stage, None, time.time(), delay))
        return replace(response, delay=max(response.delay, delay))


class World:
    """The three stubs, started and stopped together; ``env`` points the app at them."""

    def __init__(self, scale: float = 1.0) -> None:
        self.log = WaitLog()
        self.scale = scale
        self.site = _Site(self.log, scale)
        self._site_thread = threading.Thread(target=self.site.serve_forever, args=(0.05,), daemon=True)
        self.site_origin = f"http://127.0.0.1:{self.site.server_port}"
        self.tavily = LatentTavily(self.log, self.site_origin, scale)
        self.openai = LatentOpenAI(self.log, scale)

    def __enter__(self) -> World:
        self._site_thread.start()
        self.tavily.start()
        self.openai.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.site.stopping.set()
        self.site.shutdown()
        self.site.server_close()
        self.tavily.stop()
        self.openai.stop()

    @property
    def env(self) -> dict[str, str]:
        return {
            "TAVILY_API_KEY": "tvly-bench",
            "TAVILY_API_BASE_URL": self.tavily.base_url,
            "OPENAI_API_KEY": "sk-bench",
            "OPENAI_BASE_URL": self.openai.base_url,
            "FETCH_ALLOWED_HOSTS": f"127.0.0.1:{self.site.server_port}",
            "RESEARCH_ENGINE": "openai",
            "RESEARCH_SEARCH_PROVIDER": "tavily",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }


def _query_index(query: str) -> int | None:
    """Which of its sub-question's two planned queries ``query`` is (0 or 1); None if not planned."""
    match = _CITY_QUERY.match(query.lower())
    if not match:
        return None
    planned = {q.format(city=""): n for _, queries, _ in SUBQUESTIONS for n, q in enumerate(queries)}
    return planned.get(" " + match["query"])


def _collect_legs(
    waits: list[Wait], searches: list[Wait], pages: list[Wait]
) -> tuple[list[float], list[float]]:
    """Per sub-question: its slowest search but the probe plus its slowest page; and with the probe."""
    collect_legs, old_legs = [], []
    for sq in {w.subquestion for w in waits if w.subquestion is not None}:
        own = [w for w in searches if w.subquestion == sq]
        slowest_page = max((w.seconds for w in pages if w.subquestion == sq), default=0)
        collect_legs.append(
            max((w.seconds for w in own if _query_index(w.key) != 0), default=0) + slowest_page
        )
        old_legs.append(max((w.seconds for w in own), default=0) + slowest_page)
    return collect_legs, old_legs


def longest_chain(waits: list[Wait]) -> dict[str, float]:
    """The waits no amount of concurrency can overlap, from the log of one task.

    chain = plan calls
          + the slowest probe search (planning searches each sub-question's first query before the
            plan review, to see whether the sources cover it; collection then finds it cached)
          + max over sub-questions of (its slowest other search + its slowest page)
          + the slowest follow-on search (a query the plan did not have, from what the pages said)
          + the slowest judge call before writing (disagreements across the whole task's evidence)
          + the slowest analyse call (sub-questions are independent, so their analyses could overlap)
          + the slowest support check (each follows its sub-question's analysis)
          + every write call (a revision needs the draft before it)
          + the slowest judge call after writing (the writer's guard on its statements' quotes)
    ``chain_before_issue_21`` leaves out the probe, the follow-on search and the judges, as the
    chain did before they existed. ``analyse_serial`` is the chain with every analyse, support and
    judge call in a row, as a loop inside one stage would run them.
    """
    by_kind: dict[str, list[Wait]] = {}
    for wait in waits:
        by_kind.setdefault(wait.kind, []).append(wait)
    searches = by_kind.get("search", [])
    probe = max((w.seconds for w in searches if _query_index(w.key) == 0), default=0)
    follow_on = max((w.seconds for w in searches if w.subquestion is None), default=0)
    collect_legs, old_legs = _collect_legs(waits, searches, by_kind.get("page", []))
    plan = sum(w.seconds for w in by_kind.get("plan", []))
    analyse = [w.seconds for w in by_kind.get("analyse", [])]
    support = [w.seconds for w in by_kind.get("support", [])]
    write = sum(w.seconds for w in by_kind.get("write", []))
    writing_from = min((w.started for w in by_kind.get("write", [])), default=float("inf"))
    judges = by_kind.get("judge", [])
    judge_before = max((w.seconds for w in judges if w.started < writing_from), default=0)
    judge_after = max((w.seconds for w in judges if w.started >= writing_from), default=0)
    middle = max(analyse, default=0) + max(support, default=0) + write
    chain = plan + probe + max(collect_legs, default=0) + follow_on + judge_before + middle + judge_after
    return {
        "chain": chain,
        "chain_before_issue_21": plan + max(old_legs, default=0) + middle,
        "chain_analyse_serial": chain
        - max(analyse, default=0)
        - max(support, default=0)
        - judge_before
        - judge_after
        + sum(analyse)
        + sum(support)
        + sum(w.seconds for w in judges),
        "sequential_sum": sum(w.seconds for w in waits),
        "plan": plan,
        "probe": probe,
        "collect_leg": max(collect_legs, default=0),
        "follow_on": follow_on,
        "judges": judge_before + judge_after,
        "judge_sum": sum(w.seconds for w in judges),
        "analyse_max": max(analyse, default=0),
        "analyse_sum": sum(analyse),
        "write": write,
        "calls": {kind: len(items) for kind, items in sorted(by_kind.items())},
    }
