// MXNet checkpoints: PREFIX-symbol.json and PREFIX-NNNN.params, where the
// .params file is a dict with "arg:<name>" keys for the learned arguments and
// "aux:<name>" for the auxiliary states (mx.model.save_checkpoint's layout;
// NNNN is the 1-based epoch number, zero-padded to four digits).
#ifndef SYMX_TRAIN_CHECKPOINT_H_
#define SYMX_TRAIN_CHECKPOINT_H_

#include <map>
#include <string>

#include "devices/tensor.h"
#include "graph/symbol.h"

namespace symx::train {

struct Checkpoint {
  Symbol symbol;
  std::map<std::string, Tensor> arg_params;
  std::map<std::string, Tensor> aux_params;
};

// "PREFIX-symbol.json" and "PREFIX-0003.params".
std::string SymbolPath(const std::string& prefix);
std::string ParamsPath(const std::string& prefix, int epoch);

// Writes the symbol only. Throws symx::Error naming the file.
std::string SaveSymbolFile(const std::string& prefix, const Symbol& symbol);
// Writes the .params file only; returns its path. Throws symx::Error.
std::string SaveParamsFile(const std::string& prefix, int epoch,
                           const std::map<std::string, Tensor>& arg_params,
                           const std::map<std::string, Tensor>& aux_params);

// Loads both files. Throws symx::Error naming the file at fault.
Checkpoint LoadCheckpoint(const std::string& prefix, int epoch);

}  // namespace symx::train

#endif  // SYMX_TRAIN_CHECKPOINT_H_
