"""site-gen: static sites for research publication profiles, from author dumps."""

__version__ = "0.1.0"
SOURCE_URL = "https://github.com/site-gen/site-gen"
"""Where site-gen's source lives (also [project.urls] in pyproject.toml); sites link to it and
``site-gen new`` writes a workflow that installs the release tagged ``v{__version__}`` from it."""
