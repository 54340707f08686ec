/* pdorgqr and pdormqr against the reference ScaLAPACK in the same program.
 *
 * Usage: mpirun -np P*Q' pdq_test ORDER P Q [SUBGRID]   (as pdpotrf_test)
 *
 * The reflectors and TAU come from the reference PDGEQRF (taken with dlsym from
 * libscalapack-openmpi.so, as the reference PDORGQR and PDORMQR). Each case runs the routine as
 * the program resolves it (hetla when preloaded or linked first) and the reference on copies of
 * the same arrays: PDORGQR for M ≥ N ≥ K (K < N included) with IA/JA offsets on and off block
 * boundaries and MB ≠ NB; PDORMQR for SIDE = L/R, TRANS = N/T, with offsets that meet its
 * alignment rules. Checks: equal INFO; the result equal to rounding; every element of the local
 * arrays outside what the routine writes (A for PDORMQR entirely) unchanged. Also the workspace
 * queries (WORK(1) as the reference's) and a too small LWORK. Prints one line per failure and
 * "pdq_test: N cases, F failures"; exit status 1 on failure.
 */
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_pinfo(int *, int *);
void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridmap(int *, int *, int, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
int numroc_(const int *, const int *, const int *, const int *, const int *);
void pdorgqr_(const int *, const int *, const int *, double *, const int *, const int *, const int *, const double *,
              double *, const int *, int *);
void pdormqr_(const char *, const char *, const int *, const int *, const int *, double *, const int *, const int *,
              const int *, const double *, double *, const int *, const int *, const int *, double *, const int *,
              int *, size_t, size_t);

typedef void (*geqrf_fn)(const int *, const int *, double *, const int *, const int *, const int *, double *,
                         double *, const int *, int *);
typedef void (*orgqr_fn)(const int *, const int *, const int *, double *, const int *, const int *, const int *,
                         const double *, double *, const int *, int *);
typedef void (*ormqr_fn)(const char *, const char *, const int *, const int *, const int *, double *, const int *,
                         const int *, const int *, const double *, double *, const int *, const int *, const int *,
                         double *, const int *, int *, size_t, size_t);

static geqrf_fn ref_geqrf;
static orgqr_fn ref_orgqr;
static ormqr_fn ref_ormqr;
static int nprow, npcol, myrow, mycol;
static int failures = 0, cases = 0;
static MPI_Comm gcomm;

static double entry(int gi, int gj, int salt) {
    unsigned x = (unsigned)(gi * 7919 + gj * 104729 + 12345 + salt * 31);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return (double)(x % 100000) / 100000.0 - 0.5;
}

static int gidx(int l, int mb, int me_, int src, int np_) {
    return ((l / mb) * np_ + (np_ + me_ - src) % np_) * mb + l % mb;
}

/* A local array of an mg×ng global matrix (blocks mb×nb, source (rs, cs)) filled with entry(). */
typedef struct {
    int desc[9], mloc, nloc, lld, mb, nb, rs, cs;
    size_t sz;
    double *v;
} Mat;

static Mat make(int ctxt, int mg, int ng, int mb, int nb, int rs, int cs, int salt) {
    Mat a;
    a.mloc = numroc_(&mg, &mb, &myrow, &rs, &nprow);
    a.nloc = numroc_(&ng, &nb, &mycol, &cs, &npcol);
    a.lld = (a.mloc > 0 ? a.mloc : 1) + 1;
    int d[9] = {1, ctxt, mg, ng, mb, nb, rs, cs, a.lld};
    memcpy(a.desc, d, sizeof d);
    a.mb = mb, a.nb = nb, a.rs = rs, a.cs = cs;
    a.sz = (size_t)a.lld * (a.nloc > 0 ? a.nloc : 1);
    a.v = malloc(a.sz * sizeof(double));
    for (size_t k = 0; k < a.sz; k++) a.v[k] = -777.0;
    for (int lj = 0; lj < a.nloc; lj++)
        for (int li = 0; li < a.mloc; li++)
            a.v[li + (size_t)lj * a.lld] = entry(gidx(li, mb, myrow, rs, nprow), gidx(lj, nb, mycol, cs, npcol), salt);
    return a;
}

static double *dup(const Mat *a) {
    double *c = malloc(a->sz * sizeof(double));
    memcpy(c, a->v, a->sz * sizeof(double));
    return c;
}

/* Compares x (ours) with y (reference) from x0 (the input): inside rows [i0, i0+m) and columns
 * [j0, j0+n) (0-based global) to rounding, equal elsewhere. Returns 1 with `why` on a difference. */
static int compare(const Mat *a, const double *x0, const double *x, const double *y, int i0, int m, int j0, int n,
                   char *why, size_t wl) {
    double ymax = 0;
    for (size_t k = 0; k < a->sz; k++)
        if (fabs(y[k]) > ymax && y[k] != -777.0) ymax = fabs(y[k]);
    for (int lj = 0; lj < a->nloc; lj++) {
        int gj = gidx(lj, a->nb, mycol, a->cs, npcol);
        for (int li = 0; li < a->lld; li++) {
            size_t k = li + (size_t)lj * a->lld;
            int gi = li < a->mloc ? gidx(li, a->mb, myrow, a->rs, nprow) : -1;
            int inside = gi >= i0 && gi < i0 + m && gj >= j0 && gj < j0 + n;
            if (!inside && x[k] != x0[k]) {
                snprintf(why, wl, "local (%d,%d) outside what the routine writes changed", li, lj);
                return 1;
            }
            if (inside && !(fabs(x[k] - y[k]) <= 1e-11 * (1.0 + ymax))) {
                snprintf(why, wl, "(%d,%d) = %.17g, reference %.17g", gi - i0, gj - j0, x[k], y[k]);
                return 1;
            }
        }
    }
    return 0;
}

static void report(int bad, const char *what, const char *why) {
    int any;
    cases++;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, gcomm);
    if (bad) printf("FAIL {%d,%d} %s: %s\n", myrow, mycol, what, why);
    if (any) failures++;
}

/* QR of the m×k sub-matrix of `a` at (ia, ja) by the reference; tau sized for a's columns. */
static double *factor(Mat *a, int m, int k, int ia, int ja) {
    double *tau = calloc(a->nloc + 1, sizeof(double)), q = 0;
    int info = 0, m1 = -1;
    ref_geqrf(&m, &k, a->v, &ia, &ja, a->desc, tau, &q, &m1, &info);
    int lw = (int)q + 1;
    double *w = malloc(lw * sizeof(double));
    ref_geqrf(&m, &k, a->v, &ia, &ja, a->desc, tau, w, &lw, &info);
    free(w);
    return tau;
}

static void orgqr_case(int ctxt, int m, int n, int k, int mb, int nb, int ioff, int joff, int rs, int cs) {
    Mat a = make(ctxt, m + ioff + 2, n + joff + 1, mb, nb, rs, cs, 1);
    int ia = ioff + 1, ja = joff + 1, i1 = 0, i2 = 0, m1 = -1;
    double *tau = factor(&a, m, k, ia, ja), q1 = 0, q2 = 0;
    double *x = dup(&a), *y = dup(&a);
    pdorgqr_(&m, &n, &k, x, &ia, &ja, a.desc, tau, &q1, &m1, &i1);
    ref_orgqr(&m, &n, &k, y, &ia, &ja, a.desc, tau, &q2, &m1, &i2);
    char what[160], why[200] = "";
    snprintf(what, sizeof what, "pdorgqr m=%d n=%d k=%d mb=%d nb=%d ia=%d ja=%d src=(%d,%d)", m, n, k, mb, nb, ia, ja,
             rs, cs);
    int bad = q1 != q2;
    if (bad) snprintf(why, sizeof why, "workspace query %g, reference %g", q1, q2);
    report(bad, what, why);
    int lw = (int)q2;
    double *w = malloc(((size_t)lw + 1) * sizeof(double));
    pdorgqr_(&m, &n, &k, x, &ia, &ja, a.desc, tau, w, &lw, &i1);
    ref_orgqr(&m, &n, &k, y, &ia, &ja, a.desc, tau, w, &lw, &i2);
    bad = i1 != i2;
    if (bad)
        snprintf(why, sizeof why, "info %d, reference %d", i1, i2);
    else
        bad = compare(&a, a.v, x, y, ia - 1, m, ja - 1, n, why, sizeof why);
    report(bad, what, why);
    free(a.v), free(tau), free(x), free(y), free(w);
}

static void ormqr_case(int ctxt, char side, char trans, int m, int n, int k, int mb, int off, int rs, int cs) {
    int left = side == 'L', nq = left ? m : n;
    /* A: nq×k reflectors at (off+1, 2); C at rows/columns meeting PDORMQR's alignment rules. */
    Mat a = make(ctxt, nq + off + 1, k + 3, mb, mb, rs, cs, 2);
    int ia = off + 1, ja = 2;
    int ic = left ? off + 1 : 2, jc = left ? 3 : off + 1;
    Mat c = make(ctxt, m + ic + 1, n + jc, mb, mb, left ? rs : (rs + 1) % nprow, left ? (cs + 1) % npcol : cs, 3);
    double *tau = factor(&a, nq, k, ia, ja), q1 = 0, q2 = 0;
    double *a0 = dup(&a), *x = dup(&c), *y = dup(&c);
    int i1 = 0, i2 = 0, m1 = -1;
    pdormqr_(&side, &trans, &m, &n, &k, a.v, &ia, &ja, a.desc, tau, x, &ic, &jc, c.desc, &q1, &m1, &i1, 1, 1);
    ref_ormqr(&side, &trans, &m, &n, &k, a.v, &ia, &ja, a.desc, tau, y, &ic, &jc, c.desc, &q2, &m1, &i2, 1, 1);
    char what[200], why[200] = "";
    snprintf(what, sizeof what, "pdormqr side=%c trans=%c m=%d n=%d k=%d mb=%d ia=%d ic=%d jc=%d src=(%d,%d)", side,
             trans, m, n, k, mb, ia, ic, jc, rs, cs);
    int bad = q1 != q2;
    if (bad) snprintf(why, sizeof why, "workspace query %g, reference %g", q1, q2);
    report(bad, what, why);
    int lw = (int)q2;
    double *w = malloc(((size_t)lw + 1) * sizeof(double));
    pdormqr_(&side, &trans, &m, &n, &k, a.v, &ia, &ja, a.desc, tau, x, &ic, &jc, c.desc, w, &lw, &i1, 1, 1);
    bad = memcmp(a0, a.v, a.sz * sizeof(double)) != 0;
    if (bad) snprintf(why, sizeof why, "A changed");
    ref_ormqr(&side, &trans, &m, &n, &k, a.v, &ia, &ja, a.desc, tau, y, &ic, &jc, c.desc, w, &lw, &i2, 1, 1);
    if (!bad && i1 != i2) {
        bad = 1;
        snprintf(why, sizeof why, "info %d, reference %d", i1, i2);
    }
    if (!bad) bad = compare(&c, c.v, x, y, ic - 1, m, jc - 1, n, why, sizeof why);
    report(bad, what, why);
    /* Too small a workspace: INFO = -16 from both and WORK(1) the minimum. */
    if (m == 33 && k > 0) {
        int one = 1;
        pdormqr_(&side, &trans, &m, &n, &k, a.v, &ia, &ja, a.desc, tau, x, &ic, &jc, c.desc, &q1, &one, &i1, 1, 1);
        ref_ormqr(&side, &trans, &m, &n, &k, a.v, &ia, &ja, a.desc, tau, y, &ic, &jc, c.desc, &q2, &one, &i2, 1, 1);
        bad = i1 != -16 || i2 != -16 || q1 != q2;
        snprintf(why, sizeof why, "lwork=1: info %d/%d (want -16), work(1) %g/%g", i1, i2, q1, q2);
        report(bad, what, why);
    }
    free(a.v), free(c.v), free(tau), free(a0), free(x), free(y), free(w);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: %s R|C P Q [SUBGRID]\n", argv[0]);
        return 2;
    }
    char order = argv[1][0];
    int p = atoi(argv[2]), q = atoi(argv[3]), sub = argc > 4 ? atoi(argv[4]) : 0;
    int me, np;
    Cblacs_pinfo(&me, &np);
    int ctxt;
    Cblacs_get(-1, 0, &ctxt);
    if (sub) {
        int *map = malloc(sizeof(int) * p * q);
        for (int j = 0; j < q; j++)
            for (int i = 0; i < p; i++) map[i + j * p] = np - 1 - (i + j * p);
        Cblacs_gridmap(&ctxt, map, p, p, q);
        free(map);
    } else {
        Cblacs_gridinit(&ctxt, order == 'C' ? "Col" : "Row", p, q);
    }
    void *h = dlopen("libscalapack-openmpi.so", RTLD_NOW | RTLD_GLOBAL);
    if (h) {
        ref_geqrf = (geqrf_fn)dlsym(h, "pdgeqrf_");
        ref_orgqr = (orgqr_fn)dlsym(h, "pdorgqr_");
        ref_ormqr = (ormqr_fn)dlsym(h, "pdormqr_");
    }
    if (!ref_geqrf || !ref_orgqr || !ref_ormqr) {
        fprintf(stderr, "cannot find the reference routines: %s\n", dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int in_grid = 0;
    if (ctxt >= 0) {
        Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
        in_grid = myrow >= 0 && mycol >= 0 && myrow < nprow && mycol < npcol;
    }
    MPI_Comm_split(MPI_COMM_WORLD, in_grid, me, &gcomm);
    if (in_grid) {
        const int shapes[][3] = {{1, 1, 1}, {9, 7, 7}, {33, 23, 11}, {40, 40, 40}, {50, 30, 0}, {37, 37, 5}};
        for (int s = 0; s < 6; s++)
            for (int b = 0; b < 3; b++) {
                int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2], mb = b == 0 ? 1 : b == 1 ? 4 : 8;
                int rs = (s + b) % nprow, cs = s % npcol;
                orgqr_case(ctxt, m, n, k, mb, mb, 0, 0, rs, cs);
                orgqr_case(ctxt, m, n, k, mb, mb + 3, mb + 1, 2 * mb, rs, cs); /* MB != NB, offsets */
                for (int side = 0; side < 2; side++)
                    for (int t = 0; t < 2; t++) {
                        int mm = side ? n : m, nn = side ? m : n;
                        /* K ≤ the order of Q. */
                        int kk = k <= (side ? nn : mm) ? k : (side ? nn : mm);
                        ormqr_case(ctxt, side ? 'R' : 'L', t ? 'T' : 'N', mm, nn, kk, mb, b ? mb + 1 : 0, rs, cs);
                    }
            }
        Cblacs_gridexit(ctxt);
    }
    int tot, ncases;
    MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cases, &ncases, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("pdq_test: %d cases, %d failures\n", ncases, tot);
    if (ncases == 0) tot = 1;
    MPI_Finalize();
    return tot ? 1 : 0;
}
