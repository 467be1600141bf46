"""Errors the CLI turns into one-line messages instead of tracebacks."""


# Every character str.splitlines() breaks at: a message quoting the user's input must stay
# on one line (the CLI contract), so these are shown escaped.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_ESCAPED = {ord(ch): repr(ch)[1:-1] for ch in _LINE_BREAKS}


def one_line(text: str) -> str:
    """`text` with its line breaks escaped."""
    return text.translate(_ESCAPED)


class InputError(ValueError):
    """Bad input from the user (malformed file, impossible argument, an option out of range
    given to the Python API): exit code 2.

    A ValueError, so that callers of the Python API can catch it the usual way; the message
    is kept on one line whatever input it quotes."""

    exit_code = 2

    def __init__(self, message: object = "") -> None:
        super().__init__(one_line(str(message)))


class SolverError(Exception):
    """A solver could not be run or returned something unusable: exit code 1."""

    exit_code = 1


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived while a backend ran (see `backends.process.interruptible`).

    Every backend stops its solver and child processes, then lets this propagate. It is a
    KeyboardInterrupt, so code that handles Ctrl-C handles SIGTERM the same way; `exit_code`
    is the shell's convention, 128 + signal (130 for SIGINT, 143 for SIGTERM).
    """

    def __init__(self, signum: int = 2) -> None:
        super().__init__(signum)
        self.signum = signum
        self.exit_code = 128 + signum
