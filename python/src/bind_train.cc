// The training library's pieces the Python front wraps: optimizers,
// initializers (with the engine's seeded generator) and the built-in
// synthetic digits.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <random>
#include <string>

#include "devices/device.h"
#include "python/src/convert.h"
#include "train/data.h"
#include "train/initializer.h"
#include "train/optimizer.h"

namespace symx::python {
namespace {

using train::Optimizer;

train::OptimizerOptions Common(double lr, double wd, double rescale_grad, double clip_gradient) {
  train::OptimizerOptions o;
  o.lr = lr;
  o.wd = wd;
  o.rescale_grad = rescale_grad;
  o.clip_gradient = clip_gradient;
  return o;
}

}  // namespace

void RegisterTrain(py::module_& m) {
  py::class_<Optimizer>(m, "Optimizer")
      .def("update", &Optimizer::Update, py::arg("index"), py::arg("weight"), py::arg("grad"),
           py::call_guard<py::gil_scoped_release>())
      .def_property("lr", &Optimizer::lr, &Optimizer::set_lr)
      .def("set_rescale_grad", &Optimizer::set_rescale_grad)
      .def("set_wd", &Optimizer::set_wd)
      .def("set_clip_gradient", &Optimizer::set_clip_gradient)
      .def("set_begin_num_update", &Optimizer::set_begin_num_update)
      .def("set_lr_mult", &Optimizer::set_lr_mult)
      .def("set_wd_mult", &Optimizer::set_wd_mult)
      .def("update_count", &Optimizer::update_count)
      .def_property_readonly("name", &Optimizer::name);
  py::class_<train::SGD, Optimizer>(m, "SGD")
      .def(py::init([](double lr, double wd, double rescale_grad, double clip_gradient,
                       double momentum) {
             train::SGDOptions o;
             static_cast<train::OptimizerOptions&>(o) = Common(lr, wd, rescale_grad, clip_gradient);
             o.momentum = momentum;
             return std::make_unique<train::SGD>(o);
           }),
           py::arg("lr"), py::arg("wd"), py::arg("rescale_grad"), py::arg("clip_gradient"),
           py::arg("momentum"))
      .def("momentum_state", [](const train::SGD& s, int index) {
        return FromTensor(s.momentum_state(index));
      });
  py::class_<train::Adam, Optimizer>(m, "Adam")
      .def(py::init([](double lr, double wd, double rescale_grad, double clip_gradient,
                       double beta1, double beta2, double epsilon) {
             train::AdamOptions o;
             static_cast<train::OptimizerOptions&>(o) = Common(lr, wd, rescale_grad, clip_gradient);
             o.beta1 = beta1;
             o.beta2 = beta2;
             o.epsilon = epsilon;
             return std::make_unique<train::Adam>(o);
           }),
           py::arg("lr"), py::arg("wd"), py::arg("rescale_grad"), py::arg("clip_gradient"),
           py::arg("beta1"), py::arg("beta2"), py::arg("epsilon"));

  py::class_<train::Rng>(m, "Rng").def(py::init<uint64_t>(), py::arg("seed"));
  // Every device's generator (Dropout's masks), as mx.random.seed does.
  m.def("seed_devices", &SeedAllDevices, py::arg("seed"));
  py::class_<train::Initializer>(m, "Initializer").def("dumps", &train::Initializer::Dumps);
  m.def("create_initializer", &train::CreateInitializer, py::arg("description"));
  m.def("init_parameter", &train::InitParameter, py::arg("default_init"), py::arg("name"),
        py::arg("init_attr"), py::arg("array"), py::arg("rng"),
        py::call_guard<py::gil_scoped_release>());

  m.def(
      "synthetic_digits",
      [](int64_t num_train, int64_t num_test, uint64_t seed) {
        train::DataSplits d = train::SyntheticDataset(num_train, num_test, seed);
        return py::make_tuple(d.train.images, d.train.labels, d.test.images, d.test.labels);
      },
      py::arg("num_train"), py::arg("num_test"), py::arg("seed"));
}

}  // namespace symx::python
