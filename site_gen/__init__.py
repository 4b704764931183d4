"""site-gen: static sites for research publication profiles, from author dumps."""

__version__ = "0.1.0"
"""The one place the version lives: the wheel's metadata, ``site-gen --version``, the carried
wheel's name and the pages' generator tag read it from here."""
