/* tests/tune/calls.c: `calls N K` makes K dgetrf_ calls of order N on the same random matrix
 * (seeded) and checks every result against the residual bound; run by tests/tune/run.sh, which
 * reads the verbose lines to see which path each call took. */
#include "common.h"

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000, calls = argc > 2 ? atoi(argv[2]) : 1, lda = n, info = 0;
    int ipiv_ok, l_ok;
    rng_t r = {7};
    double *a = mat_random(&r, n, n, lda), *f = malloc(sizeof(double) * (size_t)lda * (size_t)n);
    int32_t *ipiv = calloc((size_t)n, sizeof(int32_t));
    for (int c = 1; c <= calls; c++) {
        memcpy(f, a, sizeof(double) * (size_t)lda * (size_t)n);
        dgetrf_(&n, &n, f, &lda, ipiv, &info);
        check(info == 0, "call %d: INFO %d", c, info);
        check_ratio(lu_ratio(n, n, a, f, lda, ipiv, &ipiv_ok, &l_ok), "dgetrf", n, n);
    }
    free(a), free(f), free(ipiv);
    return finish("tune");
}
