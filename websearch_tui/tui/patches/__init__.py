"""Every use of Textual's private internals, each with the upstream issue it works around."""
