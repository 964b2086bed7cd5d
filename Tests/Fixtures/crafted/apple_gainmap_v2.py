"""Makes `iphone-jpeg-apple-gainmap-v2.jpg` from `../phones/iphone-jpeg-apple-gainmap-v1.jpg`
(standard library only): the same iPhone JPEG with its gain map's XMP at version 2, as iOS 18
writes it, HDRGainMapVersion 131072 and HDRGainMapHeadroom 4.000000 (2 stops, where the maker note
gives 3), and the MPF entry of the gain map given its new length. No version 2 iPhone JPEG whose
licence allows this repository could be had.

    python3 -B Tests/Fixtures/crafted/apple_gainmap_v2.py
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OLD = b"<HDRGainMap:HDRGainMapVersion>65536</HDRGainMap:HDRGainMapVersion>"
NEW = (b"<HDRGainMap:HDRGainMapVersion>131072</HDRGainMap:HDRGainMapVersion>"
       b"<HDRGainMap:HDRGainMapHeadroom>4.000000</HDRGainMap:HDRGainMapHeadroom>")

with open(os.path.join(HERE, "..", "phones", "iphone-jpeg-apple-gainmap-v1.jpg"), "rb") as f:
    original = f.read()
# The MPF APP2 (little- or big-endian TIFF after "MPF\0") and its second entry.
mpf = original.index(b"MPF\0")
origin = mpf + 4
endian = ">" if original[origin:origin + 2] == b"MM" else "<"
ifd = origin + struct.unpack(endian + "I", original[origin + 4:origin + 8])[0]
entries = None
for field in range(struct.unpack(endian + "H", original[ifd:ifd + 2])[0]):
    at = ifd + 2 + 12 * field
    if struct.unpack(endian + "H", original[at:at + 2])[0] == 0xB002:
        entries = origin + struct.unpack(endian + "I", original[at + 8:at + 12])[0]
second = entries + 16
gain_map_start = origin + struct.unpack(endian + "I", original[second + 8:second + 12])[0]
gain_map = bytearray(original[gain_map_start:])
# The gain map's XMP APP1: the text replaced, the segment's length written again.
xmp = gain_map.index(b"http://ns.adobe.com/xap/1.0/\0") - 4
assert gain_map.count(OLD) == 1
length = struct.unpack(">H", gain_map[xmp + 2:xmp + 4])[0] + len(NEW) - len(OLD)
gain_map = gain_map.replace(OLD, NEW)
gain_map[xmp + 2:xmp + 4] = struct.pack(">H", length)
primary = bytearray(original[:gain_map_start])
primary[second + 4:second + 8] = struct.pack(endian + "I", len(gain_map))
with open(os.path.join(HERE, "iphone-jpeg-apple-gainmap-v2.jpg"), "wb") as f:
    f.write(bytes(primary) + bytes(gain_map))
