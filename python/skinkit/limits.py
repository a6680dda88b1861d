"""The limits skinkit's readers hold a file to before allocating what it asks for.

A file is untrusted: a few bytes can declare a billion keys, or reuse one buffer for thousands
of arrays.  The readers check every count they are about to allocate from against these limits
and refuse the file with a message giving the number and the limit, so that no small file ends
in a MemoryError (or the machine swapping).  Each limit is written once, here.
"""
from __future__ import annotations

import os
from typing import Optional

# Arrays a reader builds from a file (decoded accessors, their per-channel and per-primitive
# copies, dense morph targets) may outgrow the file (normalized bytes become float64, sparse
# accessors expand) but together by at most this factor of the file's size ...
EXPANSION = 64
# ... or this many bytes for a small file, ...
DECODED_FLOOR = 256 << 20
# ... and never more than this share of the machine's memory.
MEMORY_SHARE = 0.5
# The magnitude of a number a file writes as text (a glTF node's TRS, matrix or weights, a BVH
# OFFSET, channel value or frame time), and of a value of the arrays skinkit.motion's features,
# canonical frame, mirroring and foot contacts take: sums and products of a few stay finite in
# float32 (3.4e38) and so casts and kinematics never overflow.
MAX_FILE_VALUE = 1e30
# Body-model and motion files (skinkit.io.body, skinkit.io.amass): the largest array a file may
# ask for (SMPL-X's posedirs, the largest released array, is 122 MB), a text member (AMASS's
# gender, surface_model_type), a whole pickle (a released model pickle is at most ~300 MB,
# SMPL-X's), and a frame rate of a motion file or of resampling (mocap: 60-250).
MAX_ARRAY_BYTES = 2 * 1024**3
MAX_TEXT_BYTES = 4096
MAX_PICKLE_BYTES = 4 * 1024**3
MAX_FPS = 10000.0
# The last key time of a clip (seconds): 11.6 days, far beyond any capture; a BVH frame time
# of 1e9 s or a glTF key at 1e30 s is a hostile file, not a motion.
MAX_DURATION = 1e6
# The nodes a file may declare (glTF nodes, BVH joints and End Sites, FBX nodes): character rigs
# have tens to a few thousand joints, scene files up to about 10^5 nodes, and the linear-loader
# tests (tests/test_hostile_readers.py) load 600,001.  Past 2^20 (1,048,576) a file is hostile:
# its skeleton alone would take hundreds of MB, and each posed frame 128 MB of world matrices.
MAX_NODES = 1 << 20
# A baked store (skinkit.dataset): each chunk is one Dask task when baking and one entry of the
# dask array's chunks when reading.  The 10^8-frame SMPL-X bake of docs/guide/dataset.rst has
# 390,625 chunks of 256 frames; 2^22 (4.2 M) still allows it at 24 frames a chunk, and Dask's
# scheduler, at about 1 kB a task, would need gigabytes beyond.  A chunk of one array, read and
# written whole, may take at most MAX_ARRAY_BYTES.
MAX_CHUNKS = 1 << 22
# ... its sequences table at most 2^20 rows (AMASS holds about 11,000 motions; each row is read
# whole, a text cell as one Python string), and a text cell (a file name, a path, an error
# message) at most 64 KiB of UTF-8: a store's text chunk may decode to no more.
MAX_SEQUENCES = 1 << 20
MAX_CELL_BYTES = 1 << 16
# The frames of a motion file (skinkit.load_amass): 2^20 (1,048,576) frames are 2.4 hours at
# 120 fps, beyond any AMASS sequence (minutes); a file declaring more is hostile, however few
# bytes its compressed zeros take.
MAX_FRAMES = 1 << 20
# The work a request may ask for where nothing else bounds it: the frames of one viewer page
# (skinkit.view: about 7 numbers a joint and frame, recorded one frame at a time in Python; 8192
# frames are 4.5 minutes at 30 fps and a page of about 100 MB), the joint samples (frames x
# joints) of a retarget (each 128 bytes of float64 world matrices and more besides: 2^24 take
# 2 GiB), and the morph targets of a mesh (ARKit faces have 52, SMPL-X's expressions and
# correctives a few hundred; each is a loop of posing).
MAX_VIEW_FRAMES = 1 << 13
MAX_SAMPLES = 1 << 24
MAX_MORPH_TARGETS = 1 << 16


def memory_bytes() -> int:
    """The machine's physical memory in bytes (8 GiB where the system does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return 8 << 30


def decoded_limit(file_bytes: int) -> int:
    """The bytes a reader may allocate for the arrays of a file of ``file_bytes`` bytes."""
    return int(min(max(DECODED_FLOOR, EXPANSION * file_bytes), MEMORY_SHARE * memory_bytes()))


class Budget:
    """The bytes a reader has allocated for one file, against :func:`decoded_limit`.

    ``charge(nbytes, what)`` returns the error message (the reader raises its own error type
    with it) when the file's arrays would pass the limit, None otherwise.
    """

    def __init__(self, file_bytes: int):
        self.file_bytes = file_bytes
        self.limit = decoded_limit(file_bytes)
        self.used = 0

    def charge(self, nbytes: int, what: str) -> Optional[str]:
        if self.used + nbytes > self.limit:
            return (f"{what} take {nbytes} bytes, which with the {self.used} bytes already read "
                    f"passes the limit of {self.limit} bytes for a {self.file_bytes}-byte file "
                    f"(skinkit.limits: {EXPANSION} x the file, at least {DECODED_FLOOR}, at most "
                    f"{MEMORY_SHARE:g} x the {memory_bytes()} bytes of memory)")
        self.used += nbytes
        return None


def duration_error(seconds: float) -> Optional[str]:
    """The message refusing a clip whose last key is at ``seconds`` (None when it is fine)."""
    if not seconds <= MAX_DURATION:  # NaN too
        return (f"the clip lasts {seconds:g} s, more than the limit of {MAX_DURATION:g} s "
                "(skinkit.limits.MAX_DURATION)")
    return None


def count_error(count: int, limit: str, what: str) -> Optional[str]:
    """The message refusing ``count`` ``what`` past this module's limit named ``limit``
    (``"MAX_FRAMES"``, ...), None when within it."""
    most = globals()[limit]
    if count > most:
        return f"{count} {what}, more than the limit of {most} (skinkit.limits.{limit})"
    return None


def nodes_error(count: int, what: str = "nodes") -> Optional[str]:
    """The message refusing a file that declares ``count`` nodes (None when it is fine)."""
    return count_error(count, "MAX_NODES", what)
