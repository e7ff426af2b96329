"""websearch-tui: research the web across many search providers at once, in the terminal.

Only the version lives here so that importing the package stays cheap.
"""

__version__ = "0.1.0"
