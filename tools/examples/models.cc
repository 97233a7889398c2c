#include "tools/examples/models.h"

#include "graph/scope.h"

namespace symx::examples {
namespace {

Symbol Fc(const std::string& name, const Symbol& in, int hidden) {
  return OpCall("FullyConnected").Name(name).Attr("num_hidden", hidden).Input("data", in);
}

Symbol Act(const std::string& name, const Symbol& in, const std::string& type) {
  return OpCall("Activation").Name(name).Attr("act_type", type).Input("data", in);
}

Symbol Conv(const std::string& name, const Symbol& in, int filters, int64_t kernel, int64_t stride,
            int64_t pad, bool no_bias) {
  OpCall call("Convolution");
  call.Name(name).Attr("kernel", {kernel, kernel}).Attr("num_filter", filters);
  if (stride != 1) call.Attr("stride", {stride, stride});
  if (pad != 0) call.Attr("pad", {pad, pad});
  if (no_bias) call.Attr("no_bias", true);
  return call.Input("data", in);
}

Symbol Bn(const std::string& name, const Symbol& in) {
  return OpCall("BatchNorm")
      .Name(name)
      .Attr("eps", 2e-05)
      .Attr("fix_gamma", false)
      .Attr("momentum", 0.9)
      .Input("data", in);
}

// The ctx_group of pipeline stage `n` ("stage1", "stage2"). Weights created
// inside an AttrScope inherit it, so `--group2ctx stage1=cpu(1) --group2ctx
// stage2=cpu(2)` splits a model over two devices; without group2ctx the groups
// are ignored.
AttrMap Stage(int n) { return {{"ctx_group", "stage" + std::to_string(n)}}; }

}  // namespace

Symbol Mlp() {
  NameScope names;
  Symbol data = Symbol::Variable("data");
  Symbol h;
  {
    AttrScope stage(Stage(1));
    h = Act("relu1", Fc("fc1", data, 128), "relu");
  }
  AttrScope stage(Stage(2));
  h = Act("relu2", Fc("fc2", h, 64), "relu");
  return OpCall("SoftmaxOutput").Name("softmax").Input("data", Fc("fc3", h, 10));
}

Symbol LeNet() {
  NameScope names;
  Symbol data = Symbol::Variable("data");
  Symbol h = data;
  {
    AttrScope stage(Stage(1));
    int filters[] = {20, 50};
    for (int i = 0; i < 2; ++i) {
      std::string n = std::to_string(i + 1);
      h = Act("tanh" + n, Conv("conv" + n, h, filters[i], 5, 1, 0, false), "tanh");
      h = OpCall("Pooling")
              .Name("pool" + n)
              .Attr("pool_type", "max")
              .Attr("kernel", {2, 2})
              .Attr("stride", {2, 2})
              .Input("data", h);
    }
  }
  AttrScope stage(Stage(2));
  h = OpCall("Flatten").Name("flatten").Input("data", h);
  h = Act("tanh3", Fc("fc1", h, 500), "tanh");
  return OpCall("SoftmaxOutput").Name("softmax").Input("data", Fc("fc2", h, 10));
}

Symbol ResNetBlock() {
  NameScope names;
  Symbol data = Symbol::Variable("data");
  Symbol body = Conv("conv0", data, 64, 7, 2, 3, true);
  body = Act("relu0", Bn("bn0", body), "relu");
  body = OpCall("Pooling")
             .Name("pool0")
             .Attr("pool_type", "max")
             .Attr("kernel", {3, 3})
             .Attr("stride", {2, 2})
             .Attr("pad", {1, 1})
             .Input("data", body);
  Symbol branch =
      Act("stage1_relu1", Bn("stage1_bn1", Conv("stage1_conv1", body, 64, 3, 1, 1, true)), "relu");
  branch = Bn("stage1_bn2", Conv("stage1_conv2", branch, 64, 3, 1, 1, true));
  Symbol sum = OpCall("elemwise_add").Name("stage1_add").Input(branch).Input(body);
  Symbol out = Act("stage1_relu2", sum, "relu");
  Symbol pooled = OpCall("Pooling")
                      .Name("global_pool")
                      .Attr("pool_type", "avg")
                      .Attr("global_pool", true)
                      .Attr("kernel", {7, 7})
                      .Input("data", out);
  Symbol flat = OpCall("Flatten").Name("flatten").Input("data", pooled);
  return OpCall("SoftmaxOutput").Name("softmax").Input("data", Fc("fc1", flat, 1000));
}

std::vector<std::pair<std::string, Symbol>> AllExamples() {
  return {{"mlp-symbol.json", Mlp()},
          {"lenet-symbol.json", LeNet()},
          {"resnet_block-symbol.json", ResNetBlock()}};
}

}  // namespace symx::examples
