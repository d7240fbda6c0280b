"""``python -m reasoneval_mini`` is the same as ``reasoneval-course``."""

import sys

from reasoneval_mini.cli import main

sys.exit(main())
