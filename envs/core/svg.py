"""Pictures of game states: a small SVG canvas, and the rasteriser behind ``rgb_array``.

Each game draws its public state with one drawing module (``meeple_gym.<game>.draw``) on a
``Canvas``; this module holds only the shapes every game uses (cards, cubes, tokens, labels),
so the games look alike and no game's drawing repeats another's plumbing.

SVG is plain text, so drawing needs nothing beyond the standard library. Turning it into an
``HxWx3`` uint8 image (``render_mode="rgb_array"``) uses CairoSVG, installed by the
``pictures`` extra (``pip install "meeple-gym[pictures]"``); without it ``to_rgb`` raises an
ImportError that names the extra.

>>> canvas = Canvas(200, 100)
>>> canvas.card(10, 10, 60, 80, title="Spice", cost="2 Y", points=3)
>>> picture = Picture(canvas.to_svg())
>>> picture.to_svg().startswith("<svg")
True
"""

from __future__ import annotations

import io
from functools import lru_cache
from xml.sax.saxutils import escape, quoteattr

import numpy as np

# Fonts every rasteriser and browser has; CairoSVG falls back to its default sans otherwise.
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
BACKGROUND = "#f6f1e7"
INK = "#222222"
MUTED = "#6b6b6b"
FACE_DOWN = "#4a5568"
HIGHLIGHT = "#d97706"
MIN_RGB_WIDTH = 600  # rgb_array images are at least this wide (issue contract for viewers)


# Attribute values repeat (a few colours, one font): quoting each once keeps drawing a state
# well under the 20 ms budget.
_attr = lru_cache(maxsize=1024)(quoteattr)


def _num(value: float) -> str:
    """Coordinates with at most one decimal, so pictures stay small and diff well."""
    text = f"{float(value):.1f}"
    return text[:-2] if text.endswith(".0") else text


class Canvas:
    """An SVG drawing surface in user units (1 unit = 1 px at scale 1)."""

    def __init__(self, width: float, height: float, background: str = BACKGROUND, title=None):
        self.width = float(width)
        self.height = float(height)
        self._parts: list[str] = []
        if title:
            self._parts.append(f"<title>{escape(str(title))}</title>")
        self.rect(0, 0, width, height, fill=background)

    # -- primitives -------------------------------------------------------------------------
    def rect(self, x, y, w, h, fill="none", stroke=None, rx=0, stroke_width=1, dash=None):
        attrs = f'x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}"'
        if rx:
            attrs += f' rx="{_num(rx)}"'
        attrs += f" fill={_attr(fill)}"
        if stroke:
            attrs += f' stroke={_attr(stroke)} stroke-width="{_num(stroke_width)}"'
        if dash:
            attrs += f' stroke-dasharray="{dash}"'
        self._parts.append(f"<rect {attrs}/>")

    def circle(self, cx, cy, r, fill, stroke=None, stroke_width=1):
        attrs = f'cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r)}" fill={_attr(fill)}'
        if stroke:
            attrs += f' stroke={_attr(stroke)} stroke-width="{_num(stroke_width)}"'
        self._parts.append(f"<circle {attrs}/>")

    def line(self, x1, y1, x2, y2, stroke=INK, width=1, element_id=None):
        """A line; ``element_id`` names it for scripts (the replay chart's cursor)."""
        named = f"id={_attr(element_id)} " if element_id else ""
        self._parts.append(
            f'<line {named}x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}" '
            f'stroke={_attr(stroke)} stroke-width="{_num(width)}"/>'
        )

    def polyline(self, points, stroke=INK, width=1):
        """An open line through ``points`` (x, y pairs), e.g. a chart's series."""
        coords = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
        self._parts.append(
            f'<polyline points="{coords}" fill="none" stroke={_attr(stroke)} '
            f'stroke-width="{_num(width)}"/>'
        )

    def text(self, x, y, value, size=12, fill=INK, anchor="start", bold=False, italic=False):
        """One line of text with its baseline at ``y``."""
        style = ' font-weight="bold"' if bold else ""
        style += ' font-style="italic"' if italic else ""
        self._parts.append(
            f'<text x="{_num(x)}" y="{_num(y)}" font-family={_attr(FONT)} '
            f'font-size="{_num(size)}" fill={_attr(fill)} text-anchor="{anchor}"{style}>'
            f"{escape(str(value))}</text>"
        )

    # -- shapes every game uses -------------------------------------------------------------
    def token(self, cx, cy, r, fill, label="", label_fill="#ffffff", stroke=INK):
        """A round token (cube colour, coin, worker) with an optional short label."""
        self.circle(cx, cy, r, fill, stroke=stroke)
        if label != "":
            self.text(cx, cy + r * 0.38, label, size=r * 1.05, fill=label_fill, anchor="middle")

    def counts(self, x, y, items, r=8, gap=4, stroke=INK):
        """A row of ``(colour, count, name)`` tokens, each labelled with its count; returns the
        x after the row. Zero counts are drawn faded so a row keeps its layout."""
        for colour, count, _name in items:
            faded = count == 0
            self.token(
                x + r,
                y,
                r,
                "#e5e1d8" if faded else colour,
                label=str(count),
                label_fill=MUTED if faded else _label_colour(colour),
                stroke=MUTED if faded else stroke,
            )
            x += 2 * r + gap
        return x

    def card(
        self,
        x,
        y,
        w,
        h,
        *,
        title="",
        cost=None,
        points=None,
        lines=(),
        fill="#fffdf8",
        band=None,
        face_down=False,
        face_down_label="hidden",
        highlight=False,
        size=10,
    ):
        """A card: a coloured band with its title, an optional cost line, up to a few body
        lines and a points badge. ``face_down`` draws the back only (hidden information)."""
        if face_down:
            self.rect(x, y, w, h, fill=FACE_DOWN, stroke=INK, rx=4)
            self.rect(x + 4, y + 4, w - 8, h - 8, stroke="#a0aec0", rx=3, dash="3,2")
            self.text(
                x + w / 2,
                y + h / 2 + 4,
                face_down_label,
                size=size,
                fill="#e2e8f0",
                anchor="middle",
                italic=True,
            )
            return
        stroke, width = (HIGHLIGHT, 2.5) if highlight else (INK, 1)
        self.rect(x, y, w, h, fill=fill, stroke=stroke, rx=4, stroke_width=width)
        band_h = size + 6
        if band:
            self.rect(x + 1, y + 1, w - 2, band_h, fill=band, rx=3)
        self.text(
            x + 4,
            y + size + 1,
            _fit(title, w - 8, size),
            size=size,
            bold=True,
            fill=_label_colour(band) if band else INK,
        )
        row = y + band_h + size + 2
        if cost not in (None, ""):
            self.text(x + 4, row, _fit(f"cost {cost}", w - 8, size - 1), size=size - 1)
            row += size + 2
        for body in lines:
            if row > y + h - 4:
                break
            self.text(x + 4, row, _fit(body, w - 8, size - 1), size=size - 1, fill=MUTED)
            row += size + 1
        if points is not None:
            self.circle(x + w - 11, y + h - 11, 9, "#f6e05e", stroke=INK)
            self.text(x + w - 11, y + h - 7.5, str(points), size=10, anchor="middle", bold=True)

    def label_box(self, x, y, w, h, heading, fill="#ffffff", heading_size=12, active=False):
        """A titled region (a player's area, a board row)."""
        stroke, width = (HIGHLIGHT, 3) if active else ("#9c8f7a", 1)
        self.rect(x, y, w, h, fill=fill, stroke=stroke, rx=6, stroke_width=width)
        self.text(x + 8, y + heading_size + 5, heading, size=heading_size, bold=True)

    def title_bar(self, x, title, facts_x, facts, viewer, public="public"):
        """The first line of a game's picture: its title, then ``facts`` and whose view it is."""
        self.text(x, 22, title, size=18, bold=True)
        view = public if viewer is None else f"player {viewer}"
        self.text(facts_x, 22, f"{facts} · view: {view}", size=13)

    def seat_box(self, x, y, w, h, seat, viewer, tags, seat_fill, active=False):
        """A player's area: "Player k (you) · tag · ... · TO DECIDE" and a dot of its colour."""
        tags = [*tags, "TO DECIDE"] if active else tags
        you = " (you)" if viewer == seat else ""
        self.label_box(
            x, y, w, h, f"Player {seat}{you} · " + " · ".join(tags), heading_size=13, active=active
        )
        self.circle(x + w - 16, y + 14, 8, seat_fill, stroke=INK)

    def to_svg(self) -> str:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(self.width)}" '
            f'height="{_num(self.height)}" viewBox="0 0 {_num(self.width)} {_num(self.height)}">'
            + "".join(self._parts)
            + "</svg>"
        )


def _fit(value, width: float, size: float) -> str:
    """Cut text to about what fits in ``width`` (average glyph ~0.58 em), with an ellipsis."""
    text = str(value)
    room = max(1, int(width / (0.58 * size)))
    return text if len(text) <= room else text[: max(1, room - 1)] + "…"


def _label_colour(fill: str | None) -> str:
    """Black or white text, whichever reads better on ``fill`` (a #rrggbb colour)."""
    if not fill or not fill.startswith("#") or len(fill) != 7:
        return INK
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def rasterize(svg: str, width: int | None = None) -> np.ndarray:
    """An ``HxWx3`` uint8 image of ``svg``, at least ``MIN_RGB_WIDTH`` pixels wide unless
    ``width`` says otherwise. Needs the ``pictures`` extra (CairoSVG)."""
    try:
        import cairosvg
        from PIL import Image
    except ImportError as err:  # pragma: no cover - exercised in an env without the extra
        raise ImportError(
            "render_mode='rgb_array' needs CairoSVG: pip install \"meeple-gym[pictures]\""
        ) from err
    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=width)
    with Image.open(io.BytesIO(png)) as image:
        return np.ascontiguousarray(np.asarray(image.convert("RGB"), dtype=np.uint8))


class Picture:
    """An SVG picture that shows itself inline in Jupyter (``_repr_svg_``)."""

    def __init__(self, svg: str):
        self.svg = svg

    def to_svg(self) -> str:
        return self.svg

    def _repr_svg_(self) -> str:
        return self.svg

    def to_rgb(self, width: int | None = None) -> np.ndarray:
        return rasterize(self.svg, width)

    def save(self, path) -> None:
        """Write the SVG (``.svg``) or a PNG (``.png``, needs the ``pictures`` extra)."""
        from meeple_gym.core.files import atomic_write

        data = self.svg.encode()
        if str(path).endswith(".png"):
            import cairosvg

            data = cairosvg.svg2png(bytestring=data)
        with atomic_write(path) as f:
            f.write(data)


__all__ = ["MIN_RGB_WIDTH", "Canvas", "Picture", "rasterize"]
