/* ffi-tests/test_blas_threads.c: hetla leaves the application's BLAS thread setting alone.
 *
 * hetla runs its workers' kernels on single-threaded BLAS and must restore the application's
 * OpenBLAS thread count on return (ARCHITECTURE.md, decision 2). The program sets
 * openblas_set_num_threads(2), then calls each of the eight routines once (successful calls, a
 * failing one, and an argument error) and, after each call, checks that
 * openblas_get_num_threads() still reports what it did before the first call; then the same
 * after two application threads called dpotrf at once. The OpenBLAS functions are looked up in
 * the process (the program links only -llapack, whose OpenBLAS provides them).
 *
 * hetla-expect: dpotrf=tiles dpotrs=tiles dposv=tiles dgetrf=tiles dgetrs=tiles dgesv=tiles dgeqrf=tiles dgels=tiles
 */
#include "common.h"

typedef void (*set_fn)(int);
typedef int (*get_fn)(void);
static get_fn g_get;
static int g_want;

static void after(const char *what) {
    int now = g_get();
    check(now == g_want, "after %s: openblas_get_num_threads() = %d, was %d", what, now, g_want);
}

static void *potrf_thread(void *arg) {
    rng_t r = {(uint64_t)(intptr_t)arg};
    int n = 45, lda = 46, info = -99;
    double *a = mat_spd(&r, n, lda), *f = mat_copy(a, lda, n);
    dpotrf_("L", &n, f, &lda, &info, 1);
    check(info == 0 && potrf_ratio('L', n, a, f, lda) < THRESH, "concurrent dpotrf failed (INFO=%d)", info);
    free(a);
    free(f);
    return NULL;
}

int main(void) {
    set_fn set = (set_fn)dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    g_get = (get_fn)dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    if (!set || !g_get) {
        printf("FAIL test_blas_threads: openblas_set/get_num_threads not found in the process\n");
        return 1;
    }
    set(2);
    g_want = g_get();
    check(g_want >= 1, "openblas_get_num_threads() = %d after set(2)", g_want);

    rng_t r = {99};
    int n = 37, lda = 40, ldb = 39, nrhs = 2, info, lwork = 4096, one = 1, minus = -1;
    int32_t ipiv[37];
    double *work = malloc(sizeof(double) * (size_t)lwork), tau[37];
    double *a = mat_spd(&r, n, lda), *b = mat_random(&r, n, nrhs, ldb);
    double *f = mat_copy(a, lda, n), *x = mat_copy(b, ldb, nrhs);

    dpotrf_("U", &n, f, &lda, &info, 1);
    after("dpotrf");
    dpotrs_("U", &n, &nrhs, f, &lda, x, &ldb, &info, 1);
    after("dpotrs");
    check_ratio(solve_ratio(0, n, nrhs, a, lda, x, ldb, b, ldb), "dpotrs", n, nrhs);
    memcpy(f, a, sizeof(double) * (size_t)lda * n);
    memcpy(x, b, sizeof(double) * (size_t)ldb * nrhs);
    dposv_("L", &n, &nrhs, f, &lda, x, &ldb, &info, 1);
    after("dposv");
    memcpy(f, a, sizeof(double) * (size_t)lda * n);
    AT(f, lda, 20, 20) = -1.0;
    dpotrf_("L", &n, f, &lda, &info, 1);
    check(info == 21, "dpotrf not SPD: INFO=%d, want 21", info);
    after("dpotrf on a matrix that is not SPD");
    xerbla_reset();
    dpotrf_("L", &minus, f, &lda, &info, 1);
    check_arg_error("DPOTRF", 2, info);
    after("dpotrf with a bad argument");

    memcpy(f, a, sizeof(double) * (size_t)lda * n);
    dgetrf_(&n, &n, f, &lda, ipiv, &info);
    after("dgetrf");
    memcpy(x, b, sizeof(double) * (size_t)ldb * nrhs);
    dgetrs_("T", &n, &nrhs, f, &lda, ipiv, x, &ldb, &info, 1);
    after("dgetrs");
    memcpy(f, a, sizeof(double) * (size_t)lda * n);
    memcpy(x, b, sizeof(double) * (size_t)ldb * nrhs);
    dgesv_(&n, &nrhs, f, &lda, ipiv, x, &ldb, &info);
    after("dgesv");
    check_ratio(solve_ratio(0, n, nrhs, a, lda, x, ldb, b, ldb), "dgesv", n, nrhs);

    memcpy(f, a, sizeof(double) * (size_t)lda * n);
    dgeqrf_(&n, &n, f, &lda, tau, work, &lwork, &info);
    after("dgeqrf");
    memcpy(f, a, sizeof(double) * (size_t)lda * n);
    memcpy(x, b, sizeof(double) * (size_t)ldb * nrhs);
    dgels_("N", &n, &n, &nrhs, f, &lda, x, &ldb, work, &lwork, &info, 1);
    after("dgels");
    (void)one;

    pthread_t th[2];
    for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, potrf_thread, (void *)(intptr_t)(t + 5));
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    after("two concurrent dpotrf calls");

    free(work); free(a); free(b); free(f); free(x);
    return finish("test_blas_threads");
}
