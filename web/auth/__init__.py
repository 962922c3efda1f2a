"""Signing in with the organisation's OpenID Connect provider, and signing out: the routes and their
pages. The sessions they start and end are `web.kit.identity`'s, since every audience reads them."""
