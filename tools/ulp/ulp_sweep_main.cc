// ulp_sweep: measures symx's elementwise math against long double references
// over every float32 input (--full) or a sample, every float16/bfloat16 input
// and a float64 sample, on a device, and prints each function's largest error
// in ulp beside the bound symx states. Exits 1 when a stated bound is broken.
//
//   bazel run -c opt //tools/ulp:ulp_sweep -- --full             # every float32
//   bazel run //tools/ulp:ulp_sweep -- --case sigmoid,tanh --dtype float32,float16
//   bazel run --config=cuda -c opt //tools/ulp:ulp_sweep -- --ctx 'gpu(0)' --full
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "devices/context.h"
#include "tools/ulp/ulp_cases.h"
#include "tools/ulp/ulp_sweep.h"

namespace {

int Usage(const std::string& why) {
  std::fprintf(stderr,
               "ulp_sweep: %s\nusage: ulp_sweep [--full] [--case NAME,...] "
               "[--dtype float32,float64,float16,bfloat16] [--ctx cpu(0)|gpu(N)] "
               "[--stride N]\n",
               why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace symx;
  using namespace symx::ulp;
  SweepOptions base;
  std::vector<std::string> names;
  std::vector<DType> dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--full") {
      base.coverage = Coverage::kFull;
    } else if (a == "--case") {
      names = absl::StrSplit(value(), ',');
    } else if (a == "--dtype") {
      dtypes.clear();
      for (absl::string_view d : absl::StrSplit(value(), ',')) {
        auto t = ParseDType(d);
        if (!t.ok()) return Usage(std::string(t.status().message()));
        dtypes.push_back(*t);
      }
    } else if (a == "--ctx") {
      auto c = ParseContext(value());
      if (!c.ok()) return Usage(std::string(c.status().message()));
      base.ctx = *c;
    } else if (a == "--stride") {
      if (!absl::SimpleAtoi(value(), &base.float32_stride) || base.float32_stride == 0) {
        return Usage("--stride needs a positive integer");
      }
    } else {
      return Usage("unknown argument '" + a + "'");
    }
  }
  for (const std::string& n : names) {
    bool known = false;
    for (const UlpCase& c : AllUlpCases()) known |= c.name == n;
    if (!known) return Usage("no case named '" + n + "'");
  }
  std::printf("%-24s %-9s %12s %10s %6s %14s %16s %16s %s\n", "function", "dtype", "inputs",
              "max ulp", "bound", "worst input", "got", "want", "over bound");
  int broken = 0;
  for (const UlpCase& c : AllUlpCases()) {
    if (!names.empty() && std::find(names.begin(), names.end(), c.name) == names.end()) continue;
    for (DType d : dtypes) {
      SweepOptions o = base;
      o.dtype = d;
      auto r = Sweep(c, o);
      if (!r.ok()) {
        std::printf("%-24s %-9s not run: %s\n", c.name.c_str(), DTypeName(d).c_str(),
                    std::string(r.status().message()).c_str());
        continue;
      }
      std::printf("%-24s %-9s %12lld %10.3Lf %6.1f %14.8g %16.9Lg %16.9Lg %lld%s\n", c.name.c_str(),
                  DTypeName(d).c_str(), static_cast<long long>(r->tested), r->max_ulp, r->bound,
                  r->worst_input, r->worst_got, r->worst_want,
                  static_cast<long long>(r->over_bound),
                  r->bound > 0 && r->over_bound > 0 ? "  BROKEN" : "");
      std::fflush(stdout);
      if (r->bound > 0 && r->over_bound > 0) ++broken;
    }
  }
  std::printf("%d bound(s) broken\n", broken);
  return broken == 0 ? 0 : 1;
}
