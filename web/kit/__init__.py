"""What every audience of the dashboard shares, and nothing audience-specific: who is signed in
(`identity`), the elevated area's layout and refusals, notices, CSRF and security headers, error
answers, paging, words, CSV exports and the JSON wire shapes.

The kit imports no audience (`web.me`, `web.admin`, `web.support`, `web.agent`, `web.auth`) and no
composition module (`web.app`, `web.cli`, `web.demo`…): the import contracts in `pyproject.toml` say so.
"""
