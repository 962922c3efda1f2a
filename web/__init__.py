"""OnFile's web layer, by audience: `me` (a person's own pages), `admin` (shared facts, people, the audit
trail), `support` (the prompt preview), `agent` (the API agent runtimes call), `auth` (signing in and
out), over one shared `kit`. The modules at this level compose them: `app`, `asgi`, `cli`, `settings`,
`services` and what they run on; `demo` is the demo."""
