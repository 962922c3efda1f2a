"""Where memories are stored in a database: the only package in OnFile that builds SQL."""
