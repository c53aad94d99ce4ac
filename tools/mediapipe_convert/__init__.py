"""Developer-time conversion of MediaPipe's bundled TFLite models to ONNX; the command is
tools/convert_mediapipe_models.py (its docstring has the set-up and the exact command).

cli                the steps in order, from the wheel to the files in the repository
mediapipe_package  finding the package and its protobuf modules without importing it
graph_configs      the MediaPipe graphs compiled into the native library
graph_info         what the manifest records of each model's graph (anchors, ranges)
specs              the models to convert and what the manifest says of them
tflite_dense       sparse TFLite weights made dense (tf2onnx cannot read them)
onnx_passes        reproducible names, lossless float16 weights, a dynamic batch
convert            one model through tf2onnx and the passes; all of them in order
manifest           each model's manifest entry; merging into manifest.json
anchors, imaging   SSD anchors and box decoding; photo preprocessing for the check
runners, verify    TFLite and onnxruntime sessions; the check against TFLite
prelu              tools/rewrite_prelu.py's rewrite, as the shipped models carry it
mesh               the canonical face mesh from the @mediapipe/face_mesh npm package
"""
