"""``python -m site_gen``."""

from .cli import main

raise SystemExit(main())
