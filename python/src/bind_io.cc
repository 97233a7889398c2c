// mx.io's engine iterators: ImageRecordIter (train/image/record_iter) and
// CSVIter (train/csv_iter). The Python classes pass MXNet's keyword arguments
// as text and receive each batch as engine tensors. next() releases the GIL
// while it waits, so the decode threads and a Python training loop overlap.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/error.h"
#include "python/src/convert.h"
#include "train/csv_iter.h"
#include "train/image/record_iter.h"
#include "train/image/record_iter_params.h"

namespace symx::python {

void RegisterIo(py::module_& m) {
  using image::ImageRecordIter;
  py::class_<ImageRecordIter>(m, "ImageRecordIter")
      .def(py::init(
               [](const std::vector<std::pair<std::string, std::string>>& params, bool detection) {
                 image::ImageRecordIterConfig config =
                     ValueOrThrow(detection ? image::ImageDetRecordIterConfigFrom(params)
                                            : image::ImageRecordIterConfigFrom(params));
                 py::gil_scoped_release release;
                 return ValueOrThrow(ImageRecordIter::Create(std::move(config)));
               }),
           py::arg("params"), py::arg("detection") = false)
      .def("next",
           [](ImageRecordIter& it) -> py::object {
             image::ImageBatch batch;
             bool more;
             {
               py::gil_scoped_release release;
               more = ValueOrThrow(it.Next(&batch));
             }
             if (!more) return py::none();
             return py::make_tuple(batch.data, batch.label, batch.pad, batch.index);
           })
      .def("reset",
           [](ImageRecordIter& it) {
             py::gil_scoped_release release;
             it.Reset();
           })
      .def("data_shape", [](const ImageRecordIter& it) { return FromShape(it.data_shape()); })
      .def("label_shape", [](const ImageRecordIter& it) { return FromShape(it.label_shape()); })
      .def("num_records", &ImageRecordIter::num_records)
      .def("batches_per_epoch", &ImageRecordIter::batches_per_epoch)
      .def("wait_seconds", &ImageRecordIter::wait_seconds);

  using train::CsvIter;
  py::class_<CsvIter>(m, "CSVIter")
      .def(py::init([](const std::vector<std::pair<std::string, std::string>>& params) {
        train::CsvIterConfig config = ValueOrThrow(CsvIter::ConfigFrom(params));
        py::gil_scoped_release release;
        return ValueOrThrow(CsvIter::Create(std::move(config)));
      }))
      .def("next",
           [](CsvIter& it) -> py::object {
             train::CsvBatch batch;
             if (!ValueOrThrow(it.Next(&batch))) return py::none();
             return py::make_tuple(batch.data, batch.label, batch.pad, py::none());
           })
      .def("reset", &CsvIter::Reset)
      .def("data_shape", [](const CsvIter& it) { return FromShape(it.data_shape()); })
      .def("label_shape", [](const CsvIter& it) { return FromShape(it.label_shape()); })
      .def("num_rows", &CsvIter::num_rows);
}

}  // namespace symx::python
