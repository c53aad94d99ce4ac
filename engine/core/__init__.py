"""What every layer shares: array types, the frame packet, settings, threads, slots,
listeners, stats, resource paths and image files. Imports nothing else from engine."""
