"""API keys: the OS keyring, the opt-in key file and environment variables."""
