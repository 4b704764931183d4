"""``python -m site_gen``."""

from site_gen.cli import program

raise SystemExit(program())
