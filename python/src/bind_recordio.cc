// RecordIO files and image codecs for mx.recordio and mx.image: the reader,
// writer and codecs of train/recordio and train/image. Pixels cross as numpy
// uint8 arrays (H, W, C); records as bytes. The GIL is released around file
// and codec work so a Python data loader's threads overlap.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "python/src/convert.h"
#include "train/image/codec.h"
#include "train/recordio/record_file.h"

namespace symx::python {
namespace {

using recordio::RecordReader;
using recordio::RecordWriter;

// (H, W, C) over the image's own pixels, which the array keeps alive.
py::array ToNumpy(image::Image&& img) {
  auto* owner = new image::Image(std::move(img));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<image::Image*>(p); });
  std::vector<py::ssize_t> shape = {owner->height, owner->width, owner->channels};
  return py::array_t<uint8_t>(shape, owner->pixels.data(), free_when_done);
}

image::Image FromNumpy(const py::array& array, const char* what) {
  py::array_t<uint8_t, py::array::c_style | py::array::forcecast> a(array);
  if (a.ndim() != 2 && a.ndim() != 3) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(what, ": expected an image of shape (height, width[, channels]), got ",
                     a.ndim(), " dimensions")));
  }
  image::Image img;
  img.height = static_cast<int>(a.shape(0));
  img.width = static_cast<int>(a.shape(1));
  img.channels = a.ndim() == 3 ? static_cast<int>(a.shape(2)) : 1;
  img.pixels.assign(a.data(), a.data() + a.size());
  return img;
}

}  // namespace

void RegisterRecordIO(py::module_& m) {
  py::class_<RecordWriter>(m, "RecordWriter")
      .def(py::init(
          [](const std::string& path) { return ValueOrThrow(RecordWriter::Create(path)); }))
      .def("write",
           [](RecordWriter& w, py::bytes payload) {
             std::string bytes = payload;
             py::gil_scoped_release release;
             return ValueOrThrow(w.Write(bytes));
           })
      .def("tell", &RecordWriter::Tell)
      .def("close", [](RecordWriter& w) { ThrowIfError(w.Close()); });

  py::class_<RecordReader>(m, "RecordReader")
      .def(py::init([](const std::string& path) { return ValueOrThrow(RecordReader::Open(path)); }))
      .def("read",
           [](RecordReader& r) -> py::object {
             std::string payload;
             bool more;
             {
               py::gil_scoped_release release;
               more = ValueOrThrow(r.Next(&payload));
             }
             if (!more) return py::none();
             return py::bytes(payload);
           })
      .def("seek", [](RecordReader& r, uint64_t offset) { ThrowIfError(r.Seek(offset)); })
      .def("tell", &RecordReader::Tell)
      .def("size", &RecordReader::size);

  m.def(
      "image_decode",
      [](py::bytes data, int flag, bool to_rgb) {
        std::string bytes = data;
        absl::StatusOr<image::Image> img;
        {
          py::gil_scoped_release release;
          img = image::Decode(bytes, flag, to_rgb);
        }
        return ToNumpy(ValueOrThrow(std::move(img)));
      },
      py::arg("data"), py::arg("flag") = 1, py::arg("to_rgb") = true);

  m.def(
      "image_encode",
      [](const py::array& pixels, const std::string& ext, int quality, bool rgb) {
        image::Image img = FromNumpy(pixels, "image_encode");
        absl::StatusOr<std::string> out;
        {
          py::gil_scoped_release release;
          if (ext == ".jpg" || ext == ".jpeg") {
            out = image::EncodeJpeg(img, quality, rgb);
          } else if (ext == ".png") {
            out = image::EncodePng(img, quality, rgb);
          } else {
            out = absl::InvalidArgumentError(
                absl::StrCat("image format '", ext, "': symx encodes .jpg and .png"));
          }
        }
        return py::bytes(ValueOrThrow(std::move(out)));
      },
      py::arg("pixels"), py::arg("ext"), py::arg("quality"), py::arg("rgb"));
}

}  // namespace symx::python
