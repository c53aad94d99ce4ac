"""The `fusecam` command line: argparse front-ends (`run`, `swap`, `bench`, `models`) that
drive the engine's live session; with no command it opens the desktop app (app.gui)."""
