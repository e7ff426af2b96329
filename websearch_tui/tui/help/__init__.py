"""The help screen: keys and what they do."""
