#!/usr/bin/env python3
"""Byte edits to a JPEG's EXIF block (and its marker stream) that exiftool will not make.

exiftool writes well-formed EXIF only: it will not store a tag as the wrong TIFF type, give one a
count of 0, put an out-of-range JPEGInterchangeFormatLength into IFD0, or write a rational with a
zero denominator. Each command below makes one such change in place, following the TIFF offsets
from the APP1 header, and keeps every other byte where it was (an IFD that grows is rewritten at
the end of the block, so no offset into the block moves). Standard library only.

    exifedit.py FILE zero-denominator IFD TAG INDEX  the INDEX-th (0-based) rational gets denominator 0
    exifedit.py FILE set-rational IFD TAG INDEX N D  the INDEX-th rational becomes N/D (signed when N < 0)
    exifedit.py FILE set-count IFD TAG COUNT         the entry's count, value bytes untouched
    exifedit.py FILE retype IFD TAG TYPE COUNT       the entry's type and count, value bytes untouched
    exifedit.py FILE set-integer IFD TAG TYPE VALUE  the entry becomes one integer of TYPE
    exifedit.py FILE set-text IFD TAG TEXT           the entry becomes ASCII TEXT (NUL-terminated)
    exifedit.py FILE add-long IFD TAG VALUE          adds a LONG entry (the IFD is rewritten, sorted)
    exifedit.py FILE insert-after MARKER HEX         inserts bytes after the first MARKER segment

IFD is IFD0, ExifIFD or GPS; TAG and MARKER are numbers (0x0112); TYPE is a TIFF type name.
"""
import struct
import sys

TYPES = {"BYTE": 1, "ASCII": 2, "SHORT": 3, "LONG": 4, "RATIONAL": 5, "SBYTE": 6, "UNDEFINED": 7,
         "SSHORT": 8, "SLONG": 9, "SRATIONAL": 10}
INTEGER_FORMATS = {1: "B", 3: "H", 4: "I", 6: "b", 8: "h", 9: "i"}
POINTERS = {"ExifIFD": 0x8769, "GPS": 0x8825}


def segments(data):
    """(marker, start, end) of each segment from SOI to the first SOS."""
    found, at = [], 2
    while at + 4 <= len(data):
        marker, length = data[at + 1], struct.unpack_from(">H", data, at + 2)[0]
        found.append((marker, at, at + 2 + length))
        if marker == 0xDA:
            break
        at += 2 + length
    return found


class Exif:
    """The TIFF block of a JPEG's first EXIF APP1 segment, to edit and write back."""

    def __init__(self, path):
        self.path = path
        self.data = bytearray(open(path, "rb").read())
        for marker, start, end in segments(self.data):
            if marker == 0xE1 and self.data[start + 4:start + 10] == b"Exif\0\0":
                self.segment = (start, end)
                self.tiff = bytearray(self.data[start + 10:end])
                break
        else:
            sys.exit(f"{path}: no EXIF APP1 segment")
        self.order = ">" if self.tiff[:2] == b"MM" else "<"

    def u16(self, at): return struct.unpack_from(self.order + "H", self.tiff, at)[0]
    def u32(self, at): return struct.unpack_from(self.order + "I", self.tiff, at)[0]
    def put(self, fmt, at, *values): struct.pack_into(self.order + fmt, self.tiff, at, *values)

    def ifd(self, name):
        ifd0 = self.u32(4)
        if name == "IFD0":
            return ifd0
        return self.u32(self.entry(ifd0, POINTERS[name]) + 8)

    def entries(self, ifd):
        return [ifd + 2 + 12 * index for index in range(self.u16(ifd))]

    def entry(self, ifd, tag):
        return next(at for at in self.entries(ifd) if self.u16(at) == tag)

    def append(self, payload):
        """Puts payload at the end of the block, on a word boundary, and returns its offset."""
        if len(self.tiff) % 2:
            self.tiff.append(0)
        offset = len(self.tiff)
        self.tiff += payload
        return offset

    def save(self):
        start, end = self.segment
        payload = b"Exif\0\0" + self.tiff
        assert len(payload) + 2 <= 0xFFFF, "the APP1 segment would be too long"
        self.data[start:end] = b"\xFF\xE1" + struct.pack(">H", len(payload) + 2) + payload
        open(self.path, "wb").write(self.data)


def main(path, command, *args):
    number = lambda text: int(text, 0)
    if command == "insert-after":
        data = bytearray(open(path, "rb").read())
        end = next(end for marker, _, end in segments(data) if marker == number(args[0]))
        data[end:end] = bytes.fromhex(args[1])
        open(path, "wb").write(data)
        return
    exif = Exif(path)
    ifd = exif.ifd(args[0])
    if command == "add-long":
        tag, value = number(args[1]), number(args[2])
        rows = [bytes(exif.tiff[at:at + 12]) for at in exif.entries(ifd)]
        new = bytearray(12)
        struct.pack_into(exif.order + "HHII", new, 0, tag, TYPES["LONG"], 1, value)
        rows = sorted(rows + [bytes(new)], key=lambda row: struct.unpack_from(exif.order + "H", row)[0])
        next_ifd = exif.u32(ifd + 2 + 12 * exif.u16(ifd))
        moved = exif.append(struct.pack(exif.order + "H", len(rows)) + b"".join(rows)
                            + struct.pack(exif.order + "I", next_ifd))
        assert args[0] == "IFD0", "only IFD0 can be rewritten"
        exif.put("I", 4, moved)
    else:
        at = exif.entry(ifd, number(args[1]))
        if command == "zero-denominator":
            exif.put("I", exif.u32(at + 8) + 8 * int(args[2]) + 4, 0)
        elif command == "set-rational":
            exif.put("i" if int(args[3]) < 0 else "I", exif.u32(at + 8) + 8 * int(args[2]), int(args[3]))
            exif.put("I", exif.u32(at + 8) + 8 * int(args[2]) + 4, int(args[4]))
        elif command == "set-count":
            exif.put("I", at + 4, int(args[2]))
        elif command == "retype":
            exif.put("HI", at + 2, TYPES[args[2]], int(args[3]))
        elif command == "set-integer":
            kind = TYPES[args[2]]
            exif.put("HI", at + 2, kind, 1)
            exif.tiff[at + 8:at + 12] = bytes(4)
            exif.put(INTEGER_FORMATS[kind], at + 8, number(args[3]))
        elif command == "set-text":
            text = args[2].encode("ascii") + b"\0"
            exif.put("HI", at + 2, TYPES["ASCII"], len(text))
            if len(text) <= 4:
                exif.tiff[at + 8:at + 12] = text.ljust(4, b"\0")
            else:
                exif.put("I", at + 8, exif.append(text))
        else:
            sys.exit(f"unknown command {command}")
    exif.save()


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
