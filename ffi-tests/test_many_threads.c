/* ffi-tests/test_many_threads.c: sixteen application threads calling dgetrf_ at the same time,
 * each on matrices of its own sizes (not multiples of the tile size), several rounds. Every call
 * must give the reference's pivots and INFO (OpenBLAS's dgetrf_, taken by dlsym) and a small
 * residual; the library's one worker pool serves all of them.
 *
 * hetla-expect: dgetrf=tiles
 */
#include "common.h"

#define THREADS 16
#define ROUNDS 4

typedef void (*getrf_fn)(const int32_t *, const int32_t *, double *, const int32_t *, int32_t *, int32_t *);

static pthread_barrier_t g_start;
static getrf_fn g_ref;

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    rng_t r = {0x9e3779b97f4a7c15ull * (uint64_t)(t + 1)};
    pthread_barrier_wait(&g_start);
    for (int round = 0; round < ROUNDS; round++) {
        int m = 37 + 11 * t + 5 * round, n = 29 + 7 * t + 3 * round, lda = m + 1;
        int k = MIN(m, n), info = -99, rinfo = -99, ipiv_ok, l_ok;
        int32_t *ipiv = calloc((size_t)k, sizeof(int32_t)), *rpiv = calloc((size_t)k, sizeof(int32_t));
        double *a = mat_random(&r, m, n, lda), *f = mat_copy(a, lda, n), *g = mat_copy(a, lda, n);
        dgetrf_(&m, &n, f, &lda, ipiv, &info);
        g_ref(&m, &n, g, &lda, rpiv, &rinfo);
        check(info == rinfo, "thread %d round %d: INFO %d, reference %d", t, round, info, rinfo);
        check(memcmp(ipiv, rpiv, sizeof(int32_t) * (size_t)k) == 0, "thread %d round %d m=%d n=%d: pivots differ from the reference", t,
              round, m, n);
        check_ratio(lu_ratio(m, n, a, f, lda, ipiv, &ipiv_ok, &l_ok), "concurrent dgetrf", m, n);
        check(padding_untouched(f, m, n, lda), "thread %d dgetrf: wrote padding", t);
        free(a), free(f), free(g), free(ipiv), free(rpiv);
    }
    return NULL;
}

int main(void) {
    g_ref = (getrf_fn)ref_sym("dgetrf_");
    pthread_t th[THREADS];
    pthread_barrier_init(&g_start, NULL, THREADS);
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    return finish("many_threads");
}
