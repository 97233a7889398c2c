// A process-wide on/off switch, set from its environment variable when first
// read ("0" is off, anything else on; unset is `default_on`); tests flip it
// with Set to compare two paths.
#ifndef SYMX_GRAPH_ENV_SWITCH_H_
#define SYMX_GRAPH_ENV_SWITCH_H_

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace symx {

class EnvSwitch {
 public:
  explicit EnvSwitch(const char* var, bool default_on = true) {
    const char* value = std::getenv(var);
    on_.store(value == nullptr ? default_on : std::strcmp(value, "0") != 0);
  }
  bool on() const { return on_.load(std::memory_order_relaxed); }
  void Set(bool on) { on_.store(on); }

 private:
  std::atomic<bool> on_;
};

}  // namespace symx

#endif  // SYMX_GRAPH_ENV_SWITCH_H_
