"""The package version, in one place (read by setuptools and sent in every User-Agent)."""

__version__ = "0.1.0"
