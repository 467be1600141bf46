"""Errors the CLI turns into one-line messages instead of tracebacks."""


class InputError(Exception):
    """Bad input from the user (malformed file, impossible argument): exit code 2."""

    exit_code = 2


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
