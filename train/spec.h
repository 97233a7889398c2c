// The command-line spelling of an optimizer or a schedule with its settings,
// NAME[:KEY=VALUE[,KEY=VALUE]...] ("adam:beta1=0.8,wd=0.01",
// "multifactor:step=[30,60],factor=0.1"): a value in brackets may hold
// commas. SpecReader hands out the values by key, typed, and Finish() refuses
// keys nobody asked for, so a typo is an error that names it, never ignored.
#ifndef SYMX_TRAIN_SPEC_H_
#define SYMX_TRAIN_SPEC_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace symx::train {

struct Spec {
  std::string name;                           // lower-cased
  std::map<std::string, std::string> values;  // key -> value text
};

// Throws symx::Error naming `what` ("--optimizer") for an empty name, a
// setting without '=', an empty key or a key given twice.
Spec ParseSpec(const std::string& text, const std::string& what);

class SpecReader {
 public:
  // `what` names the thing in errors: "optimizer 'adam'".
  SpecReader(const Spec& spec, std::string what) : spec_(spec), what_(std::move(what)) {}

  std::optional<double> Double(const std::string& key);
  double Double(const std::string& key, double fallback) { return Double(key).value_or(fallback); }
  std::optional<int64_t> Int(const std::string& key);
  std::optional<bool> Bool(const std::string& key);  // true/false/1/0
  std::optional<std::string> String(const std::string& key);
  // "[1,2,3]", "(1, 2)" or one number.
  std::optional<std::vector<int64_t>> IntList(const std::string& key);
  // Throws for a key given but never asked for, listing the known ones.
  void Finish() const;
  [[noreturn]] void Fail(const std::string& key, const std::string& message) const;

 private:
  const std::string* Take(const std::string& key);
  const Spec& spec_;
  std::string what_;
  std::set<std::string> asked_;
};

}  // namespace symx::train

#endif  // SYMX_TRAIN_SPEC_H_
