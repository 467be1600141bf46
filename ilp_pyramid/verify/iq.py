"""Check an IQ Pyramid / Kanoodle filling from first principles (no model, no solver).

Plain data in: the board's cells (2-D (x, y) or 3-D (i, j, h) balls), the piece shapes, the
filling and the given cells, all keyed by coordinates and letters. A filling is valid when every
board cell holds exactly one letter, every given cell keeps its letter, no piece is used twice,
every piece is used when the pieces have exactly as many cells as the board, and the cells of
each letter are a congruent copy of that piece laid flat in the lattice: in 2-D a rotation or
reflection of it; in the ball pyramid a rotation or reflection of it in a horizontal level or in
one of the two families of vertical diagonal planes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

Coord = tuple[int, ...]


@dataclass
class IQVerdict:
    valid: bool
    problems: list[str] = field(default_factory=list)


def _canonical(shape: Iterable[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """The smallest normalised image of a 2-D shape under the 8 square symmetries."""
    cells = list(shape)
    forms = []
    for a, b, c, d in ((1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0),
                       (-1, 0, 0, 1), (1, 0, 0, -1), (0, 1, 1, 0), (0, -1, -1, 0)):
        moved = [(a * x + b * y, c * x + d * y) for x, y in cells]
        mx = min(p[0] for p in moved)
        my = min(p[1] for p in moved)
        forms.append(tuple(sorted((x - mx, y - my) for x, y in moved)))
    return frozenset(min(forms))


def _plane_shape(balls: list[Coord]) -> list[tuple[int, int]] | None:
    """2-D coordinates of pyramid balls lying in one plane of the packing, else None.

    Ball (i, j, h) sits at (X, Y, Z) = (2i + h, 2j + h, h). In a horizontal level the unit steps
    are (2, 0, 0) and (0, 2, 0); in a plane X - Y = const they are (1, 1, 1) and (1, 1, -1); in a
    plane X + Y = const, (1, -1, 1) and (1, -1, -1). Those pairs are perpendicular under the
    packing's metric dx^2 + dy^2 + 2 dz^2, so lattice steps in them are true unit squares.
    """
    points = [(2 * i + h, 2 * j + h, h) for i, j, h in balls]
    if len({p[2] for p in points}) == 1:
        return [((x - points[0][0]) // 2, (y - points[0][1]) // 2) for x, y, _ in points]
    x0, y0, z0 = points[0]
    if len({x - y for x, y, _ in points}) == 1:
        # d = a (1, 1, 1) + b (1, 1, -1):  dx = a + b, dz = a - b.
        return [((x - x0 + z - z0) // 2, (x - x0 - (z - z0)) // 2) for x, _, z in points]
    if len({x + y for x, y, _ in points}) == 1:
        return [((x - x0 + z - z0) // 2, (x - x0 - (z - z0)) // 2) for x, _, z in points]
    return None


def verify_filling(cells: Iterable[Coord], pieces: Mapping[str, Iterable[tuple[int, int]]],
                   filling: Mapping[Coord, str],
                   given: Mapping[Coord, str] | None = None) -> IQVerdict:
    """`cells`: the board; `pieces`: letter -> cells of the piece; `filling`: cell -> letter;
    `given`: cells that must hold a given letter (pieces placed in advance, pins)."""
    return FillingChecker(cells, pieces, given).check(filling)


class FillingChecker:
    """`verify_filling` for many fillings of one board: the board and the piece shapes are
    prepared once, and each (letter, cells) met is judged once (a board has a few thousand
    placements, its fillings hundreds of thousands)."""

    def __init__(self, cells: Iterable[Coord], pieces: Mapping[str, Iterable[tuple[int, int]]],
                 given: Mapping[Coord, str] | None = None) -> None:
        self.board = list(cells)
        self.board_set = set(self.board)
        self.given = dict(given or {})
        self.shapes = {letter: _canonical(shape) for letter, shape in pieces.items()}
        self.all_used = sum(len(s) for s in self.shapes.values()) == len(self.board)
        self._judged: dict[tuple[str, tuple[Coord, ...]], str | None] = {}
        self._patterns: dict[tuple[str, bytes], bool] = {}  # (letter, cells as bits) -> valid

    def check(self, filling: Mapping[Coord, str]) -> IQVerdict:
        problems: list[str] = []
        if filling.keys() != self.board_set:
            problems += [f"cell {c} is empty" for c in self.board if c not in filling]
            problems += [f"cell {c} is not on the board" for c in filling
                         if c not in self.board_set]
        for cell, letter in self.given.items():
            if filling.get(cell) != letter:
                problems.append(f"given cell {cell} should hold {letter}, holds "
                                f"{filling.get(cell)}")
        by_letter: dict[str, list[Coord]] = {}
        for cell, letter in filling.items():
            by_letter.setdefault(letter, []).append(cell)
        for letter, placed in sorted(by_letter.items()):
            key = (letter, tuple(sorted(placed)))
            if key not in self._judged:
                self._judged[key] = self._judge(letter, placed)
            if self._judged[key] is not None:
                problems.append(self._judged[key])  # type: ignore[arg-type]
        if self.all_used:
            problems += [f"piece {letter} is not used"
                         for letter in sorted(set(self.shapes) - set(by_letter))]
        return IQVerdict(not problems, problems)

    def check_lines(self, text: bytes, dims: int) -> tuple[int, str] | None:
        """Judge many fillings written one per line (as `parse_solution_line` reads them, each
        ending in a newline): the first invalid one as (line index, its first problem), None
        when every line is valid.

        Hundreds of thousands of lines are judged at array speed: the cells of each letter
        become a bit pattern per line, and each distinct (letter, pattern) is judged once, as
        `check` does. A line that is anything but plainly valid there (another layout, a
        character off the board, a given cell changed, a bad or missing piece) goes through
        `check` itself, which names its problem."""
        import numpy as np

        lines = text.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if not lines:
            return None
        suspect = np.ones(len(lines), bool)
        first = lines[0]
        if all(len(line) == len(first) for line in lines):
            grid = np.frombuffer(b"".join(lines), np.uint8).reshape(len(lines), len(first))
            suspect = self._suspects(grid, first.decode("latin-1"), dims)
        for index in np.flatnonzero(suspect).tolist():
            line = lines[index].decode("utf-8", "replace")
            try:
                verdict = self.check(parse_solution_line(line, dims))
            except ValueError as exc:
                return index, str(exc)
            if not verdict.valid:
                return index, verdict.problems[0]
        return None

    def _suspects(self, grid, layout: str, dims: int):  # noqa: ANN001, ANN202 - numpy arrays
        """Lines of `grid` (one per row, all as long as `layout`, the first line) that are not
        shown valid here; True everywhere when the layout itself is not understood."""
        import numpy as np

        where: dict[Coord, int] = {}  # cell -> column of its letter, read as parse_solution_line
        h = j = i = 0
        separators = np.zeros(grid.shape[1], bool)
        for at, ch in enumerate(layout):
            if ch in "/|":
                separators[at] = True
                h, j, i = (h + 1, 0, 0) if ch == "|" else (h, j + 1, 0)
                continue
            where[(i, j) if dims == 2 else (i, j, h)] = at
            i += 1
        letters = sorted(self.shapes)
        if any(cell not in where for cell in [*self.board, *self.given]) or \
                any(len(letter) != 1 for letter in letters) or (dims == 2 and "|" in layout):
            return np.ones(grid.shape[0], bool)
        # The same separators in the same places: the same cell behind every other column.
        expected = np.frombuffer(layout.encode("latin-1"), np.uint8) * separators
        is_separator = np.isin(grid, (ord("/"), ord("|")))
        same_layout = (np.where(is_separator, grid, 0) == expected).all(axis=1)
        columns = np.array([where[cell] for cell in self.board], np.int64)
        off_board = [at for cell, at in where.items() if cell not in self.board_set]
        cells = grid[:, columns]
        codes = np.array([ord(letter) for letter in letters], np.uint8)
        ok = same_layout & np.isin(cells, codes).all(axis=1)
        if off_board:
            ok &= (dims == 2) & (grid[:, off_board] == ord(" ")).all(axis=1)
        for cell, letter in self.given.items():
            ok &= grid[:, where[cell]] == (ord(letter) if len(letter) == 1 else -1)
        width = -(-len(self.board) // 64) * 8  # bytes of a pattern, whole 64-bit words
        for letter in letters:
            bits = np.packbits(cells == ord(letter), axis=1)
            bits = np.ascontiguousarray(np.pad(bits, ((0, 0), (0, width - bits.shape[1]))))
            keys = bits.view(np.uint64) if width == 8 else bits.view(np.dtype((np.void, width)))
            distinct, back = np.unique(keys.ravel(), return_inverse=True)
            good = np.array([self._pattern_ok(letter, key.tobytes()) for key in distinct], bool)
            ok &= good[back.ravel()]
        return ~ok

    def _pattern_ok(self, letter: str, key: bytes) -> bool:
        """Whether the cells of `letter` given as a bit pattern over the board (in board
        order, as `_suspects` packs them) are a valid copy of the piece."""
        if (letter, key) not in self._patterns:
            import numpy as np

            bits = np.unpackbits(np.frombuffer(key, np.uint8))[: len(self.board)]
            placed = [self.board[b] for b in np.flatnonzero(bits).tolist()]
            if not placed:
                self._patterns[letter, key] = not self.all_used
            else:
                judged = (letter, tuple(sorted(placed)))
                if judged not in self._judged:
                    self._judged[judged] = self._judge(letter, placed)
                self._patterns[letter, key] = self._judged[judged] is None
        return self._patterns[letter, key]

    def _judge(self, letter: str, placed: list[Coord]) -> str | None:
        """What is wrong with these cells as a copy of piece `letter` (None: nothing)."""
        if letter not in self.shapes:
            return f"unknown piece {letter}"
        if len(placed) != len(self.shapes[letter]):
            return (f"piece {letter} covers {len(placed)} cells, it has "
                    f"{len(self.shapes[letter])} (used twice or cut?)")
        flat = [(c[0], c[1]) for c in placed] if len(placed[0]) == 2 else _plane_shape(placed)
        if flat is None:
            return f"piece {letter} does not lie in one plane of the pyramid"
        if _canonical(flat) != self.shapes[letter]:
            return f"the cells of piece {letter} are not a copy of its shape"
        return None


def parse_solution_line(line: str, dims: int) -> dict[Coord, str]:
    """A filling written as one line (`iq count --output`): 2-D, the rows top to bottom joined
    by `/`, a character per column (space: outside the board); 3-D, each level's rows joined by
    `/`, the levels bottom first joined by `|`. ValueError for anything else."""
    filling: dict[Coord, str] = {}
    levels = line.rstrip("\r\n").split("|")
    if dims == 2 and len(levels) > 1:
        raise ValueError("a 2-D filling has no levels ('|')")
    for h, level in enumerate(levels):
        for j, row in enumerate(level.split("/")):
            for i, ch in enumerate(row):
                if ch == " " and dims == 2:
                    continue
                if not ch.isalpha():
                    raise ValueError(f"unexpected character {ch!r} in row {j + 1}")
                filling[(i, j) if dims == 2 else (i, j, h)] = ch
    return filling
