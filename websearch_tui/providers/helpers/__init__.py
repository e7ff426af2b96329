"""Helpers any adapter may use: parsing, prompts, model checks, logins."""
