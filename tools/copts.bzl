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
