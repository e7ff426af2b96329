"""The settings screen: keys, provider forms, general settings."""
