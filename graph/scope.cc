#include "graph/scope.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace symx {
namespace {

AttrMap& ThreadAttrs() {
  thread_local AttrMap attrs;
  return attrs;
}

}  // namespace

AttrScope::AttrScope(const AttrMap& attrs) : saved_(ThreadAttrs()) {
  for (const auto& [key, value] : attrs) ThreadAttrs()[NormalizeAttrKey(key)] = value;
}

AttrScope::~AttrScope() { ThreadAttrs() = saved_; }

AttrMap AttrScope::Current() { return ThreadAttrs(); }

NameScope::State& NameScope::Current() {
  thread_local State state;
  return state;
}

NameScope::NameScope(std::string prefix) : saved_(Current()) {
  Current() = State{std::move(prefix), {}};
}

NameScope::~NameScope() { Current() = saved_; }

std::string NameScope::MakeName(const std::string& name, absl::string_view hint) {
  State& s = Current();
  if (!name.empty()) return absl::StrCat(s.prefix, name);
  std::string key = absl::AsciiStrToLower(hint);
  int n = s.counters[key]++;
  return absl::StrCat(s.prefix, key, n);
}

}  // namespace symx
