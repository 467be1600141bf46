"""The Sudoku Cube as a `protocol.Puzzle`: an instance is a sticker state (and the digits that
look the same after a half turn), a solution a `CubeSolution`: the grid every face shows 1-9
upright in, reachable from the state by face turns.

    >>> from ilp_pyramid import protocol
    >>> from ilp_pyramid.puzzles.sudoku_cube.generate import generate
    >>> from ilp_pyramid.puzzles.sudoku_cube.puzzle import PUZZLE as cube
    >>> scrambled = cube.generate(10, seed=1)
    >>> result = protocol.solve(cube, scrambled, solver="highs")
    >>> result.status, cube.verify(scrambled, result.solution)
    (<Status.SOLVED: 'solved'>, [])

The model's options are those of `sudoku-cube solve`: `parity` ("inversions", the parities
counted in the model, or "cuts", solved in rounds that cut off grids of the wrong parities)
and `rules` (the rules of turning it keeps; fewer give the seed's model, whose grid turning
may not reach). The `after` hook says why a cube has no grid and, with `moves=True`, gives
the face turns (checked by simulation); the result is a `CubeResult` (outcome.py):

    >>> broken = cube.instance(generate(0).broken("twist").state)
    >>> result = protocol.solve(cube, broken, "highs", after={"moves": True})
    >>> result.status, result.detail, result.solver_calls
    (<Status.INFEASIBLE: 'infeasible'>, 'not_turnable', 2)

Its forms: "mip" (model.py) and "cnf" (cnf.py, the same rules for a SAT solver: `solver=
"kissat"` builds it). Light to import: model.py, cnf.py, rounds.py, finish.py, solution.py
(PuLP) and render.py (the drawing) are imported on first use.

Every method checks its arguments at the door (`_check_instance`, `_check_solution`):
anything that is no `Cube` or no `CubeSolution` is an InputError of one line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.errors import InputError
from ilp_pyramid.figures import svg_text
from ilp_pyramid.protocol import (
    BenchCase,
    Infeasible,
    Model,
    Result,
    check_choice,
    check_flag,
    check_form,
    check_object,
    check_sizes,
    check_text,
    check_whole,
    shown,
)
from ilp_pyramid.puzzles.sudoku_cube import outcome
from ilp_pyramid.puzzles.sudoku_cube.bench_cases import bench_cases as bench_grid
from ilp_pyramid.puzzles.sudoku_cube.checks import (
    DEFAULT_PARITY,
    PARITY_MODES,
    RULES,
    digit_count_problem,
)
from ilp_pyramid.puzzles.sudoku_cube.generate import DEFAULT_SCRAMBLE, generate
from ilp_pyramid.puzzles.sudoku_cube.geometry import DIRECTIONS, FACES, NUM_FACELETS, geometry
from ilp_pyramid.puzzles.sudoku_cube.render import figure, net, png_bytes
from ilp_pyramid.puzzles.sudoku_cube.simulate import format_moves, parse_moves
from ilp_pyramid.puzzles.sudoku_cube.state import Cube, CubeState, parse_state, state_from_dict
from ilp_pyramid.verify.sudoku_cube import check_answer, check_moves

if TYPE_CHECKING:
    from ilp_pyramid.puzzles.sudoku_cube.outcome import CubeResult
    from ilp_pyramid.puzzles.sudoku_cube.solution import CubeSolution


MAX_SCRAMBLE = 10_000  # face turns: far past mixing, short of a typo's millions


class SudokuCubePuzzle:
    """Find where every piece of a scrambled Sudoku Cube goes, and how it turns, so that every
    face shows 1-9 upright, in a grid that face turns reach."""

    name = "sudoku-cube"
    title = "Sudoku Cube: a Rubik's Cube with digits, every face to show 1-9 upright"
    forms = ("mip", "cnf")

    def instance(self, state: CubeState | str | Mapping[str, Sequence[str]],
                 symmetric: Iterable[int] = ()) -> Cube:
        """`state`: a `CubeState`, its text format (`FACE: nine tokens` per line) or its JSON
        form {"U": ["5^", ...], ...}; `symmetric`: digits that look the same upside down."""
        if isinstance(state, str):
            state = parse_state(state)
        elif not isinstance(state, CubeState):
            if not isinstance(state, Mapping) or not all(
                    isinstance(tokens, list) and all(isinstance(t, str) for t in tokens)
                    for tokens in state.values()):
                raise InputError(f'a Sudoku Cube is a CubeState, its text format or its faces '
                                 f'{{"U": ["5^", ...], ...}}, not {shown(state)}')
            state = state_from_dict(dict(state))
        if isinstance(symmetric, str) or not isinstance(symmetric, Iterable):
            raise InputError(f"symmetric must be a list of digits 1-9, not {shown(symmetric)}")
        digits = set(symmetric)
        if not all(type(d) is int and 1 <= d <= 9 for d in digits):
            raise InputError(f"symmetric digits must be 1-9 (got {sorted(digits, key=str)})")
        return Cube(state, frozenset(digits | {1}))

    def parse(self, text: str) -> Cube:
        """The sticker file `sudoku-cube solve FILE` reads."""
        return self.instance(check_text(text, "a Sudoku Cube's stickers"))

    def default(self) -> Cube:
        raise InputError("the Sudoku Cube has no default cube: give a sticker file (or make "
                         "one: ilp-pyramid sudoku-cube generate --seed S)")

    def generate(self, size: int | None = None, seed: int = 0, planted: bool = True) -> Cube:
        """A random solved design scrambled by `size` face turns (default 30), as `sudoku-cube
        generate` makes it: every generated cube has its design planted, `planted` or not."""
        scramble = DEFAULT_SCRAMBLE if size is None else \
            check_whole(size, "a scramble (face turns)", 0, MAX_SCRAMBLE)
        seed = check_whole(seed, "seed")
        check_flag(planted, "planted")
        return Cube(generate(seed, scramble).state)

    def model(self, instance: Cube, form: str, *, parity: str = DEFAULT_PARITY,
              rules: Iterable[str] = RULES) -> Model:
        """The grid model keeping `rules` of turning, its parities kept as `parity` says:
        form "mip" the 0-1 program (model.py), "cnf" the same rules as clauses (cnf.py);
        either solves itself in rounds (rounds.py). Digits that cannot make six 1-9 faces
        raise `protocol.Infeasible` saying which. Its `options`: the parity mode, the upright
        form (the MIP's default; the CNF keeps the exact "imply" clauses alone) and the rules
        kept ("A+B", "none")."""
        instance, _ = _check_instance(instance), check_form(self, form)
        parity = check_choice(parity, "the parity mode", PARITY_MODES)
        if isinstance(rules, str) or not isinstance(rules, Iterable):
            raise InputError(f"rules must be a list of rules of turning ({', '.join(RULES)}), "
                             f"not {shown(rules)}")
        rules = tuple(rules)
        for rule in rules:
            check_choice(rule, "a rule of turning", RULES)
        problem = digit_count_problem(instance.state)
        if problem:
            raise Infeasible(problem)
        from ilp_pyramid.puzzles.sudoku_cube.cnf import build_cnf
        from ilp_pyramid.puzzles.sudoku_cube.model import DEFAULT_UPRIGHT, NoGrid, build_model
        from ilp_pyramid.puzzles.sudoku_cube.rounds import Rounds
        from ilp_pyramid.puzzles.sudoku_cube.solution import assemble

        build = build_cnf if form == "cnf" else build_model
        try:
            built = build(instance.state, instance.symmetric, parity, rules)
        except NoGrid as exc:
            raise Infeasible(str(exc)) from None
        return Model(form, built.form,
                     lambda answer: assemble(instance.state, built.grid(answer)),
                     build_seconds=built.build_seconds, variables=built.num_variables,
                     constraints=built.num_constraints, keys={"parity": parity},
                     run=Rounds(built),
                     options={"parity": parity,
                              "upright": "imply" if form == "cnf" else DEFAULT_UPRIGHT,
                              "rules": "+".join(rules) or "none"})

    def after(self, instance: Cube, result: Result, options: SolveOptions,
              moves: bool = False) -> CubeResult:
        """What the answer means for the cube (finish.py): why there is no grid (`detail`
        no_grid or not_turnable, `reason`), and with `moves` the face turns, simulated."""
        from ilp_pyramid.puzzles.sudoku_cube.finish import finish

        return finish(instance, result, options, moves)

    def json_keys(self, instance: Cube, result: Result) -> dict[str, Any]:
        """Every key `sudoku-cube solve --json` has always had (outcome.py)."""
        return outcome.json_keys(result)

    def summary(self, instance: Cube, result: Result) -> str:
        """The run, the model's size, the verdict with the piece table, or why not."""
        return outcome.summary(instance, result)

    def verify(self, instance: Cube, solution: CubeSolution) -> list[str]:
        """verify/sudoku_cube.py on the given and target stickers and the sticker map: faces,
        whole pieces moved as a cube moves them, reachable by turning; and the moves, if any,
        simulated on the given cube. The reasons it fails ([] when it holds); InputError
        when `solution` is no `CubeSolution`."""
        instance, solution = _check_instance(instance), _check_solution(solution)
        given, target = instance.state.to_dict(), solution.target.to_dict()
        verdict = check_answer(given, target, solution.source, instance.symmetric)
        problems = verdict.reasons()
        if solution.moves is not None:
            problems += [f"the moves miss the target at {miss}"
                         for miss in check_moves(given, target, format_moves(solution.moves))]
        return problems

    def render(self, instance: Cube, solution: CubeSolution, fmt: str = "text") -> str | bytes:
        """"text": the solved net with each face's direction (and the moves, if found);
        "png" / "svg": the nets before and after (extra `pictures`)."""
        fmt = check_choice(fmt, "sudoku-cube's picture format", ("text", "png", "svg"))
        instance, solution = _check_instance(instance), _check_solution(solution)
        # render.py: the drawing module, the one that brings in matplotlib.

        if fmt == "text":
            text = net(solution.target, solution.directions) + "\n"
            if solution.moves is not None:
                text += f"moves: {format_moves(solution.moves) or '(none)'}\n"
            return text
        if fmt == "png":
            return png_bytes(instance.state, solution.target, solution.directions,
                             "Sudoku Cube")
        return svg_text(figure(instance.state, solution.target, solution.directions,
                               "Sudoku Cube"))

    def to_json(self, instance: Cube, solution: CubeSolution) -> dict:
        """The solution keys of `sudoku-cube solve --json` (faces, directions, assignment,
        moves), after the given cube ("given") and its half-turn-symmetric digits."""
        instance, solution = _check_instance(instance), _check_solution(solution)
        return {"given": instance.state.to_dict(), "symmetric": sorted(instance.symmetric),
                **solution.to_json()}

    def from_json(self, data: dict) -> tuple[Cube, CubeSolution]:
        """`to_json`'s output. The sticker map is rebuilt from "assignment"; "faces" is
        taken as written, so a target the pieces do not make fails `verify`."""
        data = check_object(data, "a Sudoku Cube solution")
        symmetric = data.get("symmetric", [1])
        if not isinstance(symmetric, list):
            raise InputError('"symmetric" must be a list of digits')
        instance = self.instance(_faces(data, "given"), symmetric)
        target = self.instance(_faces(data, "faces")).state
        solution = _assembled(instance.state, data)
        solution.target = target
        moves = data.get("moves")
        if moves is not None:
            if not isinstance(moves, str):
                raise InputError('"moves" must be a string of face turns')
            solution.moves = parse_moves(moves)
        return instance, solution

    def bench_cases(self, sizes: Sequence[int] | None = None) -> list[BenchCase]:
        """One generated cube per scramble length in `sizes` (default 1, 2, 3, 5, 10 and 30
        turns); the bench's --seed picks the cube (bench_cases.py)."""
        return bench_grid(check_sizes(sizes, "scramble (face turns)", 0, MAX_SCRAMBLE))


def _check_instance(instance: object) -> Cube:
    """A Sudoku Cube instance is a `Cube` (what `instance`, `parse` and `generate` make)."""
    if not isinstance(instance, Cube):
        raise InputError(f"a Sudoku Cube instance is a Cube (what sudoku-cube's instance, "
                         f"parse or generate make), not {shown(instance)}")
    return instance


def _check_solution(solution: object) -> CubeSolution:
    """A solution is a `CubeSolution`: a target state, a sticker map of the 54 facelets and
    the moves (None, or a list)."""
    from ilp_pyramid.puzzles.sudoku_cube.solution import CubeSolution

    if not isinstance(solution, CubeSolution):
        raise InputError(f"a Sudoku Cube solution is a CubeSolution (what solve and from_json "
                         f"give), not {shown(solution)}")
    source = solution.source
    if not isinstance(solution.target, CubeState) or not isinstance(source, list) \
            or len(source) != NUM_FACELETS or not all(type(a) is int for a in source) \
            or not isinstance(solution.moves, list | None):
        raise InputError(f"a CubeSolution needs a target CubeState, its source as "
                         f"{NUM_FACELETS} facelet numbers and its moves as a list or None")
    return solution


def _faces(data: dict, key: str) -> Any:
    faces = data.get(key)
    if not isinstance(faces, dict):
        raise InputError(f'"{key}" must be the six faces {{"U": ["5^", ...], ...}}')
    return faces


def _assembled(state: CubeState, data: dict) -> CubeSolution:
    """The grid of "assignment" (and "directions") applied to the given stickers."""
    from ilp_pyramid.puzzles.sudoku_cube.model import Grid
    from ilp_pyramid.puzzles.sudoku_cube.solution import assemble

    rows, directions = data.get("assignment"), data.get("directions")
    if not isinstance(rows, list) or not isinstance(directions, dict):
        raise InputError('a Sudoku Cube solution needs "assignment" (a list of pieces) and '
                         '"directions" (one per face)')
    geo = geometry()
    # Lists, not the strings FACES and DIRECTIONS: str.index would find "UR" in "URFDLB".
    faces, arrows = list(FACES), list(DIRECTIONS)
    corners: dict[int, tuple[int, int]] = {}
    edges: dict[int, tuple[int, int]] = {}
    centres: dict[int, int] = {}
    try:
        for row in rows:
            kind = row["piece"]
            if kind == "corner":
                names, turn, into = geo.corner_names, row["twist"], corners
            elif kind == "edge":
                names, turn, into = geo.edge_names, row["flip"], edges
            elif kind == "centre":
                centres[faces.index(row["from"])] = _small(row["quarter_turns"])
                continue
            else:
                raise InputError(f"unknown piece kind {kind!r} in the assignment")
            into[names.index(row["from"])] = (names.index(row["to"]), _small(turn))
        grid = Grid(corners, edges, centres,
                    {faces.index(face): arrows.index(arrow)
                     for face, arrow in directions.items()})
        return assemble(state, grid)
    except InputError:
        raise  # already one line saying what is wrong: not nested in another
    except (KeyError, ValueError, TypeError) as exc:
        raise InputError(f"the assignment is not one of whole pieces ({exc!r})") from None


def _small(value: object) -> int:
    if type(value) is not int or not 0 <= value <= 3:
        raise ValueError(f"turn {value!r} is not 0-3")
    return value


PUZZLE = SudokuCubePuzzle()
