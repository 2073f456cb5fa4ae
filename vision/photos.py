"""Photos read from files."""
from __future__ import annotations

from pathlib import Path

import numpy as np


def read_photo(path: str | Path) -> np.ndarray | None:
    """The photo at ``path`` as BGR uint8, its EXIF orientation applied, or None when it is
    not a file or cannot be decoded. The file is read as bytes and decoded (cv2.imdecode):
    cv2.imread crashes the process on a file name that is not UTF-8 (``café.jpg`` unpacked
    from an old zip), in OpenCV 4.11 and 5.0 alike."""
    import cv2

    try:
        data = Path(path).read_bytes()
    except OSError:  # not a file, gone, unreadable
        return None
    if not data:
        return None
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
