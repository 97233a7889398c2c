#include "train/image/codec.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// jpeglib.h needs size_t and FILE declared before it.
#include <jpeglib.h>
#include <png.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace symx::image {
namespace {

absl::Status BadFlag(int flag) {
  return absl::InvalidArgumentError(absl::StrCat(
      "image decode flag ", flag, ": expected 1 (color), 0 (grayscale) or -1 (unchanged)"));
}

// ---- JPEG ----

// libjpeg reports fatal errors by calling error_exit, which must not return:
// we jump back to the decode call's frame, which frees the decoder.
struct JpegErrors {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void JpegFatal(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// Warnings (corrupt data, a premature end) are not errors to OpenCV either: the
// decoder fills what is missing, and MXNet trains on the result.
void JpegQuiet(j_common_ptr, int) {}

// CMYK (Adobe's inverted convention, which libjpeg passes through) to RGB,
// as OpenCV converts it.
void CmykRowToRgb(const uint8_t* cmyk, int width, bool to_rgb, uint8_t* out) {
  for (int x = 0; x < width; ++x, cmyk += 4, out += 3) {
    int c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
    uint8_t r = static_cast<uint8_t>(k - ((255 - c) * k >> 8));
    uint8_t g = static_cast<uint8_t>(k - ((255 - m) * k >> 8));
    uint8_t b = static_cast<uint8_t>(k - ((255 - y) * k >> 8));
    out[0] = to_rgb ? r : b;
    out[1] = g;
    out[2] = to_rgb ? b : r;
  }
}

absl::Status TooLarge(const char* format, uint64_t height, uint64_t width, int64_t max_pixels) {
  return absl::InvalidArgumentError(absl::StrCat("cannot decode ", format, ": its header says ",
                                                 height, "x", width, " pixels, more than the ",
                                                 max_pixels, " allowed"));
}

absl::StatusOr<Image> DecodeJpeg(absl::string_view bytes, int flag, bool to_rgb,
                                 int64_t max_pixels) {
  // Everything that lives across setjmp is declared before it (longjmp must
  // not skip a constructor).
  jpeg_decompress_struct cinfo;
  JpegErrors errors;
  Image image;
  std::vector<uint8_t> cmyk_row;
  cinfo.err = jpeg_std_error(&errors.mgr);
  errors.mgr.error_exit = JpegFatal;
  errors.mgr.emit_message = JpegQuiet;
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return absl::InvalidArgumentError(
        absl::StrCat("cannot decode JPEG (", bytes.size(), " bytes): ", errors.message));
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
               static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  if (uint64_t{cinfo.image_height} * cinfo.image_width > static_cast<uint64_t>(max_pixels)) {
    const uint64_t h = cinfo.image_height, w = cinfo.image_width;
    jpeg_destroy_decompress(&cinfo);
    return TooLarge("JPEG", h, w, max_pixels);
  }
  const bool four = cinfo.num_components == 4;
  int channels = flag == 0 ? 1 : (flag == -1 && cinfo.num_components == 1 ? 1 : 3);
  if (four) {
    cinfo.out_color_space = JCS_CMYK;
  } else if (channels == 1) {
    cinfo.out_color_space = JCS_GRAYSCALE;
  } else {
    cinfo.out_color_space = to_rgb ? JCS_EXT_RGB : JCS_EXT_BGR;
  }
  jpeg_start_decompress(&cinfo);
  image.height = static_cast<int>(cinfo.output_height);
  image.width = static_cast<int>(cinfo.output_width);
  image.channels = channels;
  image.pixels.resize(size_t(image.height) * image.width * channels);
  if (four) cmyk_row.resize(size_t(image.width) * 4);
  while (cinfo.output_scanline < cinfo.output_height) {
    int y = static_cast<int>(cinfo.output_scanline);
    JSAMPROW row = four ? cmyk_row.data() : image.row(y);
    jpeg_read_scanlines(&cinfo, &row, 1);
    if (!four) continue;
    if (channels == 3) {
      CmykRowToRgb(cmyk_row.data(), image.width, to_rgb, image.row(y));
    } else {
      std::vector<uint8_t> rgb(size_t(image.width) * 3);
      CmykRowToRgb(cmyk_row.data(), image.width, true, rgb.data());
      for (int x = 0; x < image.width; ++x) {
        const uint8_t* p = &rgb[size_t(x) * 3];
        // OpenCV's fixed-point BGR->gray: 0.299 R + 0.587 G + 0.114 B.
        image.row(y)[x] =
            static_cast<uint8_t>((p[0] * 4899 + p[1] * 9617 + p[2] * 1868 + 8192) >> 14);
      }
    }
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return image;
}

// ---- PNG ----

// A JPEG destination that appends to a std::string the encoder owns, so an
// error part way frees nothing twice (jpeg_mem_dest's buffer is freed by
// libjpeg when it grows and handed back only at the end).
struct StringDestination {
  jpeg_destination_mgr mgr;
  std::string* out;
  unsigned char block[16384];
};

void DestinationStart(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<StringDestination*>(cinfo->dest);
  d->mgr.next_output_byte = d->block;
  d->mgr.free_in_buffer = sizeof(d->block);
}

boolean DestinationFlush(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<StringDestination*>(cinfo->dest);
  d->out->append(reinterpret_cast<char*>(d->block), sizeof(d->block));
  d->mgr.next_output_byte = d->block;
  d->mgr.free_in_buffer = sizeof(d->block);
  return TRUE;
}

void DestinationEnd(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<StringDestination*>(cinfo->dest);
  d->out->append(reinterpret_cast<char*>(d->block), sizeof(d->block) - d->mgr.free_in_buffer);
}

struct PngSource {
  const uint8_t* data;
  size_t size;
  size_t at;
};

struct PngErrors {
  char message[256] = "";
};

void PngFatal(png_structp png, png_const_charp message) {
  auto* errors = static_cast<PngErrors*>(png_get_error_ptr(png));
  std::snprintf(errors->message, sizeof(errors->message), "%s", message);
  png_longjmp(png, 1);
}

void PngQuiet(png_structp, png_const_charp) {}

void PngRead(png_structp png, png_bytep out, png_size_t n) {
  auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (n > src->size - src->at) png_error(png, "the PNG data ends early (truncated)");
  std::memcpy(out, src->data + src->at, n);
  src->at += n;
}

absl::StatusOr<Image> DecodePng(absl::string_view bytes, int flag, bool to_rgb,
                                int64_t max_pixels) {
  PngSource src{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0};
  PngErrors errors;
  Image image;
  std::vector<png_bytep> rows;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &errors, PngFatal, PngQuiet);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr) {
    png_destroy_read_struct(&png, &info, nullptr);
    return absl::ResourceExhaustedError("cannot create a PNG decoder");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return absl::InvalidArgumentError(
        absl::StrCat("cannot decode PNG (", bytes.size(), " bytes): ", errors.message));
  }
  png_set_read_fn(png, &src, PngRead);
  png_read_info(png, info);
  png_uint_32 width, height;
  int depth, color, interlace;
  png_get_IHDR(png, info, &width, &height, &depth, &color, &interlace, nullptr, nullptr);
  if (uint64_t{height} * width > static_cast<uint64_t>(max_pixels)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return TooLarge("PNG", height, width, max_pixels);
  }
  const bool has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  const bool is_gray = (color & PNG_COLOR_MASK_COLOR) == 0;
  const bool has_alpha = (color & PNG_COLOR_MASK_ALPHA) != 0 || has_trns;
  int channels;
  if (flag == 0) {
    channels = 1;
  } else if (flag == 1) {
    channels = 3;
  } else {
    channels = has_alpha ? 4 : (is_gray ? 1 : 3);
  }
  // The same transformations OpenCV's PNG decoder asks of libpng.
  if (depth == 16) png_set_strip_16(png);
  png_set_expand(png);  // palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha
  if (channels != 4 && has_alpha) png_set_strip_alpha(png);
  if (channels >= 3 && is_gray) png_set_gray_to_rgb(png);
  if (channels == 4 && !has_alpha) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
  if (channels == 1 && !is_gray) png_set_rgb_to_gray_fixed(png, 1, 29900, 58700);
  if (channels >= 3 && !to_rgb) png_set_bgr(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != size_t(width) * channels) {
    png_error(png, "unexpected row layout after conversion");
  }
  image.height = static_cast<int>(height);
  image.width = static_cast<int>(width);
  image.channels = channels;
  image.pixels.resize(size_t(height) * width * channels);
  rows.resize(height);
  for (png_uint_32 y = 0; y < height; ++y) rows[y] = image.row(static_cast<int>(y));
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return image;
}

struct PngSink {
  std::string* out;
};

void PngWrite(png_structp png, png_bytep data, png_size_t n) {
  static_cast<PngSink*>(png_get_io_ptr(png))->out->append(reinterpret_cast<char*>(data), n);
}

void PngFlush(png_structp) {}

absl::Status CheckImage(const Image& image) {
  if (image.height <= 0 || image.width <= 0 ||
      image.pixels.size() != size_t(image.height) * image.width * image.channels) {
    return absl::InvalidArgumentError(absl::StrCat("cannot encode an image of ", image.height, "x",
                                                   image.width, "x", image.channels, " with ",
                                                   image.pixels.size(), " bytes of pixels"));
  }
  return absl::OkStatus();
}

}  // namespace

Format Sniff(absl::string_view bytes) {
  if (bytes.size() >= 3 && static_cast<uint8_t>(bytes[0]) == 0xff &&
      static_cast<uint8_t>(bytes[1]) == 0xd8 && static_cast<uint8_t>(bytes[2]) == 0xff) {
    return Format::kJpeg;
  }
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), "\x89PNG\r\n\x1a\n", 8) == 0) {
    return Format::kPng;
  }
  return Format::kUnknown;
}

absl::StatusOr<Image> Decode(absl::string_view bytes, int flag, bool to_rgb, int64_t max_pixels) {
  if (flag != 1 && flag != 0 && flag != -1) return BadFlag(flag);
  switch (Sniff(bytes)) {
    case Format::kJpeg:
      return DecodeJpeg(bytes, flag, to_rgb, max_pixels);
    case Format::kPng:
      return DecodePng(bytes, flag, to_rgb, max_pixels);
    case Format::kUnknown:
      break;
  }
  std::string head;
  for (size_t i = 0; i < bytes.size() && i < 8; ++i) {
    absl::StrAppendFormat(&head, "%s%02x", i ? " " : "", static_cast<uint8_t>(bytes[i]));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot decode an image from ", bytes.size(), " bytes",
                   bytes.empty() ? "" : absl::StrCat(" starting ", head),
                   ": neither a JPEG (ff d8 ff) nor a PNG (89 50 4e 47)"));
}

absl::StatusOr<std::string> EncodeJpeg(const Image& image, int quality, bool rgb) {
  if (absl::Status s = CheckImage(image); !s.ok()) return s;
  if (image.channels != 1 && image.channels != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("JPEG holds 1 or 3 channels, not ", image.channels));
  }
  if (quality < 1 || quality > 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("JPEG quality ", quality, ": expected 1 to 100"));
  }
  jpeg_compress_struct cinfo;
  JpegErrors errors;
  std::string out;
  StringDestination dest;
  dest.out = &out;
  dest.mgr.init_destination = DestinationStart;
  dest.mgr.empty_output_buffer = DestinationFlush;
  dest.mgr.term_destination = DestinationEnd;
  cinfo.err = jpeg_std_error(&errors.mgr);
  errors.mgr.error_exit = JpegFatal;
  errors.mgr.emit_message = JpegQuiet;
  if (setjmp(errors.jump)) {
    jpeg_destroy_compress(&cinfo);
    return absl::InternalError(absl::StrCat("cannot encode JPEG: ", errors.message));
  }
  jpeg_create_compress(&cinfo);
  cinfo.dest = &dest.mgr;
  cinfo.image_width = static_cast<JDIMENSION>(image.width);
  cinfo.image_height = static_cast<JDIMENSION>(image.height);
  cinfo.input_components = image.channels;
  cinfo.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : (rgb ? JCS_EXT_RGB : JCS_EXT_BGR);
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(image.row(static_cast<int>(cinfo.next_scanline)));
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return out;
}

absl::StatusOr<std::string> EncodePng(const Image& image, int compression, bool rgb) {
  if (absl::Status s = CheckImage(image); !s.ok()) return s;
  if (image.channels != 1 && image.channels != 3 && image.channels != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("PNG holds 1, 3 or 4 channels here, not ", image.channels));
  }
  if (compression < 0 || compression > 9) {
    return absl::InvalidArgumentError(
        absl::StrCat("PNG compression ", compression, ": expected 0 to 9"));
  }
  std::string out;
  PngSink sink{&out};
  PngErrors errors;
  std::vector<png_bytep> rows(image.height);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, PngFatal, PngQuiet);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr) {
    png_destroy_write_struct(&png, &info);
    return absl::ResourceExhaustedError("cannot create a PNG encoder");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return absl::InternalError(absl::StrCat("cannot encode PNG: ", errors.message));
  }
  png_set_write_fn(png, &sink, PngWrite, PngFlush);
  png_set_compression_level(png, compression);
  int color = image.channels == 1   ? PNG_COLOR_TYPE_GRAY
              : image.channels == 3 ? PNG_COLOR_TYPE_RGB
                                    : PNG_COLOR_TYPE_RGB_ALPHA;
  png_set_IHDR(png, info, image.width, image.height, 8, color, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (image.channels >= 3 && !rgb) png_set_bgr(png);
  for (int y = 0; y < image.height; ++y) rows[y] = const_cast<uint8_t*>(image.row(y));
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace symx::image
