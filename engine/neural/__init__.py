"""Neural model families run through onnxruntime: ArcFace recognition, inswapper-style
swapping, GFPGAN-style restoration, plus the alignment they share, a face swapped and
pasted back (face_swap.py) and a patch restored (restore_paste.py). The stages adapting
them to the packet are engine/stages/neural_swap.py and engine/stages/neural_enhance.py."""
