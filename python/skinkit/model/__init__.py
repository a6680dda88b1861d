"""The data model: skeleton, skin and primitive records, clips, the pose request, its stages and
posing; ``Model`` (``model.py``) is the facade on top."""
