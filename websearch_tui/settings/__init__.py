"""The user's settings: ``config.toml`` read, validated and edited in place."""
