#!/usr/bin/env python3
"""Byte-level helpers for make.sh: crop images and damage or splice JPEG files.

Standard library only, so that regenerating the decode fixtures needs nothing but
libjpeg-turbo's command-line tools and a Python 3. Each subcommand writes one file and is
deterministic: the same input gives the same bytes.

    jpegcraft.py crop IN.ppm X Y W H OUT.ppm          a rectangle of a binary PPM (P6)
    jpegcraft.py flatten-top IN.ppm ROWS OUT.ppm      a PPM with its top ROWS rows mid grey
    jpegcraft.py gray IN.ppm OUT.pgm                  BT.601 luma of a PPM, as a PGM (P5)
    jpegcraft.py insert-after-app0 IN.jpg HEX OUT.jpg bytes between APP0 and the next marker
    jpegcraft.py overwrite-mid-scan IN.jpg HEX OUT.jpg  the bytes at the middle of the first scan
    jpegcraft.py xor-mid-scan IN.jpg N MASK OUT.jpg   N bytes at the middle of the first scan ^ MASK
    jpegcraft.py set-frame-size IN.jpg W H OUT.jpg    rewrite the SOF's width and height
    jpegcraft.py splice-scans OUT.jpg IN.jpg...       first file's header and first scan, then every
                                                      later scan of every file, then EOI
    jpegcraft.py keep-scans IN.jpg N OUT.jpg          only the first N scans (each with its tables)
    jpegcraft.py repeat-last-scan IN.jpg TOTAL OUT.jpg  the last SOS and its data repeated until TOTAL scans
    jpegcraft.py lossless-header OUT.jpg              a header-only lossless (SOF3) JPEG
    jpegcraft.py heic OUT.heic                        the start of a HEIC file (ftyp box)
"""
import re
import sys

SOI, EOI, SOS = 0xD8, 0xD9, 0xDA


def segments(data):
    """(marker, start, end) for SOI, every segment and EOI; entropy-coded data after an SOS is
    listed as marker None. Raises on anything malformed: the inputs are cjpeg's own files."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG")
    out = [(SOI, 0, 2)]
    i = 2
    while i < len(data):
        if data[i] != 0xFF:
            raise ValueError(f"no marker at offset {i}")
        marker = data[i + 1]
        if marker == EOI:
            out.append((EOI, i, i + 2))
            return out
        length = data[i + 2] << 8 | data[i + 3]
        out.append((marker, i, i + 2 + length))
        i += 2 + length
        if marker == SOS:
            j = i
            # Entropy-coded data ends at the first marker that is neither a stuffed zero nor RSTn.
            while not (data[j] == 0xFF and data[j + 1] != 0 and not 0xD0 <= data[j + 1] <= 0xD7):
                j += 1
            out.append((None, i, j))
            i = j
    raise ValueError("no EOI")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def read_ppm(path):
    data = read(path)
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", data)
    if not m:
        raise ValueError(f"{path} is not an 8-bit binary PPM")
    return int(m[1]), int(m[2]), data[m.end():]


def crop(src, x, y, w, h, dst):
    width, height, pixels = read_ppm(src)
    assert x + w <= width and y + h <= height
    rows = [pixels[((y + r) * width + x) * 3:((y + r) * width + x + w) * 3] for r in range(h)]
    write(dst, b"P6\n%d %d\n255\n" % (w, h) + b"".join(rows))


def flatten_top(src, rows, dst):
    width, height, pixels = read_ppm(src)
    assert rows <= height
    flat = bytes([128]) * (rows * width * 3)
    write(dst, b"P6\n%d %d\n255\n" % (width, height) + flat + pixels[len(flat):])


def gray(src, dst):
    width, height, pixels = read_ppm(src)
    luma = bytes(
        min(255, int(0.299 * pixels[i] + 0.587 * pixels[i + 1] + 0.114 * pixels[i + 2] + 0.5))
        for i in range(0, len(pixels), 3))
    write(dst, b"P5\n%d %d\n255\n" % (width, height) + luma)


def first_scan_middle(data):
    s = segments(data)
    scan = next(i for i, seg in enumerate(s) if seg[0] == SOS)
    _, start, end = s[scan + 1]
    return (start + end) // 2


def insert_after_app0(src, hexbytes, dst):
    data = read(src)
    app0 = segments(data)[1]
    assert app0[0] == 0xE0
    write(dst, data[:app0[2]] + bytes.fromhex(hexbytes) + data[app0[2]:])


def overwrite_mid_scan(src, hexbytes, dst):
    data = bytearray(read(src))
    middle = first_scan_middle(data)
    patch = bytes.fromhex(hexbytes)
    data[middle:middle + len(patch)] = patch
    write(dst, bytes(data))


def xor_mid_scan(src, count, mask, dst):
    data = bytearray(read(src))
    middle = first_scan_middle(data)
    for i in range(middle, middle + count):
        data[i] ^= mask
    write(dst, bytes(data))


def set_frame_size(src, width, height, dst):
    data = bytearray(read(src))
    sof = next(seg for seg in segments(data) if seg[0] in (0xC0, 0xC1, 0xC2))
    start = sof[1] + 5  # FF Cn, length (2), precision (1)
    data[start:start + 4] = bytes([height >> 8, height & 0xFF, width >> 8, width & 0xFF])
    write(dst, bytes(data))


def split_scans(data):
    """The header with the first scan, and the rest (later tables and scans) without EOI."""
    s = segments(data)
    first = next(i for i, seg in enumerate(s) if seg[0] == SOS)
    header_end = s[first + 1][2]
    return data[:header_end], data[header_end:s[-1][1]]


def splice_scans(dst, *sources):
    parts = [split_scans(read(path)) for path in sources]
    header = parts[0][0]
    for path, (other, _) in zip(sources, parts):
        if other != header:
            raise ValueError(f"{path} does not share the first file's header and first scan")
    write(dst, header + b"".join(rest for _, rest in parts) + b"\xff\xd9")


def scan_groups(data):
    """Byte ranges, one per scan, each starting at the tables (DHT, DQT, DRI...) that precede
    its SOS and ending after its entropy-coded data; and where the first group starts."""
    s = segments(data)
    groups = []
    start = None
    for index, (marker, begin, end) in enumerate(s):
        if marker in (SOI, EOI) or marker is None:
            continue
        if start is None and index > 0 and s[index - 1][0] is None:
            start = begin  # tables that follow a scan belong to the next one
        if marker == SOS:
            groups.append((start if start is not None else begin, s[index + 1][2]))
            start = None
    return groups


def keep_scans(src, count, dst):
    data = read(src)
    groups = scan_groups(data)
    assert len(groups) >= count
    write(dst, data[:groups[count - 1][1]] + b"\xff\xd9")


def repeat_last_scan(src, total, dst):
    """The last SOS and its data again and again (its tables stay in force, so are not repeated)."""
    data = read(src)
    count = len(scan_groups(data))
    s = segments(data)
    last_sos = max(i for i, seg in enumerate(s) if seg[0] == SOS)
    scan = data[s[last_sos][1]:s[last_sos + 1][2]]
    assert total > count
    write(dst, data[:s[last_sos + 1][2]] + scan * (total - count) + b"\xff\xd9")


def lossless_header(dst):
    """SOI, a lossless SOF3 (8-bit, 16x16, one component), a one-code DHT, an SOS with
    predictor 1, two bytes of data and EOI: enough to be recognised, not to be decoded."""
    sof3 = bytes([0xFF, 0xC3, 0x00, 0x0B, 8, 0, 16, 0, 16, 1, 1, 0x11, 0])
    dht = bytes([0xFF, 0xC4, 0x00, 0x14, 0x00, 0, 1] + [0] * 14 + [0])
    sos = bytes([0xFF, 0xDA, 0x00, 0x08, 1, 1, 0x00, 1, 0, 0])
    write(dst, b"\xff\xd8" + sof3 + dht + sos + b"\x00\x00\xff\xd9")


def heic(dst):
    """An ISO-BMFF 'ftyp' box with major brand heic and compatible brands mif1/heic, then the
    header of an empty 'meta' box: the first 36 bytes of a typical phone HEIC."""
    ftyp = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"
    meta = b"\x00\x00\x00\x0cmeta\x00\x00\x00\x00"
    write(dst, ftyp + meta)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    command, args = argv[1], argv[2:]
    if command == "crop":
        crop(args[0], *map(int, args[1:5]), args[5])
    elif command == "flatten-top":
        flatten_top(args[0], int(args[1]), args[2])
    elif command == "gray":
        gray(*args)
    elif command == "insert-after-app0":
        insert_after_app0(*args)
    elif command == "overwrite-mid-scan":
        overwrite_mid_scan(*args)
    elif command == "xor-mid-scan":
        xor_mid_scan(args[0], int(args[1]), int(args[2], 0), args[3])
    elif command == "set-frame-size":
        set_frame_size(args[0], int(args[1]), int(args[2]), args[3])
    elif command == "splice-scans":
        splice_scans(*args)
    elif command == "keep-scans":
        keep_scans(args[0], int(args[1]), args[2])
    elif command == "repeat-last-scan":
        repeat_last_scan(args[0], int(args[1]), args[2])
    elif command == "lossless-header":
        lossless_header(*args)
    elif command == "heic":
        heic(*args)
    else:
        sys.exit(f"jpegcraft.py: unknown command '{command}'")


if __name__ == "__main__":
    main(sys.argv)
