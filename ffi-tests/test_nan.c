/* ffi-tests/test_nan.c: NaN inputs make every routine return, never hang or crash.
 *
 * A NaN in the input must not stall the task runtime (a failed task must not leave its
 * dependents waiting) nor bring the process down. run.sh runs this under `timeout`. Each of the
 * eight routines gets a matrix with a NaN, through the tile path, and must return with an INFO
 * that is neither an argument error nor hetla's runtime-failure code: 0 <= INFO <= N.
 * (INFO itself is not compared with the reference: OpenBLAS 0.3.21 reports NaN pivots of DPOTRF
 * inconsistently, INFO = 0 or > 0 depending on its internal path, where reference LAPACK 3.11
 * always reports them.)
 *
 * hetla-expect: dpotrf=tiles dpotrs=tiles dposv=tiles dgetrf=tiles dgetrs=tiles dgesv=tiles dgeqrf=tiles dgels=tiles
 */
#include "common.h"

int main(void) {
    rng_t r = {31337};
    int n = 37, lda = 39, ldb = 38, nrhs = 2, info, lwork = 4096;
    int32_t ipiv[37];
    double tau[37], *work = malloc(sizeof(double) * (size_t)lwork);
    double *spd = mat_spd(&r, n, lda), *gen = mat_random(&r, n, n, lda), *b = mat_random(&r, n, nrhs, ldb);

    /* DPOTRF: NaN at (0,0), (20,20) and off the diagonal at (30,5) (in the triangle read). */
    static const int SPOTS[][2] = {{0, 0}, {20, 20}, {30, 5}};
    for (int u = 0; u < 2; u++)
        for (int s = 0; s < 3; s++) {
            char uplo = "LU"[u];
            int i = SPOTS[s][0], j = SPOTS[s][1];
            double *f = mat_copy(spd, lda, n);
            if (uplo == 'L') AT(f, lda, i, j) = NAN; else AT(f, lda, j, i) = NAN;
            info = -99;
            dpotrf_(&uplo, &n, f, &lda, &info, 1);
            check(info >= 0 && info <= n, "dpotrf uplo=%c NaN at (%d,%d): INFO=%d", uplo, i, j, info);
            free(f);
        }

    /* The others: they return, INFO is not an argument error. */
    double *f = mat_copy(gen, lda, n), *x = mat_copy(b, ldb, nrhs);
    AT(f, lda, 10, 12) = NAN;
    dgetrf_(&n, &n, f, &lda, ipiv, &info);
    check(info >= 0 && info <= n, "dgetrf with NaN: INFO=%d", info);
    dgetrs_("N", &n, &nrhs, f, &lda, ipiv, x, &ldb, &info, 1);
    check(info == 0, "dgetrs with NaN factors: INFO=%d", info);
    memcpy(f, gen, sizeof(double) * (size_t)lda * n);
    AT(f, lda, 3, 3) = NAN;
    dgesv_(&n, &nrhs, f, &lda, ipiv, x, &ldb, &info);
    check(info >= 0 && info <= n, "dgesv with NaN: INFO=%d", info);

    memcpy(f, spd, sizeof(double) * (size_t)lda * n);
    memcpy(x, b, sizeof(double) * (size_t)ldb * nrhs);
    AT(x, ldb, 5, 1) = NAN;
    dposv_("L", &n, &nrhs, f, &lda, x, &ldb, &info, 1);
    check(info == 0, "dposv with NaN in B: INFO=%d", info);
    dpotrs_("L", &n, &nrhs, f, &lda, x, &ldb, &info, 1);
    check(info == 0, "dpotrs with NaN in B: INFO=%d", info);
    memcpy(f, spd, sizeof(double) * (size_t)lda * n);
    AT(f, lda, 25, 2) = NAN;
    dposv_("L", &n, &nrhs, f, &lda, x, &ldb, &info, 1);
    check(info >= 0 && info <= n, "dposv with NaN in A: INFO=%d", info);

    memcpy(f, gen, sizeof(double) * (size_t)lda * n);
    AT(f, lda, 17, 9) = NAN;
    dgeqrf_(&n, &n, f, &lda, tau, work, &lwork, &info);
    check(info == 0, "dgeqrf with NaN: INFO=%d", info);
    memcpy(f, gen, sizeof(double) * (size_t)lda * n);
    AT(f, lda, 0, 30) = NAN;
    memcpy(x, b, sizeof(double) * (size_t)ldb * nrhs);
    dgels_("N", &n, &n, &nrhs, f, &lda, x, &ldb, work, &lwork, &info, 1);
    check(info >= 0 && info <= n, "dgels with NaN: INFO=%d", info);

    free(spd); free(gen); free(b); free(f); free(x); free(work);
    return finish("test_nan");
}
