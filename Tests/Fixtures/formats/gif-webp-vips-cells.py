#!/usr/bin/python3
"""Writes gif-webp-vips-cells.json: for each GIF and WebP fixture here, vipsthumbnail's copy (long edge at most
2048 px, first frame, flattened over white) as 8 x 8 cells of mean R, G, B, which
GIFWebPSourceTests compares with the upload. Needs vipsthumbnail (libvips 8.14) and Pillow;
tests need neither.

    /usr/bin/python3 Tests/Fixtures/formats/gif-webp-vips-cells.py
"""
import glob, json, os, subprocess, tempfile
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
cells = {}
with tempfile.TemporaryDirectory() as tmp:
    for path in sorted(glob.glob(os.path.join(here, "gif-*.gif")) + glob.glob(os.path.join(here, "webp-*.webp"))):
        name = os.path.basename(path)
        out = os.path.join(tmp, name + ".jpg")
        subprocess.run(["vipsthumbnail", path, "--size", "2048>", "--no-rotate", "-o", out + "[Q=95,background=255]"], check=True)
        image = Image.open(out).convert("RGB")
        width, height = image.size
        grid = []
        for row in range(8):
            for column in range(8):
                box = (column * width // 8, row * height // 8, (column + 1) * width // 8, (row + 1) * height // 8)
                part = image.crop(box)
                count = part.size[0] * part.size[1]
                sums = [0, 0, 0]
                for pixel in part.getdata():
                    for channel in range(3):
                        sums[channel] += pixel[channel]
                grid.append([round(total / count, 2) for total in sums])
        cells[name] = {"width": width, "height": height, "cells": grid}
with open(os.path.join(here, "gif-webp-vips-cells.json"), "w") as output:
    json.dump(cells, output, indent=1, sort_keys=True)
    output.write("\n")
