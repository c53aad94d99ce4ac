"""The built-in swap: source identities, shape/texture blending, rendering, compositing."""
