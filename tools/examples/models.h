// The example models shipped in tools/examples/, built with the C++ API. The
// committed *-symbol.json files are these symbols written by symx itself
// (tests/tools/examples_test.cc keeps the two in step).
#ifndef SYMX_TOOLS_EXAMPLES_MODELS_H_
#define SYMX_TOOLS_EXAMPLES_MODELS_H_

#include <string>
#include <utility>
#include <vector>

#include "graph/symbol.h"

namespace symx::examples {

// The MLP and LeNet are split into two pipeline stages by ctx_group: "stage1"
// (the first layers; the data variable has no group) and "stage2" (the rest,
// the loss and its label). Groups only matter when binding with group2ctx.

// 784-128-64-10 perceptron with a softmax loss; stage1 is fc1/relu1.
Symbol Mlp();
// LeNet-5 style: two conv/tanh/max-pool stages (stage1), two dense layers and
// a softmax loss (stage2).
Symbol LeNet();
// A ResNet-18 style stem and one basic residual block with BatchNorm.
Symbol ResNetBlock();

// (file name, symbol) for every example written by symx.
std::vector<std::pair<std::string, Symbol>> AllExamples();

}  // namespace symx::examples

#endif  // SYMX_TOOLS_EXAMPLES_MODELS_H_
