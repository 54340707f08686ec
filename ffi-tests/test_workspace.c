/* ffi-tests/test_workspace.c: DORGQR, DORMQR and DGETRI called with the documented minimum LWORK
 * (legacy style), which hetla hands to the backend with the workspace the backend's own query
 * asks for (src/api/workspace.rs).
 *
 * Checks, with sizes past LAPACK's blocking crossover (k > 128) and LDA/LDC > M:
 *   - DORGQR: Q equals OpenBLAS's Q from the same reflectors with the same LWORK to
 *     ‖ΔQ‖₁/(m·eps) < 30, and ‖I − QᵀQ‖₁/(m·eps) < 30; WORK(1) as OpenBLAS leaves it;
 *   - DORMQR, SIDE = L/R, TRANS = N/T: C equals OpenBLAS's result to ‖ΔC‖₁/(m·‖C‖₁·eps) < 30;
 *   - DGETRI: the inverse equals OpenBLAS's to ‖ΔX‖₁/(n·‖X‖₁·‖A‖₁·eps) < 30, and
 *     ‖A·X − I‖₁/(n·‖A‖₁·‖X‖₁·eps) < 30; INFO for an exactly singular U as OpenBLAS's;
 *   - padding untouched; argument errors (INFO = -pos, one xerbla_ call); workspace queries.
 *   - DGEQRF forwarded (HETLA_MIN_N above every size here) with LWORK = N: A − Q·R and I − QᵀQ
 *     within bounds, WORK(1) as OpenBLAS leaves it with the same LWORK.
 * In the hetla runs every call's verbose line must show the grown workspace (lwork=L->W).
 *
 * hetla-expect: dorgqr=forward.*lwork= dormqr=forward.*lwork= dgetri=forward.*lwork= dgeqrf=forward.*lwork=
 * hetla-env: HETLA_MIN_N=100000
 */
#include "common.h"

typedef void (*dormqr_fn)(const char *, const char *, const int32_t *, const int32_t *, const int32_t *,
                          double *, const int32_t *, const double *, double *, const int32_t *, double *,
                          const int32_t *, int32_t *, size_t, size_t);
typedef void (*dgetri_fn)(const int32_t *, double *, const int32_t *, const int32_t *, double *,
                          const int32_t *, int32_t *);

/* ‖X − Y‖₁ over an m×n block. */
static double diff1(const double *x, int ldx, const double *y, int ldy, int m, int n) {
    double best = 0.0;
    for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int i = 0; i < m; i++) s += fabs(AT(x, ldx, i, j) - AT(y, ldy, i, j));
        if (s > best) best = s;
    }
    return best;
}

/* Reflectors of a random m×k matrix (OpenBLAS's DGEQRF), in an lda×k array, and their tau. */
static void reflectors(rng_t *r, int m, int k, int lda, double **v, double **tau) {
    int info = 0, lw = 64 * k;
    double *w = malloc(sizeof(double) * (size_t)lw);
    *v = mat_random(r, m, k, lda);
    *tau = malloc(sizeof(double) * (size_t)k);
    ((dgeqrf_fn)ref_sym("dgeqrf_"))(&m, &k, *v, &lda, *tau, w, &lw, &info);
    free(w);
}

static void test_dorgqr(rng_t *r) {
    int m = 301, n = 250, k = 200, lda = m + 3, info = -99, rinfo = -99, lwork = n, minus = -1;
    double *v, *tau;
    reflectors(r, m, n, lda, &v, &tau);
    double *q = mat_copy(v, lda, n), *qr = mat_copy(v, lda, n);
    double *w = malloc(sizeof(double) * (size_t)lwork), *wr = malloc(sizeof(double) * (size_t)lwork), query = 0;
    dorgqr_(&m, &n, &k, q, &lda, tau, &query, &minus, &info);
    check(info == 0 && query >= n, "dorgqr query: INFO=%d LWORK=%g", info, query);
    dorgqr_(&m, &n, &k, q, &lda, tau, w, &lwork, &info);
    ((dorgqr_fn)ref_sym("dorgqr_"))(&m, &n, &k, qr, &lda, tau, wr, &lwork, &rinfo);
    check(info == 0 && rinfo == 0, "dorgqr: INFO=%d, OpenBLAS %d", info, rinfo);
    check(w[0] == wr[0], "dorgqr: WORK(1)=%g, OpenBLAS %g", w[0], wr[0]);
    check(padding_untouched(q, m, n, lda), "dorgqr: wrote rows past M");
    check_ratio(diff1(q, lda, qr, lda, m, n) / (m * EPS), "dorgqr Q vs OpenBLAS", m, n);
    double *o = malloc(sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = i == j ? 1.0 : 0.0;
            for (int t = 0; t < m; t++) s -= AT(q, lda, t, i) * AT(q, lda, t, j);
            AT(o, n, i, j) = s;
        }
    check_ratio(norm1(o, n, n, n) / (m * EPS), "dorgqr I-QtQ", m, n);
    int bad = -1;
    xerbla_reset();
    dorgqr_(&m, &n, &bad, q, &lda, tau, w, &lwork, &info);
    check_arg_error("DORGQR", 3, info);
    int small = n - 1;
    dorgqr_(&m, &n, &k, q, &lda, tau, w, &small, &info);
    check_arg_error("DORGQR", 8, info);
    free(v), free(tau), free(q), free(qr), free(w), free(wr), free(o);
}

static void test_dormqr(rng_t *r) {
    int m = 263, n = 171, k = 150;
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < 2; t++) {
            char side = s ? 'R' : 'L', trans = t ? 'T' : 'N';
            int nq = s ? n : m, nw = s ? m : n, lda = nq + 2, ldc = m + 1, info = -99, rinfo = -99;
            double *v, *tau;
            reflectors(r, nq, k, lda, &v, &tau);
            double *c = mat_random(r, m, n, ldc), *cr = mat_copy(c, ldc, n);
            int lwork = nw;
            double *w = malloc(sizeof(double) * (size_t)lwork), *wr = malloc(sizeof(double) * (size_t)lwork);
            dormqr_(&side, &trans, &m, &n, &k, v, &lda, tau, c, &ldc, w, &lwork, &info, 1, 1);
            ((dormqr_fn)ref_sym("dormqr_"))(&side, &trans, &m, &n, &k, v, &lda, tau, cr, &ldc, wr, &lwork, &rinfo, 1, 1);
            check(info == 0 && rinfo == 0, "dormqr %c%c: INFO=%d, OpenBLAS %d", side, trans, info, rinfo);
            check(w[0] == wr[0], "dormqr %c%c: WORK(1)=%g, OpenBLAS %g", side, trans, w[0], wr[0]);
            check(padding_untouched(c, m, n, ldc), "dormqr %c%c: wrote rows past M", side, trans);
            double cn = norm1(cr, m, n, ldc);
            check_ratio(diff1(c, ldc, cr, ldc, m, n) / (m * cn * EPS), "dormqr C vs OpenBLAS", m, n);
            free(v), free(tau), free(c), free(cr), free(w), free(wr);
        }
    int m2 = 20, n2 = 10, k2 = 5, lda = 20, ldc = 20, info = 0, lwork = 20;
    double a[400], tau[5], c[400], w[20];
    char bad = 'X', L = 'L', N = 'N';
    memset(a, 0, sizeof a), memset(tau, 0, sizeof tau), memset(c, 0, sizeof c);
    xerbla_reset();
    dormqr_(&L, &bad, &m2, &n2, &k2, a, &lda, tau, c, &ldc, w, &lwork, &info, 1, 1);
    check_arg_error("DORMQR", 2, info);
    int small = n2 - 1;
    dormqr_(&L, &N, &m2, &n2, &k2, a, &lda, tau, c, &ldc, w, &small, &info, 1, 1);
    check_arg_error("DORMQR", 12, info);
}

static void test_dgetri(rng_t *r) {
    int n = 237, lda = n + 2, info = -99, rinfo = -99, lwork = n;
    double *a = mat_random(r, n, n, lda), *f = mat_copy(a, lda, n);
    int32_t *ipiv = malloc(sizeof(int32_t) * (size_t)n);
    ((dgetrf_fn)ref_sym("dgetrf_"))(&n, &n, f, &lda, ipiv, &info);
    check(info == 0, "dgetrf before dgetri: INFO=%d", info);
    double *x = mat_copy(f, lda, n), *xr = mat_copy(f, lda, n);
    double *w = malloc(sizeof(double) * (size_t)lwork), *wr = malloc(sizeof(double) * (size_t)lwork);
    dgetri_(&n, x, &lda, ipiv, w, &lwork, &info);
    ((dgetri_fn)ref_sym("dgetri_"))(&n, xr, &lda, ipiv, wr, &lwork, &rinfo);
    check(info == 0 && rinfo == 0, "dgetri: INFO=%d, OpenBLAS %d", info, rinfo);
    check(w[0] == wr[0], "dgetri: WORK(1)=%g, OpenBLAS %g", w[0], wr[0]);
    check(padding_untouched(x, n, n, lda), "dgetri: wrote rows past N");
    double an = norm1(a, n, n, lda), xn = norm1(xr, n, n, lda);
    check_ratio(diff1(x, lda, xr, lda, n, n) / (n * xn * an * EPS), "dgetri X vs OpenBLAS", n, n);
    double *e = malloc(sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = i == j ? -1.0 : 0.0;
            for (int t = 0; t < n; t++) s += AT(a, lda, i, t) * AT(x, lda, t, j);
            AT(e, n, i, j) = s;
        }
    check_ratio(norm1(e, n, n, n) / (n * an * norm1(x, n, n, lda) * EPS), "dgetri A*X-I", n, n);
    /* An exactly singular U: INFO as OpenBLAS's, A as OpenBLAS leaves it. */
    for (int i = 0; i <= 100; i++) AT(f, lda, i, 100) = 0.0;
    double *s1 = mat_copy(f, lda, n), *s2 = mat_copy(f, lda, n);
    dgetri_(&n, s1, &lda, ipiv, w, &lwork, &info);
    ((dgetri_fn)ref_sym("dgetri_"))(&n, s2, &lda, ipiv, wr, &lwork, &rinfo);
    check(info == rinfo && info == 101, "dgetri singular: INFO=%d, OpenBLAS %d", info, rinfo);
    check(diff1(s1, lda, s2, lda, n, n) == 0.0, "dgetri singular: A differs from OpenBLAS's");
    int bad = n - 1;
    xerbla_reset();
    dgetri_(&n, x, &bad, ipiv, w, &lwork, &info);
    check_arg_error("DGETRI", 3, info);
    free(a), free(f), free(ipiv), free(x), free(xr), free(w), free(wr), free(e), free(s1), free(s2);
}

static void test_dgeqrf(rng_t *r) {
    int m = 301, n = 250, lda = m + 1, lwork = n, info = -99, rinfo = -99;
    double *a = mat_random(r, m, n, lda), *f = mat_copy(a, lda, n), *fr = mat_copy(a, lda, n);
    double *tau = malloc(sizeof(double) * (size_t)n), *taur = malloc(sizeof(double) * (size_t)n);
    double *w = malloc(sizeof(double) * (size_t)lwork), *wr = malloc(sizeof(double) * (size_t)lwork);
    dgeqrf_(&m, &n, f, &lda, tau, w, &lwork, &info);
    ((dgeqrf_fn)ref_sym("dgeqrf_"))(&m, &n, fr, &lda, taur, wr, &lwork, &rinfo);
    check(info == 0 && rinfo == 0, "dgeqrf: INFO=%d, OpenBLAS %d", info, rinfo);
    check(w[0] == wr[0], "dgeqrf: WORK(1)=%g, OpenBLAS %g", w[0], wr[0]);
    check(padding_untouched(f, m, n, lda), "dgeqrf: wrote rows past M");
    double res, orth;
    check(qr_ratios(m, n, a, f, lda, tau, &res, &orth) == 0, "dorgqr after dgeqrf failed");
    check_ratio(res, "dgeqrf A-QR", m, n);
    check_ratio(orth, "dgeqrf I-QtQ", m, n);
    free(a), free(f), free(fr), free(tau), free(taur), free(w), free(wr);
}

int main(void) {
    rng_t r = {2026};
    test_dgeqrf(&r);
    test_dorgqr(&r);
    test_dormqr(&r);
    test_dgetri(&r);
    return finish("workspace");
}
