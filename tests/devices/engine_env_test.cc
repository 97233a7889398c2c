// The SYMX_* environment variables (tools/env/engine_env.h): what each sets,
// that unset ones leave the defaults, and that a malformed value is an error
// naming the variable and the value (never silently ignored).
#include "tools/env/engine_env.h"

#include <cstdlib>
#include <string>

#include "devices/engine_options.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

const char* const kVariables[] = {
    "SYMX_ONEDNN",        "SYMX_ONEDNN_BATCHNORM", "SYMX_ONEDNN_BF16", "SYMX_FUSION",
    "SYMX_CHANNELS_LAST", "SYMX_HOST_FALLBACK",    "SYMX_CPU_THREADS", "SYMX_NUM_CPU_DEVICES",
    "SYMX_LOGICAL_GPUS",  "SYMX_PINNED_STAGING"};

class EngineEnvTest : public testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVariables) unsetenv(v);
  }
  void TearDown() override { SetUp(); }
};

TEST_F(EngineEnvTest, UnsetVariablesGiveTheDefaults) {
  EXPECT_EQ(EngineOptionsFromEnvironment().value().ToString(), EngineOptions{}.ToString());
  const DeviceOptions d = DeviceOptionsFromEnvironment().value();
  EXPECT_EQ(d.cpu_threads, 0);
  EXPECT_EQ(d.num_cpu_devices, DeviceOptions{}.num_cpu_devices);
  EXPECT_EQ(d.logical_gpus, 0);
  EXPECT_TRUE(d.pinned_staging);
}

TEST_F(EngineEnvTest, EachSwitchSetsItsField) {
  setenv("SYMX_ONEDNN", "0", 1);
  setenv("SYMX_ONEDNN_BATCHNORM", "1", 1);
  setenv("SYMX_ONEDNN_BF16", "on", 1);
  setenv("SYMX_FUSION", "false", 1);
  setenv("SYMX_CHANNELS_LAST", "No", 1);
  setenv("SYMX_HOST_FALLBACK", "OFF", 1);
  const EngineOptions e = EngineOptionsFromEnvironment().value();
  EXPECT_FALSE(e.onednn);
  EXPECT_TRUE(e.onednn_batchnorm);
  EXPECT_TRUE(e.onednn_bf16);
  EXPECT_FALSE(e.fusion);
  EXPECT_FALSE(e.channels_last);
  EXPECT_FALSE(e.host_fallback);
  EXPECT_EQ(e.ToString(),
            "onednn=0 onednn_batchnorm=1 onednn_bf16=1 fusion=0 channels_last=0 host_fallback=0");
}

TEST_F(EngineEnvTest, EachCountSetsItsField) {
  setenv("SYMX_CPU_THREADS", "5", 1);
  setenv("SYMX_NUM_CPU_DEVICES", "12", 1);
  setenv("SYMX_LOGICAL_GPUS", "8", 1);
  setenv("SYMX_PINNED_STAGING", "0", 1);
  const DeviceOptions d = DeviceOptionsFromEnvironment().value();
  EXPECT_EQ(d.cpu_threads, 5);
  EXPECT_EQ(d.num_cpu_devices, 12);
  EXPECT_EQ(d.logical_gpus, 8);
  EXPECT_FALSE(d.pinned_staging);
}

TEST_F(EngineEnvTest, AMalformedSwitchNamesTheVariableAndValue) {
  setenv("SYMX_FUSION", "maybe", 1);
  absl::StatusOr<EngineOptions> e = EngineOptionsFromEnvironment();
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(e.status().message(),
            "environment variable SYMX_FUSION='maybe' is not a switch: use 1 or 0");
}

TEST_F(EngineEnvTest, AMalformedCountNamesTheVariableAndValue) {
  for (const char* bad : {"0", "-2", "four", "3x", ""}) {
    setenv("SYMX_LOGICAL_GPUS", bad, 1);
    absl::StatusOr<DeviceOptions> d = DeviceOptionsFromEnvironment();
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().message(), std::string("environment variable SYMX_LOGICAL_GPUS='") + bad +
                                        "' is not a positive integer");
  }
}

TEST_F(EngineEnvTest, SetDeviceOptionsFromEnvironmentAppliesThemOrChangesNothing) {
  const DeviceOptions before = GetDeviceOptions();
  setenv("SYMX_NUM_CPU_DEVICES", "3", 1);
  ASSERT_TRUE(SetDeviceOptionsFromEnvironment().ok());
  EXPECT_EQ(GetDeviceOptions().num_cpu_devices, 3);
  setenv("SYMX_NUM_CPU_DEVICES", "lots", 1);
  absl::Status bad = SetDeviceOptionsFromEnvironment();
  EXPECT_EQ(bad.message(),
            "environment variable SYMX_NUM_CPU_DEVICES='lots' is not a positive integer");
  EXPECT_EQ(GetDeviceOptions().num_cpu_devices, 3);
  SetDeviceOptions(before);
}

// The device options in force are the last set (the edges set them once).
TEST(DeviceOptionsTest, SetThenGet) {
  const DeviceOptions before = GetDeviceOptions();
  DeviceOptions d;
  d.cpu_threads = 7;
  d.num_cpu_devices = 3;
  SetDeviceOptions(d);
  EXPECT_EQ(GetDeviceOptions().cpu_threads, 7);
  EXPECT_EQ(GetDeviceOptions().num_cpu_devices, 3);
  SetDeviceOptions(before);
}

}  // namespace
}  // namespace symx
