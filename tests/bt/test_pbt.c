/* tests/bt/test_pbt.c: pdbtsv_, pdbttrf_ and pdbttrs_ under MPI, against hetla's serial
 * dbttrf_/dbttrs_ on the same matrix in the same process.
 *
 * Usage: mpirun -np NP test_pbt ORDER NPROW NPCOL   (ORDER R or C; NP >= NPROW*NPCOL: the
 * processes left out of the grid check that they get INFO = -(ICTXT's position) at once).
 *
 * Every process builds the whole seeded matrix (block diagonally dominant, or with every diagonal
 * block's rows reversed and its diagonal shrunk, so that each block LU interchanges rows) and
 * keeps its rows in the issue's layout: grid process r (row-major position) holds block rows
 * [r*K, min(N, (r+1)*K)), K = ceil(N/P). Checks per case (N not a multiple of P, ranks holding
 * one row or none included; M in {1, 5, 32}; NRHS 1 and 3):
 *   - PDBTTRF's LAF query (2*n_r*M*M + 2), INFO 0, nothing written in the guard zones around DL,
 *     D, DU, AF, IPIV, nor in the DL block of row 0 and the DU block of row N-1 (ignored);
 *   - PDBTTRS 'N' and 'T' on those factors: the gathered X's scaled residual
 *     |op(A)X - B|_1 / (|A|_1 |X|_1 N*M eps) below 20, and X equal to the serial DBTTRS's within
 *     1e-12 * max(1, max|X|) (two elimination orders on well-conditioned matrices: they differ
 *     by rounding only; at most 1.1e-16 * max|X| measured on np 2-4, so the bound leaves a wide
 *     margin), the padding rows of B (LDB > n_r*M) and B's guard zones untouched;
 *   - PDBTSV on fresh copies: the same X as PDBTTRS 'N' (same bound);
 *   - a singular diagonal block (a zero column, the block's row decoupled from its neighbours so
 *     that every elimination order factors it as given) on the first, a middle and the last
 *     process's rows: the same INFO on every process, equal to the serial DBTTRF's and to
 *     x*M + 3; PDBTSV's B unchanged;
 *   - bad arguments, also on one process only (LDB, LAF) or disagreeing between processes (N,
 *     a LAF query on one process only): INFO = -position on every process and PXERBLA called with
 *     the routine's name (this program's own PXERBLA records it).
 * Prints failures and "test_pbt: C cases, F failures" (rank 0); exit status 1 on failure.
 */
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetla.h"

void Cblacs_pinfo(int *, int *);
void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);

#define SENTINEL (-7777.25)
#define IGUARD (-12345)
#define G 8 /* guard elements on each side of every local array */
#define JUNK 999.0
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static int nprow, npcol, myrow, mycol, P, me_r, world_rank;
static MPI_Comm gcomm;
static int failures, cases;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL [rank %d] ", world_rank);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    failures++;
}

/* ---- this program's PXERBLA: records what the library reports ---- */
static char xname[16];
static int xinfo, xcalls;
void pxerbla_(const int *ictxt, const char *srname, const int *info, size_t len) {
    (void)ictxt;
    size_t n = len < sizeof xname - 1 ? len : sizeof xname - 1;
    memcpy(xname, srname, n);
    while (n > 0 && xname[n - 1] == ' ') n--;
    xname[n] = 0;
    xinfo = *info;
    xcalls++;
}

/* ---- seeded numbers (splitmix64) ---- */
typedef struct {
    uint64_t s;
} rng_t;
static double unif(rng_t *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* The whole matrix: n blocks D, n-1 blocks DL (A(x+1,x)) and DU (A(x,x+1)), column-major m×m. */
typedef struct {
    int n, m;
    double *dl, *d, *du;
} Bt;

static Bt make(int n, int m, int pivoting, uint64_t seed) {
    rng_t rng = {seed};
    size_t mm = (size_t)m * m, off = (size_t)(n - 1) * mm;
    Bt a = {n, m, malloc(sizeof(double) * (off + 1)), malloc(sizeof(double) * n * mm),
            malloc(sizeof(double) * (off + 1))};
    for (size_t t = 0; t < off; t++) {
        a.dl[t] = unif(&rng);
        a.du[t] = unif(&rng);
    }
    for (int x = 0; x < n; x++) {
        double *b = a.d + x * mm;
        for (size_t t = 0; t < mm; t++) b[t] = unif(&rng);
        for (int j = 0; j < m; j++) b[j + (size_t)j * m] += 3.0 * m;
        if (pivoting)
            for (int j = 0; j < m; j++) {
                for (int i = 0; i < m / 2; i++) {
                    double t = b[i + (size_t)j * m];
                    b[i + (size_t)j * m] = b[m - 1 - i + (size_t)j * m];
                    b[m - 1 - i + (size_t)j * m] = t;
                }
                if (2 * j + 1 != m) b[j + (size_t)j * m] *= 1e-3;
            }
    }
    return a;
}

static void bt_free(Bt *a) { free(a->dl), free(a->d), free(a->du); }

static double get(const Bt *a, int i, int j) {
    int m = a->m, x = i / m, y = j / m, r = i % m, c = j % m;
    size_t mm = (size_t)m * m;
    if (x == y) return a->d[x * mm + r + (size_t)c * m];
    if (x == y + 1) return a->dl[y * mm + r + (size_t)c * m];
    if (y == x + 1) return a->du[x * mm + r + (size_t)c * m];
    return 0.0;
}

/* max over columns of |op(A)X - B|_1 / (|A|_1 |X|_1 nn eps), X and B nn×nrhs (ld nn). */
static double residual(const Bt *a, int trans, const double *x, const double *b, int nrhs) {
    int nn = a->n * a->m, m = a->m;
    double an = 0.0;
    for (int j = 0; j < nn; j++) {
        double s = 0.0;
        for (int i = MAX(0, (j / m - 1) * m); i < MIN(nn, (j / m + 2) * m); i++) s += fabs(get(a, i, j));
        an = MAX(an, s);
    }
    double worst = 0.0;
    for (int c = 0; c < nrhs; c++) {
        const double *xc = x + (size_t)c * nn;
        double r1 = 0.0, x1 = 0.0;
        for (int i = 0; i < nn; i++) {
            double s = -b[(size_t)c * nn + i];
            for (int j = MAX(0, (i / m - 1) * m); j < MIN(nn, (i / m + 2) * m); j++)
                s += (trans ? get(a, j, i) : get(a, i, j)) * xc[j];
            r1 += fabs(s);
            x1 += fabs(xc[i]);
        }
        worst = MAX(worst, r1 / (an * MAX(x1, 1e-300) * nn * 2.220446049250313e-16));
    }
    return worst;
}

/* ---- guarded local arrays ---- */
static double *galloc(size_t n) {
    double *p = malloc(sizeof(double) * (n + 2 * G));
    for (size_t i = 0; i < n + 2 * G; i++) p[i] = SENTINEL;
    return p + G;
}
static int guards_ok(const double *p, size_t n) {
    for (int i = 1; i <= G; i++)
        if (p[-i] != SENTINEL || p[n + i - 1] != SENTINEL) return 0;
    return 1;
}
static void gfree(double *p) { free(p - G); }
static int32_t *ialloc(size_t n) {
    int32_t *p = malloc(sizeof(int32_t) * (n + 2 * G));
    for (size_t i = 0; i < n + 2 * G; i++) p[i] = IGUARD;
    return p + G;
}
static int iguards_ok(const int32_t *p, size_t n) {
    for (int i = 1; i <= G; i++)
        if (p[-i] != IGUARD || p[n + i - 1] != IGUARD) return 0;
    return 1;
}
static void ifree(int32_t *p) { free(p - G); }

/* This process's rows [s, s+nr). */
static void my_rows(int n, int *s, int *nr) {
    int k = (n + P - 1) / P;
    *s = MIN(n, me_r * k);
    *nr = MIN(n, (me_r + 1) * k) - *s;
}

/* This process's DL, D, DU blocks (DL of row 0 and DU of row n-1 hold JUNK). */
static void local_blocks(const Bt *a, double *dl, double *d, double *du) {
    int s, nr, m = a->m;
    my_rows(a->n, &s, &nr);
    size_t mm = (size_t)m * m;
    for (int t = 0; t < nr; t++) {
        int x = s + t;
        for (size_t e = 0; e < mm; e++) {
            d[t * mm + e] = a->d[x * mm + e];
            dl[t * mm + e] = x > 0 ? a->dl[(x - 1) * mm + e] : JUNK;
            du[t * mm + e] = x < a->n - 1 ? a->du[x * mm + e] : JUNK;
        }
    }
}

/* This process's rows of the nn×nrhs b (ld nn) into lb (ld ldb, padding rows SENTINEL). */
static void local_b(const double *b, int n, int m, int nrhs, double *lb, int ldb) {
    int s, nr;
    my_rows(n, &s, &nr);
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < ldb; i++)
            lb[(size_t)c * ldb + i] = i < nr * m ? b[(size_t)c * n * m + s * m + i] : SENTINEL;
}

/* The whole X from every process's rows of lb. */
static double *gather_x(const double *lb, int n, int m, int nrhs, int ldb) {
    int s, nr;
    my_rows(n, &s, &nr);
    size_t nn = (size_t)n * m;
    double *x = calloc(nn * nrhs, sizeof(double));
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < nr * m; i++) x[c * nn + s * m + i] = lb[(size_t)c * ldb + i];
    MPI_Allreduce(MPI_IN_PLACE, x, (int)(nn * nrhs), MPI_DOUBLE, MPI_SUM, gcomm);
    return x;
}

static int padding_ok(const double *lb, int rows, int nrhs, int ldb) {
    for (int c = 0; c < nrhs; c++)
        for (int i = rows; i < ldb; i++)
            if (lb[(size_t)c * ldb + i] != SENTINEL) return 0;
    return 1;
}

static double maxdiff(const double *x, const double *y, size_t len, double *scale) {
    double w = 0.0, sc = 0.0;
    for (size_t i = 0; i < len; i++) {
        w = MAX(w, fabs(x[i] - y[i]));
        sc = MAX(sc, fabs(y[i]));
    }
    *scale = MAX(sc, 1.0);
    return w;
}

static void one_case(int ctxt, int n, int m, int nrhs, int piv, uint64_t seed) {
    cases++;
    Bt a = make(n, m, piv, seed);
    size_t mm = (size_t)m * m, nn = (size_t)n * m;
    rng_t rng = {seed * 31 + 7};
    double *b0 = malloc(sizeof(double) * nn * nrhs);
    for (size_t i = 0; i < nn * nrhs; i++) b0[i] = unif(&rng);
    char what[96];
    snprintf(what, sizeof what, "n=%d m=%d nrhs=%d %s grid %dx%d", n, m, nrhs, piv ? "pivoting" : "dominant",
             nprow, npcol);

    /* The serial routine on the whole matrix. */
    double *sdl = malloc(sizeof(double) * ((n - 1) * mm + 1)), *sd = malloc(sizeof(double) * n * mm),
           *sdu = malloc(sizeof(double) * ((n - 1) * mm + 1));
    memcpy(sdl, a.dl, sizeof(double) * (n - 1) * mm);
    memcpy(sd, a.d, sizeof(double) * n * mm);
    memcpy(sdu, a.du, sizeof(double) * (n - 1) * mm);
    int32_t slaf = (int32_t)(2 * n * mm + 1), info = -99;
    double *saf = malloc(sizeof(double) * slaf);
    int32_t *sip = malloc(sizeof(int32_t) * nn);
    dbttrf_(&n, &m, sdl, sd, sdu, saf, &slaf, sip, &info);
    if (info != 0) fail("%s: serial dbttrf info %d", what, info);
    int nn32 = (int)nn;
    double *xs[2];
    for (int t = 0; t < 2; t++) {
        char tr = t ? 'T' : 'N';
        xs[t] = malloc(sizeof(double) * nn * nrhs);
        memcpy(xs[t], b0, sizeof(double) * nn * nrhs);
        dbttrs_(&tr, &n, &m, &nrhs, sdl, sd, sdu, saf, &slaf, sip, xs[t], &nn32, &info, 1);
    }

    /* The distributed factorization. */
    int s, nr;
    my_rows(n, &s, &nr);
    size_t loc = (size_t)nr * mm;
    double *dl = galloc(loc), *d = galloc(loc), *du = galloc(loc);
    local_blocks(&a, dl, d, du);
    double q = -1.0;
    int32_t laf = -1;
    int32_t *ipiv = ialloc((size_t)nr * m);
    pdbttrf_(&n, &m, dl, d, du, &q, &laf, ipiv, &ctxt, &info);
    if (info != 0 || q != 2.0 * nr * mm + 2) fail("%s: LAF query %g (want %g), info %d", what, q, 2.0 * nr * mm + 2, info);
    laf = (int32_t)(2 * nr * mm + 2);
    double *af = galloc((size_t)laf);
    pdbttrf_(&n, &m, dl, d, du, af, &laf, ipiv, &ctxt, &info);
    if (info != 0) fail("%s: pdbttrf info %d", what, info);
    if (!guards_ok(dl, loc) || !guards_ok(d, loc) || !guards_ok(du, loc) || !guards_ok(af, (size_t)laf) ||
        !iguards_ok(ipiv, (size_t)nr * m))
        fail("%s: pdbttrf wrote outside DL, D, DU, AF or IPIV", what);
    if (nr > 0 && s == 0 && dl[0] != JUNK) fail("%s: pdbttrf wrote row 0's DL block", what);
    if (nr > 0 && s + nr == n && du[(nr - 1) * mm + mm - 1] != JUNK) fail("%s: pdbttrf wrote row N-1's DU block", what);
    for (int t = 0; t < nr * m; t++) {
        int x = s + t / m;
        if (ipiv[t] <= x * m || ipiv[t] > (x + 1) * m) {
            fail("%s: IPIV(%d) = %d outside block row %d", what, t + 1, ipiv[t], x);
            break;
        }
    }

    /* Solves with those factors, 'N' then 'T'. */
    int ldb = MAX(1, nr * m) + 2;
    double *xn = NULL;
    for (int t = 0; t < 2; t++) {
        char tr = t ? 'T' : 'N';
        double *lb = galloc((size_t)ldb * nrhs);
        local_b(b0, n, m, nrhs, lb, ldb);
        pdbttrs_(&tr, &n, &m, &nrhs, dl, d, du, af, &laf, ipiv, lb, &ldb, &ctxt, &info, 1);
        if (info != 0) fail("%s: pdbttrs %c info %d", what, tr, info);
        if (!guards_ok(lb, (size_t)ldb * nrhs) || !padding_ok(lb, nr * m, nrhs, ldb))
            fail("%s: pdbttrs %c wrote outside B's rows", what, tr);
        double *x = gather_x(lb, n, m, nrhs, ldb);
        double res = residual(&a, t, x, b0, nrhs);
        if (!(res < 20.0)) fail("%s: pdbttrs %c scaled residual %g", what, tr, res);
        double sc, w = maxdiff(x, xs[t], nn * nrhs, &sc);
        if (!(w <= 1e-12 * sc)) fail("%s: pdbttrs %c differs from serial dbttrs by %g (max |x| %g)", what, tr, w, sc);
        if (t == 0)
            xn = x;
        else
            free(x);
        gfree(lb);
    }

    /* PDBTSV on fresh copies. */
    local_blocks(&a, dl, d, du);
    double *lb = galloc((size_t)ldb * nrhs);
    local_b(b0, n, m, nrhs, lb, ldb);
    pdbtsv_(&n, &m, &nrhs, dl, d, du, lb, &ldb, &ctxt, &info);
    if (info != 0) fail("%s: pdbtsv info %d", what, info);
    if (!guards_ok(dl, loc) || !guards_ok(d, loc) || !guards_ok(du, loc) || !guards_ok(lb, (size_t)ldb * nrhs) ||
        !padding_ok(lb, nr * m, nrhs, ldb))
        fail("%s: pdbtsv wrote outside its arrays", what);
    double *x = gather_x(lb, n, m, nrhs, ldb);
    double sc, w = maxdiff(x, xn, nn * nrhs, &sc);
    if (!(w <= 1e-12 * sc)) fail("%s: pdbtsv differs from pdbttrs by %g", what, w);
    double res = residual(&a, 0, x, b0, nrhs);
    if (!(res < 20.0)) fail("%s: pdbtsv scaled residual %g", what, res);

    free(x), free(xn), gfree(lb), gfree(dl), gfree(d), gfree(du), gfree(af), ifree(ipiv);
    free(sdl), free(sd), free(sdu), free(saf), free(sip), free(xs[0]), free(xs[1]), free(b0);
    bt_free(&a);
}

/* Row x's block singular (column min(2, m-1) zero) and the row decoupled from its neighbours. */
static void singular_case(int ctxt, int n, int m, int x) {
    cases++;
    Bt a = make(n, m, 1, 77 + n + x);
    size_t mm = (size_t)m * m;
    int col = MIN(2, m - 1);
    for (int i = 0; i < m; i++) a.d[x * mm + i + (size_t)col * m] = 0.0;
    for (size_t e = 0; e < mm; e++) {
        if (x > 0) a.dl[(x - 1) * mm + e] = 0.0, a.du[(x - 1) * mm + e] = 0.0;
        if (x < n - 1) a.dl[x * mm + e] = 0.0, a.du[x * mm + e] = 0.0;
    }
    int want = x * m + col + 1;
    /* Serial. */
    int32_t slaf = (int32_t)(2 * n * mm + 1), info = -99;
    double *sdl = malloc(sizeof(double) * ((n - 1) * mm + 1)), *sd = malloc(sizeof(double) * n * mm),
           *sdu = malloc(sizeof(double) * ((n - 1) * mm + 1)), *saf = malloc(sizeof(double) * slaf);
    int32_t *sip = malloc(sizeof(int32_t) * n * m);
    memcpy(sdl, a.dl, sizeof(double) * (n - 1) * mm);
    memcpy(sd, a.d, sizeof(double) * n * mm);
    memcpy(sdu, a.du, sizeof(double) * (n - 1) * mm);
    dbttrf_(&n, &m, sdl, sd, sdu, saf, &slaf, sip, &info);
    if (info != want) fail("singular n=%d m=%d row %d: serial dbttrf info %d, want %d", n, m, x, info, want);
    /* Distributed. */
    int s, nr;
    my_rows(n, &s, &nr);
    size_t loc = (size_t)nr * mm;
    double *dl = galloc(loc), *d = galloc(loc), *du = galloc(loc);
    local_blocks(&a, dl, d, du);
    int32_t laf = (int32_t)(2 * loc + 2);
    double *af = galloc((size_t)laf);
    int32_t *ipiv = ialloc((size_t)nr * m);
    pdbttrf_(&n, &m, dl, d, du, af, &laf, ipiv, &ctxt, &info);
    int lo, hi;
    MPI_Allreduce(&info, &lo, 1, MPI_INT, MPI_MIN, gcomm);
    MPI_Allreduce(&info, &hi, 1, MPI_INT, MPI_MAX, gcomm);
    if (info != want || lo != hi) fail("singular n=%d m=%d row %d: pdbttrf info %d (grid %d..%d), want %d", n, m, x, info, lo, hi, want);
    if (!guards_ok(af, (size_t)laf) || !iguards_ok(ipiv, (size_t)nr * m)) fail("singular: pdbttrf wrote outside AF or IPIV");
    /* PDBTSV: the same INFO, B unchanged. */
    local_blocks(&a, dl, d, du);
    int ldb = MAX(1, nr * m), nrhs = 2;
    double *lb = galloc((size_t)ldb * nrhs);
    for (int i = 0; i < ldb * nrhs; i++) lb[i] = 1.5;
    pdbtsv_(&n, &m, &nrhs, dl, d, du, lb, &ldb, &ctxt, &info);
    MPI_Allreduce(&info, &lo, 1, MPI_INT, MPI_MIN, gcomm);
    MPI_Allreduce(&info, &hi, 1, MPI_INT, MPI_MAX, gcomm);
    if (info != want || lo != hi) fail("singular n=%d m=%d row %d: pdbtsv info %d, want %d", n, m, x, info, want);
    for (int i = 0; i < ldb * nrhs; i++)
        if (lb[i] != 1.5) {
            fail("singular: pdbtsv changed B");
            break;
        }
    gfree(dl), gfree(d), gfree(du), gfree(af), gfree(lb), ifree(ipiv);
    free(sdl), free(sd), free(sdu), free(saf), free(sip);
    bt_free(&a);
}

static void expect_arg(const char *routine, int pos, int info, const char *what) {
    cases++;
    int lo, hi;
    MPI_Allreduce(&info, &lo, 1, MPI_INT, MPI_MIN, gcomm);
    MPI_Allreduce(&info, &hi, 1, MPI_INT, MPI_MAX, gcomm);
    if (info != -pos || lo != hi) fail("%s: %s info %d (grid %d..%d), want %d", what, routine, info, lo, hi, -pos);
    if (xcalls != 1 || strcmp(xname, routine) != 0 || xinfo != pos)
        fail("%s: pxerbla calls %d, last %s %d; want one %s %d", what, xcalls, xname, xinfo, routine, pos);
    xcalls = 0;
    xname[0] = 0;
}

static void bad_arguments(int ctxt) {
    int n = 7, m = 3, nrhs = 1, s, nr, neg = -1, info = 0, last = P - 1;
    my_rows(n, &s, &nr);
    Bt a = make(n, m, 0, 5);
    size_t loc = (size_t)MAX(nr, 1) * m * m;
    double *dl = galloc(loc), *d = galloc(loc), *du = galloc(loc), *af = galloc(2 * loc + 2), *b = galloc(loc);
    int32_t *ip = ialloc(loc);
    local_blocks(&a, dl, d, du);
    int ldb = MAX(1, nr * m), laf = (int)(2 * (size_t)nr * m * m + 2);
    pdbtsv_(&neg, &m, &nrhs, dl, d, du, b, &ldb, &ctxt, &info);
    expect_arg("PDBTSV", 1, info, "N = -1");
    pdbtsv_(&n, &m, &neg, dl, d, du, b, &ldb, &ctxt, &info);
    expect_arg("PDBTSV", 3, info, "NRHS = -1");
    int small = me_r == last ? ldb - 1 : ldb;
    pdbtsv_(&n, &m, &nrhs, dl, d, du, b, &small, &ctxt, &info);
    expect_arg("PDBTSV", 8, info, "LDB too small on the last process only");
    pdbttrf_(&n, &neg, dl, d, du, af, &laf, ip, &ctxt, &info);
    expect_arg("PDBTTRF", 2, info, "M = -1");
    int lafs = me_r == last ? laf - 1 : laf;
    pdbttrf_(&n, &m, dl, d, du, af, &lafs, ip, &ctxt, &info);
    expect_arg("PDBTTRF", 7, info, "LAF too small on the last process only");
    if (P > 1) {
        int n1 = me_r == 1 ? n + 1 : n, laf1 = me_r == 1 ? (int)(2 * loc + 2) : laf;
        pdbttrf_(&n1, &m, dl, d, du, af, &laf1, ip, &ctxt, &info);
        expect_arg("PDBTTRF", 1, info, "N differs on process 1");
        int q = me_r == 0 ? -1 : laf;
        pdbttrf_(&n, &m, dl, d, du, af, &q, ip, &ctxt, &info);
        expect_arg("PDBTTRF", 7, info, "a LAF query on process 0 only");
    }
    /* A good factorization for the solve's argument checks. */
    pdbttrf_(&n, &m, dl, d, du, af, &laf, ip, &ctxt, &info);
    cases++;
    if (info != 0) fail("bad arguments: pdbttrf info %d", info);
    char bad = 'X', no = 'N';
    pdbttrs_(&bad, &n, &m, &nrhs, dl, d, du, af, &laf, ip, b, &ldb, &ctxt, &info, 1);
    expect_arg("PDBTTRS", 1, info, "TRANS = X");
    pdbttrs_(&no, &n, &m, &neg, dl, d, du, af, &laf, ip, b, &ldb, &ctxt, &info, 1);
    expect_arg("PDBTTRS", 4, info, "NRHS = -1");
    pdbttrs_(&no, &n, &m, &nrhs, dl, d, du, af, &lafs, ip, b, &ldb, &ctxt, &info, 1);
    expect_arg("PDBTTRS", 9, info, "LAF too small on the last process only");
    pdbttrs_(&no, &n, &m, &nrhs, dl, d, du, af, &laf, ip, b, &small, &ctxt, &info, 1);
    expect_arg("PDBTTRS", 12, info, "LDB too small on the last process only");
    /* N = 0 and M = 0: quick returns, nothing written. */
    int zero = 0;
    pdbtsv_(&zero, &m, &nrhs, dl, d, du, b, &ldb, &ctxt, &info);
    cases++;
    if (info != 0 || xcalls != 0) fail("N = 0: info %d", info);
    gfree(dl), gfree(d), gfree(du), gfree(af), gfree(b), ifree(ip);
    bt_free(&a);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    const char *order = argc > 1 ? argv[1] : "R";
    int want_r = argc > 2 ? atoi(argv[2]) : 1, want_c = argc > 3 ? atoi(argv[3]) : 1;
    int me, np, ctxt;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, order, want_r, want_c);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    int in_grid = myrow >= 0 && myrow < want_r;
    MPI_Comm_split(MPI_COMM_WORLD, in_grid, world_rank, &gcomm);
    if (!in_grid) {
        /* Outside the grid: -(ICTXT's position) at once, no communication with the grid. */
        int n = 3, m = 2, nrhs = 1, ldb = 6, info = 0, bad_ctxt = ctxt;
        double dl[8], d[8], du[8], b[8];
        pdbtsv_(&n, &m, &nrhs, dl, d, du, b, &ldb, &bad_ctxt, &info);
        cases++;
        if (info != -9) fail("outside the grid: pdbtsv info %d, want -9", info);
    } else {
        P = nprow * npcol;
        me_r = myrow * npcol + mycol;
        static const int ns[] = {1, 2, 3, 5, 7, 13};
        static const int ms[] = {1, 5, 32};
        uint64_t seed = 1;
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (size_t j = 0; j < sizeof ms / sizeof *ms; j++)
                for (int piv = 0; piv < 2; piv++) one_case(ctxt, ns[i], ms[j], 1 + 2 * ((i + j + piv) % 2), piv, seed++);
        one_case(ctxt, 23, 5, 3, 1, seed++);
        one_case(ctxt, 41, 32, 1, 0, seed++);
        int n = 13, k = (n + P - 1) / P;
        for (int m = 1; m <= 5; m += 4) {
            singular_case(ctxt, n, m, 0);
            singular_case(ctxt, n, m, n - 1);
            if (k < n) singular_case(ctxt, n, m, k + (k > 1));
        }
        bad_arguments(ctxt);
        Cblacs_gridexit(ctxt);
    }
    int all_f = 0, all_c = 0;
    MPI_Allreduce(&failures, &all_f, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&cases, &all_c, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) printf("test_pbt: %d cases, %d failures\n", all_c, all_f);
    MPI_Finalize();
    return all_f ? 1 : 0;
}
