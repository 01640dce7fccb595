"""Where a ``tapegen`` command's output goes: files it writes, and how it names them.

Every command that writes a file shares one rule, kept here so no command
forgets it: never write over the file that was traced.
"""

import os

import codegen
from tracer.cli.errors import USAGE, CommandError


def write_output(path, content, traced_file):
    """Write ``content`` (text, or an image's bytes) to ``path``; never over the user's
    traced file, which a mistyped ``-o`` would otherwise destroy."""
    if os.path.exists(path) and os.path.samefile(path, traced_file):
        raise CommandError(f"-o {path} is the traced file itself; write the output "
                           "somewhere else", USAGE)
    try:
        return _save(path, content)
    except OSError as error:
        raise CommandError(f"cannot write {path}: {error.strerror}") from None


def _save(path, content):
    """Text through ``codegen.write``; an image's bytes as they are."""
    if isinstance(content, str):
        return codegen.write(path, content)
    with open(path, "wb") as handle:
        handle.write(content)
    return path


def shown(path):
    """``path`` relative to the current directory when it is below it, else absolute."""
    relative = os.path.relpath(path)
    return os.path.abspath(path) if relative.startswith(os.pardir) else relative
