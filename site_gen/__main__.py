"""``python -m site_gen``."""

import sys

try:
    from site_gen.cli import program
except KeyboardInterrupt:  # Ctrl-C while starting up: nothing was read or written yet
    print("site-gen: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(program())
