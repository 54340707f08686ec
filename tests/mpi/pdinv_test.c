/* pdtrtri, pdpotri and pdgetri against the reference ScaLAPACK in the same program.
 *
 * Usage: mpirun -np P*Q' pdinv_test ORDER P Q [SUBGRID]   (as pdpotrf_test: R/C grid order,
 *        SUBGRID 1 = a Cblacs_gridmap context over the highest-numbered ranks in reverse order)
 *
 * For every case (N, MB, IA = JA offset on a block boundary, source process) the same block-cyclic
 * matrix goes through the routine as the program resolves it (hetla when preloaded or linked
 * first) and through the reference routine taken with dlsym from libscalapack-openmpi.so:
 * PDTRTRI (U/L, N/U) on a triangular matrix, PDPOTRI (U/L) on the reference PDPOTRF's factor,
 * PDGETRI on the reference PDGETRF's factors and pivots. The reference PDPOTRI and PDGETRI call
 * PDTRTRI by name, which in this process may be hetla's (checked on its own here). Checks: equal
 * INFO; the result equal to rounding; every element outside the part of sub(A) the routine
 * writes (the other triangle, rows and columns outside sub(A), the LLD padding) unchanged. Also
 * singular factors (a zero on the diagonal: INFO as the reference's, A unchanged), PDGETRI's
 * workspace query and too small LWORK (WORK(1), IWORK(1), INFO = -8), and an illegal DIAG.
 * Prints one line per failure and "pdinv_test: N cases, F failures"; exit status 1 on failure.
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
void pdtrtri_(const char *, const char *, const int *, double *, const int *, const int *, const int *, int *,
              size_t, size_t);
void pdpotri_(const char *, const int *, double *, const int *, const int *, const int *, int *, size_t);
void pdgetri_(const int *, double *, const int *, const int *, const int *, const int *, double *, const int *,
              int *, const int *, int *);

typedef void (*trtri_fn)(const char *, const char *, const int *, double *, const int *, const int *,
                         const int *, int *, size_t, size_t);
typedef void (*potri_fn)(const char *, const int *, double *, const int *, const int *, const int *, int *,
                         size_t);
typedef void (*getri_fn)(const int *, double *, const int *, const int *, const int *, const int *, double *,
                         const int *, int *, const int *, int *);
typedef void (*getrf_fn)(const int *, const int *, double *, const int *, const int *, const int *, int *, int *);
typedef void (*potrf_fn)(const char *, const int *, double *, const int *, const int *, const int *, int *,
                         size_t);

static trtri_fn ref_trtri;
static potri_fn ref_potri;
static getri_fn ref_getri;
static getrf_fn ref_getrf;
static potrf_fn ref_potrf;
static int nprow, npcol, myrow, mycol;
static int failures = 0, cases = 0;
static MPI_Comm gcomm;

static double entry(int gi, int gj) {
    unsigned x = (unsigned)(gi * 7919 + gj * 104729 + 12345);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return (double)(x % 100000) / 100000.0 - 0.5;
}

static int gidx(int l, int mb, int me_, int src, int np_) {
    return ((l / mb) * np_ + (np_ + me_ - src) % np_) * mb + l % mb;
}

enum { TRTRI, POTRI, GETRI };

/* One case: `kind`, flags `uplo`/`diag`, N, MB, offset, source process, `zero` (≥ 0: that
 * diagonal element of sub(A) is zero in the input: a singular factor). */
static void run_case(int ctxt, int kind, char uplo, char diag, int n, int mb, int off, int rsrc, int csrc,
                     int zero) {
    int g = n + off + 2;
    int mloc = numroc_(&g, &mb, &myrow, &rsrc, &nprow);
    int nloc = numroc_(&g, &mb, &mycol, &csrc, &npcol);
    int lld = (mloc > 0 ? mloc : 1) + 2;
    int desc[9] = {1, ctxt, g, g, mb, mb, rsrc, csrc, lld};
    size_t sz = (size_t)lld * (nloc > 0 ? nloc : 1);
    double *a0 = malloc(sz * sizeof(double)), *a1 = malloc(sz * sizeof(double)), *a2 = malloc(sz * sizeof(double));
    int ia = off + 1, ja = off + 1, info1 = 0, info2 = 0;
    for (size_t k = 0; k < sz; k++) a0[k] = -777.0;
    for (int lj = 0; lj < nloc; lj++) {
        int gj = gidx(lj, mb, mycol, csrc, npcol);
        for (int li = 0; li < mloc; li++) {
            int gi = gidx(li, mb, myrow, rsrc, nprow);
            /* Symmetric for POTRI, and a diagonal that dominates. */
            double v = kind == POTRI ? entry(gi < gj ? gi : gj, gi < gj ? gj : gi) : entry(gi, gj);
            if (gi == gj) v += (v < 0 ? -1.0 : 1.0) * (kind == TRTRI ? 2.0 : n + 2.0);
            a0[li + (size_t)lj * lld] = v;
        }
    }
    int *ipiv = calloc(mloc + mb + 1, sizeof(int));
    if (kind == POTRI) {
        ref_potrf(&uplo, &n, a0, &ia, &ja, desc, &info1, 1);
    } else if (kind == GETRI) {
        ref_getrf(&n, &n, a0, &ia, &ja, desc, ipiv, &info1);
    }
    if (zero >= 0) {
        int gz = off + zero;
        for (int lj = 0; lj < nloc; lj++)
            for (int li = 0; li < mloc; li++)
                if (gidx(li, mb, myrow, rsrc, nprow) == gz && gidx(lj, mb, mycol, csrc, npcol) == gz)
                    a0[li + (size_t)lj * lld] = 0.0;
    }
    memcpy(a1, a0, sz * sizeof(double));
    memcpy(a2, a0, sz * sizeof(double));
    if (kind == TRTRI) {
        pdtrtri_(&uplo, &diag, &n, a1, &ia, &ja, desc, &info1, 1, 1);
        ref_trtri(&uplo, &diag, &n, a2, &ia, &ja, desc, &info2, 1, 1);
    } else if (kind == POTRI) {
        pdpotri_(&uplo, &n, a1, &ia, &ja, desc, &info1, 1);
        ref_potri(&uplo, &n, a2, &ia, &ja, desc, &info2, 1);
    } else {
        int m1 = -1, lw, liw;
        double wq = 0;
        int iwq = 0;
        ref_getri(&n, a2, &ia, &ja, desc, ipiv, &wq, &m1, &iwq, &m1, &info2);
        lw = (int)wq, liw = iwq;
        double *w = malloc(((size_t)lw + 1) * sizeof(double));
        int *iw = malloc(((size_t)liw + 1) * sizeof(int));
        pdgetri_(&n, a1, &ia, &ja, desc, ipiv, w, &lw, iw, &liw, &info1);
        ref_getri(&n, a2, &ia, &ja, desc, ipiv, w, &lw, iw, &liw, &info2);
        free(w), free(iw);
    }
    cases++;
    int bad_here = 0;
    char why[200] = "";
    if (info1 != info2) {
        bad_here = 1;
        snprintf(why, sizeof why, "info %d, reference %d", info1, info2);
    }
    double amax = 0;
    for (size_t k = 0; k < sz; k++)
        if (fabs(a2[k]) > amax) amax = fabs(a2[k]);
    for (int lj = 0; lj < nloc && !bad_here; lj++) {
        int gj = gidx(lj, mb, mycol, csrc, npcol);
        for (int li = 0; li < lld && !bad_here; li++) {
            size_t k = li + (size_t)lj * lld;
            int si = li < mloc ? gidx(li, mb, myrow, rsrc, nprow) - off : -1, sj = gj - off;
            int inside = si >= 0 && si < n && sj >= 0 && sj < n;
            if (inside && kind != GETRI) inside = uplo == 'U' ? si <= sj : si >= sj;
            if (inside && kind == TRTRI && diag == 'U' && si == sj) inside = 0;
            if (!inside || info2 != 0) {
                if (a1[k] != a0[k]) {
                    bad_here = 1;
                    snprintf(why, sizeof why, "local (%d,%d) outside what the routine writes changed", li, lj);
                }
            } else if (!(fabs(a1[k] - a2[k]) <= 1e-11 * (1.0 + amax))) {
                bad_here = 1;
                snprintf(why, sizeof why, "X(%d,%d) = %.17g, reference %.17g", si, sj, a1[k], a2[k]);
            }
        }
    }
    int any;
    MPI_Allreduce(&bad_here, &any, 1, MPI_INT, MPI_MAX, gcomm);
    if (bad_here)
        printf("FAIL {%d,%d} %s uplo=%c diag=%c n=%d mb=%d off=%d src=(%d,%d) zero=%d: %s\n", myrow, mycol,
               kind == TRTRI ? "pdtrtri" : kind == POTRI ? "pdpotri" : "pdgetri", uplo, diag, n, mb, off, rsrc, csrc,
               zero, why);
    if (any) failures++;
    free(a0), free(a1), free(a2), free(ipiv);
}

/* PDGETRI's workspace query and too small LWORK, and PDTRTRI with an illegal DIAG: the same INFO,
 * WORK(1) and IWORK(1) as the reference. */
static void edge_cases(int ctxt) {
    int g = 30, mb = 4, n = 26, zero = 0, one = 1, ia = 5;
    int mloc = numroc_(&g, &mb, &myrow, &zero, &nprow), nloc = numroc_(&g, &mb, &mycol, &one, &npcol);
    int lld = mloc > 0 ? mloc : 1;
    int desc[9] = {1, ctxt, g, g, mb, mb, 0, npcol > 1 ? 1 : 0, lld};
    double *a = calloc((size_t)lld * (nloc > 0 ? nloc : 1), sizeof(double));
    int *ipiv = calloc(mloc + mb, sizeof(int));
    for (int pass = 0; pass < 3; pass++) {
        double w1 = 0, w2 = 0;
        int iw1 = 0, iw2 = 0, i1 = 0, i2 = 0;
        int lw = pass == 0 ? -1 : 1, liw = pass == 1 ? -1 : (pass == 2 ? 1000 : 1);
        pdgetri_(&n, a, &ia, &ia, desc, ipiv, &w1, &lw, &iw1, &liw, &i1);
        ref_getri(&n, a, &ia, &ia, desc, ipiv, &w2, &lw, &iw2, &liw, &i2);
        cases++;
        if (i1 != i2 || w1 != w2 || iw1 != iw2 || (pass == 2 && i1 != -8)) {
            printf("FAIL {%d,%d} pdgetri lwork=%d liwork=%d: info %d/%d work(1) %g/%g iwork(1) %d/%d\n", myrow,
                   mycol, lw, liw, i1, i2, w1, w2, iw1, iw2);
            failures++;
        }
    }
    {
        int i1 = 0, i2 = 0;
        pdtrtri_("U", "X", &n, a, &ia, &ia, desc, &i1, 1, 1);
        ref_trtri("U", "X", &n, a, &ia, &ia, desc, &i2, 1, 1);
        cases++;
        if (i1 != -2 || i2 != -2) {
            printf("FAIL {%d,%d} pdtrtri diag=X: info %d, reference %d (want -2)\n", myrow, mycol, i1, i2);
            failures++;
        }
    }
    free(a), free(ipiv);
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
        ref_trtri = (trtri_fn)dlsym(h, "pdtrtri_");
        ref_potri = (potri_fn)dlsym(h, "pdpotri_");
        ref_getri = (getri_fn)dlsym(h, "pdgetri_");
        ref_getrf = (getrf_fn)dlsym(h, "pdgetrf_");
        ref_potrf = (potrf_fn)dlsym(h, "pdpotrf_");
    }
    if (!ref_trtri || !ref_potri || !ref_getri || !ref_getrf || !ref_potrf) {
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
        const int ns[] = {1, 7, 33, 50};
        const int mbs[] = {1, 4, 8};
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 3; b++)
                for (int o = 0; o < 2; o++) {
                    int n = ns[a], mb = mbs[b], off = o * mb * 2;
                    int rs = (a + o) % nprow, cs = (a + b) % npcol;
                    for (int u = 0; u < 2; u++) {
                        char uplo = u ? 'L' : 'U';
                        run_case(ctxt, TRTRI, uplo, 'N', n, mb, off, rs, cs, -1);
                        run_case(ctxt, TRTRI, uplo, 'U', n, mb, off, rs, cs, -1);
                        run_case(ctxt, POTRI, uplo, 'N', n, mb, off, rs, cs, -1);
                    }
                    run_case(ctxt, GETRI, 'N', 'N', n, mb, off, rs, cs, -1);
                }
        /* Singular factors: zeros on the diagonal (the reference's INFO, A unchanged). */
        for (int z = 0; z < 3; z++) {
            int zs = z == 0 ? 0 : z == 1 ? 17 : 32;
            run_case(ctxt, TRTRI, 'U', 'N', 33, 4, 8, 0, 0, zs);
            run_case(ctxt, TRTRI, 'L', 'N', 33, 4, 0, 0, 0, zs);
            run_case(ctxt, TRTRI, 'L', 'U', 33, 4, 0, 0, 0, zs);
            run_case(ctxt, GETRI, 'N', 'N', 33, 4, 0, 0, 0, zs);
        }
        edge_cases(ctxt);
        Cblacs_gridexit(ctxt);
    }
    int tot, ncases;
    MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cases, &ncases, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("pdinv_test: %d cases, %d failures\n", ncases, tot);
    if (ncases == 0) tot = 1;
    MPI_Finalize();
    return tot ? 1 : 0;
}
