/* tests/bt/test_bt.c: dbtsv_, dbttrf_ and dbttrs_ called from C through include/hetla.h.
 *
 * Seeded block tridiagonal matrices (block diagonally dominant, and with every diagonal block's
 * rows reversed so that its LU must interchange rows) are solved by hetla and by the reference
 * DGBSV (OpenBLAS, taken by dlsym from a dlopen'd copy) on the same matrix stored as a band with
 * kl = ku = 2M - 1. Checks: scaled residual < 30 (ffi-tests/common.h), the same X as DGBSV,
 * a second DBTTRS with the same factors (transposed), nothing written outside the arrays, INFO
 * of a singular diagonal block, and xerbla_ for bad arguments.
 */
#include "common.h"

typedef void (*dgbsv_fn)(const int32_t *, const int32_t *, const int32_t *, const int32_t *, double *,
                         const int32_t *, int32_t *, double *, const int32_t *, int32_t *);

/* Entry (i, j) of the whole matrix from its blocks. */
static double bt_get(int n, int m, const double *dl, const double *d, const double *du, int i, int j) {
    int x = i / m, y = j / m, r = i % m, c = j % m;
    size_t mm = (size_t)m * m;
    if (x == y) return d[x * mm + r + (size_t)c * m];
    if (x == y + 1) return dl[y * mm + r + (size_t)c * m];
    if (y == x + 1) return du[x * mm + r + (size_t)c * m];
    (void)n;
    return 0.0;
}

static void make(rng_t *rng, int n, int m, int pivoting, double *dl, double *d, double *du) {
    size_t mm = (size_t)m * m;
    for (size_t t = 0; t < (size_t)(n - 1) * mm; t++) {
        dl[t] = rng_unif(rng);
        du[t] = rng_unif(rng);
    }
    for (int x = 0; x < n; x++) {
        double *b = d + x * mm;
        for (size_t t = 0; t < mm; t++) b[t] = rng_unif(rng);
        for (int j = 0; j < m; j++) b[j + (size_t)j * m] += 3.0 * m;
        if (pivoting) {
            for (int j = 0; j < m; j++) {
                for (int i = 0; i < m / 2; i++) {
                    double t = b[i + (size_t)j * m];
                    b[i + (size_t)j * m] = b[m - 1 - i + (size_t)j * m];
                    b[m - 1 - i + (size_t)j * m] = t;
                }
                if (2 * j + 1 != m) b[j + (size_t)j * m] *= 1e-3;
            }
        }
    }
}

static double *alloc_guarded(size_t n, size_t extra) {
    double *p = malloc(sizeof(double) * (n + extra));
    for (size_t i = n; i < n + extra; i++) p[i] = SENTINEL;
    return p;
}

static int tail_untouched(const double *p, size_t n, size_t extra) {
    for (size_t i = n; i < n + extra; i++)
        if (p[i] != SENTINEL) return 0;
    return 1;
}

static void one_case(int n, int m, int nrhs, int pivoting, uint64_t seed) {
    rng_t rng = {seed};
    int nn = n * m, ldb = nn + 2, k = 2 * m - 1, ldab = 3 * k + 1;
    size_t mm = (size_t)m * m, off = (size_t)(n - 1) * mm;
    double *dl = alloc_guarded(off, 4), *d = alloc_guarded(n * mm, 4), *du = alloc_guarded(off, 4);
    make(&rng, n, m, pivoting, dl, d, du);
    double *dense = malloc(sizeof(double) * (size_t)nn * nn);
    for (int j = 0; j < nn; j++)
        for (int i = 0; i < nn; i++) AT(dense, nn, i, j) = bt_get(n, m, dl, d, du, i, j);
    double *b0 = mat_random(&rng, nn, nrhs, ldb);

    /* The reference: DGBSV on the band, for A and for Aᵀ. */
    dgbsv_fn dgbsv = (dgbsv_fn)ref_sym("dgbsv_");
    double *xref[2];
    for (int t = 0; t < 2; t++) {
        double *ab = calloc((size_t)ldab * nn, sizeof(double));
        for (int j = 0; j < nn; j++)
            for (int i = MAX(0, j - k); i < MIN(nn, j + k + 1); i++)
                ab[2 * k + i - j + (size_t)j * ldab] = t ? AT(dense, nn, j, i) : AT(dense, nn, i, j);
        int32_t *ip = malloc(sizeof(int32_t) * nn), info = 0;
        xref[t] = mat_copy(b0, ldb, nrhs);
        dgbsv(&nn, &k, &k, &nrhs, ab, &ldab, ip, xref[t], &ldb, &info);
        check(info == 0, "dgbsv info %d", info);
        free(ab);
        free(ip);
    }

    /* dbtsv_ on copies. */
    double *cdl = alloc_guarded(off, 4), *cd = alloc_guarded(n * mm, 4), *cdu = alloc_guarded(off, 4);
    memcpy(cdl, dl, sizeof(double) * off);
    memcpy(cd, d, sizeof(double) * n * mm);
    memcpy(cdu, du, sizeof(double) * off);
    double *x = mat_copy(b0, ldb, nrhs);
    int32_t info = -99;
    dbtsv_(&n, &m, &nrhs, cdl, cd, cdu, x, &ldb, &info);
    check(info == 0, "dbtsv n=%d m=%d: info %d", n, m, info);
    check_ratio(solve_ratio(0, nn, nrhs, dense, nn, x, ldb, b0, ldb), "dbtsv", n, m);
    check(padding_untouched(x, nn, nrhs, ldb), "dbtsv n=%d m=%d: B written below its N*M rows", n, m);
    check(tail_untouched(cdl, off, 4) && tail_untouched(cd, n * mm, 4) && tail_untouched(cdu, off, 4),
          "dbtsv: written beyond DL, D or DU");
    double worst = 0.0, scale = 1.0;
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < nn; i++) {
            worst = MAX(worst, fabs(AT(x, ldb, i, j) - AT(xref[0], ldb, i, j)));
            scale = MAX(scale, fabs(AT(xref[0], ldb, i, j)));
        }
    check(worst <= 1e-8 * scale, "dbtsv n=%d m=%d: differs from dgbsv by %g", n, m, worst);

    /* dbttrf_ once, then dbttrs_ 'N' and 'T' on the same factors. */
    int32_t laf = -1;
    double q = 0.0;
    memcpy(cdl, dl, sizeof(double) * off);
    memcpy(cd, d, sizeof(double) * n * mm);
    memcpy(cdu, du, sizeof(double) * off);
    int32_t *ipiv = malloc(sizeof(int32_t) * (nn + 4));
    for (int i = nn; i < nn + 4; i++) ipiv[i] = -5;
    dbttrf_(&n, &m, cdl, cd, cdu, &q, &laf, ipiv, &info);
    check(info == 0 && q == 2.0 * n * mm + 1, "dbttrf LAF query: %g (info %d)", q, info);
    laf = (int32_t)q;
    double *af = alloc_guarded((size_t)laf, 4);
    dbttrf_(&n, &m, cdl, cd, cdu, af, &laf, ipiv, &info);
    check(info == 0, "dbttrf info %d", info);
    check(tail_untouched(af, (size_t)laf, 4), "dbttrf: written beyond LAF");
    check(ipiv[nn] == -5 && ipiv[nn + 3] == -5, "dbttrf: written beyond IPIV");
    for (int t = 0; t < 2; t++) {
        char tr = t ? 'T' : 'N';
        double *xs = mat_copy(b0, ldb, nrhs);
        dbttrs_(&tr, &n, &m, &nrhs, cdl, cd, cdu, af, &laf, ipiv, xs, &ldb, &info, 1);
        check(info == 0, "dbttrs %c info %d", tr, info);
        check_ratio(solve_ratio(t, nn, nrhs, dense, nn, xs, ldb, b0, ldb), t ? "dbttrs T" : "dbttrs N", n, m);
        double w = 0.0;
        for (int j = 0; j < nrhs; j++)
            for (int i = 0; i < nn; i++) w = MAX(w, fabs(AT(xs, ldb, i, j) - AT(xref[t], ldb, i, j)));
        check(w <= 1e-8 * scale * 10, "dbttrs %c n=%d m=%d: differs from dgbsv by %g", tr, n, m, w);
        check(padding_untouched(xs, nn, nrhs, ldb), "dbttrs: B written below its rows");
        free(xs);
    }
    free(dl), free(d), free(du), free(cdl), free(cd), free(cdu), free(dense), free(b0), free(x);
    free(xref[0]), free(xref[1]), free(af), free(ipiv);
}

static void singular_and_bad_arguments(void) {
    int n = 4, m = 3, nrhs = 1, ldb = 12;
    rng_t rng = {5};
    size_t mm = 9;
    double dl[27], d[36], du[27], b[12];
    make(&rng, n, m, 0, dl, d, du);
    /* Row 1's diagonal block with a zero second column, and A(1,0) = 0: whichever elimination
     * runs, that block is factored as given and its second pivot is zero. */
    for (int i = 0; i < m; i++) d[mm + i + m] = 0.0;
    for (size_t t = 0; t < mm; t++) dl[t] = 0.0;
    for (int i = 0; i < 12; i++) b[i] = 1.0;
    int32_t info = 0;
    dbtsv_(&n, &m, &nrhs, dl, d, du, b, &ldb, &info);
    check(info == m + 2, "singular block: info %d, want %d", info, m + 2);
    for (int i = 0; i < 12; i++) check(b[i] == 1.0, "singular block: B changed");

    int32_t neg = -1, small = 2, laf = 1000, ip[12];
    double af[1000];
    xerbla_reset();
    dbtsv_(&neg, &m, &nrhs, dl, d, du, b, &ldb, &info);
    check_arg_error("DBTSV", 1, info);
    dbtsv_(&n, &m, &nrhs, dl, d, du, b, &small, &info);
    check_arg_error("DBTSV", 8, info);
    dbttrf_(&n, &neg, dl, d, du, af, &laf, ip, &info);
    check_arg_error("DBTTRF", 2, info);
    dbttrf_(&n, &m, dl, d, du, af, &small, ip, &info);
    check_arg_error("DBTTRF", 7, info);
    char bad = 'X', no = 'N';
    dbttrs_(&bad, &n, &m, &nrhs, dl, d, du, af, &laf, ip, b, &ldb, &info, 1);
    check_arg_error("DBTTRS", 1, info);
    dbttrs_(&no, &n, &m, &neg, dl, d, du, af, &laf, ip, b, &ldb, &info, 1);
    check_arg_error("DBTTRS", 4, info);
    dbttrs_(&no, &n, &m, &nrhs, dl, d, du, af, &small, ip, b, &ldb, &info, 1);
    check_arg_error("DBTTRS", 9, info);
    dbttrs_(&no, &n, &m, &nrhs, dl, d, du, af, &laf, ip, b, &small, &info, 1);
    check_arg_error("DBTTRS", 12, info);
}

int main(void) {
    static const int ns[] = {1, 2, 3, 7, 64};
    static const int ms[] = {1, 5, 32};
    uint64_t seed = 1;
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t c = 0; c < sizeof ms / sizeof *ms; c++)
            for (int nrhs = 1; nrhs <= 3; nrhs += 2)
                for (int piv = 0; piv < 2; piv++) one_case(ns[a], ms[c], nrhs, piv, seed++);
    one_case(257, 5, 1, 1, seed++);
    one_case(7, 100, 3, 1, seed++);
    singular_and_bad_arguments();
    return finish("test_bt");
}
