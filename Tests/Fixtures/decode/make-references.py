#!/usr/bin/python3
"""Regenerates the pixel goldens in Tests/Fixtures/decode/references/.

    /usr/bin/python3 Tests/Fixtures/decode/make-references.py

Needs numpy, scipy and Pillow (Debian 12: python3-numpy, python3-scipy, python3-pil), and
ImageMagick's /usr/bin/convert for a cross-check. Reads only files in Tests/Fixtures (the corpus
copies and the decode fixtures). Deterministic: a second run writes the same bytes.

1. references/<photo>.luma.jpg, for each photo in RESIZED: the float Lanczos3 reference resize,
   made exactly as the project benchmark's quality.py makes it. Pillow decodes the original fully
   (libjpeg-turbo, no draft mode, no DCT scaling) to RGB, the pixels go to float64, and a separable
   Lanczos3 (a = 3, support widened by the scale factor as Pillow and vips do, taps past the edge
   dropped and the rest renormalised) resizes them in float64, vertical pass first, to exactly the
   size PhotoPreparer gives the upload (PixelSize.fitting(longEdge: 2048): the long edge becomes
   2048, the short one is rounded half away from zero). The result is rounded to 8-bit RGB (as
   quality.py does), then turned into BT.601 luma Y = 0.299 R + 0.587 G + 0.114 B (what libjpeg
   stores as a JPEG's Y), rounded again and stored as a grayscale JPEG at quality 100: every
   quantiser is 1, so the stored luma is within a level or so of the exact one (the table in
   references.json gives the PSNR of the stored file against the exact luma).

2. references/<photo>.64px.jpg, for the 4:4:4 decode fixtures in SMALL: the same float Lanczos3
   reference, in colour, to the 64 px long edge that DecodeInputTests asks for, stored as a 4:4:4
   JPEG at quality 100. The 4:2:2, 4:2:0 and 4:4:0 fixtures hold the same luma coefficients as the
   4:4:4 one (cjpeg only subsamples the chroma), so one reference serves all four.

3. references/references.json: for each reference, its source and size; for each CMYK/YCCK
   photo in CMYK, the average RGB of each cell of a 4x4 grid over the whole image after Pillow's
   conversion (Adobe inverted CMYK, R = 255 * (1 - C) * (1 - K) and so on), and under
   "imagemagick_max_diff" how far ImageMagick's -colorspace sRGB of the same file is from it.
"""
import io
import json
import math
import os
import subprocess

import numpy as np
import scipy
import scipy.sparse as sp
from PIL import Image

Image.MAX_IMAGE_PIXELS = None
HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "corpus")
OUT = os.path.join(HERE, "references")
MAX_EDGE = 2048
GRID = 4

# Photos that really downscale: a full decode (4048 and 3840 wide: scale 1/2 would be smaller
# than 2048) and a DCT-scaled one (4608 wide: PhotoPreparer decodes at 1/2, 2304 wide).
RESIZED = [
    "gps-north-east-pixel-4048x3036-gps-offset-only.jpg",  # MIT
    "offset-plus0300-nokia-8.3-5g.jpg",  # CC BY-SA 4.0
    "mpf-ultrahdr-gainmap-3840x2160.jpg",  # Apache-2.0
]
CMYK = ["cmyk-adobe-no-icc.jpg", "ycck-adobe-pillow.jpg"]
SMALL = [("ycc444-224x150.jpg", 64), ("ycc444-odd-223x149.jpg", 64)]


# --- Lanczos3 as in the benchmark's quality.py (kept identical; copied so that this folder
# regenerates without ../shared) ---

def lanczos3(x):
    x = np.abs(x)
    return np.where(x < 3.0, np.sinc(x) * np.sinc(x / 3.0), 0.0)


def weight_matrix(n_in, n_out):
    """Sparse (n_out x n_in) Lanczos3 resampling matrix, Pillow-style support."""
    scale = n_in / n_out
    fscale = max(scale, 1.0)
    support = 3.0 * fscale
    rows, cols, vals = [], [], []
    for i in range(n_out):
        center = (i + 0.5) * scale
        lo = max(int(math.floor(center - support)), 0)
        hi = min(int(math.ceil(center + support)), n_in)
        j = np.arange(lo, hi)
        w = lanczos3((j + 0.5 - center) / fscale)
        s = w.sum()
        if s != 0:
            w = w / s
        rows.append(np.full(j.shape, i))
        cols.append(j)
        vals.append(w)
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_out, n_in),
    )


def resize_lanczos3(a, w_out, h_out):
    """a: float64 HxWxC array -> h_out x w_out x C float64."""
    h, w, c = a.shape
    wv = weight_matrix(h, h_out)
    wh = weight_matrix(w, w_out)
    t = wv @ a.reshape(h, w * c)
    t = t.reshape(h_out, w, c).transpose(1, 0, 2).reshape(w, h_out * c)
    t = wh @ t
    return t.reshape(w_out, h_out, c).transpose(1, 0, 2)


def luma(a):
    a = a.astype(np.float64)
    return 0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]


def psnr(a, b):
    d = a.astype(np.float64) - b.astype(np.float64)
    mse = float(np.mean(d * d))
    return float("inf") if mse == 0 else 10 * math.log10(255.0 * 255.0 / mse)


# --- what the tests compare against ---

def fitting(width, height, edge):
    """PixelSize.fitting(longEdge:): Swift's rounded() rounds half away from zero."""
    if max(width, height) <= edge:
        return width, height
    scale = edge / max(width, height)
    if width >= height:
        return edge, max(1, int(math.floor(height * scale + 0.5)))
    return max(1, int(math.floor(width * scale + 0.5))), edge


def reference_resize(path, edge):
    """The original decoded by Pillow, resized in float64 to PhotoPreparer's size, rounded."""
    with Image.open(path) as image:
        image.load()
        rgb = np.asarray(image.convert("RGB"))
    height, width = rgb.shape[:2]
    w, h = fitting(width, height, edge)
    resized = np.clip(np.rint(resize_lanczos3(rgb.astype(np.float64), w, h)), 0, 255).astype(np.uint8)
    return (width, height), (w, h), resized


def luma_reference(name):
    (width, height), (w, h), reference = reference_resize(os.path.join(CORPUS, name), MAX_EDGE)
    exact = luma(reference)
    stored = np.clip(np.rint(exact), 0, 255).astype(np.uint8)
    path = os.path.join(OUT, name.replace(".jpg", ".luma.jpg"))
    Image.fromarray(stored, "L").save(path, "JPEG", quality=100)
    with Image.open(path) as written:
        stored_back = np.asarray(written)
    return {
        "source": name,
        "original_size": [width, height],
        "size": [w, h],
        "stored_psnr_db": round(psnr(exact, stored_back), 2),
    }


def small_reference(name, edge):
    _, (w, h), reference = reference_resize(os.path.join(HERE, name), edge)
    Image.fromarray(reference, "RGB").save(
        os.path.join(OUT, name.replace(".jpg", f".{edge}px.jpg")), "JPEG", quality=100, subsampling=0)
    return {"source": name, "size": [w, h]}


def cell_averages(rgb):
    height, width = rgb.shape[:2]
    cells = []
    for gy in range(GRID):
        for gx in range(GRID):
            cell = rgb[gy * height // GRID:(gy + 1) * height // GRID, gx * width // GRID:(gx + 1) * width // GRID]
            cells.append([round(float(v), 2) for v in cell.reshape(-1, 3).mean(axis=0)])
    return cells


def cmyk_reference(name):
    path = os.path.join(CORPUS, name)
    with Image.open(path) as image:
        image.load()
        assert image.mode == "CMYK"
        rgb = np.asarray(image.convert("RGB")).astype(np.float64)
    magick = subprocess.run(
        ["/usr/bin/convert", path, "-colorspace", "sRGB", "-depth", "8", "ppm:-"],
        check=True, capture_output=True).stdout
    with Image.open(io.BytesIO(magick)) as image:
        other = np.asarray(image.convert("RGB")).astype(np.float64)
    ours, theirs = cell_averages(rgb), cell_averages(other)
    return {
        "size": [rgb.shape[1], rgb.shape[0]],
        "grid": GRID,
        "cells_rgb": ours,
        "imagemagick_max_diff": round(max(abs(a - b) for p, q in zip(ours, theirs) for a, b in zip(p, q)), 2),
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    golden = {
        "_about": "Made by make-references.py; see its docstring and Tests/Fixtures/README.md (decode/).",
        "_tools": {"pillow": Image.__version__, "numpy": np.__version__, "scipy": scipy.__version__},
        "luma": [luma_reference(name) for name in RESIZED],
        "small": [small_reference(name, edge) for name, edge in SMALL],
        "cmyk": {name: cmyk_reference(name) for name in CMYK},
    }
    with open(os.path.join(OUT, "references.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
