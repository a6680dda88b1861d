"""Compact text and HTML summaries of the data model (``__repr__`` and ``_repr_html_``).

The dataclasses' default reprs would print every array; these print counts, names, durations and
interpolations instead.  Long lists are cut to their first few items plus "... N more".
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any, Callable, Iterable, List, Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from ..body.body_model import BodyModel
    from .clip import Channel, Clip
    from .model import Model, Primitive, Skeleton, Skin

_Rows = List[Tuple[object, ...]]

MAX_ITEMS = 6      # list items in a text repr
MAX_NAMES = 4      # node names in a Skeleton repr
MAX_ROWS = 20      # table rows in an HTML repr


class Summarized:
    """Mixin of the data model classes: ``__repr__`` and ``_repr_html_`` are the pair of this
    module's functions that the class names as ``_summary`` (a subclass inherits its base's)."""

    _summary: Tuple[Callable[[Any], str], Callable[[Any], str]]

    def __repr__(self) -> str:
        return self._summary[0](self)

    def _repr_html_(self) -> str:
        return self._summary[1](self)


def plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def _cut(items: Sequence[str], limit: int) -> List[str]:
    items = list(items)
    if len(items) <= limit + 1:  # "... 1 more" would be no shorter
        return items
    return items[:limit] + [f"... {len(items) - limit} more"]


def _influences(prim: Primitive) -> int:
    return int(prim.joints.shape[1]) if prim.joints is not None and np.ndim(prim.joints) == 2 else 0


def _triangles(prim: Primitive) -> int:
    return 0 if prim.faces is None else int(len(prim.faces))


def _dtype(a: ArrayLike) -> str:
    return str(np.asarray(a).dtype)


# --- text --------------------------------------------------------------------------------------

def skeleton(sk: Skeleton) -> str:
    roots = int(np.count_nonzero(np.asarray(sk.parents) < 0))
    names = [repr(n) for n in (sk.names or [])]
    shown = ", ".join(_cut(names, MAX_NAMES))
    return f"Skeleton({plural(sk.count, 'node')}, {plural(roots, 'root')}, names=[{shown}])"


def skin(s: Skin) -> str:
    return (f"Skin(name={s.name!r}, {plural(len(s.joints), 'joint')}, "
            f"skeleton={s.skeleton!r})")


def clip(c: Clip) -> str:
    return (f"Clip(name={c.name!r}, duration={c.duration:g} s, "
            f"channels={len(c.channels)}, interpolations={c.interpolations})")


def _targets(prim: Primitive) -> int:
    return int(getattr(prim, "target_count", 0))


def primitive(p: Primitive) -> str:
    normals = "normals" if p.normals is not None else "no normals"
    skin = f"skin={p.skin}" if p.skin is not None else "rigid"
    parts = [plural(len(p.positions), 'vertex', 'vertices'), plural(_triangles(p), 'triangle')]
    if p.skin is not None:
        parts.append(plural(_influences(p), 'influence'))
    if _targets(p):
        parts.append(plural(_targets(p), 'morph target'))
    return (f"Primitive(key={p.key!r}, node={p.node}, mesh={p.mesh}, index={p.index}, {skin}, "
            f"{', '.join(parts)}, {normals}, {_dtype(p.positions)})")


def channel(c: Channel) -> str:
    times = np.asarray(c.times)
    span = f"{float(times[0]):g}-{float(times[-1]):g} s" if times.size else "no keys"
    return (f"Channel(node={c.node}, path={c.path!r}, {plural(times.size, 'key')}, "
            f"{c.interpolation}, {span})")


def _list(items: Iterable[str]) -> str:
    items = list(items)
    if not items:
        return "[]"
    return "[" + ",\n    ".join(_cut(items, MAX_ITEMS)) + "]"


def body(b: BodyModel) -> str:
    return (f"<BodyModel {b.kind}: {b.num_vertices} vertices, {b.num_joints} joints, "
            f"{b.num_betas} betas, {b.num_expression} expression, {np.dtype(b.dtype).name}>")


def model(m: Model) -> str:
    return (f"{type(m).__name__}(name={m.name!r},\n"
            f"  skeleton={skeleton(m.skeleton)},\n"
            f"  skins={_list(skin(s) for s in m.skins)},\n"
            f"  primitives={_list(primitive(p) for p in m.primitives)},\n"
            f"  clips={_list(repr(c) for c in m.clips)})")


# --- HTML --------------------------------------------------------------------------------------

def _e(x: object) -> str:
    return html.escape("-" if x is None else str(x))


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    more = len(rows) - MAX_ROWS
    rows = rows[:MAX_ROWS] if more > 0 else rows
    out = ["<table>"]
    if caption:
        out.append(f"<caption style='text-align:left'><b>{_e(caption)}</b></caption>")
    out.append("<tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{_e(v)}</td>" for v in r) + "</tr>")
    if more > 0:
        out.append(f"<tr><td colspan='{len(header)}'>... {more} more</td></tr>")
    out.append("</table>")
    return "".join(out)


def _skeleton_rows(sk: Skeleton) -> _Rows:
    names = list(sk.names or [])
    return [(i, int(sk.parents[i]), names[i] if i < len(names) else None)
            for i in range(sk.count)]


def _skin_rows(skins: Sequence[Skin]) -> _Rows:
    return [(i, s.name, len(s.joints), s.skeleton) for i, s in enumerate(skins)]


def _primitive_rows(prims: Sequence[Primitive]) -> _Rows:
    return [(p.key, p.node, p.mesh, p.index, "rigid" if p.skin is None else p.skin,
             len(p.positions), _triangles(p), _influences(p), _targets(p),
             "yes" if p.normals is not None else "no", _dtype(p.positions))
            for p in prims]


def _clip_rows(clips: Sequence[Clip]) -> _Rows:
    return [(i, c.name, f"{c.duration:g} s", len(c.channels),
             "/".join(c.interpolations) or None, "; ".join(c.unsupported) or None)
            for i, c in enumerate(clips)]


SKELETON_HEADER = ("node", "parent", "name")
SKIN_HEADER = ("skin", "name", "joints", "skeleton")
PRIMITIVE_HEADER = ("key", "node", "mesh", "index", "skin", "vertices", "triangles",
                    "influences", "morph targets", "normals", "dtype")
CLIP_HEADER = ("clip", "name", "duration", "channels", "interpolations", "unsupported")


def skeleton_html(sk: Skeleton) -> str:
    return _table(SKELETON_HEADER, _skeleton_rows(sk), f"Skeleton: {plural(sk.count, 'node')}")


def skin_html(s: Skin) -> str:
    joints = ", ".join(_cut([str(int(j)) for j in s.joints], 3 * MAX_ITEMS))
    return _table(("name", "joints", "joint nodes", "skeleton"),
                  [(s.name, len(s.joints), joints, s.skeleton)], "Skin")


def primitive_html(p: Primitive) -> str:
    return _table(PRIMITIVE_HEADER, _primitive_rows([p]), "Primitive")


def clip_html(c: Clip) -> str:
    rows = [(ch.node, ch.path, np.size(ch.times), ch.interpolation,
             f"{float(ch.times[0]):g}-{float(ch.times[-1]):g} s") for ch in c.channels]
    head = _table(("name", "duration", "channels", "interpolations", "unsupported"),
                  [row[1:] for row in _clip_rows([c])], "Clip")
    return head + _table(("node", "path", "keys", "interpolation", "times"), rows, "Channels")


def model_html(m: Model) -> str:
    title = (f"<b>Model {_e(m.name) if m.name is not None else ''}</b>: "
             f"{plural(m.skeleton.count, 'node')}, {plural(len(m.skins), 'skin')}, "
             f"{plural(len(m.primitives), 'mesh primitive')}, {plural(len(m.clips), 'clip')}")
    parts = [f"<div>{title}"]
    if m.skins:
        parts.append(_table(SKIN_HEADER, _skin_rows(m.skins), "Skins"))
    if m.primitives:
        parts.append(_table(PRIMITIVE_HEADER, _primitive_rows(m.primitives),
                            "Mesh primitives"))
    if m.clips:
        parts.append(_table(CLIP_HEADER, _clip_rows(m.clips), "Clips"))
    parts.append(_table(SKELETON_HEADER, _skeleton_rows(m.skeleton), "Skeleton"))
    parts.append("</div>")
    return "".join(parts)



def body_html(b: BodyModel) -> str:
    sizes = _table(("type", "vertices", "joints", "betas", "expression", "pose correctives",
                    "faces", "dtype"),
                   [(b.kind, b.num_vertices, b.num_joints, b.num_betas, b.num_expression,
                     b.posedirs.shape[-1], len(b.faces), np.dtype(b.dtype).name)],
                   "Body model")
    joints = _table(("joint", "parent"), [(j, int(p)) for j, p in enumerate(b.parents)],
                    "Kinematic tree")
    return f"<div>{sizes}{joints}</div>"
