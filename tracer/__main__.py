"""``python -m tracer`` runs the ``tapegen`` command."""

import sys

from tracer.cli.main import main

sys.exit(main())
