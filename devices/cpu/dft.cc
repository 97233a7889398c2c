#include "devices/cpu/dft.h"

#include <cmath>
#include <utility>

namespace symx {
namespace cpu {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// exp(-2 pi i num / den) with num reduced modulo den first.
std::complex<double> Twiddle(int64_t num, int64_t den) {
  const double a = -2.0 * kPi * static_cast<double>(num % den) / static_cast<double>(den);
  return {std::cos(a), std::sin(a)};
}

}  // namespace

DftPlan::DftPlan(int64_t n) : n_(n), pow2_(IsPowerOfTwo(n)) {
  if (n_ <= 1) return;
  m_ = 1;
  while (m_ < (pow2_ ? n_ : 2 * n_ - 1)) m_ *= 2;
  twiddles_.resize(m_ / 2);
  for (int64_t k = 0; k < m_ / 2; ++k) twiddles_[k] = Twiddle(k, m_);
  reversed_.resize(m_);
  int bits = 0;
  while ((int64_t{1} << bits) < m_) ++bits;
  for (int64_t k = 0; k < m_; ++k) {
    int64_t r = 0;
    for (int b = 0; b < bits; ++b) r |= ((k >> b) & 1) << (bits - 1 - b);
    reversed_[k] = r;
  }
  if (pow2_) return;
  // exp(-pi i j^2 / n) = exp(-2 pi i (j^2 mod 2n) / 2n).
  chirp_.resize(n_);
  for (int64_t j = 0; j < n_; ++j) chirp_[j] = Twiddle((j * j) % (2 * n_), 2 * n_);
  kernel_.assign(m_, Complex(0, 0));
  kernel_[0] = std::conj(chirp_[0]);
  for (int64_t j = 1; j < n_; ++j) kernel_[j] = kernel_[m_ - j] = std::conj(chirp_[j]);
  Radix2(kernel_.data(), twiddles_, reversed_);
}

void DftPlan::Radix2(Complex* data, const std::vector<Complex>& twiddles,
                     const std::vector<int64_t>& reversed) {
  const int64_t m = static_cast<int64_t>(reversed.size());
  for (int64_t k = 0; k < m; ++k) {
    if (k < reversed[k]) std::swap(data[k], data[reversed[k]]);
  }
  for (int64_t len = 2; len <= m; len *= 2) {
    const int64_t half = len / 2, step = m / len;
    for (int64_t start = 0; start < m; start += len) {
      for (int64_t k = 0; k < half; ++k) {
        const Complex t = twiddles[k * step] * data[start + k + half];
        data[start + k + half] = data[start + k] - t;
        data[start + k] += t;
      }
    }
  }
}

void DftPlan::Forward(const Complex* x, Complex* y, std::vector<Complex>* scratch) const {
  if (n_ <= 1) {
    if (n_ == 1) y[0] = x[0];
    return;
  }
  if (pow2_) {
    if (y != x) std::copy(x, x + n_, y);
    Radix2(y, twiddles_, reversed_);
    return;
  }
  // X_k = chirp_k * sum_j (x_j chirp_j) conj(chirp_{k-j}): a circular
  // convolution of length m through two power-of-two transforms.
  std::vector<Complex>& a = *scratch;
  a.assign(m_, Complex(0, 0));
  for (int64_t j = 0; j < n_; ++j) a[j] = x[j] * chirp_[j];
  Radix2(a.data(), twiddles_, reversed_);
  for (int64_t k = 0; k < m_; ++k) a[k] = std::conj(a[k] * kernel_[k]);
  // The inverse transform as the conjugate of a forward one.
  Radix2(a.data(), twiddles_, reversed_);
  const double scale = 1.0 / static_cast<double>(m_);
  for (int64_t k = 0; k < n_; ++k) y[k] = chirp_[k] * std::conj(a[k]) * scale;
}

void DftPlan::Inverse(const Complex* x, Complex* y, std::vector<Complex>* scratch) const {
  // sum_k x_k exp(+i ...) = conj(sum_k conj(x_k) exp(-i ...)).
  std::vector<Complex> conj_x(x, x + n_);
  for (Complex& v : conj_x) v = std::conj(v);
  Forward(conj_x.data(), y, scratch);
  for (int64_t k = 0; k < n_; ++k) y[k] = std::conj(y[k]);
}

}  // namespace cpu
}  // namespace symx
