"""Run the stubs (Tavily-shaped search, a small web, an OpenAI-shaped model, the academic APIs) for live mode.

    .venv/bin/python -m tests.stubs.serve [--env-file PATH] [--seconds N]

Prints the environment that points the app at them; everything listens on 127.0.0.1 only.
The search answers from the stub web's articles plus a few pages that must fail (a 500, an
image, binary bytes served as HTML, a redirect to another loopback address, a 5 MB page).
"""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path

from tests.live import FAILING_PAGES, web_results
from tests.stubs.academic_api import StubAcademic, StubPaper
from tests.stubs.openai_api import StubOpenAI
from tests.stubs.tavily_api import StubTavily
from tests.stubs.web import StubWeb

# Invented, like the stub web: papers the academic APIs answer about the Marrowby tidal lagoon.
PAPERS = [
    StubPaper(
        title="Sediment build-up in the turbine channels of the Marrowby tidal lagoon",
        abstract="We measured silt in the Marrowby tidal lagoon's turbine channels over three winters. "
        "Deposition averaged 40 centimetres a year, twice the rate the environmental statement assumed.",
        doi="10.5555/marrowby.2024.17",
        authors=("Ilse Marten", "Tomas Reyes"),
        venue="Journal of Coastal Engineering (invented)",
        year=2024,
        arxiv_id="2402.01717",
    ),
]


def environment(
    web: StubWeb, tavily: StubTavily, openai: StubOpenAI, academic: StubAcademic
) -> dict[str, str]:
    return {
        "RESEARCH_SEARCH_PROVIDER": "tavily",
        "RESEARCH_ENGINE": "openai",
        "TAVILY_API_KEY": "tvly-stub",
        "TAVILY_API_BASE_URL": tavily.base_url,
        "OPENAI_API_KEY": "sk-stub",
        "OPENAI_BASE_URL": openai.base_url,
        "OPENAI_MODEL": "stub-model",
        "FETCH_ALLOWED_HOSTS": ",".join(sorted(web.allowed_hosts)),
        "FETCH_READ_TIMEOUT": "3",
        "RESEARCH_RESULTS_PER_QUERY": "10",  # room for the failing pages behind the articles
        "OPENALEX_URL": academic.origin,
        "ARXIV_URL": academic.origin,
        "SEMANTIC_SCHOLAR_URL": academic.origin,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env-file", type=Path, help="also write the environment here as `export` lines")
    parser.add_argument("--seconds", type=float, default=0, help="stop after this long (default: on Ctrl-C)")
    args = parser.parse_args()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with StubWeb() as web, StubTavily() as tavily, StubOpenAI() as openai, StubAcademic(PAPERS) as academic:
        tavily.results = web_results(web, failing=FAILING_PAGES)
        exports = "\n".join(
            f"export {key}={value}" for key, value in environment(web, tavily, openai, academic).items()
        )
        print(exports, flush=True)
        if args.env_file:
            args.env_file.write_text(exports + "\n", encoding="utf-8")
        print(
            f"# stub web {web.base_url}, search {tavily.base_url}, model {openai.base_url}, "
            f"academic APIs {academic.origin}; Ctrl-C stops",
            flush=True,
        )
        try:
            stop.wait(args.seconds or None)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
