// Device: one compute device of this process (cpu(0), cpu(1), ..., gpu(0)).
//
// A device owns its Allocator and a random generator (Dropout, initializers
// without an explicit seed). Its memory is host memory (CPU devices: host code
// reads and writes it directly) or not (GPUs): the byte-moving methods below
// are how code outside a device's kernels reaches memory it cannot address. Devices are created on
// first use by a factory that the device's package registers (devices/cpu registers cpu), live for
// the process, and are looked up by Context. An unknown or absent device is an error that names it.
//
// Thread safety: GetDevice, RegisterDeviceFactory and SeedAllDevices may be
// called from any thread (the registry is under a lock; a device is made
// once). A Device's accessors, allocator and byte movers may be used from
// several threads at once; its kernels run one at a time (the executor gives
// each device one worker), which is why rng() needs no lock: it is for those
// kernels and for code that holds the device alone (initializers before
// training starts), not for arbitrary threads.
#ifndef SYMX_DEVICES_DEVICE_H_
#define SYMX_DEVICES_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "devices/allocator.h"
#include "devices/context.h"

namespace symx {

class Device {
 public:
  // A null allocator means plain host memory (Allocator's own).
  explicit Device(Context ctx, std::unique_ptr<Allocator> allocator = nullptr)
      : ctx_(ctx),
        allocator_(allocator != nullptr ? std::move(allocator) : std::make_unique<Allocator>(ctx)) {}
  virtual ~Device() = default;

  const Context& ctx() const { return ctx_; }
  Allocator& allocator() { return *allocator_; }
  // Threads a kernel may use for one op (intra-op parallelism).
  virtual int num_threads() const = 0;

  // Whether host code may dereference this device's memory.
  virtual bool host_memory() const { return true; }
  // Byte copies and fills of this device's memory. They are ordered after
  // every piece of work already given to the device, and the host buffers
  // may be reused (CopyToHost: read) as soon as they return. Errors (a
  // failed device) name the device.
  virtual absl::Status CopyToHost(const void* src, void* host_dst, size_t bytes);
  virtual absl::Status CopyFromHost(const void* host_src, void* dst, size_t bytes);
  // `dst` on this device, `src` on `src_device` (this one or another of the
  // same type; host memory is CopyFromHost's).
  virtual absl::Status CopyFromDevice(Device& src_device, const void* src, void* dst,
                                      size_t bytes);
  virtual absl::Status Memset(void* dst, int byte, size_t bytes);
  // Waits until everything given to the device has run; reports a failure
  // that work met on the way (asynchronous devices only).
  virtual absl::Status Synchronize() { return absl::OkStatus(); }

  // The device's generator. Kernels run one at a time per device, so no lock.
  std::mt19937_64& rng() { return rng_; }
  void Seed(uint64_t seed) { rng_.seed(seed); }

 private:
  Context ctx_;
  std::unique_ptr<Allocator> allocator_;
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
