"""OnFile's web layer: the command line now; the dashboard and the agent API as they arrive."""
