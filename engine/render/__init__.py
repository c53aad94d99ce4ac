"""Pixels: mesh rasterisation (which triangle covers each pixel, where it samples the
texture) and the compositor maths that blend a rendered face back into the frame."""
