// ffi-tests/test_cpp.cpp: hetla.h from C++. The header must give its functions C linkage
// (extern "C"), so that this links against libhetla at all, and must not define generic macros:
// the program defines its own M_ and NB_ (names of ScaLAPACK's descriptor entries) before
// including it, and they must survive. Then a Cholesky through the header, checked.
//
// hetla-expect: dpotrf=tiles
#define M_ 4242
#define NB_ 12345
#include "hetla.h"

#include <cmath>
#include <cstdio>
#include <vector>

static_assert(M_ == 4242 && NB_ == 12345, "hetla.h redefined a program's macro");

int main() {
    const int32_t n = 37;
    std::vector<double> a0(n * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) a0[i + j * n] = (i == j) ? n + 1.0 : 1.0 / (1.0 + i + j);
    std::vector<double> a = a0;
    int32_t info = -1;
    dpotrf_("L", &n, a.data(), &n, &info, 1);
    if (info != 0) {
        std::printf("FAIL: dpotrf_ INFO = %d\n", info);
        return 1;
    }
    double err = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double s = 0.0;
            for (int k = 0; k <= j; k++) s += a[i + k * n] * a[j + k * n];
            err = std::fmax(err, std::fabs(s - a0[i + j * n]));
        }
    if (err > 1e-12 * n) {
        std::printf("FAIL: |L*L' - A| = %g\n", err);
        return 1;
    }
    std::printf("ok: C++ through hetla.h, |L*L' - A| = %g\n", err);
    return 0;
}
