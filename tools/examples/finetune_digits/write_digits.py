"""Writes scikit-learn's handwritten digits (load_digits: 1797 8x8 images,
values 0-16) as 8-bit grayscale PNG files, OUT/<digit>/<index>.png.
The PNG writer is a few lines of zlib so that nothing else is needed."""
import os
import struct
import sys
import zlib

from sklearn.datasets import load_digits


def png_gray(pixels, width, height):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    rows = b"".join(b"\x00" + bytes(pixels[y * width:(y + 1) * width]) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit gray
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def main(out):
    digits = load_digits()
    for i, (image, label) in enumerate(zip(digits.images, digits.target)):
        folder = os.path.join(out, str(int(label)))
        os.makedirs(folder, exist_ok=True)
        pixels = [min(255, int(round(v * 255 / 16))) for v in image.reshape(-1)]
        with open(os.path.join(folder, "%04d.png" % i), "wb") as f:
            f.write(png_gray(pixels, 8, 8))
    print("%d digits written under %s" % (len(digits.images), out))


if __name__ == "__main__":
    main(sys.argv[1])
