"""The person's own pages: "What's on file about you" (`/`), forgetting and undoing, publishing their own
notes, downloading and forgetting everything, and the read-back API (`/agent/memories`)."""
