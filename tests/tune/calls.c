/* tests/tune/calls.c: `calls N K` makes K dgetrf_ calls of order N on the same random matrix
 * (seeded), checks every result against the residual bound and that every call returns the same
 * bits as the first (factors and pivots), and prints the first call's factors' checksum
 * (`bits=<hex>`, so that runs in other processes can be compared); run by tests/tune/run.sh,
 * which reads the verbose lines to see which path each call took. */
#include "common.h"

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000, calls = argc > 2 ? atoi(argv[2]) : 1, lda = n, info = 0;
    int ipiv_ok, l_ok;
    rng_t r = {7};
    double *a = mat_random(&r, n, n, lda), *f = malloc(sizeof(double) * (size_t)lda * (size_t)n);
    int32_t *ipiv = calloc((size_t)n, sizeof(int32_t)), *ipiv1 = calloc((size_t)n, sizeof(int32_t));
    double *f1 = malloc(sizeof(double) * (size_t)lda * (size_t)n);
    size_t bytes = sizeof(double) * (size_t)lda * (size_t)n;
    for (int c = 1; c <= calls; c++) {
        memcpy(f, a, bytes);
        dgetrf_(&n, &n, f, &lda, ipiv, &info);
        check(info == 0, "call %d: INFO %d", c, info);
        check_ratio(lu_ratio(n, n, a, f, lda, ipiv, &ipiv_ok, &l_ok), "dgetrf", n, n);
        if (c == 1) {
            memcpy(f1, f, bytes);
            memcpy(ipiv1, ipiv, sizeof(int32_t) * (size_t)n);
        } else {
            check(memcmp(f, f1, bytes) == 0 && memcmp(ipiv, ipiv1, sizeof(int32_t) * (size_t)n) == 0,
                  "call %d: other bits than the first call's", c);
        }
    }
    /* FNV-1a over the first call's factors and pivots. */
    unsigned long long h = 0xcbf29ce484222325ULL;
    const unsigned char *p = (const unsigned char *)f1;
    for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    p = (const unsigned char *)ipiv1;
    for (size_t i = 0; i < sizeof(int32_t) * (size_t)n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    printf("bits=%016llx\n", h);
    free(a), free(f), free(f1), free(ipiv), free(ipiv1);
    return finish("tune");
}
