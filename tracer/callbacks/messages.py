"""Where callbacks print: standard output, flushed at once, as Keras' ``print_msg``."""

import sys


def print_msg(message, line_break=True):
    """Write ``message`` to ``sys.stdout`` and flush, so a live bar shows at once.

    A stream that cannot encode the bar's ``━`` gets ``=`` instead, as in Keras.
    """
    message = f"{message}\n" if line_break else str(message)
    try:
        sys.stdout.write(message)
    except UnicodeEncodeError:
        encoding = sys.stdout.encoding or "utf-8"
        message = message.replace("━", "=").encode(encoding, errors="ignore")
        sys.stdout.write(message.decode(encoding))
    sys.stdout.flush()
