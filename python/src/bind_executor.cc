// Executors (Bind, SimpleBind, Forward/Backward, Reshape, monitors) and the
// data-parallel gradient reducer the Module uses over several devices.
//
// Forward, Backward, binds and the reducer's waits release the GIL, so other
// Python threads run meanwhile and the executor's device workers can call a
// monitor callback (which takes the GIL back).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "data_parallel/gradient_reducer.h"
#include "executor/executor.h"
#include "executor/grad_req.h"
#include "python/src/convert.h"
#include "python/src/ranks.h"

namespace symx::python {
namespace {

// The first exception a Python monitor callback raised during a run; raised
// again once the run is over (the workers cannot carry a Python error).
struct CallbackError {
  std::mutex mu;
  std::optional<py::error_already_set> error;
};

struct PyExecutor {
  std::unique_ptr<Executor> exe;
  std::shared_ptr<CallbackError> callback_error = std::make_shared<CallbackError>();

  // With the GIL held.
  void RaiseCallbackError() {
    std::optional<py::error_already_set> error;
    {
      std::lock_guard<std::mutex> lock(callback_error->mu);
      error.swap(callback_error->error);
    }
    if (error) throw *error;
  }
};

ArrayArgs ToArrayArgs(const py::object& arrays) {
  if (arrays.is_none()) return ArrayArgs();
  if (py::isinstance<py::dict>(arrays)) {
    std::map<std::string, Tensor> map;
    for (auto [k, v] : arrays.cast<py::dict>()) map[k.cast<std::string>()] = TensorOrNone(v);
    return ArrayArgs(std::move(map));
  }
  std::vector<Tensor> list;
  for (py::handle v : arrays) list.push_back(TensorOrNone(v));
  return ArrayArgs(std::move(list));
}

// 'write' / ['write', 'null', ...] / {'w': 'add'} / None (all null).
GradReqSpec ToGradReq(const py::object& req) {
  if (req.is_none()) return GradReqSpec(GradReq::kNull);
  if (py::isinstance<py::str>(req)) {
    return ValueOrThrow(GradReqSpec::FromString(req.cast<std::string>()));
  }
  if (py::isinstance<py::dict>(req)) {
    std::map<std::string, GradReq> by_name;
    for (auto [k, v] : req.cast<py::dict>()) {
      by_name[k.cast<std::string>()] = ValueOrThrow(ParseGradReq(v.cast<std::string>()));
    }
    return GradReqSpec(std::move(by_name));
  }
  std::vector<GradReq> list;
  for (py::handle v : req) list.push_back(ValueOrThrow(ParseGradReq(v.cast<std::string>())));
  return GradReqSpec(std::move(list));
}

std::map<std::string, Context> ToGroup2Ctx(const std::map<std::string, std::string>& g) {
  std::map<std::string, Context> out;
  for (const auto& [group, ctx] : g) out[group] = ToContext(ctx);
  return out;
}

// A cross-rank bind's communicator (group2ctx naming `@rankN` devices), or
// this process alone.
template <typename Options>
void SetRanks(const std::shared_ptr<PyRanks>& ranks, Options* options) {
  if (ranks == nullptr) return;
  options->comm = ranks->comm;
  options->comm_timeout = ranks->timeout;
}

PyExecutor Bind(const Symbol& symbol, const std::string& ctx, const py::object& args,
                const py::object& args_grad, const py::object& grad_req, const py::object& aux,
                const std::map<std::string, std::string>& group2ctx, const PyExecutor* shared,
                const std::shared_ptr<PyRanks>& ranks) {
  BindOptions options;
  SetRanks(ranks, &options);
  options.ctx = ToContext(ctx);
  options.grad_req = ToGradReq(grad_req);
  options.group2ctx = ToGroup2Ctx(group2ctx);
  options.shared_exec = shared ? shared->exe.get() : nullptr;
  options.engine = BindEngineOptions();
  ArrayArgs arg_arrays = ToArrayArgs(args);
  std::optional<ArrayArgs> grad_arrays;
  if (!args_grad.is_none()) grad_arrays = ToArrayArgs(args_grad);
  ArrayArgs aux_arrays = ToArrayArgs(aux);
  PyExecutor out;
  py::gil_scoped_release release;
  out.exe = Executor::Bind(symbol, options, arg_arrays, grad_arrays, aux_arrays);
  return out;
}

// Returns (executor, shared_buffer after the bind or None).
py::tuple SimpleBind(const Symbol& symbol, const std::string& ctx,
                     const std::map<std::string, std::vector<int64_t>>& shapes,
                     const py::object& grad_req,
                     const std::optional<std::map<std::string, std::string>>& type_dict,
                     const std::map<std::string, std::string>& group2ctx,
                     const std::vector<std::string>& shared_arg_names, const PyExecutor* shared,
                     const std::optional<std::map<std::string, Tensor>>& shared_buffer,
                     const std::shared_ptr<PyRanks>& ranks) {
  SimpleBindOptions options;
  SetRanks(ranks, &options);
  options.ctx = ToContext(ctx);
  options.shapes = ToShapeMap(shapes);
  options.grad_req = ToGradReq(grad_req);
  if (type_dict) {
    std::map<std::string, DType> types;
    for (const auto& [name, dtype] : *type_dict) types[name] = ToDType(dtype);
    options.type_dict = std::move(types);
  }
  options.group2ctx = ToGroup2Ctx(group2ctx);
  options.shared_arg_names = shared_arg_names;
  options.shared_exec = shared ? shared->exe.get() : nullptr;
  options.engine = BindEngineOptions();
  std::map<std::string, Tensor> buffer;
  if (shared_buffer) {
    buffer = *shared_buffer;
    options.shared_buffer = &buffer;
  }
  PyExecutor out;
  {
    py::gil_scoped_release release;
    out.exe = Executor::SimpleBind(symbol, options);
  }
  py::object buffer_out = shared_buffer ? py::object(FromTensorMap(buffer)) : py::none();
  return py::make_tuple(std::move(out), buffer_out);
}

std::map<std::string, Tensor> ToTensorMap(const py::dict& d) {
  std::map<std::string, Tensor> out;
  for (auto [k, v] : d) out[k.cast<std::string>()] = v.cast<Tensor>();
  return out;
}

void Backward(PyExecutor& self, const py::object& head_grads) {
  if (py::isinstance<py::dict>(head_grads)) {
    std::map<std::string, Tensor> by_name = ToTensorMap(head_grads.cast<py::dict>());
    py::gil_scoped_release release;
    self.exe->Backward(by_name);
  } else {
    std::vector<Tensor> list;
    if (!head_grads.is_none()) {
      for (py::handle v : head_grads) list.push_back(v.cast<Tensor>());
    }
    py::gil_scoped_release release;
    self.exe->Backward(list);
  }
  self.RaiseCallbackError();
}

void SetMonitor(PyExecutor& self, const py::object& callback, bool monitor_all) {
  if (callback.is_none()) {
    self.exe->SetMonitorCallback(nullptr, monitor_all);
    return;
  }
  auto fn = std::make_shared<py::object>(callback);
  std::shared_ptr<CallbackError> error = self.callback_error;
  self.exe->SetMonitorCallback(
      [fn, error](const std::string& name, const Tensor& value) {
        py::gil_scoped_acquire acquire;
        {
          std::lock_guard<std::mutex> lock(error->mu);
          if (error->error) return;  // the first error stops further calls
        }
        try {
          (*fn)(name, value);
        } catch (py::error_already_set& e) {
          std::lock_guard<std::mutex> lock(error->mu);
          if (!error->error) error->error = std::move(e);
        }
      },
      monitor_all);
}

std::vector<std::map<std::string, py::object>> MemoryStatsList(const PyExecutor& self) {
  std::vector<std::map<std::string, py::object>> out;
  for (const MemoryStats& s : self.exe->memory_stats()) {
    out.push_back({{"ctx", py::str(s.ctx.ToString())},
                   {"planned_bytes", py::int_(s.planned_bytes)},
                   {"no_reuse_bytes", py::int_(s.no_reuse_bytes)},
                   {"allocated_bytes", py::int_(s.allocated_bytes)},
                   {"array_bytes", py::int_(s.array_bytes)}});
  }
  return out;
}

// The reducer holds its executors' gradient arrays and callbacks and clears
// the callbacks when destroyed, so it keeps the Python executors alive: its
// destructor runs first (members go in reverse order), then they may go.
class PyReducer {
 public:
  // `ranks`: the job's ranks (mx.kv's distributed stores), or nullptr for
  // this process's replicas alone.
  PyReducer(const py::list& replicas, const std::vector<std::string>& params,
            std::shared_ptr<PyRanks> ranks) {
    std::vector<Executor*> executors;
    for (py::handle r : replicas) {
      executors.push_back(r.cast<PyExecutor&>().exe.get());
      replicas_.push_back(py::reinterpret_borrow<py::object>(r));
    }
    ReducerOptions options;
    std::shared_ptr<Communicator> comm;
    if (ranks != nullptr) {
      comm = ranks->comm;
      options.timeout = ranks->timeout;
    }
    // Create is collective over the ranks: the GIL must not be held while it
    // waits for the others.
    py::gil_scoped_release release;
    reducer_ = ValueOrThrow(GradientReducer::Create(executors, params, comm, options));
  }
  void Start() { reducer_->Start(); }
  void Finish() {
    absl::Status status;
    {
      py::gil_scoped_release release;
      status = reducer_->Finish();
    }
    ThrowIfError(status);
  }

 private:
  std::vector<py::object> replicas_;
  std::unique_ptr<GradientReducer> reducer_;
};

// Forward and/or Backward (no head gradients) of every executor at once,
// each on a thread of its own with the GIL released: the replicas of a
// data-parallel Module, on separate devices and pools. The first error is
// raised once all have finished.
void RunReplicas(const py::list& replicas, bool is_train, bool forward, bool backward) {
  std::vector<PyExecutor*> executors;
  for (py::handle r : replicas) executors.push_back(&r.cast<PyExecutor&>());
  std::vector<std::exception_ptr> errors(executors.size());
  {
    py::gil_scoped_release release;
    std::vector<std::thread> threads;
    for (size_t i = 0; i < executors.size(); ++i) {
      threads.emplace_back([&, i] {
        try {
          if (forward) executors[i]->exe->Forward(is_train);
          if (backward) executors[i]->exe->Backward(std::vector<Tensor>{});
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    }
    for (std::thread& t : threads) t.join();
  }
  for (PyExecutor* e : executors) e->RaiseCallbackError();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

void RegisterExecutor(py::module_& m) {
  py::class_<PyExecutor>(m, "Executor")
      .def(
          "forward",
          [](PyExecutor& self, bool is_train, const py::dict& inputs) {
            std::map<std::string, Tensor> in = ToTensorMap(inputs);
            {
              py::gil_scoped_release release;
              self.exe->Forward(is_train, in);
            }
            self.RaiseCallbackError();
          },
          py::arg("is_train"), py::arg("inputs"))
      .def("backward", &Backward, py::arg("head_grads"))
      .def_property_readonly("outputs",
                             [](const PyExecutor& s) { return FromTensors(s.exe->outputs()); })
      .def_property_readonly("arg_arrays",
                             [](const PyExecutor& s) { return FromTensors(s.exe->arg_arrays()); })
      .def_property_readonly("grad_arrays",
                             [](const PyExecutor& s) { return FromTensors(s.exe->grad_arrays()); })
      .def_property_readonly("aux_arrays",
                             [](const PyExecutor& s) { return FromTensors(s.exe->aux_arrays()); })
      .def_property_readonly("symbol", [](const PyExecutor& s) { return s.exe->symbol(); })
      .def(
          "copy_params_from",
          [](PyExecutor& self, const std::map<std::string, Tensor>& args,
             const std::map<std::string, Tensor>& aux, bool allow_extra) {
            py::gil_scoped_release release;
            self.exe->CopyParamsFrom(args, aux, allow_extra);
          },
          py::arg("args"), py::arg("aux"), py::arg("allow_extra"))
      .def(
          "reshape",
          [](const PyExecutor& self, const std::map<std::string, std::vector<int64_t>>& shapes,
             bool partial_shaping, bool allow_up_sizing) {
            PyExecutor out;
            std::map<std::string, Shape> new_shapes = ToShapeMap(shapes);
            py::gil_scoped_release release;
            out.exe = self.exe->Reshape(new_shapes, partial_shaping, allow_up_sizing);
            return out;
          },
          py::arg("shapes"), py::arg("partial_shaping"), py::arg("allow_up_sizing"))
      .def("optimized_symbol", [](const PyExecutor& s) { return s.exe->OptimizedSymbol(); })
      .def("set_monitor_callback", &SetMonitor, py::arg("callback"), py::arg("monitor_all"))
      .def("memory_stats", &MemoryStatsList)
      .def("debug_str", [](const PyExecutor& s) { return s.exe->DebugStr(); });

  m.def("bind", &Bind, py::arg("symbol"), py::arg("ctx"), py::arg("args"), py::arg("args_grad"),
        py::arg("grad_req"), py::arg("aux_states"), py::arg("group2ctx"), py::arg("shared_exec"),
        py::arg("ranks") = nullptr);
  m.def("simple_bind", &SimpleBind, py::arg("symbol"), py::arg("ctx"), py::arg("shapes"),
        py::arg("grad_req"), py::arg("type_dict"), py::arg("group2ctx"),
        py::arg("shared_arg_names"), py::arg("shared_exec"), py::arg("shared_buffer"),
        py::arg("ranks") = nullptr);

  m.def("run_replicas", &RunReplicas, py::arg("replicas"), py::arg("is_train"), py::arg("forward"),
        py::arg("backward"));

  py::class_<PyReducer>(m, "GradientReducer")
      .def(py::init<const py::list&, const std::vector<std::string>&, std::shared_ptr<PyRanks>>(),
           py::arg("replicas"), py::arg("params"), py::arg("ranks") = nullptr)
      .def("start", &PyReducer::Start)
      .def("finish", &PyReducer::Finish);
}

}  // namespace symx::python
