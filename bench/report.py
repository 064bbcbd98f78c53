"""Write the figures of bench/results/latest.json into BENCHMARKS.md, between its markers.

The prose of BENCHMARKS.md (what each benchmark measures, what is slowest, which targets are met)
is written by hand; the figures, their commands, machine, date and commit come from the last run:

    python -m bench.run && python -m bench.report
"""

from __future__ import annotations

import json

from bench.common import PROJECT_ROOT, Figure, format_value

START, END = "<!-- figures:start -->", "<!-- figures:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(record: dict) -> str:
    m = record["machine"]
    lines = [
        f"Run of {record['date']} on commit `{record['commit']}`, "
        f"{record.get('total_seconds', '?')} s in all.",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB RAM, Python {m['python']}, "
        f"{m['platform']}; load average at the start {m.get('load_average_1_5_15')}, at the end "
        f"{m.get('load_average_1_5_15_at_end')} (the benchmarks' own servers and workers count in it, and so "
        "does any other work on the machine).",
        "",
    ]
    for result in record["benchmarks"]:
        lines += [
            f"### {result['name']}",
            "",
            f"`{result.get('command', '')}` ({result.get('seconds', '?')} s, {result.get('status', '?')})",
            "",
            "| figure | value | target | met? | note |",
            "|---|---|---|---|---|",
        ]
        for raw in result["figures"]:
            figure = Figure(**raw)
            met = "" if figure.met is None else ("yes" if figure.met else "**no**")
            value = format_value(figure.value) + (f" {figure.unit}" if figure.unit else "")
            lines.append(
                f"| {_cell(figure.name.strip())} | {_cell(value)} | {_cell(figure.target)} | {met} | "
                f"{_cell(figure.note)} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    record = json.loads((PROJECT_ROOT / "bench" / "results" / "latest.json").read_text())
    path = PROJECT_ROOT / "BENCHMARKS.md"
    text = path.read_text()
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    path.write_text(f"{head}{START}\n{markdown(record)}\n{END}{tail}")
    print(f"updated {path.relative_to(PROJECT_ROOT)} from the run of {record['date']}")


if __name__ == "__main__":
    main()
