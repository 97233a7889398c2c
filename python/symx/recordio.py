"""mx.recordio: MXNet's RecordIO files (.rec, .idx) and image records.

The files are read and written by the engine (train/recordio), byte for
byte as MXNet 1.9.1 writes them; images are encoded and decoded by
libjpeg-turbo and libpng (train/image), so OpenCV is not needed.
pack_img/unpack_img keep OpenCV's BGR channel order, as MXNet's do.
A writer's file appears under its name when it is closed, explicitly or when
the writer is garbage-collected (until then it is URI.partial), so a process
killed while writing leaves no .rec that looks complete.
"""
import numbers
import os
import struct
from collections import namedtuple

import numpy as np

from . import _symx
from .base import MXNetError

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img",
           "unpack_img"]


class MXRecordIO:
    """Reads ('r') or writes ('w') a RecordIO file record by record."""

    def __init__(self, uri, flag):
        self.uri = str(uri)
        self.flag = flag
        self.handle = None
        self.writable = None
        self.is_open = False
        self.pid = None
        self.open()

    def open(self):
        if self.flag == "w":
            self.handle = _symx.RecordWriter(self.uri)
            self.writable = True
        elif self.flag == "r":
            self.handle = _symx.RecordReader(self.uri)
            self.writable = False
        else:
            raise ValueError("Invalid flag %s" % self.flag)
        self.pid = os.getpid()
        self.is_open = True

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass

    def __getstate__(self):
        # Pickled (e.g. into a DataLoader's worker) as its file name and mode;
        # the copy opens its own handle.
        is_open = self.is_open
        self.close()
        d = dict(self.__dict__)
        d["is_open"] = is_open
        d["handle"] = None
        return d

    def __setstate__(self, d):
        self.__dict__ = d
        is_open = d["is_open"]
        self.is_open = False
        self.handle = None
        if is_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        if self.pid != os.getpid():
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError("Forbidden operation in multiple processes")

    def close(self):
        if not self.is_open:
            return
        handle, self.handle = self.handle, None
        self.is_open = False
        self.pid = None
        if self.writable:
            handle.close()

    def reset(self):
        """Reopens the file: a reader starts again, a writer starts an empty file."""
        self.close()
        self.open()

    def write(self, buf):
        assert self.writable
        self._check_pid(allow_reset=False)
        self.handle.write(bytes(buf))

    def read(self):
        """The next record's bytes, or None at the end of the file."""
        assert not self.writable
        self._check_pid(allow_reset=True)
        return self.handle.read()

    def tell(self):
        return self.handle.tell()


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with an .idx file of KEY<TAB>OFFSET lines, for random
    access by key (read_idx, write_idx). Keys are parsed with key_type."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = str(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for number, line in enumerate(iter(self.fidx.readline, ""), 1):
                fields = line.strip().split("\t")
                if fields == [""]:
                    continue
                if len(fields) != 2:
                    raise MXNetError("%s: line %d: expected KEY<TAB>OFFSET, got %r"
                                     % (self.idx_path, number, line.rstrip("\n")))
                key = self.key_type(fields[0])
                self.idx[key] = int(fields[1])
                self.keys.append(key)

    def close(self):
        if not self.is_open:
            return
        super().close()
        self.fidx.close()

    def __getstate__(self):
        d = super().__getstate__()
        d["fidx"] = None
        return d

    def seek(self, idx):
        """Moves the reader to the record with key idx."""
        assert not self.writable
        self._check_pid(allow_reset=True)
        if idx not in self.idx:
            raise KeyError("%r is not a key of %s" % (idx, self.idx_path))
        self.handle.seek(self.idx[idx])

    def tell(self):
        assert self.writable
        return self.handle.tell()

    def read_idx(self, idx):
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write("%s\t%d\n" % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """An image record's header: flag (0: one label; n: n labels
follow), label (a number, or the labels), id and id2."""
_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """A record's bytes: the header (a label vector is written after it, with
    flag = its length) followed by s."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """(IRHeader, the bytes after it); a label vector comes back as float32 numpy."""
    if len(s) < _IR_SIZE:
        raise MXNetError("a record of %d bytes is shorter than the %d-byte image header"
                         % (len(s), _IR_SIZE))
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < header.flag * 4:
            raise MXNetError("the image header's flag %d says %d labels follow it, but only "
                             "%d bytes do" % (header.flag, header.flag, len(s)))
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def unpack_img(s, iscolor=-1):
    """(IRHeader, the image as a numpy uint8 array in BGR order, (H, W) when it
    has one channel): OpenCV's imdecode flags (1 color, 0 gray, -1 as stored)."""
    header, s = unpack(s)
    img = _symx.image_decode(bytes(s), iscolor, False)
    if img.shape[2] == 1:
        img = img[:, :, 0]
    return header, img


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """Encodes img (numpy uint8, BGR or gray, as OpenCV's) as JPEG (quality
    1-100) or PNG (quality is the compression, 0-9) and packs it with header."""
    fmt = img_fmt.lower()
    if fmt not in (".jpg", ".jpeg", ".png"):
        raise MXNetError("pack_img: image format %r: symx encodes .jpg and .png" % (img_fmt,))
    # OpenCV clamps both settings (MXNet's default quality 95 is PNG's 9).
    quality = min(max(int(quality), 1), 100) if fmt != ".png" else min(max(int(quality), 0), 9)
    buf = _symx.image_encode(np.ascontiguousarray(img, dtype=np.uint8), fmt, quality, False)
    return pack(header, buf)
