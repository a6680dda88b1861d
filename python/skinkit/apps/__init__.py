"""The applications at the top of the package: matplotlib figures (``plot``), the 3D player
(``viewer``) and the Blender bridge (``blender``)."""
