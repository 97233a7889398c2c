// AttrScope and NameScope: RAII scopes that shape how new symbols are created on
// this thread.
//
// AttrScope merges its attributes into every op and variable created while it is
// alive (innermost scope wins; attributes given explicitly win over the scope).
// "ctx_group" and the other hidden keys are stored as "__ctx_group__" etc., as
// MXNet does. NameScope resets automatic naming ("fullyconnected0") and can add
// a prefix. Scopes are per thread and must be destroyed in reverse order.
#ifndef SYMX_GRAPH_SCOPE_H_
#define SYMX_GRAPH_SCOPE_H_

#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "graph/attrs.h"

namespace symx {

class AttrScope {
 public:
  explicit AttrScope(const AttrMap& attrs);
  ~AttrScope();
  AttrScope(const AttrScope&) = delete;
  AttrScope& operator=(const AttrScope&) = delete;

  // The attributes of the current scope stack (hidden keys normalized).
  static AttrMap Current();

 private:
  AttrMap saved_;
};

class NameScope {
 public:
  explicit NameScope(std::string prefix = "");
  ~NameScope();
  NameScope(const NameScope&) = delete;
  NameScope& operator=(const NameScope&) = delete;

  // `name` with the scope's prefix if given, else "<prefix><hint><counter>"
  // with one counter per hint (lower-cased op name).
  static std::string MakeName(const std::string& name, absl::string_view hint);

 private:
  struct State {
    std::string prefix;
    std::map<std::string, int> counters;
  };
  State saved_;
  static State& Current();
};

}  // namespace symx

#endif  // SYMX_GRAPH_SCOPE_H_
