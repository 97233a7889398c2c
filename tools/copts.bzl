"""Compiler options for symx's own targets: strict warnings as errors."""

SYMX_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
]
