"""`ilp-pyramid bench`: sizes x solvers x formulations x repeats, MIP and SAT side by side.

Every run is its own `python -m ilp_pyramid solve N --json ...` process, in its own process
group, so every option of `solve` passes through and a hung solver (with its own children) is
killed outright at the hard limit. Each finished run is appended at once to a JSON-lines
results file; `--resume` reads the file back and skips the runs it already holds. The table,
the JSON summary and the plot are all computed from the file's records.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ilp_pyramid import backends
from ilp_pyramid.backends.process import die_with_parent as _die_with_parent
from ilp_pyramid.cli_common import console, err_console, fail, print_json
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import append_line, read_text

# Statuses of a run in the results file: the solver's own, plus "killed" (hard limit passed).
SOLVED, TIMEOUT, KILLED, ERROR = "solved", "timeout", "killed", "error"
# Time a run gets beyond --time-limit (model building, process start) before it is killed.
GRACE_SECONDS = 30.0
GRACE_FRACTION = 0.1


@dataclass(frozen=True)
class RunSpec:
    n: int
    solver: str
    formulation: str
    strategies: tuple[str, ...]
    card: str | None
    time_limit: float
    repeat: int

    def key(self) -> str:
        """Identity of a run in the results file (what --resume compares)."""
        parts = [f"n={self.n}", f"solver={self.solver}", f"formulation={self.formulation}",
                 f"strategies={'+'.join(self.strategies)}", f"card={self.card or ''}",
                 f"limit={self.time_limit:g}", f"repeat={self.repeat}"]
        return " ".join(parts)

    def group(self) -> tuple:
        return (self.n, self.solver, self.formulation, self.strategies, self.card)

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "ilp_pyramid", "solve", str(self.n), "--solver",
               self.solver, "--formulation", self.formulation, "--json",
               "--time-limit", f"{self.time_limit:g}",
               # repeat r runs with seed r-1: for SAT a reordering of the clauses (seed 0: none),
               # for HiGHS/CBC their random seed, so repeats sample the run-time spread.
               "--seed", str(self.repeat - 1)]
        if self.card:
            cmd += ["--card", self.card]
        for name in self.strategies or ("none",):  # "none": not the solver's default set
            cmd += ["--strategy", name]
        return cmd


# --- parsing the grid -----------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    """'2..5' -> [2, 3, 4, 5]; '2,4' -> [2, 4]; '3' -> [3]."""
    sizes: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            if ".." in part:
                low, high = (int(v) for v in part.split("..", 1))
                if low > high:
                    raise InputError(f"--n {part}: the range is empty")
                sizes += range(low, high + 1)
            else:
                sizes.append(int(part))
        except ValueError:
            raise InputError(f"--n {text!r}: expected sizes like 2..5 or 2,3,4") from None
    if not sizes:
        raise InputError("--n: no sizes given")
    for n in sizes:
        if not 1 <= n <= 12:
            raise InputError(f"--n: size {n} is out of range 1..12")
    return list(dict.fromkeys(sizes))


def parse_list(text: str, what: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise InputError(f"--{what}: nothing given")
    return list(dict.fromkeys(items))


def parse_strategy_sets(text: str) -> list[tuple[str, ...]]:
    """'none;A+B;C' -> [(), ('A', 'B'), ('C',)]: strategy sets as one more grid dimension."""
    from ilp_pyramid.puzzles.bel.strategies import CATALOGUE

    sets = []
    for item in text.split(";"):
        names = tuple(name.strip() for name in item.split("+")
                      if name.strip() and name.strip().lower() != "none")
        unknown = [name for name in names if name not in CATALOGUE]
        if unknown:
            raise InputError(f"--strategies: unknown strategy {unknown[0]!r} "
                             f"(see `ilp-pyramid strategies`)")
        sets.append(names)
    return list(dict.fromkeys(sets))


def grid(sizes: Sequence[int], solvers: Sequence[str], formulations: Sequence[str],
         strategies: Sequence[str], card: str | None, time_limit: float,
         repeats: int, strategy_sets: Sequence[tuple[str, ...]] | None = None
         ) -> list[RunSpec]:
    from ilp_pyramid.puzzles.bel.cnf import ENCODINGS
    from ilp_pyramid.puzzles.bel.model import FORMULATIONS

    kinds = {}
    for solver in solvers:
        try:
            kinds[solver] = backends.kind(solver)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    valid = {"mip": FORMULATIONS, "sat": ENCODINGS}
    for formulation in formulations:
        if not any(formulation in valid[kind] for kind in kinds.values()):
            known = sorted(set(FORMULATIONS) | set(ENCODINGS))
            raise InputError(f"formulation {formulation!r} fits none of the solvers "
                             f"(known: {', '.join(known)})")
    # A formulation that exists for one family only (e.g. the CNF "support") skips the other.
    sets = [tuple(strategies) + extra for extra in (strategy_sets or [()])]
    return [RunSpec(n, solver, formulation, chosen, card, time_limit, r)
            for n in sizes for chosen in sets for formulation in formulations
            for solver in solvers
            if formulation in valid[kinds[solver]] for r in range(1, repeats + 1)]


# --- one run in its own process -------------------------------------------------------------


def hard_limit(time_limit: float) -> float:
    return time_limit + GRACE_SECONDS + GRACE_FRACTION * time_limit


def run_one(spec: RunSpec, kill_after: float) -> dict:
    """Run `spec` as a child process group; kill it after `kill_after` s; return its record."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(spec.command(), stdout=out, stderr=err,
                                 stdin=subprocess.DEVNULL, start_new_session=True,
                                 preexec_fn=_die_with_parent)
        killed, peak_kb = False, 0
        try:
            # wait4 (not Popen.wait) so the rusage is this child's own, with its descendants.
            while True:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() - start > kill_after:
                    peak_kb = _group_peak_kb(child.pid)
                    _kill_group(child.pid)
                    pid, status, usage = os.wait4(child.pid, 0)
                    killed = True
                    break
                time.sleep(0.05)
        except BaseException:  # Ctrl-C: take the whole group down with us
            _kill_group(child.pid)
            child.wait()
            raise
        finally:
            _kill_group(child.pid)  # a solver left behind by its dead parent must not run on
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    record = {"key": spec.key(), **_spec_fields(spec), "wall_seconds": round(wall, 3),
              # CPU of the whole run (process start, build, solve): steadier than wall time
              # on a shared machine.
              "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 3),
              "exit_code": child.returncode,
              "peak_rss_mb": _mb(max(peak_kb, usage.ru_maxrss))}
    if killed:
        record.update(status=KILLED, seconds=round(wall, 3),
                      message=f"killed after {kill_after:g} s (hard wall-clock limit)")
        return record
    data = _last_json(stdout)
    if data is None:
        record.update(status=ERROR, seconds=round(wall, 3), message=_last_line(stderr, child))
        return record
    record.update(
        status=data.get("status", ERROR),
        seconds=data.get("solve_seconds"),
        build_seconds=data.get("build_seconds"),
        variables=data.get("variables"),
        constraints=data.get("constraints"),
        message=data.get("message") or "",
        solution=data.get("solution"),
    )
    return record


def _spec_fields(spec: RunSpec) -> dict:
    fields = asdict(spec)
    fields["strategies"] = list(spec.strategies)
    return fields


def _last_json(out: bytes) -> dict | None:
    for line in reversed(out.decode("utf-8", "replace").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                return None
            return data if isinstance(data, dict) else None
    return None


def _last_line(err: bytes, child: subprocess.Popen) -> str:
    lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    if lines:
        return lines[-1].strip()[:300]
    code = child.returncode
    if code is not None and code < 0:
        return f"the run was killed by {signal.Signals(-code).name}"
    return f"the run exited with code {code} and printed no result"


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _group_peak_kb(pgid: int) -> int:
    """Largest peak resident size (VmHWM) among the live processes of a group, in kB."""
    peak = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            for line in Path(entry.path, "status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError):
            continue
    return peak


def _mb(kilobytes: int) -> float:
    return round(kilobytes / 1024, 1)


# --- the results file -----------------------------------------------------------------------


def read_results(path: Path) -> list[dict]:
    """Records of a results file; a torn last line (the writer was killed) is skipped."""
    if not path.exists():
        return []
    records = []
    for line in read_text(path).splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "key" in record:
            records.append(record)
    return records


def latest_by_key(records: Iterable[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for record in records:
        out[record["key"]] = record
    return out


# --- summary --------------------------------------------------------------------------------


def summarize(specs: Sequence[RunSpec], records: dict[str, dict]) -> list[dict]:
    """One row per (size, solver, formulation, strategies, card) over the grid's records."""
    groups: dict[tuple, list[dict]] = {}
    for spec in specs:
        if spec.key() in records:
            groups.setdefault(spec.group(), []).append(records[spec.key()])
    rows = []
    for (n, solver, formulation, strategies, card), runs in groups.items():
        solved = [r for r in runs if r["status"] == SOLVED]
        times = sorted(float(r["seconds"]) for r in solved if r.get("seconds") is not None)
        cpu = [float(r["cpu_seconds"]) for r in solved if r.get("cpu_seconds") is not None]
        sized = [r for r in runs if r.get("variables") is not None]
        peaks = [r["peak_rss_mb"] for r in runs if r.get("peak_rss_mb") is not None]
        rows.append({
            "n": n,
            "solver": solver,
            "family": backends.kind(solver),
            "formulation": formulation,
            "strategies": list(strategies),
            "card": card,
            "runs": len(runs),
            "solved": len(solved),
            "timeouts": sum(r["status"] in (TIMEOUT, KILLED) for r in runs),
            "errors": sum(r["status"] not in (SOLVED, TIMEOUT, KILLED) for r in runs),
            "min_seconds": times[0] if times else None,
            "median_seconds": statistics.median(times) if times else None,
            "max_seconds": times[-1] if times else None,
            "median_cpu_seconds": statistics.median(cpu) if cpu else None,
            "variables": sized[0]["variables"] if sized else None,
            "constraints": sized[0]["constraints"] if sized else None,
            "peak_rss_mb": max(peaks) if peaks else None,
        })
    return rows


def table(rows: Sequence[dict], time_limit: float) -> Table:
    out = Table(title=f"Bel's Pyramid, limit {time_limit:g} s; seconds over solved runs",
                caption="t/o: timeouts and killed runs; med cpu: CPU seconds of the whole run "
                        "(start, build, solve); cons: clauses (SAT) or constraints (MIP); "
                        "MB: peak resident memory", box=box.SIMPLE_HEAD)
    for name in ("N", "solver", "formulation", "solved", "t/o", "min s", "med s", "max s",
                 "med cpu", "vars", "cons", "MB"):
        out.add_column(name, justify="left" if name in ("solver", "formulation") else "right",
                       no_wrap=True)
    for row in rows:
        label = row["formulation"]
        if row["strategies"]:
            label += "+" + "+".join(row["strategies"])
        if row["card"]:
            label += f" ({row['card']})"
        out.add_row(str(row["n"]), row["solver"], label, f"{row['solved']}/{row['runs']}",
                    str(row["timeouts"]), _sec(row["min_seconds"]), _sec(row["median_seconds"]),
                    _sec(row["max_seconds"]), _sec(row["median_cpu_seconds"]),
                    _int(row["variables"]), _int(row["constraints"]),
                    _int(row["peak_rss_mb"]))
    return out


def _sec(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _int(value) -> str:
    return "-" if value is None else f"{round(value):,}"


def plot(rows: Sequence[dict], time_limit: float, path: Path) -> None:
    """Median time (bars: min..max) against N per solver, log scale; x: no solution."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[dict]] = {}
    for row in rows:
        name = row["solver"] if row["formulation"] == "counts" else \
            f"{row['solver']} ({row['formulation']})"
        if row["strategies"]:
            name += " +" + "+".join(row["strategies"])
        series.setdefault(name, []).append(row)
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=120)
    for index, (name, points) in enumerate(sorted(series.items())):
        points.sort(key=lambda r: r["n"])
        style = "-" if points[0]["family"] == "sat" else "--"
        solved = [r for r in points if r["median_seconds"]]
        failed = [r["n"] for r in points if not r["median_seconds"]]
        middle = [max(r["median_seconds"], 1e-3) for r in solved]
        spread = [[m - max(r["min_seconds"], 1e-3) for r, m in zip(solved, middle, strict=True)],
                  [max(r["max_seconds"], 1e-3) - m for r, m in zip(solved, middle, strict=True)]]
        line = axes.errorbar([r["n"] for r in solved], middle, yerr=spread, fmt=style,
                             marker="o", capsize=3, label=name).lines[0]
        if failed:
            # side by side, so that several solvers failing at one N stay visible
            shift = 0.04 * (index - (len(series) - 1) / 2)
            axes.plot([n + shift for n in failed], [time_limit] * len(failed), linestyle="none",
                      marker="x", markersize=9, markeredgewidth=2, color=line.get_color())
    if any(not r["median_seconds"] for r in rows):
        axes.axhline(time_limit, color="grey", linewidth=0.8, linestyle=":")
        axes.annotate(f"time limit {time_limit:g} s (x: no solution)", (0.01, 0.97),
                      xycoords="axes fraction", va="top", fontsize=8, color="grey")
    axes.set_yscale("log")
    axes.set_xlabel("N (levels)")
    axes.set_ylabel("median solve time, s")
    axes.set_xticks(sorted({r["n"] for r in rows}))
    axes.set_title("Bel's Pyramid: MIP (dashed) vs SAT (solid)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.png")
    figure.savefig(tmp)
    plt.close(figure)
    os.replace(tmp, path)


# --- the command ----------------------------------------------------------------------------


def bench(
    n: str = typer.Option("2..4", "--n", help="Sizes: 2..5, or a list 2,3,5."),
    solver: str = typer.Option("highs,cbc,kissat", "--solver", "-s",
                               help="Comma-separated solvers, MIP and SAT (see solve --help)."),
    formulation: str = typer.Option("counts", "--formulation", "-f",
                                    help="Comma-separated formulations (SAT: CNF encodings)."),
    strategy: list[str] = typer.Option(None, "--strategy",
                                       help="Passed to every run's solve (repeatable)."),
    strategies: str = typer.Option(None, "--strategies",
                                   help="Strategy sets as a grid dimension, like solvers: "
                                        "'none;LabelPermutation+Automorphism;YStep'."),
    card: str = typer.Option(None, "--card", help="SAT: cardinality encoding for every run."),
    time_limit: float = typer.Option(600.0, "--time-limit", min=0.1,
                                     help="Each run's solver time limit, seconds."),
    kill_after: float = typer.Option(None, "--kill-after", min=0.1,
                                     help="Hard wall-clock kill per run, seconds "
                                          "(default: time limit + 30 s + 10%)."),
    repeat: int = typer.Option(1, "--repeat", min=1, help="Runs per size x solver."),
    results: Path = typer.Option(Path("bench-results.jsonl"), "--results",
                                 help="JSON-lines file: one line per finished run."),
    resume: bool = typer.Option(False, "--resume",
                                help="Keep the results file and skip the runs it holds."),
    plot_file: Path = typer.Option(None, "--plot", help="Also draw time vs N (PNG, log scale)."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Run a grid of sizes x solvers x formulations x repeats, each run in its own process.

    Every finished run goes to --results (JSON lines) at once; --resume skips those runs.
    Prints a table per size and solver; --plot draws time vs N; --json gives the summary.
    Example: ilp-pyramid bench --n 2..4 --solver highs,cbc,kissat --time-limit 120
    """
    try:
        specs = grid(parse_sizes(n), parse_list(solver, "solver"),
                     parse_list(formulation, "formulation"), strategy or [], card, time_limit,
                     repeat, parse_strategy_sets(strategies) if strategies else None)
    except InputError as exc:
        fail(str(exc))
    if results.exists() and results.stat().st_size > 0 and not resume:
        fail(f"{results} already holds results: add --resume to go on with it, "
             f"or give another --results file")
    done = latest_by_key(read_results(results))
    pending = [spec for spec in specs if spec.key() not in done]
    limit = kill_after or hard_limit(time_limit)
    skipped = len(specs) - len(pending)
    if skipped and not json_out:
        console.print(f"resuming {results}: {skipped} of {len(specs)} runs already done")
    _run_all(pending, limit, results, done)
    rows = summarize(specs, done)
    if plot_file is not None:
        plot(rows, time_limit, plot_file)
    if json_out:
        print_json({"results": str(results), "time_limit": time_limit, "runs": len(specs),
                    "ran_now": len(pending), "groups": rows})
    else:
        # A table people read in full, also when piped: never squeezed into 80 columns.
        wide = Console(highlight=False, width=max(console.width, 110))
        wide.print(table(rows, time_limit))
        if plot_file is not None:
            console.print(f"plot: {plot_file}")
        for spec in specs:
            record = done.get(spec.key())
            if record and record["status"] not in (SOLVED, TIMEOUT):
                console.print(f"N={spec.n} {spec.solver} {spec.formulation} #{spec.repeat}: "
                              f"{record['status']}: {record.get('message', '')}", markup=False)


def _run_all(pending: Sequence[RunSpec], kill_after: float, results: Path,
             done: dict[str, dict]) -> None:
    if not pending:
        return
    progress = Progress(TextColumn("{task.description}"), BarColumn(),
                        TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                        console=err_console, transient=True)
    with progress:
        task = progress.add_task("bench", total=len(pending))
        for spec in pending:
            progress.update(task, description=f"N={spec.n} {spec.solver} {spec.formulation} "
                                              f"#{spec.repeat}")
            record = run_one(spec, kill_after)
            append_line(results, json.dumps(record, separators=(",", ":")))
            done[record["key"]] = record
            progress.advance(task)
            if not err_console.is_terminal:
                err_console.print(f"N={spec.n} {spec.solver} {spec.formulation} #{spec.repeat}: "
                                  f"{record['status']} {record.get('seconds') or 0:.2f} s",
                                  markup=False, soft_wrap=True)
