// Parameter initializers with MXNet 1.x's rules (python/mxnet/initializer.py).
//
// An Initializer fills a weight. InitParameter applies MXNet's dispatch:
//   - a variable's `__init__` attribute, when present, chooses the initializer
//     for that variable whatever its name;
//   - otherwise by name suffix: *weight -> the given initializer, *bias -> 0,
//     *gamma -> 1, *beta -> 0, *moving_mean -> 0, *moving_var -> 1,
//     *moving_inv_var -> 0, *moving_avg -> 0, *min -> 0, *max -> 1; any other
//     name is an error ("Unknown initialization pattern"), as in MXNet.
//
// `__init__` forms understood (what MXNet's Initializer.dumps() writes, or a
// bare name): "zeros"/"zero", "ones"/"one", ["constant", {"value": v}],
// ["uniform", {"scale": s}], ["normal", {"sigma": s}],
// ["xavier", {"rnd_type": "uniform"|"gaussian", "factor_type": "avg"|"in"|"out",
// "magnitude": m}], ["msraprelu", {"factor_type": ..., "slope": s}]. Keys left
// out take MXNet's defaults; numbers may be JSON numbers or numeric strings.
// Other MXNet initializers (orthogonal, bilinear, load, mixed, lstmbias,
// fusedrnn) are errors naming them.
//
// Randomness comes from the std::mt19937_64 the caller passes, so a seed fixes
// every value. Tensors of any dtype and device are filled (values are drawn as
// double and converted).
#ifndef SYMX_TRAIN_INITIALIZER_H_
#define SYMX_TRAIN_INITIALIZER_H_

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "devices/tensor.h"
#include "graph/symbol.h"

namespace symx::train {

using Rng = std::mt19937_64;

class Initializer {
 public:
  virtual ~Initializer() = default;
  // Fills `arr` (the parameter `name`, used in messages).
  virtual void InitWeight(const std::string& name, const Tensor& arr, Rng& rng) const = 0;
  // MXNet's dumps(): ["xavier", {"rnd_type": "gaussian", ...}].
  virtual std::string Dumps() const = 0;
};

class Constant : public Initializer {
 public:
  explicit Constant(double value) : value_(value) {}
  void InitWeight(const std::string& name, const Tensor& arr, Rng& rng) const override;
  std::string Dumps() const override;

 private:
  double value_;
};

// U(-scale, scale).
class Uniform : public Initializer {
 public:
  explicit Uniform(double scale = 0.07) : scale_(scale) {}
  void InitWeight(const std::string& name, const Tensor& arr, Rng& rng) const override;
  std::string Dumps() const override;

 private:
  double scale_;
};

// N(0, sigma).
class Normal : public Initializer {
 public:
  explicit Normal(double sigma = 0.01) : sigma_(sigma) {}
  void InitWeight(const std::string& name, const Tensor& arr, Rng& rng) const override;
  std::string Dumps() const override;

 private:
  double sigma_;
};

// Xavier/Glorot: with fan_in = shape[1] * prod(shape[2:]) and
// fan_out = shape[0] * prod(shape[2:]), factor = (fan_in + fan_out) / 2, fan_in
// or fan_out, scale = sqrt(magnitude / factor); values are U(-scale, scale)
// or N(0, scale). Needs at least 2 dims.
class Xavier : public Initializer {
 public:
  enum class RndType { kUniform, kGaussian };
  enum class FactorType { kAvg, kIn, kOut };
  explicit Xavier(RndType rnd_type = RndType::kUniform, FactorType factor_type = FactorType::kAvg,
                  double magnitude = 3.0)
      : rnd_type_(rnd_type), factor_type_(factor_type), magnitude_(magnitude) {}
  void InitWeight(const std::string& name, const Tensor& arr, Rng& rng) const override;
  std::string Dumps() const override;
  // The bound (uniform) or standard deviation (gaussian) for `shape`. Throws
  // for fewer than 2 dims.
  double Scale(const std::string& name, const Shape& shape) const;

 protected:
  // The name dumps() writes ("xavier"; "msraprelu" for the subclass).
  virtual std::string KindName() const { return "xavier"; }
  RndType rnd_type_;
  FactorType factor_type_;
  double magnitude_;
};

// MSRA/He for PReLU: Xavier gaussian with magnitude 2 / (1 + slope^2).
class MSRAPrelu : public Xavier {
 public:
  explicit MSRAPrelu(FactorType factor_type = FactorType::kAvg, double slope = 0.25)
      : Xavier(RndType::kGaussian, factor_type, 2.0 / (1 + slope * slope)), slope_(slope) {}
  std::string Dumps() const override;

 protected:
  std::string KindName() const override { return "msraprelu"; }

 private:
  double slope_;
};

// Parses an `__init__` value or a CLI-style description (see the header
// comment). Throws symx::Error naming the text.
std::unique_ptr<Initializer> CreateInitializer(const std::string& description);

// MXNet's Initializer.__call__ for one array: `init_attr` is the variable's
// `__init__` attribute ("" when absent).
void InitParameter(const Initializer& default_init, const std::string& name,
                   const std::string& init_attr, const Tensor& arr, Rng& rng);

// Initializes every named array of `arrays` (arguments or auxiliary states of
// `symbol`, e.g. an executor's arg_dict()) except the names in `skip` (data and
// label inputs), in name order, honouring each variable's `__init__`.
void InitParameters(const Symbol& symbol, const Initializer& default_init,
                    const std::map<std::string, Tensor>& arrays, const std::set<std::string>& skip,
                    Rng& rng);

}  // namespace symx::train

#endif  // SYMX_TRAIN_INITIALIZER_H_
