"""Hand occlusion: MediaPipe's palm detector and hand landmark model on onnxruntime, and
the hand mask that keeps hands in front of the face visible (occlusion.py: into the face
patches' keep masks)."""
