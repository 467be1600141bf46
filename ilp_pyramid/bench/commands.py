"""Argv templates: any command of the package (`solve {n} --solver {solver}`) or an outside
program (`ref=/venv/bin/python bel_pyramid.py {n}`), expanded over the grid's dimensions:
--n, --solver, --formulation, --repeat and any --grid KEY=V1,V2 whose `{KEY}` a template names.

Nothing here knows a puzzle: the sizes, solvers and seeds are filled in as text.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ilp_pyramid import backends
from ilp_pyramid.errors import InputError

MAX_REPEAT = 1000
MAX_RUNS = 100_000  # a grid larger than this is a typo, not a benchmark
# Placeholders of an argv template, each filled per run.
PLACEHOLDERS = ("n", "solver", "formulation", "seed", "repeat", "time_limit")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_LABELLED = re.compile(r"^([A-Za-z][\w.:+-]*)=(.+)$", re.S)


def package_command(argv: Sequence[str]) -> list[str]:
    """The argv that runs one of the package's own commands with this interpreter."""
    return [sys.executable, "-m", "ilp_pyramid", *argv]


@dataclass(frozen=True)
class Template:
    """An argv template: `solve {n} --solver {solver}` (a command of the package) or, with
    `external`, a whole outside command line (`/venv/bin/python bel_pyramid.py {n}`)."""

    label: str
    text: str
    external: bool
    solved_if: str | None = None  # exit 0 counts as solved only if stdout matches this

    def solved(self, stdout: str) -> bool:
        return self.solved_if is None or re.search(self.solved_if, stdout, re.M) is not None

    @property
    def tokens(self) -> list[str]:
        return shlex.split(self.text)

    def uses(self, name: str) -> bool:
        return any(f"{{{name}}}" in token for token in self.tokens)


Axis = tuple[str, Sequence[str]]  # a --grid dimension: ("board", ["triangle", "pyramid4"])


@dataclass(frozen=True)
class CommandSpec:
    """One run of an argv template with its placeholders filled."""

    template: Template
    n: int | None
    solver: str | None
    formulation: str | None
    time_limit: float
    repeat: int
    seed: int
    # the values of the --grid keys the template names, in the grid's order
    params: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        return self.template.label

    def argv(self) -> list[str]:
        values = {"n": self.n, "solver": self.solver, "formulation": self.formulation,
                  "seed": self.seed, "repeat": self.repeat, "time_limit": f"{self.time_limit:g}",
                  **dict(self.params)}
        return [_PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), token)
                for token in self.template.tokens]

    def command(self) -> list[str]:
        return self.argv() if self.template.external else package_command(self.argv())

    def key(self) -> str:
        # The argv without this interpreter's path: the same run from another venv resumes.
        return f"label={self.label} cmd={shlex.join(self.argv())} repeat={self.repeat}"

    def group(self) -> tuple:
        return (self.label, self.n, self.solver, self.formulation, self.params)

    def warm_group(self) -> tuple:
        # a --grid's points (seeds, mostly) are runs of one configuration: warmed up once
        return (self.label, self.n, self.solver, self.formulation)

    def describe(self) -> str:
        what = shlex.join(self.argv())
        if self.label != self.template.text:
            what = f"{self.label}: {what}"
        return f"{what} #{self.repeat}"

    def fields(self) -> dict:
        return {"label": self.label, "template": self.template.text,
                "external": self.template.external, "n": self.n, "solver": self.solver,
                "formulation": self.formulation,
                # the grid point as a puzzle grid's records keep theirs (summary.params_of):
                # the size and formulation first, as records without `params` are read
                "params": {"n": self.n, "formulation": self.formulation, **dict(self.params)},
                "time_limit": self.time_limit, "repeat": self.repeat,
                # the seed a run got, if its argv took one ({seed}); else there is none
                "seed": self.seed if self.template.uses("seed") else None}


def parse_template(text: str, external: bool, grid_keys: Sequence[str] = ()) -> Template:
    """'LABEL=ARGV' or 'ARGV' (--command: labelled by its own text; --external: LABEL needed);
    its placeholders are PLACEHOLDERS and the `grid_keys` (those of --grid)."""
    option = "--external" if external else "--command"
    match = _LABELLED.match(text.strip())
    label, body = (match.group(1), match.group(2).strip()) if match else (None, text.strip())
    try:
        tokens = shlex.split(body)
    except ValueError as exc:
        raise InputError(f"{option} {text!r}: {exc}") from None
    if not tokens:
        raise InputError(f"{option}: empty command")
    known = (*PLACEHOLDERS, *grid_keys)
    for token in tokens:
        for name in _PLACEHOLDER.findall(token):
            if name not in known:
                raise InputError(f"{option} {text!r}: unknown placeholder {{{name}}} "
                                 f"(known: {', '.join('{' + p + '}' for p in known)})")
    if external:
        if label is None:
            raise InputError(f"--external {text!r}: give it a label, LABEL=COMMAND "
                             f"(e.g. ref=/path/python bel_pyramid.py {{n}})")
        if shutil.which(tokens[0]) is None:
            raise InputError(f"--external {label}: {tokens[0]!r} is not an executable program")
    else:
        if tokens[0] in ("ilp-pyramid", "ilp_pyramid"):
            tokens = tokens[1:]
        if not tokens:
            raise InputError(f"--command {text!r}: no sub-command given")
        body = shlex.join(tokens)
    return Template(label or body, body, external)


def with_solved_patterns(templates: Sequence[Template], patterns: Sequence[str]
                         ) -> list[Template]:
    """Attach `LABEL=REGEX` patterns (--solved-if) to the templates of those labels."""
    by_label = {template.label: template for template in templates}
    for text in patterns:
        label, sep, pattern = text.partition("=")
        if not sep or label not in by_label:
            raise InputError(f"--solved-if {text!r}: expected LABEL=REGEX with the label of a "
                             f"--command or --external ({', '.join(by_label) or 'none given'})")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise InputError(f"--solved-if {label}: bad regular expression: {exc}") from None
        by_label[label] = replace(by_label[label], solved_if=pattern)
    return [by_label[template.label] for template in templates]


def command_grid(templates: Sequence[Template], sizes: Sequence[int], solvers: Sequence[str],
                 formulations: Sequence[str], time_limit: float, repeats: int,
                 axes: Sequence[Axis] = ()) -> list[CommandSpec]:
    """Each template over the dimensions it names ({n}, {solver}, {formulation}, the `{KEY}`
    of an axis) and the repeats, interleaved (size, repeat, template) so side-by-side runs
    meet the same load."""
    check_repeats(repeats)
    if any(t.uses("solver") and not t.external for t in templates):
        solver_kinds(solvers)

    def values(template: Template, name: str, options: Sequence) -> Sequence:
        return options if template.uses(name) else [None]

    def points(template: Template) -> list[tuple[tuple[str, str], ...]]:
        combos: list[tuple[tuple[str, str], ...]] = [()]
        for name, options in axes:
            if template.uses(name):
                combos = [combo + ((name, value),) for combo in combos for value in options]
        return combos

    count = sum(len(values(t, "n", sizes)) * len(values(t, "solver", solvers))
                * len(values(t, "formulation", formulations)) * len(points(t))
                for t in templates) * repeats
    check_size(count)
    specs: dict[str, CommandSpec] = {}
    for n in sizes:
        for r in range(1, repeats + 1):
            for template in templates:
                if not template.uses("n") and n != sizes[0]:
                    continue
                for point in points(template):
                    for solver in values(template, "solver", solvers):
                        for formulation in values(template, "formulation", formulations):
                            spec = CommandSpec(template, n if template.uses("n") else None,
                                               solver, formulation, time_limit, r, r - 1, point)
                            specs.setdefault(spec.key(), spec)
    return list(specs.values())


def solver_kinds(solvers: Sequence[str]) -> dict[str, str]:
    kinds = {}
    for solver in solvers:
        try:
            kinds[solver] = backends.kind(solver)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    return kinds


def check_repeats(repeats: int, option: str = "--repeat") -> None:
    if not 1 <= repeats <= MAX_REPEAT:
        raise InputError(f"{option} must be between 1 and {MAX_REPEAT} (got {repeats})")


def check_size(count: int) -> None:
    if count > MAX_RUNS:
        raise InputError(f"the grid has {count:,} runs; at most {MAX_RUNS:,} are allowed")
