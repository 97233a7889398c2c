// The discrete Fourier transform of one length, in double, for the spectral
// kernels (devices/cpu/spectral_kernels.cc): an iterative radix-2 FFT for
// powers of two and Bluestein's chirp-z algorithm (a power-of-two
// convolution) for every other length, so any length costs O(n log n).
// Twiddle angles reduce their integer products modulo the length first, so
// long transforms keep full double accuracy. A plan is immutable once made and
// may be shared by threads; Forward/Inverse take caller-owned scratch.
#ifndef SYMX_DEVICES_CPU_DFT_H_
#define SYMX_DEVICES_CPU_DFT_H_

#include <complex>
#include <cstdint>
#include <vector>

namespace symx {
namespace cpu {

class DftPlan {
 public:
  using Complex = std::complex<double>;

  explicit DftPlan(int64_t n);

  int64_t size() const { return n_; }
  // y_k = sum_j x_j exp(-2 pi i jk / n); x and y may alias.
  void Forward(const Complex* x, Complex* y, std::vector<Complex>* scratch) const;
  // y_j = sum_k x_k exp(+2 pi i jk / n), not divided by n; x and y may alias.
  void Inverse(const Complex* x, Complex* y, std::vector<Complex>* scratch) const;

 private:
  // In-place radix-2 transform of data[0, m) (m = twiddles.size() * 2).
  static void Radix2(Complex* data, const std::vector<Complex>& twiddles,
                     const std::vector<int64_t>& reversed);

  int64_t n_;
  bool pow2_;
  // Radix-2 tables for the power-of-two length m (n itself, or Bluestein's).
  int64_t m_ = 0;
  std::vector<Complex> twiddles_;  // exp(-2 pi i k / m), k < m / 2
  std::vector<int64_t> reversed_;  // bit-reversed index of each k < m
  // Bluestein: chirp_j = exp(-pi i j^2 / n), and the transform of the
  // conjugate chirp laid out for a circular convolution of length m.
  std::vector<Complex> chirp_;
  std::vector<Complex> kernel_;
};

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_DFT_H_
