/* ffi-tests/test_getrf.c: DGETRF, DGETRS and DGESV called from C through hetla.h.
 *
 * Checks, on square, tall and wide matrices whose sizes are not multiples of the tile size, with
 * LDA > M:
 *   - DGETRF: every IPIV(i) in [i, M] (LAPACK's interchange sequence), |L(i,j)| <= 1 (partial
 *     pivoting), ‖P·A − L·U‖₁ / (max(m,n)·‖A‖₁·eps) < 30 where P·A is built by applying IPIV's
 *     interchanges in order to the input, padding untouched; on exactly singular matrices (a zero
 *     column, an all-ones matrix) INFO equals the reference's and the factorization is still
 *     complete (LAPACK goes on past a zero pivot);
 *   - DGETRS with TRANS = N and T: dget02's solve residual;
 *   - DGESV: the solve residual, INFO on a singular matrix as the reference's;
 *   - argument errors (INFO = -pos, one xerbla_ call) and M = 0 / N = 0 quick returns.
 *
 * hetla-expect: dgetrf=tiles dgetrs=tiles dgesv=tiles
 */
#include "common.h"

/* lu_ratio with its IPIV and |L| <= 1 checks recorded. */
static double checked_lu_ratio(int m, int n, const double *a, const double *f, int lda, const int32_t *ipiv,
                               const char *what) {
    int ipiv_ok, l_ok;
    double ratio = lu_ratio(m, n, a, f, lda, ipiv, &ipiv_ok, &l_ok);
    check(ipiv_ok, "%s m=%d n=%d: IPIV(i) outside [i, M]", what, m, n);
    check(l_ok, "%s m=%d n=%d: |L(i,j)| > 1, not partial pivoting", what, m, n);
    return ratio;
}

static void test_dgetrf(rng_t *r) {
    static const int SHAPES[][2] = {{1, 1}, {1, 5}, {5, 1}, {37, 37}, {50, 29}, {29, 50}, {50, 50}};
    for (size_t s = 0; s < sizeof SHAPES / sizeof *SHAPES; s++) {
        int m = SHAPES[s][0], n = SHAPES[s][1], lda = m + 3, info = -99;
        int32_t *ipiv = calloc((size_t)MIN(m, n), sizeof(int32_t));
        double *a = mat_random(r, m, n, lda), *f = mat_copy(a, lda, n);
        dgetrf_(&m, &n, f, &lda, ipiv, &info);
        check(info == 0, "dgetrf m=%d n=%d: INFO=%d on a random matrix", m, n, info);
        check_ratio(checked_lu_ratio(m, n, a, f, lda, ipiv, "dgetrf"), "dgetrf", m, n);
        check(padding_untouched(f, m, n, lda), "dgetrf m=%d n=%d: wrote rows past M", m, n);

        /* Exactly singular inputs: a zero column c (U(c,c) = 0 exactly), an all-ones matrix
         * (U(2,2) = 0 exactly). INFO as the reference, factorization still complete. */
        for (int t = 0; t < 3; t++) {
            int ref_info = -99;
            double *z = mat_copy(a, lda, n), *zr;
            int32_t *ipr = calloc((size_t)MIN(m, n), sizeof(int32_t));
            if (t < 2) {
                int c = t == 0 ? n / 2 : MIN(n - 1, 9);
                for (int i = 0; i < m; i++) AT(z, lda, i, c) = 0.0;
            } else {
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < m; i++) AT(z, lda, i, j) = 1.0;
            }
            zr = mat_copy(z, lda, n);
            double *orig = mat_copy(z, lda, n);
            dgetrf_(&m, &n, z, &lda, ipiv, &info);
            REF(dgetrf)(&m, &n, zr, &lda, ipr, &ref_info);
            check(info == ref_info, "dgetrf m=%d n=%d singular case %d: INFO=%d, reference %d", m, n, t, info, ref_info);
            check_ratio(checked_lu_ratio(m, n, orig, z, lda, ipiv, "dgetrf singular"), "dgetrf singular", m, n);
            free(z); free(zr); free(orig); free(ipr);
        }
        free(a); free(f); free(ipiv);
    }
}

static void test_dgetrs_dgesv(rng_t *r) {
    static const int SIZES[] = {1, 7, 37, 50};
    for (size_t s = 0; s < sizeof SIZES / sizeof *SIZES; s++) {
        int n = SIZES[s], lda = n + 3, ldb = n + 1, nrhs = 4, info = -99;
        int32_t *ipiv = calloc((size_t)n, sizeof(int32_t));
        double *a = mat_random(r, n, n, lda), *b = mat_random(r, n, nrhs, ldb);

        double *f = mat_copy(a, lda, n);
        dgetrf_(&n, &n, f, &lda, ipiv, &info);
        for (int t = 0; t < 2; t++) {
            char trans = "NT"[t];
            double *x = mat_copy(b, ldb, nrhs);
            dgetrs_(&trans, &n, &nrhs, f, &lda, ipiv, x, &ldb, &info, 1);
            check(info == 0, "dgetrs trans=%c n=%d: INFO=%d", trans, n, info);
            check_ratio(solve_ratio(t, n, nrhs, a, lda, x, ldb, b, ldb), trans == 'N' ? "dgetrs N" : "dgetrs T", n, nrhs);
            check(padding_untouched(x, n, nrhs, ldb), "dgetrs n=%d: wrote rows of B past N", n);
            free(x);
        }

        double *g = mat_copy(a, lda, n), *y = mat_copy(b, ldb, nrhs);
        dgesv_(&n, &nrhs, g, &lda, ipiv, y, &ldb, &info);
        check(info == 0, "dgesv n=%d: INFO=%d", n, info);
        check_ratio(solve_ratio(0, n, nrhs, a, lda, y, ldb, b, ldb), "dgesv", n, nrhs);
        check_ratio(checked_lu_ratio(n, n, a, g, lda, ipiv, "dgesv"), "dgesv factor", n, n);
        check(padding_untouched(g, n, n, lda) && padding_untouched(y, n, nrhs, ldb), "dgesv n=%d: wrote padding", n);

        /* Singular: a zero column; INFO as the reference's. */
        int ref_info = -99, c = n / 3;
        int32_t *ipr = calloc((size_t)n, sizeof(int32_t));
        double *h = mat_copy(a, lda, n), *hr, *z = mat_copy(b, ldb, nrhs), *zr = mat_copy(b, ldb, nrhs);
        for (int i = 0; i < n; i++) AT(h, lda, i, c) = 0.0;
        hr = mat_copy(h, lda, n);
        dgesv_(&n, &nrhs, h, &lda, ipiv, z, &ldb, &info);
        REF(dgesv)(&n, &nrhs, hr, &lda, ipr, zr, &ldb, &ref_info);
        check(info == ref_info && info == c + 1, "dgesv n=%d singular at %d: INFO=%d, reference %d", n, c + 1, info, ref_info);

        free(a); free(b); free(f); free(g); free(y); free(h); free(hr); free(z); free(zr);
        free(ipiv); free(ipr);
    }
}

static void test_edges(void) {
    double a[25] = {0}, b[5] = {0};
    int32_t ipiv[5] = {0};
    int info = -99, zero = 0, one = 1, three = 3, five = 5, four = 4, minus = -1;

    dgetrf_(&zero, &three, a, &one, ipiv, &info);
    check(info == 0, "dgetrf m=0: INFO=%d", info);
    dgetrf_(&three, &zero, a, &three, ipiv, &info);
    check(info == 0, "dgetrf n=0: INFO=%d", info);
    dgesv_(&zero, &one, a, &one, ipiv, b, &one, &info);
    check(info == 0, "dgesv n=0: INFO=%d", info);
    a[0] = 0.0;
    dgetrf_(&one, &one, a, &one, ipiv, &info);
    check(info == 1 && ipiv[0] == 1, "dgetrf 1x1 zero: INFO=%d IPIV=%d, want 1 and 1", info, ipiv[0]);

    xerbla_reset();
    dgetrf_(&minus, &one, a, &one, ipiv, &info);
    check_arg_error("DGETRF", 1, info);
    dgetrf_(&one, &minus, a, &one, ipiv, &info);
    check_arg_error("DGETRF", 2, info);
    dgetrf_(&five, &five, a, &four, ipiv, &info);
    check_arg_error("DGETRF", 4, info);
    dgetrs_("X", &one, &one, a, &one, ipiv, b, &one, &info, 1);
    check_arg_error("DGETRS", 1, info);
    dgetrs_("N", &five, &one, a, &five, ipiv, b, &four, &info, 1);
    check_arg_error("DGETRS", 8, info);
    dgesv_(&minus, &one, a, &one, ipiv, b, &one, &info);
    check_arg_error("DGESV", 1, info);
    dgesv_(&five, &one, a, &four, ipiv, b, &five, &info);
    check_arg_error("DGESV", 4, info);
    dgesv_(&five, &one, a, &five, ipiv, b, &four, &info);
    check_arg_error("DGESV", 7, info);
}

int main(void) {
    rng_t r = {777};
    test_dgetrf(&r);
    test_dgetrs_dgesv(&r);
    test_edges();
    return finish("test_getrf");
}
