// The training library's pieces the Python front wraps: initializers (with
// the engine's seeded generator) and the built-in synthetic digits. (The
// optimizers are Python's, on the imperative ops: python/symx/optimizer.py.)
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <random>
#include <string>

#include "devices/device.h"
#include "python/src/convert.h"
#include "train/auto_stages.h"
#include "train/data.h"
#include "train/initializer.h"

namespace symx::python {

void RegisterTrain(py::module_& m) {
  py::class_<train::Rng>(m, "Rng").def(py::init<uint64_t>(), py::arg("seed"));
  // Every device's generator (Dropout's masks), as mx.random.seed does.
  m.def("seed_devices", &SeedAllDevices, py::arg("seed"));
  py::class_<train::Initializer>(m, "Initializer").def("dumps", &train::Initializer::Dumps);
  m.def("create_initializer", &train::CreateInitializer, py::arg("description"));
  m.def("init_parameter", &train::InitParameter, py::arg("default_init"), py::arg("name"),
        py::arg("init_attr"), py::arg("array"), py::arg("rng"),
        py::call_guard<py::gil_scoped_release>());

  // mx.sym.auto_stages: the model cut into balanced stages (train/auto_stages.h).
  m.def(
      "auto_stages",
      [](const Symbol& net, int stages, const std::map<std::string, std::vector<int64_t>>& shapes,
         double flops_per_byte) {
        train::AutoStagesOptions o;
        o.stages = stages;
        o.shapes = ToShapeMap(shapes);
        o.flops_per_byte = flops_per_byte;
        train::StagePlan plan = ValueOrThrow(train::AutoStages(net, o));
        py::dict report;
        report["stage_flops"] = plan.stage_flops;
        report["stage_cost"] = plan.stage_cost;
        report["cut_bytes"] = plan.cut_bytes;
        report["first_ops"] = plan.first_ops;
        report["balance"] = plan.balance();
        report["replaced_groups"] = plan.replaced_groups;
        report["summary"] = plan.Describe();
        return py::make_tuple(plan.symbol, report);
      },
      py::arg("symbol"), py::arg("stages"), py::arg("shapes"), py::arg("flops_per_byte"));

  m.def(
      "synthetic_digits",
      [](int64_t num_train, int64_t num_test, uint64_t seed) {
        train::DataSplits d = train::SyntheticDataset(num_train, num_test, seed);
        return py::make_tuple(d.train.images, d.train.labels, d.test.images, d.test.labels);
      },
      py::arg("num_train"), py::arg("num_test"), py::arg("seed"));
}

}  // namespace symx::python
