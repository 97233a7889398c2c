#include "train/checkpoint.h"

#include <cstdio>

#include "absl/strings/str_format.h"
#include "devices/params_io.h"
#include "graph/error.h"

namespace symx::train {

std::string SymbolPath(const std::string& prefix) { return prefix + "-symbol.json"; }

std::string ParamsPath(const std::string& prefix, int epoch) {
  return absl::StrFormat("%s-%04d.params", prefix, epoch);
}

std::string SaveSymbolFile(const std::string& prefix, const Symbol& symbol) {
  std::string path = SymbolPath(prefix);
  symbol.Save(path);
  return path;
}

std::string SaveParamsFile(const std::string& prefix, int epoch,
                           const std::map<std::string, Tensor>& arg_params,
                           const std::map<std::string, Tensor>& aux_params) {
  std::string path = ParamsPath(prefix, epoch);
  ThrowIfError(SaveParams(path, MakeCheckpointParams(arg_params, aux_params)));
  return path;
}

Checkpoint LoadCheckpoint(const std::string& prefix, int epoch) {
  Checkpoint c;
  c.symbol = Symbol::Load(SymbolPath(prefix));
  const std::string path = ParamsPath(prefix, epoch);
  NamedTensors params = ValueOrThrow(LoadParams(path));
  // LoadParams names the file in its errors; SplitArgAux sees no file.
  absl::StatusOr<ArgAuxParams> split_or = SplitArgAux(params);
  if (!split_or.ok()) throw Error(Annotate(split_or.status(), path));
  ArgAuxParams split = *std::move(split_or);
  c.arg_params = std::move(split.arg);
  c.aux_params = std::move(split.aux);
  return c;
}

}  // namespace symx::train
