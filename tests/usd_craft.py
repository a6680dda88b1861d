"""Small UsdSkel stages built with usd-core for the USD tests: a 3-joint chain skinning an
8-point box, with an animation, that a test changes in one place (the hostile cases) or extends
(joint orders, rigid xforms, skinned blend shapes)."""
import numpy as np


def box_character(path, anim_joints=None, rate=24.0):
    """A SkelRoot /Root with a Skeleton /Root/Skel (joints a, a/b, a/b/c, one unit apart on
    +X), a SkelAnimation /Root/Skel/Anim (2 samples at time codes 1 and 24: rotations about
    Z, Y and X, a translation, and a constant scale on the middle joint: usd-core
    interpolates half3 scales in half precision, 3 digits) whose joint order is
    ``anim_joints`` (default the skeleton's), and a Mesh /Root/Box (8 points, 6 quads), two
    influences a point.  Returns the stage (saved to ``path`` by the caller: ``Export``)."""
    from pxr import Gf, Usd, UsdGeom, UsdSkel, Vt
    stage = Usd.Stage.CreateNew(str(path))
    stage.SetTimeCodesPerSecond(rate)
    stage.SetStartTimeCode(1)
    stage.SetEndTimeCode(24)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    root = UsdSkel.Root.Define(stage, "/Root")
    stage.SetDefaultPrim(root.GetPrim())
    skel = UsdSkel.Skeleton.Define(stage, "/Root/Skel")
    joints = ["a", "a/b", "a/b/c"]
    skel.CreateJointsAttr(joints)
    local = [Gf.Matrix4d(1).SetTranslate(Gf.Vec3d(0 if j == 0 else 1, 0, 0)) for j in range(3)]
    skel.CreateRestTransformsAttr(local)
    skel.CreateBindTransformsAttr([Gf.Matrix4d(1).SetTranslate(Gf.Vec3d(j, 0, 0))
                                   for j in range(3)])
    anim = UsdSkel.Animation.Define(stage, "/Root/Skel/Anim")
    order = joints if anim_joints is None else anim_joints
    anim.CreateJointsAttr(order)
    pose = {"a": (Gf.Vec3f(0, 0, 0), Gf.Rotation(Gf.Vec3d(0, 0, 1), 40), Gf.Vec3h(1, 1, 1)),
            "a/b": (Gf.Vec3f(1, 0.2, 0), Gf.Rotation(Gf.Vec3d(0, 1, 0), -30),
                    Gf.Vec3h(1, 1.5, 1)),
            "a/b/c": (Gf.Vec3f(1, 0, 0), Gf.Rotation(Gf.Vec3d(1, 0, 0), 60), Gf.Vec3h(1, 1, 1))}
    for code, f in ((1, 0.0), (24, 1.0)):
        t, r, s = zip(*[pose[j] for j in order])
        anim.CreateTranslationsAttr().Set(Vt.Vec3fArray([x * f for x in t]), code)
        anim.CreateRotationsAttr().Set(Vt.QuatfArray(
            [Gf.Quatf(Gf.Rotation(x.GetAxis(), x.GetAngle() * f).GetQuat()) for x in r]), code)
        anim.CreateScalesAttr().Set(Vt.Vec3hArray(list(s)), code)
    UsdSkel.BindingAPI.Apply(skel.GetPrim()).CreateAnimationSourceRel().SetTargets(
        [anim.GetPath()])
    mesh = UsdGeom.Mesh.Define(stage, "/Root/Box")
    corners = np.array([[x, y, z] for x in (0, 2) for y in (-0.5, 0.5) for z in (-0.5, 0.5)],
                       np.float32)
    mesh.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(corners))
    mesh.CreateFaceVertexCountsAttr([4] * 6)
    mesh.CreateFaceVertexIndicesAttr([0, 1, 3, 2, 4, 6, 7, 5, 0, 4, 5, 1, 2, 3, 7, 6, 0, 2, 6, 4,
                                      1, 5, 7, 3])
    binding = UsdSkel.BindingAPI.Apply(mesh.GetPrim())
    binding.CreateSkeletonRel().SetTargets([skel.GetPath()])
    near = np.where(corners[:, 0] < 1, 0, 1)
    indices = np.stack([near, near + 1], axis=1).reshape(-1)
    binding.CreateJointIndicesPrimvar(False, 2).Set(Vt.IntArray(indices.tolist()))
    binding.CreateJointWeightsPrimvar(False, 2).Set(Vt.FloatArray([0.7, 0.3] * 8))
    return stage
