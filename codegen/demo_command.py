"""``tapegen demo``: run ``codegen.demo`` and tell the user, in the command line's terms,
where its module went or why it failed."""

from codegen import demo
from codegen.command_errors import CommandError
from codegen.command_output import shown


def run(args):
    """Record the demo model, write ``loss_grad.py`` into ``args.output`` and check it."""
    try:
        path = demo.run(args.output)
    except OSError as error:
        raise CommandError(f"cannot write into {args.output}: {error.strerror}") from None
    except demo.CheckFailed as error:
        raise CommandError(str(error)) from None
    print(f"\nThe gradient module is {shown(path)}: it needs only numpy; "
          f"codegen.load({shown(path)!r}) imports it.")
