// gtest's main, after the one environment read every edge of symx makes:
// the device options (tools/env/engine_env.h). Bind switches stay out of it:
// tests pass EngineOptions to the binds they compare.
#include <cstdio>

#include "gtest/gtest.h"
#include "tools/env/engine_env.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  absl::Status devices = symx::SetDeviceOptionsFromEnvironment();
  if (!devices.ok()) {
    std::fprintf(stderr, "%s\n", std::string(devices.message()).c_str());
    return 2;
  }
  return RUN_ALL_TESTS();
}
