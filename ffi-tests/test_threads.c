/* ffi-tests/test_threads.c: four application threads calling hetla at the same time.
 *
 * Each pthread owns its matrices (different sizes per thread, none a multiple of the tile size,
 * LDA > M) and, released together by a barrier, runs several rounds of DPOTRF, DGETRF and DGEQRF
 * in a thread-specific order, so that calls of different routines overlap inside the library's
 * shared worker pool. Every result is checked as in the single-threaded tests: the factorization
 * residuals below 30, INFO = 0, the padding rows untouched.
 *
 * hetla-expect: dpotrf=tiles dgetrf=tiles dgeqrf=tiles
 */
#include "common.h"

#define THREADS 4
#define ROUNDS 3

static pthread_barrier_t g_start;

static void one_potrf(rng_t *r, int t, int n) {
    int lda = n + 2, info = -99;
    char uplo = "LU"[t % 2];
    double *a = mat_spd(r, n, lda), *f = mat_copy(a, lda, n);
    dpotrf_(&uplo, &n, f, &lda, &info, 1);
    check(info == 0, "thread %d dpotrf n=%d: INFO=%d", t, n, info);
    check_ratio(potrf_ratio(uplo, n, a, f, lda), "threaded dpotrf", n, n);
    check(padding_untouched(f, n, n, lda), "thread %d dpotrf n=%d: wrote padding", t, n);
    free(a);
    free(f);
}

static void one_getrf(rng_t *r, int t, int m, int n) {
    int lda = m + 3, info = -99, ipiv_ok, l_ok;
    int32_t *ipiv = calloc((size_t)MIN(m, n), sizeof(int32_t));
    double *a = mat_random(r, m, n, lda), *f = mat_copy(a, lda, n);
    dgetrf_(&m, &n, f, &lda, ipiv, &info);
    check(info == 0, "thread %d dgetrf m=%d n=%d: INFO=%d", t, m, n, info);
    check_ratio(lu_ratio(m, n, a, f, lda, ipiv, &ipiv_ok, &l_ok), "threaded dgetrf", m, n);
    check(ipiv_ok && l_ok, "thread %d dgetrf m=%d n=%d: bad IPIV or |L| > 1", t, m, n);
    check(padding_untouched(f, m, n, lda), "thread %d dgetrf: wrote padding", t);
    free(a);
    free(f);
    free(ipiv);
}

static void one_geqrf(rng_t *r, int t, int m, int n) {
    int lda = m + 1, info = -99, lwork = -1;
    double query = 0.0, res, orth;
    double *a = mat_random(r, m, n, lda), *f = mat_copy(a, lda, n), *tau = malloc(sizeof(double) * (size_t)MIN(m, n));
    dgeqrf_(&m, &n, f, &lda, tau, &query, &lwork, &info);
    lwork = MAX((int)query, n);
    double *work = malloc(sizeof(double) * (size_t)lwork);
    dgeqrf_(&m, &n, f, &lda, tau, work, &lwork, &info);
    check(info == 0, "thread %d dgeqrf m=%d n=%d: INFO=%d", t, m, n, info);
    check(qr_ratios(m, n, a, f, lda, tau, &res, &orth) == 0, "thread %d dorgqr failed", t);
    check_ratio(res, "threaded dgeqrf A-QR", m, n);
    check_ratio(orth, "threaded dgeqrf I-QtQ", m, n);
    check(padding_untouched(f, m, n, lda), "thread %d dgeqrf: wrote padding", t);
    free(a);
    free(f);
    free(tau);
    free(work);
}

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    rng_t r = {1000 + (uint64_t)t};
    pthread_barrier_wait(&g_start);
    for (int round = 0; round < ROUNDS; round++)
        for (int step = 0; step < 3; step++)
            switch ((step + t) % 3) {
            case 0: one_potrf(&r, t, 61 + 7 * t); break;
            case 1: one_getrf(&r, t, 53 + 5 * t, 47 - 3 * t); break;
            default: one_geqrf(&r, t, 70 - 4 * t, 40 + 3 * t); break;
            }
    return NULL;
}

int main(void) {
    pthread_t th[THREADS];
    pthread_barrier_init(&g_start, NULL, THREADS);
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&g_start);
    return finish("test_threads");
}
