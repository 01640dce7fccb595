"""``tapegen demo``: run ``tracer.cli.demo`` and tell the user, in the command line's terms,
where its module went or why it failed."""

import os

from tracer.cli import demo
from tracer.cli.errors import CommandError
from tracer.cli.output import shown


def run(args):
    """Record the demo model, write ``loss_grad.py`` into ``args.output`` and check it."""
    try:
        path = demo.run(args.output)
    except OSError as error:
        raise CommandError(f"cannot write into {args.output}: {error.strerror}") from None
    except demo.CheckFailed as error:
        raise CommandError(str(error)) from None
    print(f"\nThe gradient module is {shown(path)}, written into {_folder(path)}. "
          f"It needs only numpy; codegen.load({shown(path)!r}) imports it.")


def _folder(path):
    """Where ``path`` is, said so that a user finds it: the current directory is named as
    such (the demo writes there unless told otherwise), with its absolute path."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.realpath(folder) == os.path.realpath(os.getcwd()):
        return f"the current directory ({folder}; -o DIR writes it elsewhere)"
    return folder
