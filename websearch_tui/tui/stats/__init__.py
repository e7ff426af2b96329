"""The Stats screen (F6, palette "Statistics"): per-provider figures of the history as a table and charts."""
