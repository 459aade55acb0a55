"""Table models, one per pane, over a shared base (``table_model``): each answers from what it
cached when the bridge last announced a change, never from the engine behind a running job."""
