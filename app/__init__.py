"""Fusecam's front-ends only: app/cli (argparse) and app/gui (Qt, the only code that
imports PySide6). Everything they drive is in engine/."""
