"""`python -m app.cli`: the same as the `fusecam` command."""

import sys

from app.cli.main import main

sys.exit(main())
