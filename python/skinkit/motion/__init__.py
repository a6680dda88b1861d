"""Motion: retargeting a clip onto another skeleton, foot locking."""
