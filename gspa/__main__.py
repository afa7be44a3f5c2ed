"""`python -m gspa`: the `gspa` command (the same as the console script; see :mod:`gspa.cli`)."""

import sys

from gspa.cli import main

sys.exit(main())
