"""Support's view of what the model will see: the prompt preview (`/support/preview`)."""
