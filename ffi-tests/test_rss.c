/* ffi-tests/test_rss.c: memory stays bounded over many calls. 200 tiled dgetrf_ calls of
 * n = 1500 (tiles of 160 on the host and on devices); the resident set after the 200th call must
 * be within 10 MiB of the resident set after the 20th (a leak of one tile per call would be
 * 36 MiB). The results of calls 20 and 200 are checked against the residual bound at the end:
 * the check allocates, and the C library keeps freed memory of that size resident, so it must
 * come after both measurements (all other buffers are allocated before the first call).
 * FFI_RSS_N and FFI_RSS_CALLS change n and the number of calls (the fake-GPU runs, where a call
 * of n = 1500 takes seconds, use n = 480 and 120 calls: a leaked tile per call is then 19 MiB).
 *
 * hetla-expect: dgetrf=tiles
 * hetla-env: HETLA_NB=160 HETLA_DEVICE_NB=160
 */
#include "common.h"

#include <unistd.h>

/* Resident set size in bytes, from /proc/self/statm. */
static long rss_bytes(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    if (f) fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

int main(void) {
    int n = getenv("FFI_RSS_N") ? atoi(getenv("FFI_RSS_N")) : 1500;
    int calls = getenv("FFI_RSS_CALLS") ? atoi(getenv("FFI_RSS_CALLS")) : 200;
    int lda = n, info = -99, ipiv_ok, l_ok;
    if (n < 1 || calls < 40) {
        fprintf(stderr, "test_rss: FFI_RSS_N must be positive and FFI_RSS_CALLS at least 40\n");
        return 2;
    }
    rng_t r = {42};
    size_t sz = sizeof(double) * (size_t)lda * (size_t)n;
    double *a = mat_random(&r, n, n, lda), *f = malloc(sz), *f20 = malloc(sz);
    int32_t *ipiv = calloc((size_t)n, sizeof(int32_t)), *ipiv20 = calloc((size_t)n, sizeof(int32_t));
    int info20 = -99;
    long after20 = 0, afterlast = 0;
    memset(f20, 0, sz);
    for (int call = 1; call <= calls; call++) {
        memcpy(f, a, sz);
        dgetrf_(&n, &n, f, &lda, ipiv, &info);
        if (call == 20) {
            after20 = rss_bytes();
            memcpy(f20, f, sz);
            memcpy(ipiv20, ipiv, sizeof(int32_t) * (size_t)n);
            info20 = info;
        }
    }
    afterlast = rss_bytes();
    printf("n=%d: rss after 20 calls %.1f MiB, after %d calls %.1f MiB\n", n, after20 / 1048576.0, calls,
           afterlast / 1048576.0);
    check(after20 > 0 && afterlast - after20 <= 10L << 20, "RSS grew by %.1f MiB from call 20 to call %d",
          (afterlast - after20) / 1048576.0, calls);
    check(info20 == 0 && info == 0, "INFO %d at call 20, %d at the last call", info20, info);
    check_ratio(lu_ratio(n, n, a, f20, lda, ipiv20, &ipiv_ok, &l_ok), "dgetrf call 20", n, n);
    check_ratio(lu_ratio(n, n, a, f, lda, ipiv, &ipiv_ok, &l_ok), "dgetrf last call", n, n);
    free(f20), free(ipiv20);
    free(a), free(f), free(ipiv);
    return finish("rss");
}
