"""``python -m site_gen``."""

from .cli import program

raise SystemExit(program())
