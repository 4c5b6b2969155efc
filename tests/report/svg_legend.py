#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check that no key (legend) entry of zc report's plots lies on the plot area.

Reads a report page, decodes every gnuplot SVG embedded in it and takes the plot area the report
recorded beside it (data-plot-area: left top right bottom, the pixels gnuplot reported through
GPVAL_TERM_XMIN/XMAX/YMIN/YMAX). Every key entry gnuplot drew (its text and its line sample) is
found in the SVG and its box compared with that rectangle. Prints one line per plot,
"plot NAME entries N overlapping M", then one line per overlapping entry; exits 1 when any
entry overlaps or a plot carries no plot area to check against. Standard library only.
"""
import base64
import html
import re
import sys

CHAR_WIDTH = 0.62  # of the font size: DejaVu Sans averages a little less


def entries(svg):
    """Yield (title, (x0, y0, x1, y1)) for every key entry of a gnuplot SVG."""
    for chunk in svg.split('<g id="gnuplot_plot_')[1:]:
        title = re.search(r"<title>(.*?)</title>", chunk, re.S)
        if title is None or re.fullmatch(r"gnuplot_plot_\d+", title.group(1)):
            continue  # drawn without a title: no key entry
        text = re.search(
            r'<g transform="translate\(([-\d.]+),([-\d.]+)\)"[^>]*font-size="([\d.]+)"'
            r'[^>]*text-anchor="(\w+)"\s*>\s*<text>(.*?)</text>', chunk, re.S)
        if text is None:
            continue
        x, y, size = float(text.group(1)), float(text.group(2)), float(text.group(3))
        label = html.unescape(re.sub(r"<[^>]+>", "", text.group(5)))
        width = len(label) * size * CHAR_WIDTH
        left = {"start": x, "middle": x - width / 2, "end": x - width}[text.group(4)]
        box = [left, y - size, left + width, y + size * 0.3]
        # The sample: a horizontal line in the text's row that ends just before the text (the
        # key is drawn "reverse"), and the point drawn on it or, for points alone, in its place.
        # Data of the same plot share the group, so nothing farther from the text counts.
        row = (y - size, y + size * 0.3)
        reach = (box[0] - 45.0, box[0])
        rest = chunk[text.end():]
        for seg in re.finditer(r"d='M([-\d.]+),([-\d.]+) L([-\d.]+),([-\d.]+)\s*'", rest):
            x0, y0, x1, y1 = (float(seg.group(i)) for i in range(1, 5))
            if y0 == y1 and row[0] <= y0 <= row[1] and 0 <= box[0] - max(x0, x1) <= 12:
                reach = (min(x0, x1), box[0])
                box = [min(box[0], x0, x1), min(box[1], y0 - 3), box[2], max(box[3], y0 + 3)]
                break
        for use in re.finditer(r"<use [^>]*translate\(([-\d.]+),([-\d.]+)\)", rest):
            ux, uy = float(use.group(1)), float(use.group(2))
            if row[0] <= uy <= row[1] and reach[0] <= ux <= reach[1]:
                box = [min(box[0], ux - 4), min(box[1], uy - 4), box[2], max(box[3], uy + 4)]
        yield label, tuple(box)


def main(path):
    page = open(path, encoding="utf-8").read()
    bad = 0
    for tag in re.findall(r"<img [^>]*>", page):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        name = attrs.get("data-plot")
        if name is None or name == "picture":
            continue
        area = attrs.get("data-plot-area")
        svg = base64.b64decode(attrs["src"].split(",", 1)[1]).decode("utf-8")
        found = list(entries(svg))
        if area is None:
            print(f"plot {name} entries {len(found)} no-plot-area")
            bad += 1
            continue
        left, top, right, bottom = (float(v) for v in area.split())
        over = [(t, b) for t, b in found
                if b[2] > left + 1 and b[0] < right - 1 and b[3] > top + 1 and b[1] < bottom - 1]
        print(f"plot {name} entries {len(found)} overlapping {len(over)}")
        for title, box in over:
            print(f"  '{title}' at {box[0]:.0f},{box[1]:.0f}-{box[2]:.0f},{box[3]:.0f} is on "
                  f"the plot area {left:.0f},{top:.0f}-{right:.0f},{bottom:.0f}")
        bad += len(over)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
