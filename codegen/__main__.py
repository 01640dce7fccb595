"""``python -m codegen`` runs the ``tapegen`` command."""

import sys

from codegen.cli import main

sys.exit(main())
