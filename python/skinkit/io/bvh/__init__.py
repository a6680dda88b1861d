"""BVH (Biovision Hierarchy): the reader (``read.py``) and the writer (``write.py``)."""
