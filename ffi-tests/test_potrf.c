/* ffi-tests/test_potrf.c: DPOTRF, DPOTRS and DPOSV called from C through hetla.h.
 *
 * Checks, for both triangles, sizes that are not multiples of the tile size and LDA > N:
 *   - DPOTRF: ‖A − L·Lᵀ‖₁ (or ‖A − Uᵀ·U‖₁) / (n·‖A‖₁·eps) < 30, the other triangle and the
 *     padding rows untouched; INFO for a matrix that is not positive definite equals both the
 *     reference's and the order of the first failing leading minor;
 *   - DPOTRS: the solve residual of dget02, A and B's padding untouched;
 *   - DPOSV: the solve residual and the factor residual, INFO on a non-SPD matrix as the
 *     reference's;
 *   - argument errors: INFO = -pos and one xerbla_ call, as LAPACK; N = 0 quick returns.
 *
 * hetla-expect: dpotrf=tiles dpotrs=tiles dposv=tiles
 */
#include "common.h"

static const int SIZES[] = {1, 7, 37, 50};

/* The triangle that DPOTRF must not reference is still the input's. */
static int other_triangle_untouched(char uplo, int n, const double *a, const double *f, int lda) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (((uplo == 'L' && i < j) || (uplo == 'U' && i > j)) && AT(f, lda, i, j) != AT(a, lda, i, j))
                return 0;
    return 1;
}

static void test_dpotrf(rng_t *r) {
    for (int u = 0; u < 2; u++) {
        char uplo = "LU"[u];
        for (size_t s = 0; s < sizeof SIZES / sizeof *SIZES; s++) {
            int n = SIZES[s], lda = n + 3, info = -99;
            double *a = mat_spd(r, n, lda), *f = mat_copy(a, lda, n);
            dpotrf_(&uplo, &n, f, &lda, &info, 1);
            check(info == 0, "dpotrf uplo=%c n=%d: INFO=%d on an SPD matrix", uplo, n, info);
            check_ratio(potrf_ratio(uplo, n, a, f, lda), uplo == 'L' ? "dpotrf L" : "dpotrf U", n, n);
            check(other_triangle_untouched(uplo, n, a, f, lda), "dpotrf uplo=%c n=%d: wrote the other triangle", uplo, n);
            check(padding_untouched(f, n, n, lda), "dpotrf uplo=%c n=%d: wrote rows past N", uplo, n);

            /* Not positive definite from leading minor k+1 on: INFO = k+1, as the reference. */
            int ks[] = {0, 8, n / 2, n - 1};
            for (int t = 0; t < 4; t++) {
                int k = ks[t], ref_info = -99;
                if (k >= n) continue;
                double *bad = mat_copy(a, lda, n), *bad_ref;
                AT(bad, lda, k, k) = -1.0;
                bad_ref = mat_copy(bad, lda, n);
                dpotrf_(&uplo, &n, bad, &lda, &info, 1);
                REF(dpotrf)(&uplo, &n, bad_ref, &lda, &ref_info, 1);
                check(info == ref_info && info == k + 1,
                      "dpotrf uplo=%c n=%d not SPD at %d: INFO=%d, reference %d", uplo, n, k + 1, info, ref_info);
                check(padding_untouched(bad, n, n, lda), "dpotrf uplo=%c n=%d (not SPD): wrote rows past N", uplo, n);
                free(bad);
                free(bad_ref);
            }
            free(a);
            free(f);
        }
    }
}

static void test_dpotrs_dposv(rng_t *r) {
    for (int u = 0; u < 2; u++) {
        char uplo = "UL"[u];
        for (size_t s = 0; s < sizeof SIZES / sizeof *SIZES; s++) {
            int n = SIZES[s], lda = n + 3, ldb = n + 2, nrhs = 3, info = -99;
            double *a = mat_spd(r, n, lda), *b = mat_random(r, n, nrhs, ldb);

            /* DPOTRS on DPOTRF's factor. */
            double *f = mat_copy(a, lda, n), *x = mat_copy(b, ldb, nrhs);
            dpotrf_(&uplo, &n, f, &lda, &info, 1);
            double *f_before = mat_copy(f, lda, n);
            dpotrs_(&uplo, &n, &nrhs, f, &lda, x, &ldb, &info, 1);
            check(info == 0, "dpotrs uplo=%c n=%d: INFO=%d", uplo, n, info);
            check_ratio(solve_ratio(0, n, nrhs, a, lda, x, ldb, b, ldb), "dpotrs", n, nrhs);
            check(memcmp(f, f_before, sizeof(double) * (size_t)lda * n) == 0, "dpotrs n=%d: changed A", n);
            check(padding_untouched(x, n, nrhs, ldb), "dpotrs n=%d: wrote rows of B past N", n);

            /* DPOSV: the solution, and the factor it leaves in A. */
            double *g = mat_copy(a, lda, n), *y = mat_copy(b, ldb, nrhs);
            dposv_(&uplo, &n, &nrhs, g, &lda, y, &ldb, &info, 1);
            check(info == 0, "dposv uplo=%c n=%d: INFO=%d", uplo, n, info);
            check_ratio(solve_ratio(0, n, nrhs, a, lda, y, ldb, b, ldb), "dposv solve", n, nrhs);
            check_ratio(potrf_ratio(uplo, n, a, g, lda), "dposv factor", n, n);
            check(padding_untouched(g, n, n, lda) && padding_untouched(y, n, nrhs, ldb), "dposv n=%d: wrote padding", n);

            /* DPOSV on a matrix that is not positive definite: INFO as the reference's. */
            int k = n / 2, ref_info = -99;
            double *h = mat_copy(a, lda, n), *hr, *z = mat_copy(b, ldb, nrhs), *zr = mat_copy(b, ldb, nrhs);
            AT(h, lda, k, k) = -2.0;
            hr = mat_copy(h, lda, n);
            dposv_(&uplo, &n, &nrhs, h, &lda, z, &ldb, &info, 1);
            REF(dposv)(&uplo, &n, &nrhs, hr, &lda, zr, &ldb, &ref_info, 1);
            check(info == ref_info && info == k + 1, "dposv uplo=%c n=%d not SPD: INFO=%d, reference %d", uplo, n, info, ref_info);

            free(a); free(b); free(f); free(x); free(f_before); free(g); free(y);
            free(h); free(hr); free(z); free(zr);
        }
    }
}

static void test_edges(void) {
    double a[16] = {4.0}, b[4] = {2.0};
    int info = -99, zero = 0, one = 1, five = 5, four = 4, minus = -1;

    /* N = 0: nothing to do, INFO = 0, LDA = 1 is legal. */
    dpotrf_("L", &zero, a, &one, &info, 1);
    check(info == 0, "dpotrf n=0: INFO=%d", info);
    dposv_("U", &zero, &one, a, &one, b, &one, &info, 1);
    check(info == 0, "dposv n=0: INFO=%d", info);
    /* N = 1: sqrt of the single element. */
    dpotrf_("U", &one, a, &one, &info, 1);
    check(info == 0 && a[0] == 2.0, "dpotrf n=1: INFO=%d a=%g, want 0 and 2", info, a[0]);

    /* Argument errors, each reported through xerbla_ with LAPACK's position. */
    xerbla_reset();
    dpotrf_("X", &one, a, &one, &info, 1);
    check_arg_error("DPOTRF", 1, info);
    dpotrf_("L", &minus, a, &one, &info, 1);
    check_arg_error("DPOTRF", 2, info);
    dpotrf_("L", &five, a, &four, &info, 1);
    check_arg_error("DPOTRF", 4, info);
    dpotrs_("L", &one, &minus, a, &one, b, &one, &info, 1);
    check_arg_error("DPOTRS", 3, info);
    dpotrs_("U", &five, &one, a, &five, b, &four, &info, 1);
    check_arg_error("DPOTRS", 7, info);
    dposv_("L", &five, &one, a, &four, b, &five, &info, 1);
    check_arg_error("DPOSV", 5, info);
    dposv_("q", &one, &one, a, &one, b, &one, &info, 1);
    check_arg_error("DPOSV", 1, info);
}

int main(void) {
    rng_t r = {20240601};
    test_dpotrf(&r);
    test_dpotrs_dposv(&r);
    test_edges();
    return finish("test_potrf");
}
