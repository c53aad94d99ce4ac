"""Frame sources: camera, video file, still image and the synthetic demo."""

from engine.sources.base import FrameSource, SourceError, SourceInfo
from engine.sources.camera import CameraSource
from engine.sources.demo import DemoSource
from engine.sources.image import ImageSource
from engine.sources.video import VideoFileSource

__all__ = [
    "CameraSource",
    "DemoSource",
    "FrameSource",
    "ImageSource",
    "SourceError",
    "SourceInfo",
    "VideoFileSource",
]
