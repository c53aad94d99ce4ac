"""Neural model families run through onnxruntime: ArcFace recognition, inswapper-style
swapping, GFPGAN-style restoration, plus the alignment they share. The stages using them
are engine/stages/neural_swap.py and engine/stages/neural_enhance.py."""
