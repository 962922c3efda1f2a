"""Logging people in with their organisation's OpenID Connect provider, and their dashboard sessions."""
