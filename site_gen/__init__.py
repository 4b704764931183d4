"""site-gen: static sites for research publication profiles, from author dumps."""

__version__ = "0.1.0"
