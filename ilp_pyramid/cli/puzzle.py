"""A puzzle's command group, written once against `protocol.Puzzle`.

`group(puzzle)` builds the whole group from the puzzle object alone; `add_standard_commands`
adds to a hand-written group the standard commands it lacks. The standard commands:

- `solve [FILE]`: the puzzle's default instance without FILE, `--generate N` (with `--seed`,
  `--planted`) where the puzzle generates; any solver the backends know (`protocol.solve`
  builds the form it takes). Exit 0 solved, 1 infeasible or error, 2 bad input, 3 timeout.
  A puzzle adds its own options to it (`solve_command(puzzle, own)`): a function whose
  parameters are Typer options and which returns a `Call` (the instance they name, the
  model's and the `after` hook's options, what to do with the result).
- `verify FILE`: what `solve -o` wrote (or a `solve --json` object): 0 valid, 1 invalid with
  the reasons, 2 malformed.
- `export -o FILE [-f lp|mps|cnf]`: the instance as a model file.
- `render FILE [-f text|svg|png] [-o OUT]`: a saved solution drawn, after it is checked.
- `count [FILE]`: where the puzzle counts (`count(instance, options)`).

The bench runs a puzzle through `ilp-pyramid bench` and the puzzle's `bench_cases`, not here.
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from ilp_pyramid import protocol
from ilp_pyramid.backends import lowering, solvers
from ilp_pyramid.backends.base import Status
from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
    EXIT_TIMEOUT,
    Format,
    Json,
    Output,
    Seed,
    Solver,
    SolverCommand,
    SolverSeed,
    Threads,
    TimeLimit,
    Verbose,
    console,
    err_console,
    fail,
    like,
    load_input,
    print_json,
    report_written,
    solve_options,
    write_output,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.dimacs import dimacs_text
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.formats.mipfile import format_from_name, write_mip

EXIT_CODES = {Status.SOLVED: 0, Status.FEASIBLE: 0, Status.INFEASIBLE: EXIT_NO_SOLUTION,
              Status.TIMEOUT: EXIT_TIMEOUT, Status.INTERRUPTED: 130,
              Status.ERROR: EXIT_NO_SOLUTION}
EXPORT_FORMATS = ("lp", "mps", "cnf")
PICTURE_FORMATS = ("text", "svg", "png")
# (instance, solution) -> what the terminal shows of a solution: text, or Rich's styled Text.
TextRender = Callable[[Any, Any], Any]
# Names of the options that only a puzzle with `generate` takes.
_GENERATOR_OPTIONS = ("generate", "planted")

File = typer.Argument(None, metavar="[FILE]", show_default=False,
                      help="The instance in the puzzle's text format (default: the puzzle's "
                           "own, see its docs).")
Generate = typer.Option(None, "--generate", min=1, help="A generated instance of this size "
                                                        "instead of FILE (with --seed).")
Planted = typer.Option(False, "--planted", help="With --generate: plant a solution.")
GenSeed = like(Seed, help="Random seed: of --generate's instance (default 0) and of the "
                          "solver.")
InstanceSeed = like(Seed, help="Random seed of --generate's instance (default 0).")
SolverOpt = like(Solver, default="highs",
                 help=f"MIP: {solvers.listing('mip')}. SAT: {solvers.listing('sat')}. Also "
                      f"{solvers.listing('cp')} and {solvers.listing('dlx')}. The puzzle builds "
                      f"the model form the solver takes.")


@dataclass
class Call:
    """What a puzzle's own options add to a standard command: the instance they name (None:
    FILE, --generate or the default), options for `Puzzle.model` and for its `after` hook,
    and `then(instance, result)`, run once the result is printed (pictures, files)."""

    instance: Any = None
    model: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    then: Callable[[Any, protocol.Result], None] | None = None
    keys: dict[str, Any] = field(default_factory=dict)  # export: its --json's own keys


def group(puzzle: protocol.Puzzle) -> typer.Typer:
    """The puzzle's command group with every standard command that applies to it."""
    return app_for(puzzle)


def add_standard_commands(app: typer.Typer, puzzle: protocol.Puzzle,
                          then: str | None = None) -> list[str]:
    """Add to `app` the standard commands it does not have yet; returns the names added.
    `then`: the command about to run, when known; `bench` is then built only if it is that
    one (else a stand-in with its help, for the listing): the bench and its options stay
    unloaded for every other command."""
    have = {info.name or info.callback.__name__.replace("_", "-")
            for info in app.registered_commands if info.callback is not None}
    makers: dict[str, Callable[[protocol.Puzzle], Callable]] = {
        "solve": _solve_command, "verify": _verify_command, "export": _export_command,
        "render": _render_command,
        "bench": _bench_command if then in (None, "bench") else _bench_stand_in}
    if callable(getattr(puzzle, "count", None)):
        makers["count"] = _count_command
    added = []
    for name, make in makers.items():
        if name in have:
            continue
        command = make(puzzle)
        if not callable(getattr(puzzle, "generate", None)):
            command = without(command, _GENERATOR_OPTIONS)
        app.command(name)(command)
        added.append(name)
    return added


def without(func: Callable, names: tuple[str, ...], fixed: dict | None = None) -> Callable:
    """`func` with the parameters `names` hidden from the command line (their defaults
    passed, or the values in `fixed`): a puzzle that does not generate gets no --generate to
    misread, a command gets another's options but those it has no use for."""
    signature = inspect.signature(func, eval_str=True)
    dropped = {n: p.default for n, p in signature.parameters.items() if n in names}
    if not dropped:
        return func
    defaults = {n: getattr(d, "default", d) for n, d in dropped.items()} | (fixed or {})

    @functools.wraps(func)
    def wrapper(**kwargs: Any) -> Any:
        return func(**kwargs, **defaults)

    kept = [p for n, p in signature.parameters.items() if n not in dropped]
    wrapper.__signature__ = signature.replace(parameters=kept)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in kept}
    del wrapper.__wrapped__  # typer would read the full signature through it
    return wrapper


def instance_of(puzzle: protocol.Puzzle, file: Path | None, generate: int | None,
                seed: int | None, planted: bool) -> Any:
    """The instance a command names: FILE, a generated one, or the puzzle's default."""
    if file is not None and generate is not None:
        fail("give an instance FILE or --generate N, not both")
    if planted and generate is None:
        fail("--planted needs --generate N")
    try:
        if file is not None:
            return load_input(file, puzzle.parse)
        if generate is not None:
            return puzzle.generate(generate, seed or 0, planted)
        return puzzle.default()
    except InputError as exc:
        fail(str(exc))


def load_saved(puzzle: protocol.Puzzle, file: Path) -> tuple[Any, Any]:
    """(instance, solution) from a file `solve -o` wrote; exit 2 if it is not one."""

    def parse(text: str) -> tuple[Any, Any]:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InputError(f"not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise InputError("not a saved solution (a JSON object is expected)")
        return puzzle.from_json(data)

    return load_input(file, parse)


def _solve_command(puzzle: protocol.Puzzle) -> Callable:
    return solve_command(puzzle)


def solve_command(puzzle: protocol.Puzzle, own: Callable[..., Call] | None = None,
                  hide: tuple[str, ...] = (), doc: str | None = None,
                  solver_help: str | None = None,
                  text_render: TextRender | None = None) -> Callable:
    """The standard `solve` of `puzzle`, with the options of `own` after the standard ones
    (standard options named in `hide` left out: a puzzle whose instance is not a FILE);
    `text_render` draws the solution on the terminal in place of the puzzle's "text"
    picture (IQ's coloured pieces)."""

    def solve(
        file: Path | None = File,
        generate: int | None = Generate,
        seed: int | None = GenSeed,
        solver_seed: int | None = SolverSeed,
        planted: bool = Planted,
        solver: str = SolverOpt,
        solver_command: list[str] = SolverCommand,
        time_limit: float | None = TimeLimit,
        threads: int | None = Threads,
        json_out: bool = Json,
        output: Path | None = Output,
        verbose: bool = Verbose,
        **own_options: Any,
    ) -> None:
        """Solve an instance, check the answer by independent code and show it: exit 0
        solved, 1 no solution, 2 bad input, 3 time limit."""
        standard = {k: v for k, v in locals().items() if k != "own_options"}
        try:
            call = _own_call(own, own_options, standard, hide)
            entry = protocol.solver_for(puzzle, solver)
        except InputError as exc:
            fail(str(exc))
        instance = call.instance if call.instance is not None else \
            instance_of(puzzle, file, generate, seed, planted)
        options = solve_options(time_limit, threads, seed, verbose and not json_out,
                                solver_seed)
        try:
            result = protocol.solve(puzzle, instance, entry, options, after=call.after,
                                    **call.model)
        except InputError as exc:
            fail(str(exc))
        show_result(puzzle, instance, result, json_out, text_render)
        if call.then is not None:
            call.then(instance, result)
        _save_solution(puzzle, instance, result, output)
        code = EXIT_CODES.get(result.status, EXIT_NO_SOLUTION)
        if code:
            raise typer.Exit(code)

    command = _extended(solve, own, hide)
    command.__doc__ = doc or solve.__doc__
    if solver_help is not None:
        _set_default(command, "solver", like(SolverOpt, help=solver_help))
    return command


def show_result(puzzle: protocol.Puzzle, instance: Any, result: protocol.Result,
                json_out: bool, text_render: TextRender | None = None) -> None:
    """The one way a solve result is printed: `Result.to_json()` with --json, else the
    solution's picture (the puzzle's "text" one, or `text_render`'s) and the puzzle's
    summary (or the status line)."""
    if json_out:
        print_json(result.to_json())
        return
    if result.solution is not None:
        picture = text_render(instance, result.solution) if text_render is not None else \
            puzzle.render(instance, result.solution, "text")
        console.print(picture, end="", markup=False)
    summary = getattr(puzzle, "summary", None)
    text = summary(instance, result) if summary is not None else str(result)
    console.print(text, end="" if text.endswith("\n") else "\n", markup=False)


def _save_solution(puzzle: protocol.Puzzle, instance: Any, result: protocol.Result,
                   output: Path | None) -> None:
    if output is None:
        return
    saved = puzzle.to_json(instance, result.solution) if result.solution is not None else None
    if saved is None:
        err_console.print(f"note: no solution, {output} not written", markup=False)
    write_output(output, json.dumps(saved) + "\n" if saved else None)


def _own_call(own: Callable[..., Call] | None, own_options: dict[str, Any],
              standard: dict[str, Any], hide: tuple[str, ...]) -> Call:
    """What `own` makes of its options, a standard option it declares in place of a hidden
    one (e.g. a solver of its own default) included."""
    if own is None:
        return Call()
    names = inspect.signature(own).parameters
    return own(**own_options, **{k: v for k, v in standard.items() if k in hide and k in names})


def _extended(func: Callable, own: Callable | None, hide: tuple[str, ...]) -> Callable:
    """`func` (whose last parameter is **kwargs) with `own`'s parameters in its place and
    the parameters in `hide` dropped (their defaults passed)."""
    signature = inspect.signature(func, eval_str=True)
    standard = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    extra = list(inspect.signature(own, eval_str=True).parameters.values()) if own else []
    taken = {p.name for p in standard}
    clash = [p.name for p in extra if p.name in taken and p.name not in hide]
    if clash:
        raise TypeError(f"puzzle options clash with the standard ones: {clash}")
    hidden = {p.name: getattr(p.default, "default", p.default) for p in standard
              if p.name in hide}
    own_names = {p.name for p in extra}

    @functools.wraps(func)
    def wrapper(**kwargs: Any) -> Any:
        mine = {k: kwargs.pop(k) for k in list(kwargs) if k in own_names}
        both = {k: v for k, v in mine.items() if k in hidden}
        # A name of both goes to func's own parameter; `_own_call` hands it to `own` too.
        return func(**{**hidden, **kwargs, **both},
                    **{k: v for k, v in mine.items() if k not in both})

    kept = [p.replace(kind=p.KEYWORD_ONLY) for p in standard if p.name not in hide] + \
        [p.replace(kind=p.KEYWORD_ONLY) for p in extra]
    wrapper.__signature__ = signature.replace(parameters=kept)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in kept}
    del wrapper.__wrapped__  # typer would read the full signature through it
    return wrapper


def _set_default(command: Callable, name: str, default: Any) -> None:
    signature = command.__signature__  # type: ignore[attr-defined]
    params = [p.replace(default=default) if p.name == name else p
              for p in signature.parameters.values()]
    command.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]


def _verify_command(puzzle: protocol.Puzzle) -> Callable:
    def verify(
        file: Path = typer.Argument(..., metavar="FILE",
                                    help="A solution as `solve -o` writes it (or the "
                                              "`solve --json` object)."),
        json_out: bool = Json,
    ) -> None:
        """Check a solution: exit 0 "valid", 1 with the reasons, 2 if the file is
        malformed."""
        instance, solution = load_saved(puzzle, file)
        reasons = puzzle.verify(instance, solution)
        if json_out:
            print_json({"puzzle": puzzle.name, "valid": not reasons, "reasons": reasons})
        elif not reasons:
            console.print("valid", markup=False)
        else:
            console.print("invalid", markup=False)
            for reason in reasons:
                console.print(f"  {reason}", markup=False)
        if reasons:
            raise typer.Exit(EXIT_NO_SOLUTION)

    return verify


def _export_command(puzzle: protocol.Puzzle) -> Callable:
    return export_command(puzzle)


def export_command(puzzle: protocol.Puzzle, own: Callable[..., Call] | None = None,
                   hide: tuple[str, ...] = (), doc: str | None = None) -> Callable:
    """The standard `export` of `puzzle`, with the options of `own` after the standard ones
    (as `solve_command`; of the `Call` it returns, export reads `instance`, `model` and
    `keys`)."""

    def export(
        file: Path | None = File,
        output: Path = like(Output, default=...),
        fmt: str | None = like(Format, help="lp | mps | cnf (DIMACS) (default: from the file "
                                            "name)."),
        generate: int | None = Generate,
        seed: int | None = InstanceSeed,
        planted: bool = Planted,
        json_out: bool = Json,
        **own_options: Any,
    ) -> None:
        """Export the instance's model as LP or MPS (the MIP) or as DIMACS CNF."""

        standard = {k: v for k, v in locals().items() if k not in ("own_options",
                                                                    "format_from_name")}
        chosen = (fmt or format_from_name(str(output)) or "").lower()
        if chosen not in EXPORT_FORMATS:
            fail(f"unknown export format {chosen!r} (use -f {', '.join(EXPORT_FORMATS)})")
        try:
            call = _own_call(own, own_options, standard, hide)
        except InputError as exc:
            fail(str(exc))
        instance = call.instance if call.instance is not None else \
            instance_of(puzzle, file, generate, seed, planted)
        try:
            report = _write_model(puzzle, instance, output, chosen, call.model)
        except protocol.Infeasible as exc:  # no model to write: the instance has no solution
            fail(str(exc), EXIT_NO_SOLUTION)
        except InputError as exc:
            fail(str(exc))
        report_written({**report, **call.keys}, json_out)

    command = _extended(export, own, hide)
    command.__doc__ = doc or export.__doc__
    return command


def _write_model(puzzle: protocol.Puzzle, instance: Any, output: Path, fmt: str,
                 options: dict[str, Any] | None = None) -> dict:

    base = {"puzzle": puzzle.name, "path": str(output), "format": fmt}
    if fmt == "cnf":

        form = _built(puzzle, instance, "cnf", options)
        clauses = [list(c) for c in (form.clauses if hasattr(form, "clauses") else form)]
        count = max([getattr(form, "nv", 0)] + [abs(lit) for c in clauses for lit in c])
        write_atomic(output, dimacs_text(clauses, count, [f"c {puzzle.name}"]))
        return {**base, "variables": count, "clauses": len(clauses)}

    problem = _built(puzzle, instance, "mip", options)
    write_mip(problem, str(output), fmt)
    return {**base, "variables": len(problem.variables()),
            "constraints": problem.numConstraints()}


def _built(puzzle: protocol.Puzzle, instance: Any, form: str,
           options: dict[str, Any] | None = None) -> Any:
    """The puzzle's model in `form` ("mip" or "cnf"), shaped by the puzzle's model `options`
    (a `Call`'s); a puzzle that builds an exact cover instead has it lowered as a MIP or a
    SAT solver gets it (backends/lowering.py)."""
    if form in puzzle.forms:
        return puzzle.model(instance, form, **(options or {})).form
    if "exact_cover" in puzzle.forms:

        cover = puzzle.model(instance, "exact_cover", **(options or {})).form
        return lowering.to_mip(cover).problem if form == "mip" else lowering.to_cnf(cover)
    raise InputError(f"{puzzle.name} has no {form} model (it builds "
                     f"{', '.join(puzzle.forms)})")


def _render_command(puzzle: protocol.Puzzle) -> Callable:
    def render(
        file: Path = typer.Argument(..., metavar="FILE",
                                    help="A solution as `solve -o` writes it."),
        fmt: str | None = like(Format, help="text | svg | png (default: from -o's name, else "
                                            "text)."),
        output: Path | None = like(Output, help="File to write (default: stdout; png needs "
                                                "one)."),
        json_out: bool = Json,
    ) -> None:
        """Draw a saved solution, after checking it: exit 0 drawn, 1 invalid (nothing
        drawn), 2 bad input."""

        named = format_from_name(str(output)) if output is not None else None
        chosen = (fmt or (named if named in PICTURE_FORMATS else None) or "text").lower()
        if chosen not in PICTURE_FORMATS:
            fail(f"unknown picture format {chosen!r} (use -f {', '.join(PICTURE_FORMATS)})")
        if chosen == "png" and output is None:
            fail("a PNG goes to a file: give -o FILE")
        instance, solution = load_saved(puzzle, file)
        reasons = puzzle.verify(instance, solution)
        if reasons:
            if json_out:
                print_json({"puzzle": puzzle.name, "valid": False, "reasons": reasons})
            else:
                console.print("invalid; nothing drawn", markup=False)
                for reason in reasons:
                    console.print(f"  {reason}", markup=False)
            raise typer.Exit(EXIT_NO_SOLUTION)
        try:
            picture = puzzle.render(instance, solution, chosen)
        except (InputError, ValueError) as exc:
            fail(str(exc))
        if output is None:
            if json_out:
                print_json({"puzzle": puzzle.name, "valid": True, "format": chosen,
                            "picture": picture})
            else:
                console.print(picture, end="", markup=False)
            return
        if json_out:
            print_json({"puzzle": puzzle.name, "valid": True, "format": chosen,
                        "path": str(output)})
        else:
            console.print(f"wrote {output}", markup=False)
        write_output(output, picture)

    return render


def _count_command(puzzle: protocol.Puzzle) -> Callable:
    def count(
        file: Path | None = File,
        generate: int | None = Generate,
        seed: int | None = InstanceSeed,
        planted: bool = Planted,
        time_limit: float | None = TimeLimit,
        json_out: bool = Json,
    ) -> None:
        """Count the instance's solutions."""
        instance = instance_of(puzzle, file, generate, seed, planted)
        try:
            found = puzzle.count(instance, solve_options(time_limit, None, seed))
        except InputError as exc:
            fail(str(exc))
        if json_out:
            print_json({"puzzle": puzzle.name, "count": found})
        else:
            console.print(f"{found} solutions", markup=False)

    return count



def _bench_command(puzzle: protocol.Puzzle) -> Callable:
    """`ilp-pyramid bench --puzzle NAME` as this group's `bench`: the one bench, its options
    but the ones that name what to run."""
    from ilp_pyramid.cli.bench import bench  # the bench: only for the command that runs it

    command = without(bench, ("puzzle", "command", "external", "solved_if"),
                      fixed={"puzzle": puzzle.name})
    command.__doc__ = _bench_help(puzzle)
    return command


def _bench_stand_in(puzzle: protocol.Puzzle) -> Callable:
    """What lists `bench` in the group's help when another command runs (never run)."""

    def bench() -> None:  # pragma: no cover - listed, never run (see add_standard_commands)
        raise RuntimeError("a listing stand-in ran")

    bench.__doc__ = _bench_help(puzzle)
    return bench


def _bench_help(puzzle: protocol.Puzzle) -> str:
    return (f"Time {puzzle.name}'s bench grid: its cases x solvers x repeats, each run in its "
            f"own process (ilp-pyramid bench --puzzle {puzzle.name}; docs/bench.md).")


def app_for(puzzle: protocol.Puzzle, own: typer.Typer | None = None,
            then: str | None = None) -> typer.Typer:
    """The command group of `puzzle`: its hand-written group `own` (the tree's, cli/tree.py)
    completed with the standard commands it lacks, or the standard group alone; `then` as
    for `add_standard_commands`."""
    if own is None:
        app = typer.Typer(name=puzzle.name, help=puzzle.title, no_args_is_help=True,
                          add_completion=False, pretty_exceptions_enable=False,
                          rich_markup_mode=None)
    else:  # a copy: the module's group stays as written, each tree completes its own
        app = copy.copy(own)
        app.registered_commands = list(own.registered_commands)
    add_standard_commands(app, puzzle, then)
    return app
