"""cuda_library: .cu files compiled by nvcc, wrapped as a cc_library.

Bazel 4 has no CUDA rules and this project builds offline, so each .cu file
becomes one genrule that runs /usr/local/cuda/bin/nvcc into a position-
independent object, and the objects join a cc_library like any other source.
The .cu files include only the headers listed in `hdrs` (plus CUDA's and the
C++ library's): they hold kernels and their launchers, and everything that
touches absl or the graph stays in ordinary .cc files compiled by the host
compiler. Only targets built under --config=cuda depend on these.
"""

NVCC = "/usr/local/cuda/bin/nvcc"

# sm_90 machine code (H100/H200) plus compute_90 PTX, which the driver
# compiles for newer GPUs.
NVCC_ARCH = [
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]

# --define=symx_cuda_ptx_only=1 (//tools:cuda_ptx_only): PTX alone, without
# running ptxas, which takes about half of nvcc's time. tools/test_all.sh
# (CI, no GPU) uses it to check that every kernel compiles; a GPU machine's
# build (tools/gpu/pack.sh) makes the machine code.
NVCC_ARCH_PTX_ONLY = ["-gencode=arch=compute_90,code=compute_90"]

NVCC_FLAGS = [
    "-std=c++17",
    "-O3",
    "-Xcompiler=-fPIC",
    "-Xcompiler=-Wall",
    "--expt-relaxed-constexpr",
    "-Werror=all-warnings",
    # CUDA 13's headers warn about their own deprecated vector types.
    "-Wno-deprecated-declarations",
    "-I.",
    "-I$(GENDIR)",
]

def cuda_library(name, srcs, hdrs = [], nvcc_hdrs = [], exact_srcs = [], deps = [], **kwargs):
    """nvcc_hdrs: headers of other packages the .cu files include (exported files).

    exact_srcs: .cu files (also listed in srcs) compiled with --fmad=false, so
    that no a * b + c is fused: their arithmetic is shared with the CPU
    kernels (geometry, IoU thresholds) and must round the same way there.
    """
    objs = []
    for src in srcs:
        stem = src[:-len(".cu")].replace("/", "_")
        obj = "_%s_%s.pic.o" % (name, stem)
        rest = NVCC_FLAGS + (["--fmad=false"] if src in exact_srcs else []) + [
            "-c",
            "$(location %s)" % src,
            "-o",
            "$@",
        ]
        native.genrule(
            name = "_%s_%s_nvcc" % (name, stem),
            srcs = [src] + hdrs + nvcc_hdrs,
            outs = [obj],
            cmd = select({
                "//tools:cuda_ptx_only": " ".join([NVCC] + NVCC_ARCH_PTX_ONLY + rest),
                "//conditions:default": " ".join([NVCC] + NVCC_ARCH + rest),
            }),
            tags = ["manual"],
            visibility = ["//visibility:private"],
        )
        objs.append(obj)
    native.cc_library(
        name = name,
        srcs = objs,
        hdrs = hdrs,
        deps = deps + ["@cuda//:cuda_runtime"],
        linkstatic = 1,
        **kwargs
    )
