// grad_req: how Backward treats each argument's gradient array.
#ifndef SYMX_EXECUTOR_GRAD_REQ_H_
#define SYMX_EXECUTOR_GRAD_REQ_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace symx {

// write overwrites, add accumulates across Backward calls, null computes no
// gradient (and prunes the backward nodes only it needed).
enum class GradReq { kNull, kWrite, kAdd };

// "null", "write", "add" (errors list the valid values).
absl::StatusOr<GradReq> ParseGradReq(absl::string_view text);
const char* GradReqName(GradReq req);

// grad_req in any of MXNet's three forms: one value for every argument, a list
// in ListArguments order, or a map by name (names not mentioned are null).
class GradReqSpec {
 public:
  GradReqSpec(GradReq all = GradReq::kWrite) : kind_(kAll), all_(all) {}  // NOLINT: implicit
  GradReqSpec(std::vector<GradReq> list)                                  // NOLINT: implicit
      : kind_(kList), list_(std::move(list)) {}
  GradReqSpec(std::map<std::string, GradReq> by_name)  // NOLINT: implicit
      : kind_(kMap), map_(std::move(by_name)) {}
  // From strings, as the CLI and MXNet's Python API take them.
  static absl::StatusOr<GradReqSpec> FromString(absl::string_view all);

  // One value per argument (names in ListArguments order). Errors: a list of
  // the wrong length; an empty map unless `allow_empty_map` (MXNet's bind
  // reads an empty dict as all null, its simple_bind rejects it).
  absl::StatusOr<std::vector<GradReq>> Resolve(const std::vector<std::string>& arg_names,
                                               bool allow_empty_map = false) const;

 private:
  enum Kind { kAll, kList, kMap };
  Kind kind_;
  GradReq all_ = GradReq::kWrite;
  std::vector<GradReq> list_;
  std::map<std::string, GradReq> map_;
};

}  // namespace symx

#endif  // SYMX_EXECUTOR_GRAD_REQ_H_
