"""What outlives a run: the app's state on disk (settings_store)."""
