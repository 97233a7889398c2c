// Device: one compute device of this process (cpu(0), cpu(1), ..., gpu(0)).
//
// A device owns its Allocator and a random generator (Dropout, initializers
// without an explicit seed). Devices are created on first use by a factory that
// the device's package registers (devices/cpu registers cpu), live for the
// process, and are looked up by Context. An unknown or absent device is an
// error that names it.
#ifndef SYMX_DEVICES_DEVICE_H_
#define SYMX_DEVICES_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>

#include "absl/status/statusor.h"
#include "devices/allocator.h"
#include "devices/context.h"

namespace symx {

class Device {
 public:
  explicit Device(Context ctx) : ctx_(ctx), allocator_(ctx) {}
  virtual ~Device() = default;

  const Context& ctx() const { return ctx_; }
  Allocator& allocator() { return allocator_; }
  // Threads a kernel may use for one op (intra-op parallelism).
  virtual int num_threads() const = 0;

  // The device's generator. Kernels run one at a time per device, so no lock.
  std::mt19937_64& rng() { return rng_; }
  void Seed(uint64_t seed) { rng_.seed(seed); }

 private:
  Context ctx_;
  Allocator allocator_;
  std::mt19937_64 rng_{0};
};

using DeviceFactory = std::function<absl::StatusOr<std::unique_ptr<Device>>(const Context&)>;

// Registers the factory for a device type (static init; see devices/cpu).
bool RegisterDeviceFactory(DeviceType type, DeviceFactory factory);

// The device for `ctx`, created on first use. NotFound when no such device
// exists in this build or on this machine (gpu without CUDA, cpu(N) beyond the
// configured count, another rank's context).
absl::StatusOr<Device*> GetDevice(const Context& ctx);

// Reseeds every device created so far and those created later.
void SeedAllDevices(uint64_t seed);

}  // namespace symx

#endif  // SYMX_DEVICES_DEVICE_H_
