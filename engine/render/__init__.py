"""Mesh rasterisation: which triangle covers each pixel, and where it samples the texture."""
