"""How a ``tapegen`` command stops: one line for the user and an exit status.

The parts of the command line raise ``CommandError`` instead of printing, so
that ``cli.main`` alone decides what reaches stderr and how the process ends.
"""

USAGE = 2
"""Exit status when the command line cannot be followed."""

FAILURE = 1
"""Exit status when following the command line fails."""


class CommandError(Exception):
    """A reason to stop, told to the user as one line; ``status`` is the exit status."""

    def __init__(self, message, status=FAILURE):
        super().__init__(message)
        self.status = status


def one_line(error):
    """An error's message on one line, however many lines it was written on."""
    return " ".join(str(error).split())
