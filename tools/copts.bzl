"""Compiler options for symx's own targets: strict warnings as errors."""

SYMX_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    # Options structs are filled with designated initializers that leave the
    # rest at their defaults (`{.shapes = ...}`); that is the intended use.
    "-Wno-missing-field-initializers",
]

# Test code: unoptimized, whatever the build's -O level (the engine it calls
# keeps that level). gtest-heavy files compile about 3x faster at -O0, under
# the sanitizers most of all, and their own run time is small; this keeps
# tools/test_all.sh (CI) within its time.
SYMX_TEST_COPTS = SYMX_COPTS + ["-O0"]

# Code whose speed no test depends on, compiled unoptimized in the sanitizer
# builds only (where -O1 with ASan + UBSan costs 2-3x the compile time): the
# Python extension's bindings, the op schemas (parsing and shape inference)
# and the symx tool's command code. Users run the normal build's, optimized.
SYMX_SANITIZER_O0 = select({
    "//tools:sanitizer": ["-O0"],
    "//conditions:default": [],
})
