"""SMPL-family body models: ``BodyModel`` and its kinds, synthetic models, export as a skinned
model, fitting."""
