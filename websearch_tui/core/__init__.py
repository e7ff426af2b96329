"""Core: request/response models, events, errors, the engine and output formats (no UI, no HTTP)."""
