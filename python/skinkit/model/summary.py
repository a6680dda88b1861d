"""Compact text and HTML summaries (``__repr__`` and ``_repr_html_``): the helpers that the data
model's classes (Skeleton, Skin, Primitive, Model, Clip, Channel, BodyModel) compose theirs from,
each beside its class.

Default reprs would print every array; these print counts, names, durations and interpolations
instead.  Long lists are cut to their first few items plus "... N more"; every value reaching HTML
is escaped (``escape``).
"""
from __future__ import annotations

import html
from typing import Any, Iterable, List, Sequence, Tuple

Rows = List[Tuple[object, ...]]

MAX_ITEMS = 6      # list items in a text repr
MAX_NAMES = 4      # node names in a Skeleton repr
MAX_ROWS = 20      # table rows in an HTML repr


def plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def cut(items: Sequence[str], limit: int) -> List[str]:
    """The first ``limit`` items, then "... N more" (all of them when that would be no shorter)."""
    items = list(items)
    if len(items) <= limit + 1:  # "... 1 more" would be no shorter
        return items
    return items[:limit] + [f"... {len(items) - limit} more"]


def listing(items: Iterable[str]) -> str:
    """A bracketed list of reprs, one a line, cut at MAX_ITEMS."""
    items = list(items)
    if not items:
        return "[]"
    return "[" + ",\n    ".join(cut(items, MAX_ITEMS)) + "]"


def escape(x: object) -> str:
    return html.escape("-" if x is None else str(x))


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    """An HTML table of at most MAX_ROWS rows (then "... N more"), every cell escaped."""
    more = len(rows) - MAX_ROWS
    rows = rows[:MAX_ROWS] if more > 0 else rows
    out = ["<table>"]
    if caption:
        out.append(f"<caption style='text-align:left'><b>{escape(caption)}</b></caption>")
    out.append("<tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in r) + "</tr>")
    if more > 0:
        out.append(f"<tr><td colspan='{len(header)}'>... {more} more</td></tr>")
    out.append("</table>")
    return "".join(out)
