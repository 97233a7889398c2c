#!/usr/bin/env python3
"""Writes the hand-built .params/.npy test files (no MXNet or numpy needed).

  python3 tests/testdata/make_params_files.py

- tests/testdata/bad_params/*.params and EXPECTED: malformed files, each with a
  substring its load error must contain (params_io_test checks them, and the
  params fuzz corpus test replays them).
- tests/fuzz/params_corpus/seed-*: valid files of every record version, dtype
  and storage type, plus .npy files, to seed the fuzzer.
"""
import os
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(ROOT, "bad_params")
SEEDS = os.path.join(ROOT, "..", "fuzz", "params_corpus")

V1, V2, V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
SIZES = [4, 8, 2, 1, 4, 1, 8, 1, 2, 2, 4, 8, 2]  # by type flag 0..12


def u32(v): return struct.pack("<I", v)
def i32(v): return struct.pack("<i", v)
def u64(v): return struct.pack("<Q", v)
def i64(v): return struct.pack("<q", v)
def header(n): return u64(0x112) + u64(0) + u64(n)
def tshape(dims): return i32(len(dims)) + b"".join(i64(d) for d in dims)
def cpu(): return i32(1) + i32(0)
def f32(vals): return b"".join(struct.pack("<f", v) for v in vals)
def keys(names):
    return u64(len(names)) + b"".join(u64(len(k)) + k.encode() for k in names)


def count(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def dense(dims, flag=0, data=None, magic=V2):
    if data is None:
        data = bytes((i * 7 + 1) % 251 for i in range(count(dims) * SIZES[flag]))
        if flag == 7:
            data = bytes(b & 1 for b in data)
    stype = b"" if magic == V1 else i32(0)
    return u32(magic) + stype + tshape(dims) + cpu() + i32(flag) + data


def legacy(dims, flag=0):
    data = bytes(i % 256 for i in range(count(dims) * SIZES[flag]))
    return u32(len(dims)) + b"".join(u32(d) for d in dims) + cpu() + i32(flag) + data


def row_sparse(dims, idx, rows, idx_flag=6):
    sshape = [len(idx)] + list(dims[1:])
    fmt = "<q" if idx_flag == 6 else "<i"
    return (u32(V2) + i32(1) + tshape(sshape) + tshape(dims) + cpu() + i32(0) +
            i32(idx_flag) + tshape([len(idx)]) + f32(rows) +
            b"".join(struct.pack(fmt, i) for i in idx))


def csr(dims, indptr, idx, data):
    return (u32(V2) + i32(2) + tshape([len(data)]) + tshape(dims) + cpu() + i32(0) +
            i32(6) + tshape([len(indptr)]) + i32(6) + tshape([len(idx)]) + f32(data) +
            b"".join(i64(v) for v in indptr) + b"".join(i64(v) for v in idx))


def npy(descr, shape, data, version=(1, 0), fortran=False):
    shape_text = "(%s)" % ("".join("%d, " % d for d in shape)[:-2] + ("," if len(shape) == 1 else ""))
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape_text)
    fmt = "<H" if version[0] == 1 else "<I"
    prefix = 6 + 2 + struct.calcsize(fmt)
    pad = 64 - (prefix + len(d) + 1) % 64
    h = d + " " * pad + "\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(h)) + h.encode() + data


BAD_FILES = [
    ("empty.params", b"", "truncated in header: need 8 bytes, 0 left"),
    ("bad_header_magic.params", u64(0x113) + u64(0) + u64(0) + keys([]),
     "Invalid NDArray file format: bad magic 0x113 in the header"),
    ("json_text.params", b'{"nodes": [], "heads": []}\n', "Invalid NDArray file format: bad magic"),
    ("huge_count.params", header(1 << 60) + dense([2]) + keys([]),
     "the header claims 1152921504606846976 arrays but only"),
    ("truncated_data.params", header(1) + dense([10, 100])[:-7],
     "record 0: truncated in data: need 4000 bytes, 3993 left"),
    ("truncated_shape.params", header(1) + u32(V2) + i32(0) + i32(3) + i64(5),
     "record 0: truncated in shape (3 dims): need 24 bytes, 8 left"),
    ("no_key_table.params", header(1) + dense([2]), "truncated in key count: need 8 bytes, 0 left"),
    ("bad_record_magic.params", header(2) + dense([2]) + u32(0xDEADBEEF) + keys([]),
     "record 1: bad record magic 0xDEADBEEF"),
    ("unknown_type_flag.params", header(1) + dense([2], 0)[:-12] + i32(13) + f32([1, 2]) + keys([]),
     "record 0: unknown type flag 13 (expected 0..12)"),
    ("unknown_stype.params", header(1) + u32(V2) + i32(5) + keys([]), "record 0: unknown stype 5"),
    ("negative_dim.params", header(1) + u32(V2) + i32(0) + tshape([4, -4]) + cpu() + i32(0) + keys([]),
     "record 0: shape: negative dim -4 at axis 1 of [4,-4]"),
    ("bad_ndim.params", header(1) + u32(V2) + i32(0) + i32(-7) + keys([]),
     "record 0: shape: invalid ndim -7"),
    ("dims_overflow.params",
     header(1) + u32(V2) + i32(0) + tshape([1 << 40, 1 << 40, 0]) + cpu() + i32(0) + keys([]),
     "record 0: shape [1099511627776,1099511627776,0]: the element count overflows"),
    ("terabyte_dims.params",
     header(1) + u32(V2) + i32(0) + tshape([1 << 20, 1 << 20]) + cpu() + i32(0) + f32([1]) + keys([]),
     "record 0: truncated in data: need 4398046511104 bytes, 12 left"),
    ("bad_dev_type.params", header(1) + u32(V2) + i32(0) + tshape([1]) + i32(9) + i32(0) + i32(0) +
     f32([1]) + keys([]), "record 0: context: unknown dev_type 9"),
    ("legacy_huge_ndim.params", header(1) + u32(1000) + keys([]),
     "record 0: bad record magic 0x000003E8"),
    ("key_count_mismatch.params", header(2) + dense([1]) + dense([1]) + keys(["arg:a"]),
     "Invalid NDArray file format: 1 keys for 2 arrays"),
    ("key_beyond_end.params", header(1) + dense([1]) + u64(1) + u64(1 << 40) + b"arg:w",
     "truncated in key 0: length 1099511627776 goes beyond the end of the file (5 bytes left)"),
    ("trailing_garbage.params", header(1) + dense([1]) + keys(["arg:w"]) + b"\0\0\0\0",
     "4 trailing bytes after the key table"),
    ("rsp_index_out_of_range.params", header(1) + row_sparse([3, 2], [0, 3], [1, 2, 3, 4]) +
     keys(["arg:embed_weight"]), "record 0 (arg:embed_weight): row_sparse [3,2]"),
    ("csr_bad_indptr.params", header(1) + csr([2, 2], [0, 3, 1], [0, 1, 1], [1, 2, 3]) +
     keys(["arg:m"]), "record 0 (arg:m): csr [2,2]"),
    ("csr_bad_col.params", header(1) + csr([2, 2], [0, 1, 2], [0, 2], [1, 2]) + keys(["arg:m"]),
     "idx[1] is out of range for 2 columns"),
    ("v3_sparse.params", header(1) + u32(V3) + i32(1) + keys([]),
     "record 0: V3 (np-shape) record with sparse stype 1"),
    ("sparse_float_index.params", header(1) + row_sparse([3, 1], [1], [5], idx_flag=0) + keys([]),
     "record 0: aux 0 (idx): type flag 0 is not an integer type"),
]

SEED_FILES = [
    ("seed-v2-dict.params", header(2) + dense([2, 3]) + dense([3], 6) +
     keys(["arg:fc1_weight", "aux:bn_moving_mean"])),
    ("seed-v2-list.params", header(2) + dense([4]) + dense([1, 1, 2], 1) + keys([])),
    ("seed-every-dtype.params", header(13) + b"".join(dense([3], f) for f in range(13)) +
     keys(["k%d" % f for f in range(13)])),
    ("seed-v1.params", header(2) + dense([2, 2], 0, magic=V1) + u32(V1) + tshape([]) + keys([])),
    ("seed-pre-v1.params", header(3) + legacy([2, 3]) + u32(0) + legacy([4], 4) + keys([])),
    ("seed-v3.params", header(4) + dense([], 0, magic=V3) + dense([2, 0], 0, magic=V3) +
     u32(V3) + i32(0) + i32(-1) + dense([2], 6, magic=V3) + keys([])),
    ("seed-none.params", header(3) + u32(V2) + i32(-1) + i32(0) + u32(V2) + i32(-1) + i32(-1) +
     dense([1]) + keys(["a", "b", "c"])),
    ("seed-row-sparse.params", header(2) + row_sparse([4, 2], [1, 3], [1, 2, 3, 4]) +
     row_sparse([3, 1], [0], [7], idx_flag=4) + keys(["arg:emb", "arg:emb2"])),
    ("seed-csr.params", header(2) + csr([2, 3], [0, 2, 3], [0, 2, 1], [1, 2, 3]) +
     csr([2, 2], [], [], []) + keys(["arg:m", "arg:z"])),
    ("seed-empty.params", header(0) + keys([])),
    ("seed-f4.npy", npy("<f4", [2, 3], f32([1, 2, 3, 4, 5, 6]))),
    ("seed-scalar.npy", npy("<i8", [], i64(-5))),
    ("seed-v2-be.npy", npy(">i4", [3], struct.pack(">3i", 1, 2, 3), version=(2, 0))),
    ("seed-v3-bool.npy", npy("|b1", [2, 2], bytes([0, 1, 1, 0]), version=(3, 0))),
    ("seed-fortran.npy", npy("<u2", [2], struct.pack("<2H", 1, 2), fortran=True)),
]


def main():
    os.makedirs(BAD, exist_ok=True)
    os.makedirs(SEEDS, exist_ok=True)
    with open(os.path.join(BAD, "EXPECTED"), "w") as manifest:
        for name, data, expect in BAD_FILES:
            with open(os.path.join(BAD, name), "wb") as f:
                f.write(data)
            manifest.write("%s\t%s\n" % (name, expect))
    for name, data in SEED_FILES:
        with open(os.path.join(SEEDS, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
