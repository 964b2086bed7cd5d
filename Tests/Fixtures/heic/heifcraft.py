#!/usr/bin/env python3
"""Builds HEIF files box by box from the HEVC images that heif-enc makes (standard library only).

heif-enc (libheif 1.15) writes one coded image per file, with no grid, no irot/imir and nothing
of what a phone writes around it. This script takes the coded images out of such files and puts
them back together the way an iPhone lays out its HEIC: a grid of tiles, the Exif item with its
offset header, an ICC profile in `colr`, a rotation, a thumbnail. It can also write what no
encoder writes on purpose: a grid that declares a huge size, a codec libheif does not have, a
file with no image. See ../README.md, "heic/".

  heifcraft.py dump FILE.heic
  heifcraft.py build OUT.heic [--image IN.heic | --grid COLUMNSxROWS --tile IN.heic ...]
      [--size WxH] [--grid-size WxH] [--exif-from JPEG] [--exif-offset apple|zero|BYTES]
      [--icc-from JPEG] [--nclx P,T,M,FULL] [--irot QUARTER_TURNS] [--imir AXIS] [--second-irot QUARTER_TURNS]
      [--thumbnail IN.heic] [--item-type FOURCC] [--no-primary] [--sps-size WxH]
      [--overlay-layers N --tile IN.heic --size WxH] [--identity-loop] [--alpha-identity-loop] [--exif-padding BYTES] [--exif-length BYTES]
      [--gain-map IN.heic [--gain-map-xmp FILE] [--gain-map-type URN] [--gain-map-size WxH]
       [--gain-map-sps-size WxH] [--gain-map-item-type FOURCC] [--gain-map-loop]
       | --gain-map-grid COLUMNSxROWS --gain-map-tile IN.heic ... --gain-map-size WxH [--gain-map-xmp FILE]]
      [--tmap HEX [--aux URN ...]] [--exif-also-describes primary|thumbnail]
      [--xmp-deflate BYTES [--listed-twice]] [--share-data] [--split-references]
  heifcraft.py exif FILE.heic OUT.tiff     # the Exif item's TIFF block, after its offset (if any)
  heifcraft.py annexb FILE.heic OUT.hevc   # the primary's coded tiles as one Annex B stream
  heifcraft.py mosaic IN.heic OUT.heic COPIESxCOPIES WxH  # IN's tiles named over and over, one grid
  heifcraft.py wrap-hevc IN.hevc OUT.heic WxH  # one Annex B HEVC picture (x265's) as a HEIF image
  heifcraft.py bt709-limited IN.ppm OUT.y4m  # 4:2:0 YCbCr with BT.709's matrix in video range

Every number is written big-endian, as ISO/IEC 14496-12 (ISOBMFF) and 23008-12 (HEIF) say.
"""
import struct
import sys


# ---- reading ----------------------------------------------------------------------------------

def boxes(data, start, end):
    """(type, payload start, box end) of each box between start and end."""
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
            header = 16
        elif size == 0:
            size = end - offset
        if size < header or offset + size > end:
            raise ValueError("box %r at %d runs past its parent" % (kind, offset))
        yield kind.decode("latin-1"), offset + header, offset + size
        offset += size


def child(data, start, end, kind):
    for found, payload, box_end in boxes(data, start, end):
        if found == kind:
            return payload, box_end
    raise ValueError("no %r box" % kind)


def read_uint(data, offset, size):
    return int.from_bytes(data[offset:offset + size], "big") if size else 0


class HEIFFile:
    """The items of a file heif-enc wrote: types, data, properties and references."""

    def __init__(self, path):
        with open(path, "rb") as handle:
            self.data = handle.read()
        data = self.data
        meta, meta_end = child(data, 0, len(data), "meta")
        meta += 4  # version and flags
        self.primary = None
        self.types = {}
        self.locations = {}
        self.properties = []
        self.associations = {}
        self.references = []
        idat = None
        for kind, payload, end in boxes(data, meta, meta_end):
            if kind == "pitm":
                self.primary = read_uint(data, payload + 4, 2)
            elif kind == "iinf":
                version = data[payload]
                count_size = 2 if version == 0 else 4
                for _, entry, _ in boxes(data, payload + 4 + count_size, end):
                    item_id = read_uint(data, entry + 4, 2)
                    self.types[item_id] = data[entry + 8:entry + 12].decode("latin-1")
            elif kind == "iloc":
                self.locations = self.read_iloc(payload)
            elif kind == "iprp":
                ipco, ipco_end = child(data, payload, end, "ipco")
                self.properties = [data[p - 8:e] for _, p, e in boxes(data, ipco, ipco_end)]
                ipma, _ = child(data, payload, end, "ipma")
                self.read_ipma(ipma)
            elif kind == "iref":
                version = data[payload]
                id_size = 2 if version == 0 else 4
                for ref_kind, ref, _ in boxes(data, payload + 4, end):
                    source = read_uint(data, ref, id_size)
                    count = read_uint(data, ref + id_size, 2)
                    targets = [read_uint(data, ref + id_size + 2 + i * id_size, id_size) for i in range(count)]
                    self.references.append((ref_kind, source, targets))
            elif kind == "idat":
                idat = payload
        self.idat = idat

    def read_iloc(self, payload):
        data = self.data
        version = data[payload]
        offset_size, length_size = data[payload + 4] >> 4, data[payload + 4] & 15
        base_size, index_size = data[payload + 5] >> 4, data[payload + 5] & 15
        position = payload + 6
        id_size = 2 if version < 2 else 4
        count = read_uint(data, position, 2 if version < 2 else 4)
        position += 2 if version < 2 else 4
        locations = {}
        for _ in range(count):
            item_id = read_uint(data, position, id_size)
            position += id_size
            method = 0
            if version in (1, 2):
                method = read_uint(data, position, 2) & 15
                position += 2
            position += 2  # data_reference_index
            base = read_uint(data, position, base_size)
            position += base_size
            extents = []
            extent_count = read_uint(data, position, 2)
            position += 2
            for _ in range(extent_count):
                if version in (1, 2) and index_size:
                    position += index_size
                extent_offset = read_uint(data, position, offset_size)
                position += offset_size
                extent_length = read_uint(data, position, length_size)
                position += length_size
                extents.append((base + extent_offset, extent_length))
            locations[item_id] = (method, extents)
        return locations

    def read_ipma(self, payload):
        data = self.data
        version, flags = data[payload], read_uint(data, payload + 1, 3)
        entry_count = read_uint(data, payload + 4, 4)
        position = payload + 8
        for _ in range(entry_count):
            item_id = read_uint(data, position, 2 if version < 1 else 4)
            position += 2 if version < 1 else 4
            indices = []
            association_count = data[position]
            position += 1
            for _ in range(association_count):
                if flags & 1:
                    indices.append(read_uint(data, position, 2) & 0x7FFF)
                    position += 2
                else:
                    indices.append(data[position] & 0x7F)
                    position += 1
            self.associations[item_id] = indices

    def item_data(self, item_id):
        method, extents = self.locations[item_id]
        base = self.idat if method == 1 else 0
        return b"".join(self.data[base + start:base + start + length] for start, length in extents)

    def item_properties(self, item_id):
        return [self.properties[index - 1] for index in self.associations.get(item_id, [])]

    def coded_primary(self):
        """The primary item's type, data and the properties that describe its coding."""
        item = self.primary
        kept = [p for p in self.item_properties(item) if p[4:8] in (b"hvcC", b"av1C", b"ispe", b"pixi")]
        return self.types[item], self.item_data(item), kept

    def exif(self):
        for item_id, kind in self.types.items():
            if kind == "Exif":
                return self.item_data(item_id)
        return None


def read_ue(bits, position):
    zeros = 0
    while bits[position + zeros] == "0":
        zeros += 1
    value = int(bits[position + zeros:position + 2 * zeros + 1], 2) - 1
    return value, position + 2 * zeros + 1


def write_ue(value):
    code = bin(value + 1)[2:]
    return "0" * (len(code) - 1) + code


def set_sps_size(nal, width, height):
    """An HEVC SPS NAL unit (H.265 7.3.2.2) with another pic_width/height_in_luma_samples."""
    rbsp = bytearray()
    zeros = 0
    for byte in nal[2:]:  # emulation prevention: 00 00 03 -> 00 00
        if zeros >= 2 and byte == 3:
            zeros = 0
            continue
        zeros = zeros + 1 if byte == 0 else 0
        rbsp.append(byte)
    bits = "".join(format(b, "08b") for b in rbsp)
    sub_layers = int(bits[4:7], 2)
    position = 8 + 96
    flags = [(bits[position + 2 * i], bits[position + 2 * i + 1]) for i in range(sub_layers)]
    position += 2 * sub_layers + (2 * (8 - sub_layers) if sub_layers else 0)
    for profile, level in flags:
        position += (88 if profile == "1" else 0) + (8 if level == "1" else 0)
    _, position = read_ue(bits, position)  # sps_seq_parameter_set_id
    chroma, position = read_ue(bits, position)
    if chroma == 3:
        position += 1
    start = position
    _, position = read_ue(bits, position)
    _, position = read_ue(bits, position)
    bits = bits[:start] + write_ue(width) + write_ue(height) + bits[position:]
    # The RBSP trailing bits stay where they were relative to the end; pad to whole bytes.
    bits += "0" * (-len(bits) % 8)
    rbsp = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)).rstrip(b"\0")
    out = bytearray(nal[:2])
    zeros = 0
    for byte in rbsp:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


def set_hvcc_sps_size(hvcc, width, height):
    """An hvcC box (ISO/IEC 14496-15 8.3.3.1) whose SPS declares another picture size."""
    payload = bytearray(hvcc[8:8 + 23])
    position = 8 + 23
    for _ in range(hvcc[8 + 22]):
        header = hvcc[position:position + 3]
        count = struct.unpack(">H", header[1:3])[0]
        payload += header
        position += 3
        for _ in range(count):
            length = struct.unpack(">H", hvcc[position:position + 2])[0]
            nal = hvcc[position + 2:position + 2 + length]
            if (nal[0] >> 1) & 0x3F == 33:
                nal = set_sps_size(nal, width, height)
            payload += struct.pack(">H", len(nal)) + nal
            position += 2 + length
    return box("hvcC", bytes(payload))


def jpeg_segments(path):
    """(marker, payload) of each segment before the first scan of a JPEG."""
    with open(path, "rb") as handle:
        data = handle.read()
    offset = 2
    while offset + 4 <= len(data) and data[offset] == 0xFF:
        marker = data[offset + 1]
        if marker == 0xDA:
            break
        length = struct.unpack(">H", data[offset + 2:offset + 4])[0]
        yield marker, data[offset + 4:offset + 2 + length]
        offset += 2 + length


def jpeg_tiff(path):
    """The TIFF block of a JPEG's EXIF APP1, or a file that is one (exiftool's `-o FILE.exif`)."""
    with open(path, "rb") as handle:
        head = handle.read(4)
    if head in (b"II*\0", b"MM\0*"):
        with open(path, "rb") as handle:
            return handle.read()
    for marker, payload in jpeg_segments(path):
        if marker == 0xE1 and payload.startswith(b"Exif\0\0"):
            return payload[6:]
    raise ValueError("%s has no EXIF APP1" % path)


def jpeg_icc(path):
    chunks = {}
    for marker, payload in jpeg_segments(path):
        if marker == 0xE2 and payload.startswith(b"ICC_PROFILE\0"):
            chunks[payload[12]] = payload[14:]
    if not chunks:
        raise ValueError("%s has no ICC profile" % path)
    return b"".join(chunks[index] for index in sorted(chunks))


# ---- writing ----------------------------------------------------------------------------------

def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode("latin-1")) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def infe(item_id, kind, name, hidden=False, encoding=None):
    # A 'mime' item names its content type after its name (ISO/IEC 14496-12 8.11.6): XMP's, and
    # its content encoding after that when it has one.
    content_type = b"application/rdf+xml\0" if kind == "mime" else b""
    if encoding:
        content_type += encoding.encode() + b"\0"
    return full_box("infe", 2, 1 if hidden else 0,
                    struct.pack(">HH4s", item_id, 0, kind.encode("latin-1")) + name.encode() + b"\0" + content_type)


def reference(kind, source, targets):
    return box(kind, struct.pack(">HH", source, len(targets)) + b"".join(struct.pack(">H", t) for t in targets))


def ispe(width, height):
    return full_box("ispe", 0, 0, struct.pack(">II", width, height))


class Writer:
    """Items with data and properties, written as one file: ftyp, meta, mdat."""

    def __init__(self):
        self.items = []  # (id, type, name, data, hidden)
        self.properties = []  # box bytes, each once
        self.associations = {}  # item id -> [(index, essential)]
        self.references = []
        self.later_references = []  # written in a second iref box, which libheif 1.15 does not read
        self.primary = None
        self.lengths = {}  # item id -> the length iloc declares, where it is not the data's
        self.encodings = {}  # item id -> the content encoding its infe names
        self.listed_again = []  # item ids whose infe is written a second time, without an encoding
        self.shares_data = False  # identical item data written once, every such item's iloc on it (libavif's writer)

    def add_item(self, kind, data, name="", hidden=False):
        item_id = len(self.items) + 1
        self.items.append((item_id, kind, name, data, hidden))
        return item_id

    def item_type(self, item_id):
        return next(kind for i, kind, _, _, _ in self.items if i == item_id)

    def item_properties(self, item_id):
        return [self.properties[index - 1] for index, _ in self.associations.get(item_id, [])]

    def associate(self, item_id, prop, essential=False):
        if prop not in self.properties:
            self.properties.append(prop)
        self.associations.setdefault(item_id, []).append((self.properties.index(prop) + 1, essential))

    def write(self, path):
        # Apple's brands for HEVC; AVIF's for AV1.
        if any(kind == "av01" for _, kind, _, _, _ in self.items):
            brands = (b"avif", b"mif1", b"avif", b"miaf")
        else:
            brands = (b"heic", b"mif1", b"MiHE", b"MiPr", b"miaf", b"MiHB", b"heic")
        ftyp = box("ftyp", brands[0] + struct.pack(">I", 0) + b"".join(brands[1:]))
        hdlr = full_box("hdlr", 0, 0, struct.pack(">I4s12x", 0, b"pict") + b"\0")
        pitm = full_box("pitm", 0, 0, struct.pack(">H", self.primary)) if self.primary else b""
        iinf = full_box("iinf", 0, 0, struct.pack(">H", len(self.items)) +
                        b"".join(infe(i, k, n, h, self.encodings.get(i)) for i, k, n, _, h in self.items) +
                        b"".join(infe(i, k, n, h) for i, k, n, _, h in self.items if i in self.listed_again))
        iref = full_box("iref", 0, 0, b"".join(reference(*r) for r in self.references)) if self.references else b""
        if self.later_references:
            iref += full_box("iref", 0, 0, b"".join(reference(*r) for r in self.later_references))
        ipma_entries = b""
        for item_id in sorted(self.associations):
            associations = self.associations[item_id]
            ipma_entries += struct.pack(">HB", item_id, len(associations))
            ipma_entries += b"".join(struct.pack(">B", (0x80 if e else 0) | index) for index, e in associations)
        iprp = box("iprp", box("ipco", b"".join(self.properties)) +
                   full_box("ipma", 0, 0, struct.pack(">I", len(self.associations)) + ipma_entries))

        # Where each item's data starts in the body: a data written once is found again.
        starts, written, body = [], {}, b""
        for _, _, _, data, _ in self.items:
            if self.shares_data and data in written:
                starts.append(written[data])
                continue
            written[data] = len(body)
            starts.append(len(body))
            body += data

        def iloc(mdat_start):
            entries = b""
            for (item_id, _, _, data, _), start in zip(self.items, starts):
                entries += struct.pack(">HHHII", item_id, 0, 1, mdat_start + start, self.lengths.get(item_id, len(data)))
            return full_box("iloc", 0, 0, struct.pack(">BBH", 0x44, 0x00, len(self.items)) + entries)

        def meta(mdat_start):
            return full_box("meta", 0, 0, hdlr + pitm + iloc(mdat_start) + iinf + iref + iprp)

        mdat_start = len(ftyp) + len(meta(0)) + 8
        with open(path, "wb") as handle:
            handle.write(ftyp + meta(mdat_start) + box("mdat", body))


def parse_size(text):
    width, height = text.lower().split("x")
    return int(width), int(height)


def build(arguments):
    output = arguments.pop(0)
    options = {"tile": []}
    while arguments:
        name = arguments.pop(0)
        if name == "--no-primary":
            options["no-primary"] = True
        elif name == "--identity-loop":
            options["identity-loop"] = True
        elif name == "--alpha-identity-loop":
            options["alpha-identity-loop"] = True
        elif name == "--listed-twice":
            options["listed-twice"] = True
        elif name == "--share-data":
            options["share-data"] = True
        elif name == "--split-references":
            options["split-references"] = True
        elif name == "--gain-map-loop":
            options["gain-map-loop"] = True
            options.setdefault("gain-map", "")
        elif name == "--tile":
            options["tile"].append(arguments.pop(0))
        elif name == "--gain-map-tile":
            options.setdefault("gain-map-tiles", []).append(arguments.pop(0))
        elif name == "--aux":
            options.setdefault("aux", []).append(arguments.pop(0))
        else:
            options[name[2:]] = arguments.pop(0)

    writer = Writer()
    writer.shares_data = options.get("share-data", False)
    if "grid" in options:
        columns, rows = parse_size(options["grid"])
        tiles = [HEIFFile(path) for path in options["tile"]]
        if len(tiles) != columns * rows:
            raise SystemExit("a %dx%d grid needs %d tiles" % (columns, rows, columns * rows))
        tile_ids = []
        for tile in tiles:
            kind, data, props = tile.coded_primary()
            tile_id = writer.add_item(options.get("item-type", kind), data, hidden=True)
            for prop in props:
                writer.associate(tile_id, prop, essential=prop[4:8] == b"hvcC")
            tile_ids.append(tile_id)
        width, height = parse_size(options["size"])
        grid_width, grid_height = parse_size(options.get("grid-size", options["size"]))
        large = grid_width > 0xFFFF or grid_height > 0xFFFF
        grid_data = struct.pack(">BBBB", 0, 1 if large else 0, rows - 1, columns - 1)
        grid_data += struct.pack(">II" if large else ">HH", grid_width, grid_height)
        primary = writer.add_item("grid", grid_data)
        if options.get("split-references"):
            # The tiles listed over two iref boxes: libheif reads only the first ("Missing grid images").
            half = len(tile_ids) // 2
            writer.references.append(("dimg", primary, tile_ids[:half]))
            writer.later_references.append(("dimg", primary, tile_ids[half:]))
        else:
            writer.references.append(("dimg", primary, tile_ids))
        writer.associate(primary, ispe(width, height))
    elif "overlay-layers" in options:
        # An overlay whose every layer is the same coded image, at the origin: libheif decodes
        # the image once for each layer.
        kind, data, props = HEIFFile(options["tile"][0]).coded_primary()
        layer = writer.add_item(kind, data, hidden=True)
        for prop in props:
            writer.associate(layer, prop, essential=prop[4:8] == b"hvcC")
        count = int(options["overlay-layers"])
        width, height = parse_size(options["size"])
        overlay = struct.pack(">BB4HHH", 0, 0, 0, 0, 0, 0xFFFF, width, height) + b"\0\0\0\0" * count
        primary = writer.add_item("iovl", overlay)
        writer.references.append(("dimg", primary, [layer] * count))
        writer.associate(primary, ispe(width, height))
    else:
        source = HEIFFile(options["image"])
        kind, data, props = source.coded_primary()
        primary = writer.add_item(options.get("item-type", kind), data)
        for prop in props:
            if prop[4:8] == b"ispe" and "size" in options:
                prop = ispe(*parse_size(options["size"]))
            if prop[4:8] == b"hvcC" and "sps-size" in options:
                prop = set_hvcc_sps_size(prop, *parse_size(options["sps-size"]))
            writer.associate(primary, prop, essential=prop[4:8] in (b"hvcC", b"av1C"))

    if "icc-from" in options:
        writer.associate(primary, box("colr", b"prof" + jpeg_icc(options["icc-from"])))
    if "nclx" in options:
        primaries, transfer, matrix, full = (int(v) for v in options["nclx"].split(","))
        writer.associate(primary, box("colr", b"nclx" + struct.pack(">HHHB", primaries, transfer, matrix,
                                                                    0x80 if full else 0)))
    # The transformations, in the order HEIF applies them: rotation, then mirror.
    if "irot" in options:
        writer.associate(primary, box("irot", bytes([int(options["irot"]) & 3])), essential=True)
    if "imir" in options:
        writer.associate(primary, box("imir", bytes([int(options["imir"]) & 1])), essential=True)
    # A second rotation after them, which libheif 1.15.1-1+deb12u3 refuses (one of each at most).
    if "second-irot" in options:
        writer.associate(primary, box("irot", bytes([int(options["second-irot"]) & 3])), essential=True)
    if "thumbnail" in options:
        kind, data, props = HEIFFile(options["thumbnail"]).coded_primary()
        thumbnail = writer.add_item(kind, data)
        for prop in props:
            writer.associate(thumbnail, prop, essential=prop[4:8] == b"hvcC")
        writer.references.append(("thmb", thumbnail, [primary]))
    if "exif-from" in options:
        tiff = jpeg_tiff(options["exif-from"])
        style = options.get("exif-offset", "apple")
        # Apple writes offset 6 and then "Exif\0\0" before the TIFF header; libheif's own writer
        # points the offset at the TIFF header too, so both forms are read the same way.
        if style == "apple":
            payload = struct.pack(">I", 6) + b"Exif\0\0" + tiff
        elif style == "zero":
            payload = struct.pack(">I", 0) + tiff
        else:
            payload = struct.pack(">I", int(style)) + tiff
        # Bytes after the TIFF block's end, which no offset in it reaches.
        payload += b"\0" * int(options.get("exif-padding", "0"))
        exif = writer.add_item("Exif", payload)
        exif_reference = ("cdsc", exif, [primary])
        # A second target, as libheif 1.15 refuses: the thumbnail, or the primary again.
        if options.get("exif-also-describes") == "thumbnail":
            exif_reference[2].append(thumbnail)
        elif options.get("exif-also-describes") == "primary":
            exif_reference[2].append(primary)
        writer.references.append(exif_reference)
        if "exif-length" in options:
            writer.lengths[exif] = int(options["exif-length"], 0)
    if "xmp-deflate" in options:
        # An XMP item on the photo whose infe says content_encoding deflate: a packet padded with
        # that many spaces, deflated by zlib (about a thousandth of its size). libheif 1.15
        # inflates it as it opens the file. With --listed-twice, a second infe for the item
        # follows without the encoding (libheif keeps the first).
        import zlib
        packet = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"/>' + b" " * int(options["xmp-deflate"])
        xmp = writer.add_item("mime", zlib.compress(packet, 9))
        writer.encodings[xmp] = "deflate"
        if options.get("listed-twice"):
            writer.listed_again.append(xmp)
        writer.references.append(("cdsc", xmp, [primary]))
    if options.get("identity-loop"):
        # An identity-derived image whose source is itself.
        loop = writer.add_item("iden", b"")
        writer.references.append(("dimg", loop, [loop]))
        writer.associate(loop, ispe(*parse_size(options.get("size", "64x64"))))
        primary = loop
    if options.get("alpha-identity-loop"):
        # The primary's alpha image is an identity of the primary itself: decoding the primary
        # decodes its alpha, which decodes the primary (libheif 1.15 recurses until it crashes).
        alpha = writer.add_item("iden", b"", hidden=True)
        writer.references.append(("auxl", alpha, [primary]))
        writer.references.append(("dimg", alpha, [primary]))
        writer.associate(alpha, full_box("auxC", 0, 0, b"urn:mpeg:hevc:2015:auxid:1\0"), essential=True)
        writer.associate(alpha, ispe(*parse_size(options.get("size", "64x64"))))
    if "gain-map" in options or "gain-map-grid" in options:
        gain_map = add_gain_map(writer, primary, options)
        if "tmap" in options:
            add_tone_map(writer, primary, gain_map, options)
    if not options.get("no-primary"):
        writer.primary = primary
    writer.write(output)


APPLE_GAIN_MAP = "urn:com:apple:photo:2020:aux:hdrgainmap"


def add_gain_map(writer, primary, options):
    """An HDR gain map as an iPhone writes one: a hidden auxiliary image (auxC with Apple's URN,
    auxl to the primary) and, on it (cdsc), an XMP item that says HDRGainMapVersion."""
    if options.get("gain-map-loop"):
        # An identity image of the primary as its gain map: decoding it decodes the primary,
        # whose auxiliary image it is.
        gain_map = writer.add_item("iden", b"", hidden=True)
        writer.references.append(("dimg", gain_map, [primary]))
        writer.associate(gain_map, ispe(*parse_size(options.get("gain-map-size", "160x120"))))
    elif "gain-map-grid" in options:
        # A grid of coded tiles, as an iPhone codes its gain map at full size.
        columns, rows = parse_size(options["gain-map-grid"])
        tiles = []
        for path in options["gain-map-tiles"]:
            kind, data, props = HEIFFile(path).coded_primary()
            tile = writer.add_item(kind, data, hidden=True)
            for prop in props:
                writer.associate(tile, prop, essential=prop[4:8] == b"hvcC")
            tiles.append(tile)
        width, height = parse_size(options["gain-map-size"])
        gain_map = writer.add_item("grid", struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, width, height),
                                   hidden=True)
        writer.references.append(("dimg", gain_map, tiles))
        writer.associate(gain_map, ispe(width, height))
    else:
        kind, data, props = HEIFFile(options["gain-map"]).coded_primary()
        gain_map = writer.add_item(options.get("gain-map-item-type", kind), data, hidden=True)
        for prop in props:
            if prop[4:8] == b"ispe" and "gain-map-size" in options:
                prop = ispe(*parse_size(options["gain-map-size"]))
            if prop[4:8] == b"hvcC" and "gain-map-sps-size" in options:
                prop = set_hvcc_sps_size(prop, *parse_size(options["gain-map-sps-size"]))
            writer.associate(gain_map, prop, essential=prop[4:8] in (b"hvcC", b"av1C"))
    urn = options.get("gain-map-type", APPLE_GAIN_MAP)
    writer.associate(gain_map, full_box("auxC", 0, 0, urn.encode() + b"\0"), essential=True)
    writer.references.append(("auxl", gain_map, [primary]))
    if "gain-map-xmp" in options:
        with open(options["gain-map-xmp"], "rb") as handle:
            xmp = writer.add_item("mime", handle.read())
        writer.references.append(("cdsc", xmp, [gain_map]))
    return gain_map


def add_tone_map(writer, primary, gain_map, options):
    """An ISO 21496-1 tone-mapped image as iOS 18 writes one: a `tmap` item whose data is the
    metadata (HEX: its version byte, then the block), derived (`dimg`) from the primary and the
    gain map, and described by the Exif item too (its `cdsc` names the primary and the `tmap`).
    Each --aux URN adds an auxiliary image as iOS 26 writes its mattes: the gain map's coded
    image again, of that type, an `auxl` of the primary and the `tmap`."""
    tone_map = writer.add_item("tmap", bytes.fromhex(options["tmap"]))
    writer.references.append(("dimg", tone_map, [primary, gain_map]))
    for prop in writer.item_properties(primary):
        if prop[4:8] == b"ispe":
            writer.associate(tone_map, prop)
    for kind, source, targets in writer.references:
        if kind == "cdsc" and primary in targets and writer.item_type(source) == "Exif":
            targets.append(tone_map)
    for urn in options.get("aux", []):
        kind, data, props = HEIFFile(options["gain-map"]).coded_primary()
        aux = writer.add_item(kind, data, hidden=True)
        for prop in props:
            writer.associate(aux, prop, essential=prop[4:8] == b"hvcC")
        writer.associate(aux, full_box("auxC", 0, 0, urn.encode() + b"\0"), essential=True)
        writer.references.append(("auxl", aux, [primary, tone_map]))


def wrap_hevc(source, target, size):
    """One HEVC picture in Annex B form (what the x265 command writes) as the primary image of a
    HEIF file: its VPS, SPS and PPS into hvcC (ISO/IEC 14496-15 8.3.3), its slices, each behind
    a 4-byte length, as the item's data. x265 codes 4:0:0 at 10 bits, which heif-enc cannot."""
    with open(source, "rb") as handle:
        stream = handle.read()
    starts, offset = [], 0
    while (found := stream.find(b"\0\0\1", offset)) >= 0:
        starts.append(found + 3)
        offset = found + 3
    units = []
    for index, start in enumerate(starts):
        end = starts[index + 1] - 3 if index + 1 < len(starts) else len(stream)
        units.append(stream[start:end].rstrip(b"\0") if index + 1 < len(starts) else stream[start:end])
    arrays, data = {}, b""
    for unit in units:
        kind = unit[0] >> 1 & 0x3F
        if kind in (32, 33, 34):
            arrays.setdefault(kind, []).append(unit)
        elif kind < 32:
            data += struct.pack(">I", len(unit)) + unit
    sps = arrays[33][0]
    # The SPS's profile_tier_level (after its 2-byte header and one byte) is hvcC's bytes 1-12.
    profile = sps[3:15]
    chroma, depth = 0, 10
    header = bytes([1]) + profile + bytes([0xF0, 0x00, 0xFC, 0xFC | chroma, 0xF8 | depth - 8, 0xF8 | depth - 8,
                                             0, 0, 0x0F, len(arrays)])
    for kind in sorted(arrays):
        header += bytes([0x80 | kind]) + struct.pack(">H", len(arrays[kind]))
        header += b"".join(struct.pack(">H", len(unit)) + unit for unit in arrays[kind])
    writer = Writer()
    item = writer.add_item("hvc1", data)
    writer.associate(item, box("hvcC", header), essential=True)
    writer.associate(item, ispe(*parse_size(size)))
    writer.associate(item, full_box("pixi", 0, 0, bytes([1, depth])))
    writer.primary = item
    writer.write(target)


def bt709_limited(source, target):
    """A binary PPM (P6, 8-bit, even sides) as a Y4M of BT.709 limited-range YCbCr 4:2:0
    (ITU-R BT.709-6 3.2 and 3.5: Y in 16-235, Cb and Cr in 16-240), which heif-enc codes as it is."""
    with open(source, "rb") as handle:
        data = handle.read()
    fields = data.split(maxsplit=4)
    assert fields[0] == b"P6" and fields[3] == b"255"
    width, height, pixels = int(fields[1]), int(fields[2]), fields[4]
    luma = bytearray()
    blue = [[0.0] * width for _ in range(height)]
    red = [[0.0] * width for _ in range(height)]
    for y in range(height):
        for x in range(width):
            r, g, b = (pixels[(y * width + x) * 3 + c] / 255 for c in range(3))
            e = 0.2126 * r + 0.7152 * g + 0.0722 * b
            luma.append(round(16 + 219 * e))
            blue[y][x] = (b - e) / 1.8556
            red[y][x] = (r - e) / 1.5748
    chroma = []
    for plane in (blue, red):
        out = bytearray()
        for y in range(0, height, 2):
            for x in range(0, width, 2):
                mean = (plane[y][x] + plane[y][x + 1] + plane[y + 1][x] + plane[y + 1][x + 1]) / 4
                out.append(round(128 + 224 * mean))
        chroma.append(out)
    header = b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\nFRAME\n" % (width, height)
    with open(target, "wb") as handle:
        handle.write(header + bytes(luma) + bytes(chroma[0]) + bytes(chroma[1]))


def dump(path):
    source = HEIFFile(path)
    print("primary", source.primary)
    for item_id, kind in sorted(source.types.items()):
        props = [p[4:8].decode("latin-1") for p in source.item_properties(item_id)]
        method, extents = source.locations.get(item_id, (0, []))
        print(item_id, kind, "method", method, "extents", extents, "properties", props)
    for ref in source.references:
        print("reference", *ref)


def primary_tiles(source):
    """The primary's coded tiles, row by row, with its grid's columns and rows (1x1 for an image)."""
    primary = source.primary
    if source.types[primary] != "grid":
        return [primary], 1, 1
    tiles = next(targets for kind, item, targets in source.references if kind == "dimg" and item == primary)
    data = source.item_data(primary)
    return tiles, data[3] + 1, data[2] + 1


def hvcc_units(prop):
    """The NAL units of an hvcC box (its whole bytes), and the size of the data's NAL lengths."""
    payload = prop[8:]
    offset, units = 23, []
    for _ in range(payload[22]):
        count = read_uint(payload, offset + 1, 2)
        offset += 3
        for _ in range(count):
            length = read_uint(payload, offset, 2)
            units.append(payload[offset + 2:offset + 2 + length])
            offset += 2 + length
    return units, (payload[21] & 3) + 1


def annexb(path, target):
    """Each tile's parameter sets and NAL units behind start codes, tile after tile: what an HEVC
    decoder alone (libde265's dec265) decodes, for the benchmark's floor."""
    source = HEIFFile(path)
    stream = bytearray()
    for tile in primary_tiles(source)[0]:
        hvcc = next(p for p in source.item_properties(tile) if p[4:8] == b"hvcC")
        units, size = hvcc_units(hvcc)
        data = source.item_data(tile)
        offset = 0
        while offset + size <= len(data):
            length = read_uint(data, offset, size)
            units.append(data[offset + size:offset + size + length])
            offset += size + length
        for unit in units:
            stream += b"\0\0\0\1" + unit
    with open(target, "wb") as handle:
        handle.write(stream)


def mosaic(path, target, copies, size):
    """A grid that names IN's coded tiles over and over, COPIES across and down, each coded tile
    stored once: a photo of any size from a few tiles (the 200 MP tests and benchmark), with IN's
    colour, rotation and Exif."""
    source = HEIFFile(path)
    tiles, columns, rows = primary_tiles(source)
    across, down = parse_size(copies)
    width, height = parse_size(size)
    writer = Writer()
    stored = []
    for tile in tiles:
        tile_id = writer.add_item(source.types[tile], source.item_data(tile), hidden=True)
        for prop in source.item_properties(tile):
            if prop[4:8] in (b"hvcC", b"ispe", b"pixi"):
                writer.associate(tile_id, prop, essential=prop[4:8] == b"hvcC")
        stored.append(tile_id)
    named = [stored[(y % rows) * columns + x % columns] for y in range(rows * down) for x in range(columns * across)]
    large = width > 0xFFFF or height > 0xFFFF
    grid_data = struct.pack(">BBBB", 0, 1 if large else 0, rows * down - 1, columns * across - 1)
    grid_data += struct.pack(">II" if large else ">HH", width, height)
    primary = writer.add_item("grid", grid_data)
    writer.references.append(("dimg", primary, named))
    writer.associate(primary, ispe(width, height))
    for prop in source.item_properties(source.primary):
        if prop[4:8] in (b"colr", b"irot", b"imir"):
            writer.associate(primary, prop, essential=prop[4:8] != b"colr")
    exif = source.exif()
    if exif is not None:
        writer.references.append(("cdsc", writer.add_item("Exif", exif), [primary]))
    writer.primary = primary
    writer.write(target)


def main():
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "dump":
        dump(arguments[0])
    elif command == "build":
        build(arguments)
    elif command == "bt709-limited":
        bt709_limited(arguments[0], arguments[1])
    elif command == "wrap-hevc":
        wrap_hevc(arguments[0], arguments[1], arguments[2])
    elif command == "annexb":
        annexb(arguments[0], arguments[1])
    elif command == "mosaic":
        mosaic(*arguments)
    elif command == "exif":
        payload = HEIFFile(arguments[0]).exif()
        if payload is None:
            return
        offset = struct.unpack(">I", payload[:4])[0]
        with open(arguments[1], "wb") as handle:
            handle.write(payload[4 + offset:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
