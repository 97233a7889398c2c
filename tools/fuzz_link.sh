# The Abseil libraries the fuzz scripts (tools/fuzz_*.sh) link, sourced by them:
# their build is outside Bazel, so the list Bazel keeps in
# third_party/system_libs.BUILD is repeated here once.
# shellcheck disable=SC2034
FUZZ_ABSL_LIBS=(
  -labsl_status -labsl_statusor -labsl_strings -labsl_str_format_internal
  -labsl_strings_internal -labsl_int128 -labsl_throw_delegate -labsl_raw_logging_internal
  -labsl_cord -labsl_cord_internal -labsl_cordz_info -labsl_cordz_functions
  -labsl_cordz_handle -labsl_base -labsl_spinlock_wait -labsl_synchronization -labsl_time
  -labsl_time_zone -labsl_stacktrace -labsl_symbolize -labsl_debugging_internal
  -labsl_demangle_internal -labsl_malloc_internal -labsl_exponential_biased
  -labsl_graphcycles_internal -labsl_bad_optional_access
)
