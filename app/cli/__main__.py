"""`python -m app.cli`: the same as the `fusecam` command."""

from app.cli.main import entry

entry()
