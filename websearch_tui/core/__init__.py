"""The floor: request/response models, events and the reducer, outcomes, errors and redaction, text
hygiene and provider specs. Imports nothing of the package above it, does no I/O, knows no UI."""
