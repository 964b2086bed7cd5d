#!/usr/bin/env python3
"""Writes the hostile PNGs of this folder (PNGHostileInputTests holds each to its refusal or
bound). Python's standard library only; run from this folder: python3 make.py"""
import struct
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width, height, *chunks, depth=8, colour=0, interlace=0):
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + b"".join(chunks) + chunk(b"IEND", b"")


def rows(width, height, pixel_bytes=1):
    return b"".join(b"\0" + bytes((x * 16 + y) & 0xFF for x in range(width * pixel_bytes)) for y in range(height))


small = zlib.compress(rows(16, 16), 9)
# 1 KB declaring 100,000 x 100,000 pixels: refused from IHDR, before anything is allocated.
open("declares-100000x100000.png", "wb").write(png(100_000, 100_000, chunk(b"IDAT", small)))
# An interlaced 10,000 x 10,000 RGBA picture (100 MP, under the default pixel limit): Adam7 needs
# it whole, 400 MB, over the interlaced budget: refused before the decode.
open("interlaced-10000x10000-rgba.png", "wb").write(
    png(10_000, 10_000, chunk(b"IDAT", small), colour=6, interlace=1))
# Image data whose zlib stream goes on inflating far past the picture's 16 rows (100 MB of zeros).
open("idat-inflates-100mb.png", "wb").write(
    png(16, 16, chunk(b"IDAT", zlib.compress(rows(16, 16) + bytes(100 << 20), 9))))
# A zTXt (ImageMagick's raw EXIF) and an iCCP whose streams inflate to 100 MB of zeros.
bomb = zlib.compress(bytes(100 << 20), 9)
open("ztxt-inflates-100mb.png", "wb").write(
    png(16, 16, chunk(b"zTXt", b"Raw profile type exif\0\0" + bomb), chunk(b"IDAT", small)))
open("iccp-inflates-100mb.png", "wb").write(
    png(16, 16, chunk(b"iCCP", b"icc\0\0" + bomb), chunk(b"IDAT", small)))
# An APNG whose default image (IDAT) is not a frame of its animation: acTL, IDAT, then the two
# frames' fcTL and fdAT, each frame a different grey.
def fctl(sequence, width=16, height=16):
    return chunk(b"fcTL", struct.pack(">IIIIIHHBB", sequence, width, height, 0, 0, 1, 10, 0, 0))


def fdat(sequence, grey):
    data = zlib.compress(b"".join(b"\0" + bytes([grey] * 16) for _ in range(16)))
    return chunk(b"fdAT", struct.pack(">I", sequence) + data)


open("apng-default-image-not-a-frame.png", "wb").write(
    png(16, 16, chunk(b"acTL", struct.pack(">II", 2, 0)), chunk(b"IDAT", small),
        fctl(0), fdat(1, 40), fctl(2), fdat(3, 220)))
# 100,000 frames declared by acTL, none there: one warning, no work per frame.
open("apng-declares-100000-frames.png", "wb").write(
    png(16, 16, chunk(b"acTL", struct.pack(">II", 100_000, 0)), fctl(0), chunk(b"IDAT", small)))
# The first half of the image data only, in IDAT chunks of 256 bytes as encoders split it: a
# download that stopped.
data = zlib.compress(rows(64, 64), 0)
whole = png(64, 64, *[chunk(b"IDAT", data[i:i + 256]) for i in range(0, len(data), 256)])
open("cut-in-the-image-data.png", "wb").write(whole[: len(whole) // 2])
