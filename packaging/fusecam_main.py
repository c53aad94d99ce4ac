"""The bundle's entry point: the same `fusecam` command a pip install gives."""

import sys

from app.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
