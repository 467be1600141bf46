"""A sticker state (digit and direction on each of the 54 facelets) and its text format.

    # comment
    U: 5^ 3> 9^ 1v 2^ 8< 7^ 4^ 6^
    R: ...

One line per face, nine tokens row by row, faces in any order; a token is a digit 1-9 and the
way its top points in the face's grid view: ^ up, > right, v down, < left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.sudoku_cube.geometry import DIRECTIONS, FACES, NUM_FACELETS

Sticker = tuple[int, int]  # (digit 1-9, direction 0-3)

_LINE = re.compile(r"^\s*([A-Za-z]+)\s*:(.*)$")
_TOKEN = re.compile(r"^([1-9])([\^>v<])$")


@dataclass(frozen=True)
class CubeState:
    stickers: tuple[Sticker, ...]  # indexed by facelet, URFDLB order

    def __post_init__(self) -> None:
        if len(self.stickers) != NUM_FACELETS:
            raise ValueError(f"a cube has {NUM_FACELETS} facelets, got {len(self.stickers)}")

    def face(self, face: str) -> tuple[Sticker, ...]:
        f = FACES.index(face)
        return self.stickers[9 * f: 9 * f + 9]

    def face_tokens(self, face: str) -> list[str]:
        return [token(s) for s in self.face(face)]

    def to_dict(self) -> dict[str, list[str]]:
        return {face: self.face_tokens(face) for face in FACES}

    def to_text(self, header: str = "") -> str:
        lines = [f"# {line}" if line else "#" for line in header.splitlines()]
        lines += [f"{face}: " + " ".join(self.face_tokens(face)) for face in FACES]
        return "\n".join(lines) + "\n"

    def digits(self) -> tuple[int, ...]:
        return tuple(d for d, _ in self.stickers)


def token(sticker: Sticker) -> str:
    digit, direction = sticker
    return f"{digit}{DIRECTIONS[direction % 4]}"


def parse_token(text: str) -> Sticker | None:
    match = _TOKEN.match(text)
    if not match:
        return None
    return int(match.group(1)), DIRECTIONS.index(match.group(2))


def parse_state(text: str) -> CubeState:
    """Read the text format; every error is one line naming the line, face and position."""
    seen: dict[str, int] = {}
    faces: dict[str, list[Sticker]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _LINE.match(line)
        if not match:
            raise InputError(f"line {number}: expected 'FACE: nine tokens' (FACE one of "
                             f"{' '.join(FACES)}), got {_clip(line)!r}")
        face, rest = match.group(1), match.group(2).split()
        if face not in FACES:
            raise InputError(f"line {number}: unknown face {face!r} (want one of "
                             f"{' '.join(FACES)})")
        if face in seen:
            raise InputError(f"line {number}: face {face} given twice (first on line "
                             f"{seen[face]})")
        seen[face] = number
        if len(rest) != 9:
            raise InputError(f"line {number}: face {face} has {len(rest)} tokens, want 9")
        stickers = []
        for pos, text_token in enumerate(rest, start=1):
            sticker = parse_token(text_token)
            if sticker is None:
                raise InputError(f"line {number}: face {face} position {pos}: bad token "
                                 f"{_clip(text_token)!r} (want a digit 1-9 and a direction "
                                 f"^ > v <, e.g. 5^)")
            stickers.append(sticker)
        faces[face] = stickers
    missing = [f for f in FACES if f not in faces]
    if missing:
        raise InputError(f"face{'s' if len(missing) > 1 else ''} {' '.join(missing)} missing "
                         f"(a cube needs all of {' '.join(FACES)})")
    return CubeState(tuple(s for face in FACES for s in faces[face]))


def state_from_dict(faces: dict[str, list[str]]) -> CubeState:
    """The --json form {"U": ["5^", ...], ...} back into a state."""
    text = "\n".join(f"{face}: {' '.join(tokens)}" for face, tokens in faces.items())
    return parse_state(text)


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass(frozen=True)
class Cube:
    """A Sudoku Cube to solve (the puzzle's instance): its stickers, and the digits that may
    point up or down (1 always may)."""

    state: CubeState
    symmetric: frozenset[int] = field(default=frozenset({1}))
