// What the extension knows of GPUs: whether it was built with the CUDA device
// (`pip install .` with CUDA present or SYMX_CUDA=1; python/BUILD compiles
// this file with SYMX_PY_CUDA then) and how many gpu(N) this process has.
#include <pybind11/pybind11.h>

#include "python/src/convert.h"

#ifdef SYMX_PY_CUDA
#include "devices/cuda/cuda_device.h"
#endif

namespace symx::python {

void RegisterGpus(py::module_& m) {
#ifdef SYMX_PY_CUDA
  m.def("built_with_cuda", [] { return true; });
  // The logical count (SYMX_LOGICAL_GPUS), which is what gpu(N) may name;
  // 0 without a driver or a device.
  m.def("num_gpus", [] { return cuda::NumLogicalGpus(); });
#else
  m.def("built_with_cuda", [] { return false; });
  m.def("num_gpus", [] { return 0; });
#endif
}

}  // namespace symx::python
