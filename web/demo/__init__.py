"""The demo: its people and memories (`content`), a local identity provider (`oidc_mock`), and the
server that runs them with the dashboard (`server`)."""
