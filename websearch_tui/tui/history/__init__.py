"""The history screen: past searches, full-text search, reopen."""
