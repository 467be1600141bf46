"""Errors the CLI turns into one-line messages instead of tracebacks."""


class InputError(Exception):
    """Bad input from the user (malformed file, impossible argument): exit code 2."""

    exit_code = 2


class SolverError(Exception):
    """A solver could not be run or returned something unusable: exit code 1."""

    exit_code = 1


class Terminated(BaseException):  # noqa: N818 - named after the signal, like KeyboardInterrupt
    """SIGTERM arrived: raised by the CLI's handler so `finally` blocks stop children, exit 143.

    A BaseException, like KeyboardInterrupt, so no `except Exception` swallows it.
    """

    exit_code = 143
