"""``python -m hopsim``: the command line, as the ``hopsim`` script runs it."""

import sys

from hopsim.cli import main

sys.exit(main())
