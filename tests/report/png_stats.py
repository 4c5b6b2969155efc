#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Print the width, height, distinct colours and the share of non-white pixels of a PNG.

Standard library only (zlib, struct): decodes 8-bit RGB and RGBA PNGs, the kind headless
Chromium writes, undoing the five scanline filters.
"""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def main(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        print("not a PNG")
        return 2
    pos, idat = 8, b""
    width = height = depth = ctype = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or ctype not in (2, 6):
        print(f"unsupported PNG: depth {depth}, colour type {ctype}")
        return 2
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours, nonwhite, at = set(), 0, 0
    for _ in range(height):
        ftype = raw[at]
        line = bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            ul = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + left) & 255
            elif ftype == 2:
                line[i] = (line[i] + up) & 255
            elif ftype == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 255
            elif ftype == 4:
                line[i] = (line[i] + paeth(left, up, ul)) & 255
        for i in range(0, stride, bpp * 3):  # every third pixel is enough to judge
            px = bytes(line[i:i + 3])
            colours.add(px)
            if px != b"\xff\xff\xff":
                nonwhite += 1
        prev = line
    sampled = height * ((width + 2) // 3)
    print(f"width {width} height {height} colours {len(colours)} nonwhite {nonwhite / sampled:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
