#include "executor/grad_req.h"

#include "absl/strings/str_cat.h"

namespace symx {

absl::StatusOr<GradReq> ParseGradReq(absl::string_view text) {
  if (text == "null") return GradReq::kNull;
  if (text == "write") return GradReq::kWrite;
  if (text == "add") return GradReq::kAdd;
  return absl::InvalidArgumentError(absl::StrCat(
      "grad_req=", text, " is not a valid input; only 'null', 'write', and 'add' are supported"));
}

const char* GradReqName(GradReq req) {
  switch (req) {
    case GradReq::kNull:
      return "null";
    case GradReq::kWrite:
      return "write";
    case GradReq::kAdd:
      return "add";
  }
  return "?";
}

absl::StatusOr<GradReqSpec> GradReqSpec::FromString(absl::string_view all) {
  auto req = ParseGradReq(all);
  if (!req.ok()) return req.status();
  return GradReqSpec(*req);
}

absl::StatusOr<std::vector<GradReq>> GradReqSpec::Resolve(const std::vector<std::string>& arg_names,
                                                          bool allow_empty_map) const {
  switch (kind_) {
    case kAll:
      return std::vector<GradReq>(arg_names.size(), all_);
    case kList:
      if (list_.size() != arg_names.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("grad_req must have one entry per argument: expected ", arg_names.size(),
                         ", provided ", list_.size()));
      }
      return list_;
    case kMap: {
      if (map_.empty() && !allow_empty_map) {
        return absl::InvalidArgumentError(
            "grad_req is an empty map; give at least one argument or use \"null\"");
      }
      std::vector<GradReq> out(arg_names.size(), GradReq::kNull);
      for (size_t i = 0; i < arg_names.size(); ++i) {
        auto it = map_.find(arg_names[i]);
        if (it != map_.end()) out[i] = it->second;
      }
      return out;
    }
  }
  return absl::InternalError("bad GradReqSpec");
}

}  // namespace symx
