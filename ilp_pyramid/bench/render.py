"""Markdown tables from results files, and README blocks regenerated from them.

A README block is delimited by two HTML comments (invisible when rendered):

    <!-- bench:docs/data/auto.jsonl:table=summary:n=3,4:solver=highs -->
    ...generated, never edited by hand...
    <!-- /bench -->

The opening comment names the results file (relative to the README's folder), the table
(`summary`: one row per configuration; `grid`: the same with the solver's solve seconds,
model sizes and peak memory; `runs`: one row per record; `par2`: per puzzle family, each
solver's solved count and PAR-2 score with the virtual best solver last, as `bench report
--score par2` computes them; `par2-wide`: the same, one row per family and one column per
solver; `time-split`: per family, the share of the wall time that is the solver's, the
build's, the check's and the process start-up's; `rows`: each record's own `row`, an object
of column -> cell text its writer made, for results that are no timed runs, such as counts;
`hard`: per family, the instances the virtual best needs HARD_SECONDS or more for, or that
no solver answered, each with who answered it and who did not within the limit),
the time that scores (`time=solve`, the
default, or `time=wall`), the params runs are pooled over (`over=s`: seeds a template took
through `--grid s=...`, one configuration's runs) and optional filters
`field=v1,v2` on the configuration columns of the records (label, puzzle, solver and the
grid point's params: n, formulation, strategies as A+B, ...) or on status. `render` rewrites
every block from its data; `--check` only compares. Markers shown as examples, inside code
(``` fences or `inline code`), are not blocks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ilp_pyramid.bench.records import plain_number, read_results
from ilp_pyramid.bench.scores import (
    DEFAULT_TIME,
    TIME_MEANINGS,
    range_text,
    score_report,
    time_fields,
    winner_note,
)
from ilp_pyramid.bench.summary import (
    config_fields,
    config_value,
    fmt_seconds,
    summarize_records,
    summary_cells,
    summary_columns,
    text_headers,
)
from ilp_pyramid.bench.timesplit import split_markdown, time_split
from ilp_pyramid.errors import InputError

TABLES = ("summary", "grid", "runs", "par2", "par2-wide", "time-split", "rows", "hard")
# The virtual best's time from which an instance counts as hard (`table=hard`).
HARD_SECONDS = 10.0
BLOCK = re.compile(r"(<!-- bench:(?P<spec>[^\n>]*?) -->)(?P<body>.*?)(<!-- /bench -->)", re.S)
OPENING = re.compile(r"<!-- bench:")
FENCE = re.compile(r"^ {0,3}```.*?^ {0,3}```[^\n]*$", re.M | re.S)
# An inline code span: a run of backticks, then text (within one paragraph: no blank line)
# up to the same run.
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:[^`\n]|\n(?![ \t]*\n)|`(?!\1))*?(?<!`)\1(?!`)")
_FIELD = re.compile(r"^[A-Za-z][\w-]*$")


@dataclass(frozen=True)
class TableSpec:
    path: str
    table: str = "summary"
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    time: str = DEFAULT_TIME  # the time that scores (par2 tables)
    # Params the table pools runs over (`over=s`: seeds a template took through --grid s=...,
    # whose runs are one configuration's repeats, not configurations of their own).
    over: tuple[str, ...] = ()


def parse_spec(text: str) -> TableSpec:
    """'docs/x.jsonl:table=summary:n=3,4' -> TableSpec."""
    path, *options = text.strip().split(":")
    if not path:
        raise InputError(f"bench marker {text!r}: no results file named")
    table, filters, time, over = "summary", [], DEFAULT_TIME, ()
    for option in options:
        name, sep, value = option.partition("=")
        name = name.strip()
        if not sep:
            raise InputError(f"bench marker {text!r}: {option!r} is not name=value")
        if name == "table":
            table = value.strip()
        elif name == "time":
            time = value.strip()
            time_fields(time)
        elif name == "over":
            over = tuple(v.strip() for v in value.split(","))
        elif _FIELD.match(name):  # a field of the records: checked against them (select)
            filters.append((name, tuple(v.strip() for v in value.split(","))))
        else:
            raise InputError(f"bench marker {text!r}: {name!r} is no field name")
    if table not in TABLES:
        raise InputError(f"unknown table {table!r} (choose from {', '.join(TABLES)})")
    return TableSpec(path, table, tuple(filters), time, over)


def select(records: Sequence[dict], filters: Sequence[tuple[str, Sequence[str]]]
           ) -> list[dict]:
    """The records whose configuration value (or status) is one of those wanted; InputError
    for a field that is neither a configuration column of these records nor `status`."""
    fields = config_fields(records)
    for name, _ in filters:
        if name not in fields and name != "status":
            raise InputError(f"unknown field {name!r} to select by (these records have: "
                             f"{', '.join([*fields, 'status'])})")

    def value(record: dict, name: str) -> str:
        if name in fields:
            return str(config_value(record, name))
        return str(record.get(name, ""))

    return [r for r in records if all(value(r, name) in wanted for name, wanted in filters)]


def markdown(records: Sequence[dict], table: str, source: str, time: str = DEFAULT_TIME
             ) -> str:
    """A GitHub table and one line saying where it comes from and on what machine."""
    if table in ("par2", "par2-wide"):
        return _score_table(records, source, wide=table == "par2-wide", time=time)
    if table == "time-split":
        return "\n".join([*split_markdown(time_split(records)), "", SPLIT_KEY, "",
                          provenance(records, source)])
    if table == "rows":
        return _rows_table(records, source)
    if table == "hard":
        return _hard_table(records, source, time)
    if table == "runs":
        headers, cells, columns = _run_cells(records)
    else:
        rows = summarize_records(records)
        headers, cells = summary_cells(rows, sizes=table == "grid")
        columns = len(summary_columns(rows))
    text = text_headers(headers, cells, columns) | set(headers[columns:]) & RESULT_TEXT
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---" if h in text else "---:" for h in headers) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
              for row in cells]
    lines += ["", provenance(records, source)]
    return "\n".join(lines)


SPLIT_KEY = ("Of the wall seconds of the answered runs (solved or proved infeasible) that "
             "report their parts (split): the solver's own call, building the model, decoding "
             "and checking the answer, and the process's start-up and exit (Python, imports, "
             "output); the last column: the median over those runs of the share of a run's "
             "wall time spent outside the solver.")


def _rows_table(records: Sequence[dict], source: str) -> str:
    """The records' own rows (`row`: column -> text), columns in order of first appearance,
    and the provenance line."""
    rows = [r["row"] for r in records if isinstance(r.get("row"), dict)]
    if not rows:
        raise InputError(f"{source}: no record has a row for table=rows")
    headers = list(dict.fromkeys(name for row in rows for name in row))
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(row.get(h, "")).replace("|", "\\|") for h in headers)
              + " |" for row in rows]
    lines += ["", provenance(records, source)]
    return "\n".join(lines)


def _score_table(records: Sequence[dict], source: str, wide: bool = False,
                 time: str = DEFAULT_TIME) -> str:
    """The PAR-2 table. Long (`par2`): one row per family and solver, ranked within the family
    by the score, then the family's virtual best. Wide (`par2-wide`): one row per family, one
    column per solver (its score and solved count; "-" where it has no run in the family),
    the virtual best last. The time limits and proved-infeasible instances below."""
    report = score_report(records, factor=2, time=time)
    families = report["families"]
    if wide:
        # In the records' order (the study's order of families), not by rank.
        solvers = list(dict.fromkeys(solver for f in families for instance in f["per_instance"]
                                     for solver in instance["seconds"]))
        lines = ["| family | instances | " + " | ".join(solvers) + " | virtual best |",
                 "|---|---:|" + "---:|" * (len(solvers) + 1)]
        for family in families:
            rows = {row["solver"]: row for row in family["solvers"] if row["runs"]}
            cells = [_score_cell(rows[s]) if s in rows else "-" for s in solvers]
            lines.append(f"| {family['family']} | {family['instances']} | "
                         + " | ".join([*cells, _score_cell(family["virtual_best"])]) + " |")
        key = "cells: PAR-2 mean s (instances solved)"
        if any(row.get("score_range") for f in families for row in f["solvers"]):
            key = ("cells: PAR-2 mean s [lowest-highest PAR-2 over the solver's seeds, where "
                   "runs took several] (instances solved)")
    else:
        lines = ["| family | solver | instances | solved | PAR-2 mean s | over solver seeds |",
                 "|---|---|---:|---:|---:|---:|"]
        for family in families:
            for row in [*family["solvers"], family["virtual_best"]]:
                lines.append(f"| {family['family']} | {row['solver']} | {row['instances']} | "
                             f"{row['solved']} | {row['score']:.2f} | "
                             f"{range_text(row.get('score_range'))} |")
        key = ""
    summary = ("PAR-2: the mean over instances of the median time over repeats "
               f"({TIME_MEANINGS[time]}) where solved, else 2 x the time limit"
               + (f"; {key}" if key else "") + "; "
               + "; ".join(_score_note(family) for family in families) + ".")
    return "\n".join([*lines, "", summary, "", provenance(records, source)])


def _hard_table(records: Sequence[dict], source: str, time: str) -> str:
    """Per family, the instances whose virtual best needs HARD_SECONDS or more (or that no
    solver answered): the fastest solver and its time, the solvers that answered (their
    times) and those that did not within the limit; then per family how many such
    instances there are and which solvers failed an instance they ran."""
    report = score_report(records, factor=2, time=time)
    lines = ["| family | instance | virtual best s | answered by (s) | no answer within the "
             "limit | not run |", "|---|---|---:|---|---|---|"]
    notes = []
    for family in report["families"]:
        hard = [i for i in family["per_instance"]
                if i["best"] is None or i["best"] >= HARD_SECONDS]
        for instance in hard:
            answered = sorted(((s, t) for s, t in instance["seconds"].items()
                               if t is not None), key=lambda pair: pair[1])
            failed = [s for s, t in instance["seconds"].items()
                      if t is None and instance["runs"][s]]
            absent = [s for s in instance["seconds"] if not instance["runs"][s]]
            best = "none" if instance["best"] is None else fmt_seconds(instance["best"])
            lines.append(f"| {family['family']} | {instance['instance'] or '-'} | {best} | "
                         + (", ".join(f"{s} {fmt_seconds(t)}" for s, t in answered) or "-")
                         + f" | {', '.join(failed) or '-'} | {', '.join(absent) or '-'} |")
        failing = [row["solver"] for row in family["solvers"]
                   if row["solved"] < row["instances"] - row["missing"]]
        notes.append(f"{family['family']}: {len(hard)} of {family['instances']}"
                     + (f", failing an instance it ran: {', '.join(failing)}" if failing
                        else ", every solver answered every instance it ran"))
    summary = (f"Instances whose virtual best needs {HARD_SECONDS:g} s or more "
               f"({TIME_MEANINGS[time]}; the median over a solver's repeats), or that no "
               f"solver answered; no answer within the limit: in more than half of its "
               f"repeats; not run: no run there (left out of the step, e.g. where the family "
               f"failed a smaller one). Per "
               f"family: " + "; ".join(notes) + ".")
    return "\n".join([*lines, "", summary, "", provenance(records, source)])


def _score_cell(row: dict) -> str:
    spread = f" [{range_text(row['score_range'])}]" if row.get("score_range") else ""
    return f"{row['score']:.2f}{spread} ({row['solved']})"


def _score_note(family: dict) -> str:
    """A family's time limits, proved-infeasible instances, instances a solver did not run
    and disagreements, in one clause."""
    limits = ", ".join(f"{limit:g}" for limit in family["time_limits"])
    note = f"{family['family']}: time limit {limits} s"
    infeasible = len(family["infeasible_instances"])
    if infeasible:
        note += f", {infeasible} instance{'s' * (infeasible != 1)} proved infeasible " \
                f"(counted solved)"
    missing = [f"{row['solver']} {row['missing']}" for row in family["solvers"]
               if row["missing"]]
    if missing:
        note += f", instances not run (counted unsolved): {', '.join(missing)}"
    if family["disagreements"]:
        note += f", solvers disagree on {', '.join(family['disagreements'])}"
    if family["winner_changes_with_seed"]:
        note += f", {winner_note(family)}"
    return note


# Columns after the configuration that hold words, not figures (left-aligned).
RESULT_TEXT = {"status", "date"}


def _run_cells(records: Sequence[dict]) -> tuple[list[str], list[list[str]], int]:
    """Headers and cells of the `runs` table, and how many of its columns are configuration."""
    used = [name for name in config_fields(records)
            if any(config_value(r, name) != "" for r in records)]
    headers = [{"label": "run", "n": "N"}.get(name, name) for name in used] + [
        "repeat", "seed", "status", "wall s", "CPU s", "solve s", "load before", "load after",
        "date"]
    cells = []
    for record in records:
        cells.append([str(config_value(record, name)) or "-" for name in used] + [
            str(record.get("repeat", "-")), _seed(record), record["status"],
            fmt_seconds(record.get("wall_seconds")), fmt_seconds(record.get("cpu_seconds")),
            fmt_seconds(record["seconds"] if plain_number(record.get("seconds")) else None),
            _load(record.get("load_before")), _load(record.get("load_after")),
            str(record.get("date") or "-")[:10]])
    return headers, cells, len(used)


def _seed(record: dict) -> str:
    """The seed the run's command took: '-' for an argv template without {seed} (records
    written before templates said so carry the bench's repeat - 1 there)."""
    template = record.get("template")
    if isinstance(template, str) and "{seed}" not in template:
        return "-"
    return str(record["seed"]) if record.get("seed") is not None else "-"


def _load(value) -> str:
    if isinstance(value, list) and value and isinstance(value[0], int | float):
        return f"{value[0]:.2f}"
    return "-"


def provenance(records: Sequence[dict], source: str) -> str:
    fresh = [r for r in records if not r.get("legacy")]
    parts = [f"{len(records)} runs from `{source}`"]
    cores = sorted({str(r.get("machine", {}).get("cpu_count")) for r in fresh
                    if isinstance(r.get("machine"), dict)})
    if cores:
        parts.append(f"{'/'.join(cores)} cores")
    versions = sorted({str(r["machine"].get("package_version")) for r in fresh
                       if isinstance(r.get("machine"), dict)})
    if versions:
        parts.append(f"ilp-pyramid {'/'.join(versions)}")
    dates = sorted(str(r["date"])[:10] for r in fresh if r.get("date"))
    if dates:
        parts.append(dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}")
    legacy = len(records) - len(fresh)
    if legacy:
        parts.append(f"{legacy} legacy records without machine facts or load average")
    return "_" + "; ".join(parts) + "._"


def table_text(path: Path, table: str, filters=(), source: str | None = None,
               time: str = DEFAULT_TIME, over: Sequence[str] = ()) -> str:
    records = select(read_results(path), filters)
    if not records:
        raise InputError(f"{path}: no records{' match the filters' if filters else ''}")
    return markdown(pooled(records, over), table, source or str(path), time)


def pooled(records: Sequence[dict], over: Sequence[str]) -> list[dict]:
    """The records with the params `over` left out (copies), so that runs differing only in
    them count as one configuration's runs; InputError for a name no record has as a param."""
    if not over:
        return list(records)
    held = {name for r in records for name in (r.get("params") or {})}
    if missing := [name for name in over if name not in held]:
        raise InputError(f"over={','.join(missing)}: no record has that param")
    return [{**r, "params": {k: v for k, v in (r.get("params") or {}).items()
                             if k not in over}} for r in records]


def blocks(text: str) -> list[re.Match]:
    """The bench blocks of a Markdown text; markers shown as code (inside ``` fences or an
    `inline code` span) are examples."""
    masked = list(text)
    for match in [*FENCE.finditer(text), *CODE_SPAN.finditer(_blank(text, FENCE))]:
        masked[match.start():match.end()] = " " * (match.end() - match.start())
    # Found in the text with its code blanked out (same length, so the same positions): an
    # example marker can neither open a block nor close one.
    found = [BLOCK.match(text, m.start(), m.end()) for m in BLOCK.finditer("".join(masked))]
    if len(OPENING.findall("".join(masked))) != len(found):
        raise InputError("a <!-- bench:... --> marker has no closing <!-- /bench -->")
    return found


def _blank(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: " " * (m.end() - m.start()), text)


def render_text(text: str, base: Path) -> str:
    """`text` with every bench block regenerated from its results file (relative to `base`)."""
    out, last = [], 0
    for match in blocks(text):
        out += [text[last:match.start()], _block(match, base)]
        last = match.end()
    return "".join(out) + text[last:]


def _block(match: re.Match, base: Path) -> str:
    spec = parse_spec(match.group("spec"))
    path = base / spec.path
    if not path.is_file():
        raise InputError(f"bench marker names {spec.path}, which is not a file")
    body = table_text(path, spec.table, spec.filters, spec.path, spec.time, spec.over)
    return f"{match.group(1)}\n{body}\n{match.group(4)}"


def stale_blocks(old: str, new: str) -> list[str]:
    """The marker specs of the blocks that differ between `old` and its rendering `new`."""
    return [a.group("spec") for a, b in zip(blocks(old), blocks(new), strict=True)
            if a.group(0) != b.group(0)]
