#!/usr/bin/env python3
"""Makes p3-reference.json: what a colour-managed viewer shows for the most saturated patches of
corpus/gps-north-west-display-p3-nikon.jpg.

The reference is Pillow's ImageCms (LittleCMS 2, relative colorimetric) converting the decoded
original from its embedded Display P3 profile to sRGB: an independent path from ImagePrep's own
matrix-shaper code. The script also records the unconverted patch means (P3 numbers read as if
they were sRGB), which is what a copy that lost its profile without conversion would show.

Regenerate (from Tests/Fixtures): /usr/bin/python3 color/make-p3-reference.py > color/p3-reference.json
"""
import io, json, sys
import numpy as np
from PIL import Image, ImageCms

source = "corpus/gps-north-west-display-p3-nikon.jpg"
original = Image.open(source)
profile = ImageCms.ImageCmsProfile(io.BytesIO(original.info["icc_profile"]))
srgb = ImageCms.createProfile("sRGB")
converted = ImageCms.profileToProfile(original, profile, srgb, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, outputMode="RGB")
a = np.asarray(converted, dtype=np.float64)
raw = np.asarray(original.convert("RGB"), dtype=np.float64)
size = 16
patches = []
for y in range(0, a.shape[0] - size + 1, size):
    for x in range(0, a.shape[1] - size + 1, size):
        block = a[y:y + size, x:x + size].reshape(-1, 3)
        if block.std(axis=0).max() > 12:  # skip busy blocks: their mean hides the colour
            continue
        mean = block.mean(axis=0)
        chroma = mean.max() - mean.min()
        patches.append((chroma, x, y, mean, raw[y:y + size, x:x + size].reshape(-1, 3).mean(axis=0)))
patches.sort(key=lambda p: -p[0])
chosen = []
for chroma, x, y, mean, unconverted in patches:
    if all(abs(x - c["x"]) >= 64 or abs(y - c["y"]) >= 64 for c in chosen):
        chosen.append({"x": x, "y": y, "width": size, "height": size,
                       "srgb": [round(v, 2) for v in mean],
                       "unconverted": [round(v, 2) for v in unconverted]})
    if len(chosen) == 4:
        break
json.dump({"source": source, "method": "Pillow ImageCms (LittleCMS 2), embedded Display P3 to sRGB, relative colorimetric; see make-p3-reference.py", "patches": chosen}, sys.stdout, indent=1)
print()
