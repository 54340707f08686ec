/* ffi-tests/test_qr.c: DGEQRF and DGELS called from C through hetla.h.
 *
 * Checks, on tall, square and wide matrices whose sizes are not multiples of the tile size, with
 * LDA > M:
 *   - DGEQRF returns LAPACK's format: Q is rebuilt from the reflectors below the diagonal and TAU
 *     by the reference DORGQR (plain -llapack), then ‖A − Q·R‖₁/(m·‖A‖₁·eps) < 30 and
 *     ‖I − QᵀQ‖₁/(m·eps) < 30; every TAU is 0 or in [1, 2] (DLARFG's range); the workspace query
 *     (LWORK = -1) and the minimal LWORK = N both work; padding untouched;
 *   - DGELS, TRANS = N and T, over- and underdetermined: for least squares the residual
 *     R = B − op(A)·X is orthogonal to op(A)'s columns, ‖op(A)ᵀ·R‖₁/(max(m,n,nrhs)·‖A‖₁·‖B‖₁·eps)
 *     < 30, and the rows of B past N hold R's norm; for minimum-norm problems op(A)·X = B and X
 *     equals the reference solution to working accuracy; INFO on a rank-deficient A (an exactly
 *     zero column) as the reference's;
 *   - argument errors (INFO = -pos, one xerbla_ call) and empty-matrix quick returns.
 *
 * hetla-expect: dgeqrf=tiles dgels=tiles
 */
#include "common.h"

static const int SHAPES[][2] = {{1, 1}, {5, 1}, {1, 4}, {37, 37}, {50, 29}, {29, 50}, {61, 13}};

static void test_dgeqrf(rng_t *r) {
    for (size_t s = 0; s < sizeof SHAPES / sizeof *SHAPES; s++) {
        int m = SHAPES[s][0], n = SHAPES[s][1], k = MIN(m, n), lda = m + 3, info = -99;
        for (int variant = 0; variant < 2; variant++) {
            /* variant 0: LWORK from the workspace query; variant 1: the minimal LWORK = N. */
            double *a = mat_random(r, m, n, lda), *f = mat_copy(a, lda, n);
            double *tau = malloc(sizeof(double) * (size_t)k), query = 0.0;
            int lwork = n, minus = -1;
            if (variant == 0) {
                dgeqrf_(&m, &n, f, &lda, tau, &query, &minus, &info);
                check(info == 0 && query >= MAX(1, n), "dgeqrf m=%d n=%d query: INFO=%d LWORK=%g", m, n, info, query);
                lwork = MAX((int)query, n);
            }
            double *work = malloc(sizeof(double) * (size_t)MAX(1, lwork));
            dgeqrf_(&m, &n, f, &lda, tau, work, &lwork, &info);
            check(info == 0, "dgeqrf m=%d n=%d lwork=%d: INFO=%d", m, n, lwork, info);
            check(padding_untouched(f, m, n, lda), "dgeqrf m=%d n=%d: wrote rows past M", m, n);
            int tau_ok = 1;
            for (int i = 0; i < k; i++)
                if (!(tau[i] == 0.0 || (tau[i] >= 1.0 && tau[i] <= 2.0))) tau_ok = 0;
            check(tau_ok, "dgeqrf m=%d n=%d: TAU outside {0} U [1,2]", m, n);

            /* Q from the reflectors by the reference DORGQR, then A − Q·R and I − QᵀQ. */
            double res, orth;
            int qinfo = qr_ratios(m, n, a, f, lda, tau, &res, &orth);
            check(qinfo == 0, "dorgqr after dgeqrf m=%d n=%d: INFO=%d", m, n, qinfo);
            check_ratio(res, "dgeqrf A-QR", m, n);
            check_ratio(orth, "dgeqrf I-QtQ", m, n);
            free(a); free(f); free(tau); free(work);
        }
    }
}

/* One DGELS problem: op(A) is rows×cols with rows = M or N depending on TRANS. */
static void one_dgels(rng_t *r, char trans, int m, int n, int nrhs) {
    int lda = m + 2, ldb = MAX(m, n) + 1, info = -99, ref_info = -99, minus = -1;
    int rows = trans == 'N' ? m : n, cols = trans == 'N' ? n : m; /* op(A) is rows×cols */
    double *a = mat_random(r, m, n, lda), *b = mat_random(r, rows, nrhs, ldb);
    /* Rows rows..ldb-1 of B hold SENTINEL from mat_random; X needs MAX(m,n) rows of workspace,
     * so only rows MAX(m,n)..ldb-1 must stay untouched. */
    double *f = mat_copy(a, lda, n), *x = mat_copy(b, ldb, nrhs);
    double *fr = mat_copy(a, lda, n), *xr = mat_copy(b, ldb, nrhs), query = 0.0, rq = 0.0;

    dgels_(&trans, &m, &n, &nrhs, f, &lda, x, &ldb, &query, &minus, &info, 1);
    int mn = MIN(m, n), minwork = MAX(1, mn + MAX(mn, nrhs));
    check(info == 0 && query >= minwork, "dgels %c m=%d n=%d query: INFO=%d LWORK=%g", trans, m, n, info, query);
    /* The minimal LWORK must be enough: LAPACK promises that, callers rely on it. */
    int lwork = minwork;
    double *work = malloc(sizeof(double) * (size_t)lwork);
    dgels_(&trans, &m, &n, &nrhs, f, &lda, x, &ldb, work, &lwork, &info, 1);
    check(info == 0, "dgels %c m=%d n=%d: INFO=%d", trans, m, n, info);
    check(padding_untouched(x, MAX(m, n), nrhs, ldb) && padding_untouched(f, m, n, lda),
          "dgels %c m=%d n=%d: wrote padding", trans, m, n);

    /* The residual R = B − op(A)·X (X is cols×nrhs in the leading rows of x). */
    double *res = malloc(sizeof(double) * (size_t)rows * (size_t)nrhs);
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < rows; i++) {
            double sum = AT(b, ldb, i, j);
            for (int t = 0; t < cols; t++)
                sum -= (trans == 'N' ? AT(a, lda, i, t) : AT(a, lda, t, i)) * AT(x, ldb, t, j);
            AT(res, rows, i, j) = sum;
        }
    double an = norm1(a, m, n, lda), bn = norm1(b, rows, nrhs, ldb);
    if (rows > cols) {
        /* Least squares: op(A)ᵀ·R = 0, and B(cols+1:rows, j) holds R(:, j)'s 2-norm. */
        double *atr = malloc(sizeof(double) * (size_t)cols * (size_t)nrhs);
        int norms_ok = 1;
        for (int j = 0; j < nrhs; j++) {
            for (int t = 0; t < cols; t++) {
                double sum = 0.0;
                for (int i = 0; i < rows; i++)
                    sum += (trans == 'N' ? AT(a, lda, i, t) : AT(a, lda, t, i)) * AT(res, rows, i, j);
                AT(atr, cols, t, j) = sum;
            }
            double rr = 0.0, tail = 0.0;
            for (int i = 0; i < rows; i++) rr += AT(res, rows, i, j) * AT(res, rows, i, j);
            for (int i = cols; i < rows; i++) tail += AT(x, ldb, i, j) * AT(x, ldb, i, j);
            if (!(fabs(sqrt(rr) - sqrt(tail)) <= 1e-10 * MAX(1.0, sqrt(rr)))) norms_ok = 0;
        }
        check_ratio(norm1(atr, cols, nrhs, cols) / (MAX(MAX(m, n), nrhs) * an * bn * EPS),
                    trans == 'N' ? "dgels N op(A)^T R" : "dgels T op(A)^T R", m, n);
        check(norms_ok, "dgels %c m=%d n=%d: rows past N of B are not the residual", trans, m, n);
        free(atr);
    } else {
        /* Minimum norm: op(A)·X = B, and X is the reference's minimum-norm solution. */
        check_ratio(norm1(res, rows, nrhs, rows) / (MAX(MAX(m, n), nrhs) * an * bn * EPS),
                    trans == 'N' ? "dgels N op(A)X-B" : "dgels T op(A)X-B", m, n);
    }
    /* Against the reference solution: these random matrices are well conditioned. */
    int rlw = -1;
    REF(dgels)(&trans, &m, &n, &nrhs, fr, &lda, xr, &ldb, &rq, &rlw, &ref_info, 1);
    rlw = (int)rq;
    double *rw = malloc(sizeof(double) * (size_t)MAX(1, rlw));
    REF(dgels)(&trans, &m, &n, &nrhs, fr, &lda, xr, &ldb, rw, &rlw, &ref_info, 1);
    double diff = 0.0, xn = 0.0;
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < cols; i++) {
            diff = MAX(diff, fabs(AT(x, ldb, i, j) - AT(xr, ldb, i, j)));
            xn = MAX(xn, fabs(AT(xr, ldb, i, j)));
        }
    check(ref_info == 0 && diff <= 1e-9 * MAX(xn, 1.0), "dgels %c m=%d n=%d: X differs from the reference by %.3g",
          trans, m, n, diff);

    /* Rank deficient: DGELS factors A = Q·R when M >= N and A = L·Q otherwise; an exactly zero
     * column (resp. row) c of A makes R(c,c) (resp. L(c,c)) exactly zero, and INFO must be the
     * reference's. */
    if (MIN(m, n) > 1) {
        int c = MIN(m, n) / 2;
        double *z = mat_copy(a, lda, n), *zr, *y = mat_copy(b, ldb, nrhs), *yr = mat_copy(b, ldb, nrhs);
        if (m >= n)
            for (int i = 0; i < m; i++) AT(z, lda, i, c) = 0.0;
        else
            for (int j = 0; j < n; j++) AT(z, lda, c, j) = 0.0;
        zr = mat_copy(z, lda, n);
        int lw2 = MAX(rlw, minwork);
        double *w2 = malloc(sizeof(double) * (size_t)lw2);
        dgels_(&trans, &m, &n, &nrhs, z, &lda, y, &ldb, w2, &lw2, &info, 1);
        REF(dgels)(&trans, &m, &n, &nrhs, zr, &lda, yr, &ldb, w2, &lw2, &ref_info, 1);
        check(info == ref_info && info > 0, "dgels %c m=%d n=%d zero line %d: INFO=%d, reference %d", trans, m,
              n, c + 1, info, ref_info);
        free(z); free(zr); free(y); free(yr); free(w2);
    }
    free(a); free(b); free(f); free(x); free(fr); free(xr); free(work); free(res); free(rw);
}

static void test_dgels(rng_t *r) {
    for (size_t s = 0; s < sizeof SHAPES / sizeof *SHAPES; s++)
        for (int t = 0; t < 2; t++) one_dgels(r, "NT"[t], SHAPES[s][0], SHAPES[s][1], t == 0 ? 3 : 2);
}

static void test_edges(void) {
    double a[30] = {0}, b[10] = {0}, tau[5] = {0}, work[64] = {0};
    int info = -99, zero = 0, one = 1, two = 2, five = 5, four = 4, minus = -1, lw = 64;

    dgeqrf_(&zero, &five, a, &one, tau, work, &lw, &info);
    check(info == 0, "dgeqrf m=0: INFO=%d", info);
    dgels_("N", &zero, &zero, &one, a, &one, b, &one, work, &lw, &info, 1);
    check(info == 0, "dgels m=n=0: INFO=%d", info);

    xerbla_reset();
    dgeqrf_(&minus, &one, a, &one, tau, work, &lw, &info);
    check_arg_error("DGEQRF", 1, info);
    dgeqrf_(&five, &five, a, &four, tau, work, &lw, &info);
    check_arg_error("DGEQRF", 4, info);
    dgeqrf_(&five, &five, a, &five, tau, work, &four, &info);
    check_arg_error("DGEQRF", 7, info);
    dgels_("X", &one, &one, &one, a, &one, b, &one, work, &lw, &info, 1);
    check_arg_error("DGELS", 1, info);
    dgels_("N", &five, &two, &one, a, &four, b, &five, work, &lw, &info, 1);
    check_arg_error("DGELS", 6, info);
    dgels_("N", &five, &two, &one, a, &five, b, &four, work, &lw, &info, 1);
    check_arg_error("DGELS", 8, info);
    dgels_("N", &five, &two, &one, a, &five, b, &five, work, &two, &info, 1);
    check_arg_error("DGELS", 10, info);
}

int main(void) {
    rng_t r = {4242};
    test_dgeqrf(&r);
    test_dgels(&r);
    test_edges();
    return finish("test_qr");
}
