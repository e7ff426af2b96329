"""Shared HTTP plumbing for every adapter: the client, streams, pacing, answer shapes."""
