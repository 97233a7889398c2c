// Typed op parameters parsed from string attributes.
//
// An op's parse function builds its param struct with a ParamReader, which
// remembers the first error and every key it was asked for, so that Finish() can
// reject unknown keys. Messages name the key and the value; the caller (node
// creation) adds the node and op. Hidden "__k__" keys are never parameters.
//
//   absl::StatusOr<OpParamPtr> ParseFC(const AttrMap& attrs) {
//     ParamReader r(attrs);
//     auto p = std::make_shared<FCParam>();
//     p->num_hidden = r.Int("num_hidden");
//     p->no_bias = r.Bool("no_bias", false);
//     return r.Finish(std::move(p));
//   }
#ifndef SYMX_GRAPH_PARAM_H_
#define SYMX_GRAPH_PARAM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/attrs.h"
#include "graph/dtype.h"

namespace symx {

// What a parse function asks for, recorded by RecordParams below: the
// parameter's key, whether it is required, and its default as text ("None"
// for an optional value without one). The op registry coverage test compares
// these with MXNet's registry (tools/registry).
struct ParamSpec {
  std::string key;
  bool required = false;
  std::string default_text;
};

struct ParamRecord {
  std::vector<ParamSpec> specs;      // in the order the parse function asked
  std::vector<std::string> refused;  // "key: message" for each value it refused
  std::vector<std::string> unknown;  // keys of the attributes it never asked for
};

// Base of every op's parameter struct. Immutable once parsed.
struct OpParam {
  virtual ~OpParam() = default;
};
using OpParamPtr = std::shared_ptr<const OpParam>;

class ParamReader {
 public:
  explicit ParamReader(const AttrMap& attrs) : attrs_(attrs) {}

  // Required values (an error if absent) and values with a default.
  int64_t Int(absl::string_view key);
  int64_t Int(absl::string_view key, int64_t def);
  // "None" or absent -> nullopt.
  std::optional<int64_t> OptionalInt(absl::string_view key);
  // "None" -> nullopt; absent -> def (MXNet's "int or None, default=-1").
  std::optional<int64_t> OptionalInt(absl::string_view key, std::optional<int64_t> def);
  double Float(absl::string_view key);
  double Float(absl::string_view key, double def);
  // Float, but "nan" is a value too (the scalar of x * nan: MXNet computes
  // it; elsewhere a NaN attribute is a mistake and Float refuses it).
  double FloatOrNan(absl::string_view key, double def);
  std::optional<double> OptionalFloat(absl::string_view key);
  bool Bool(absl::string_view key, bool def);
  // MXNet's "boolean or None": "None" or absent -> def.
  bool BoolOrNone(absl::string_view key, bool def);
  std::string String(absl::string_view key, absl::string_view def);
  std::string String(absl::string_view key);  // required
  // One of `choices`.
  std::string Enum(absl::string_view key, const std::vector<std::string>& choices);
  std::string Enum(absl::string_view key, const std::vector<std::string>& choices,
                   absl::string_view def);
  // "(3, 3)", "[3,3]", "3". Absent -> def.
  std::vector<int64_t> Tuple(absl::string_view key);
  std::vector<int64_t> Tuple(absl::string_view key, const std::vector<int64_t>& def);
  // "None" or absent -> nullopt.
  std::optional<std::vector<int64_t>> OptionalTuple(absl::string_view key);
  // "(0.5, 1)", "[2]", "0.5", "()". Absent -> def.
  std::vector<double> FloatTuple(absl::string_view key, const std::vector<double>& def);
  std::vector<double> FloatTuple(absl::string_view key);  // required
  DType Dtype(absl::string_view key);
  DType Dtype(absl::string_view key, DType def);
  std::optional<DType> OptionalDtype(absl::string_view key);

  // Adds an error (e.g. a range check) about `key`.
  void Fail(absl::string_view key, absl::string_view why);

  // Rejects unknown (non-hidden) keys and returns the first error, or `param`.
  absl::StatusOr<OpParamPtr> Finish(OpParamPtr param);

 private:
  const std::string* Lookup(absl::string_view key, bool required);
  // Records `key` when RecordParams is running on this thread.
  static bool Recording();
  static void Note(absl::string_view key, bool required, std::string default_text);
  void Bad(absl::string_view key, const std::string& value, absl::string_view expected);

  const AttrMap& attrs_;
  std::set<std::string, std::less<>> known_;
  absl::Status error_;
};

// Runs `parse` on `attrs` and records every parameter it asks for, every value
// it refuses (all of them, not only the first) and every key it does not know.
// A missing required value is not recorded as refused. Not for the hot path:
// the recording is per thread and costs string formatting.
ParamRecord RecordParams(const std::function<absl::StatusOr<OpParamPtr>(const AttrMap&)>& parse,
                         const AttrMap& attrs);

// Parse function for ops without parameters: any non-hidden key is an error.
absl::StatusOr<OpParamPtr> ParseNoParams(const AttrMap& attrs);

}  // namespace symx

#endif  // SYMX_GRAPH_PARAM_H_
