"""The built-in swap: source identities, which source goes on which face, shape and colour
transfer, rendering a face (engine/render draws and blends the pixels), internal scale."""
