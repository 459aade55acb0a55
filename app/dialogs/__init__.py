"""The window's dialogs: settings, runs, ties, comparing, compression, export and import."""
