"""Who a request is for: dashboard sessions, the identity provider that vouches for the person and
their roles, and what those roles let them do here (`elevation`)."""
