"""The API agent runtimes call on every turn (`/agent/runs`, `/agent/threads`), by bearer token."""
