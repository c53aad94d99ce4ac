"""The invisible watermark every Fusecam output carries (docs/watermark.md)."""
