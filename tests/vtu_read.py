"""vtu_read.py - reads VTK XML files (.vtu, .pvtu, .pvd) with the standard library only, for
tests/check_vtu.py and tests/check_pvtu.py: ASCII data arrays, and appended raw data (binary,
encoding="raw"), zlib-compressed (compressor="vtkZLibDataCompressor") or not, with UInt32 or
UInt64 headers in the file's byte order. It follows VTK's file format description, not hdgc's
writer: a compressed array is a header (blocks, block size, size of a partial last block, the
compressed size of each block) and the blocks, each inflated on its own.
"""
import re
import struct
import xml.etree.ElementTree as ET
import zlib

NUMPY_LIKE = {"Float32": "f", "Float64": "d", "Int8": "b", "Int16": "h", "Int32": "i", "Int64": "q",
              "UInt8": "B", "UInt16": "H", "UInt32": "I", "UInt64": "Q"}


class VtkFile:
    """root: the XML tree (the appended section's bytes cut out); appended: those bytes."""

    def __init__(self, path):
        raw = open(path, "rb").read()
        self.appended = b""
        m = re.search(rb"<AppendedData[^>]*>", raw)
        if m:
            start = raw.index(b"_", m.end()) + 1
            stop = raw.rindex(b"</AppendedData>")
            self.appended = raw[start:stop]
            raw = raw[:m.end()] + raw[stop:]
        self.root = ET.fromstring(raw)
        self.little = self.root.get("byte_order", "LittleEndian") == "LittleEndian"
        self.header = NUMPY_LIKE[self.root.get("header_type", "UInt32")]
        self.compressor = self.root.get("compressor")
        if self.compressor not in (None, "vtkZLibDataCompressor"):
            raise ValueError(f"{path}: compressor {self.compressor} is not read here")

    def _unpack(self, fmt, data):
        n = len(data) // struct.calcsize(fmt)
        return list(struct.unpack(("<" if self.little else ">") + fmt * n, data[:n * struct.calcsize(fmt)]))

    def _block(self, offset):
        """The bytes of the array whose data starts at offset in the appended section."""
        h = struct.calcsize(self.header)
        d = self.appended
        if not self.compressor:
            (n,) = self._unpack(self.header, d[offset:offset + h])
            return d[offset + h:offset + h + n]
        nb, bsize, last = self._unpack(self.header, d[offset:offset + 3 * h])
        sizes = self._unpack(self.header, d[offset + 3 * h:offset + (3 + nb) * h])
        out, at = b"", offset + (3 + nb) * h
        for k, c in enumerate(sizes):
            block = zlib.decompress(d[at:at + c])
            want = last if k == nb - 1 and last else bsize
            if len(block) != want:
                raise ValueError(f"block {k} of the array at {offset}: {len(block)} bytes, header says {want}")
            out += block
            at += c
        return out

    def values(self, da, kind=float):
        """The numbers of a DataArray element, as kind."""
        fmt = da.get("format", "ascii")
        if fmt == "ascii":
            return [kind(t) for t in (da.text or "").split()]
        if fmt != "appended":
            raise ValueError(f"DataArray {da.get('Name')}: format {fmt} is not read here")
        data = self._block(int(da.get("offset")))
        return [kind(v) for v in self._unpack(NUMPY_LIKE[da.get("type")], data)]


def parse(path):
    return VtkFile(path)
