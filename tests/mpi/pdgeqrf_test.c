/* pdgeqrf against the reference ScaLAPACK in the same program.
 *
 * Usage: mpirun -np P*Q' pdgeqrf_test ORDER P Q [SUBGRID]   (as pdpotrf_test: R/C grid order,
 *        SUBGRID 1 = a Cblacs_gridmap context over the highest-numbered ranks in reverse order)
 *
 * For every case (M, N, MB, IA/JA offset aligned to MB or not, regular or with an exactly zero
 * column) the same block-cyclic matrix is factored by `pdgeqrf_` as the program resolves it (hetla
 * when preloaded or linked first) and by the reference `pdgeqrf_` taken with dlsym from
 * libscalapack-openmpi.so. Checks: equal INFO; R and the Householder vectors equal to rounding;
 * TAU equal to rounding in every local entry (replicated over process rows); every other element
 * of the local arrays (rows and columns outside sub(A), the LLD padding) unchanged. One error
 * exit and one workspace query are checked too. Prints one line per failure and
 * "pdgeqrf_test: N cases, F failures"; exit status 1 on failure.
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
void pdgeqrf_(const int *, const int *, double *, const int *, const int *, const int *, double *, double *,
              const int *, int *);

typedef void (*geqrf_fn)(const int *, const int *, double *, const int *, const int *, const int *, double *,
                         double *, const int *, int *);

static int nprow, npcol, myrow, mycol;

/* Global matrix entry: pseudo-random in [-0.5, 0.5); column `zc` (global, -1 for none) is zero. */
static double entry(int gi, int gj, int zc) {
    if (gj == zc) return 0.0;
    unsigned x = (unsigned)(gi * 7919 + gj * 104729 + 12345);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return (double)(x % 100000) / 100000.0 - 0.5;
}

static int failures = 0, cases = 0;
static MPI_Comm gcomm;

static int gidx(int l, int mb, int me_, int src, int np_) {
    return ((l / mb) * np_ + (np_ + me_ - src) % np_) * mb + l % mb;
}

static void run_case(int ctxt, geqrf_fn ref, int m, int n, int mb, int off, int zcol, int rsrc, int csrc) {
    int mg = m + off + 2, ng = n + off + 3;
    int mloc = numroc_(&mg, &mb, &myrow, &rsrc, &nprow);
    int nloc = numroc_(&ng, &mb, &mycol, &csrc, &npcol);
    int lld = (mloc > 0 ? mloc : 1) + 3;
    int desc[9] = {1, ctxt, mg, ng, mb, mb, rsrc, csrc, lld};
    size_t sz = (size_t)lld * (nloc > 0 ? nloc : 1);
    double *a0 = malloc(sz * sizeof(double)), *a1 = malloc(sz * sizeof(double)), *a2 = malloc(sz * sizeof(double));
    int zc = zcol >= 0 ? off + zcol : -1;
    for (size_t k = 0; k < sz; k++) a0[k] = -777.0;
    for (int lj = 0; lj < nloc; lj++) {
        int gj = gidx(lj, mb, mycol, csrc, npcol);
        for (int li = 0; li < mloc; li++) a0[li + (size_t)lj * lld] = entry(gidx(li, mb, myrow, rsrc, nprow), gj, zc);
    }
    memcpy(a1, a0, sz * sizeof(double));
    memcpy(a2, a0, sz * sizeof(double));
    int nt = nloc + 1;
    double *t1 = malloc(nt * sizeof(double)), *t2 = malloc(nt * sizeof(double));
    for (int i = 0; i < nt; i++) t1[i] = t2[i] = -5.0;
    int ia = off + 1, ja = off + 1, info1 = 0, info2 = 0, query = -1;
    double q = 0;
    ref(&m, &n, a2, &ia, &ja, desc, t2, &q, &query, &info2);
    int lwork = (int)q + 1;
    double *work = malloc((size_t)lwork * sizeof(double));
    pdgeqrf_(&m, &n, a1, &ia, &ja, desc, t1, work, &lwork, &info1);
    ref(&m, &n, a2, &ia, &ja, desc, t2, work, &lwork, &info2);
    cases++;
    int bad_here = 0;
    char why[200] = "";
    if (info1 != info2) {
        bad_here = 1;
        snprintf(why, sizeof why, "info %d, reference %d", info1, info2);
    }
    for (int j = 0; j < nt && !bad_here; j++)
        if (!(fabs(t1[j] - t2[j]) <= 1e-12)) {
            bad_here = 1;
            snprintf(why, sizeof why, "tau local %d = %.17g, reference %.17g", j, t1[j], t2[j]);
        }
    double amax = 0;
    for (size_t k = 0; k < sz; k++)
        if (fabs(a2[k]) > amax) amax = fabs(a2[k]);
    for (int lj = 0; lj < nloc && !bad_here; lj++) {
        int gj = gidx(lj, mb, mycol, csrc, npcol);
        for (int li = 0; li < lld && !bad_here; li++) {
            size_t k = li + (size_t)lj * lld;
            if (li >= mloc) {
                if (a1[k] != a0[k]) { bad_here = 1; snprintf(why, sizeof why, "padding changed"); }
                continue;
            }
            int gi = gidx(li, mb, myrow, rsrc, nprow);
            int si = gi - off, sj = gj - off;
            int inside = si >= 0 && si < m && sj >= 0 && sj < n;
            if (!inside) {
                if (a1[k] != a0[k]) {
                    bad_here = 1;
                    snprintf(why, sizeof why, "element (%d,%d) outside sub(A) changed", gi, gj);
                }
            } else if (!(fabs(a1[k] - a2[k]) <= 1e-11 * (1.0 + amax))) {
                bad_here = 1;
                snprintf(why, sizeof why, "QR(%d,%d) = %.17g, reference %.17g", si, sj, a1[k], a2[k]);
            }
        }
    }
    int any;
    MPI_Allreduce(&bad_here, &any, 1, MPI_INT, MPI_MAX, gcomm);
    if (bad_here)
        printf("FAIL {%d,%d} m=%d n=%d mb=%d off=%d zcol=%d src=(%d,%d): %s\n", myrow, mycol, m, n, mb, off, zcol, rsrc,
               csrc, why);
    if (any) failures++;
    free(a0), free(a1), free(a2), free(t1), free(t2), free(work);
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
    geqrf_fn ref = h ? (geqrf_fn)dlsym(h, "pdgeqrf_") : NULL;
    if (!ref) {
        fprintf(stderr, "cannot find the reference pdgeqrf_: %s\n", dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int in_grid = 0;
    if (ctxt >= 0) {
        Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
        in_grid = myrow >= 0 && mycol >= 0 && myrow < nprow && mycol < npcol;
    }
    MPI_Comm_split(MPI_COMM_WORLD, in_grid, me, &gcomm);
    if (in_grid) {
        const int shapes[][2] = {{1, 1}, {7, 7}, {33, 33}, {64, 64}, {40, 25}, {25, 40}, {2, 9}};
        const int mbs[] = {1, 4, 8};
        for (int a = 0; a < 7; a++)
            for (int b = 0; b < 3; b++)
                for (int o = 0; o < 3; o++)
                    for (int z = 0; z < 2; z++) {
                        int m = shapes[a][0], n = shapes[a][1], mb = mbs[b];
                        int kmin = m < n ? m : n;
                        int zcol = z ? (kmin * 2) / 3 : -1;
                        /* o = 2: IA = JA not on a block boundary (PDGEQRF allows it) */
                        int off = o == 0 ? 0 : o == 1 ? mb * 2 : mb + 1;
                        run_case(ctxt, ref, m, n, mb, off, zcol, (o + z) % nprow, o % npcol);
                    }
        /* An error exit: LWORK too small gives INFO = -9 from both, and WORK(1) the minimum. */
        {
            int mg = 20, mb = 4, n = 8, zero = 0;
            int mloc = numroc_(&mg, &mb, &myrow, &zero, &nprow), nloc = numroc_(&mg, &mb, &mycol, &zero, &npcol);
            int lld = mloc > 0 ? mloc : 1;
            int desc[9] = {1, ctxt, mg, mg, mb, mb, 0, 0, lld};
            double *a = calloc((size_t)lld * (nloc > 0 ? nloc : 1), sizeof(double));
            double *tau = calloc(nloc + 1, sizeof(double)), w1 = 0, w2 = 0;
            int ia = 1, ja = 1, i1 = 0, i2 = 0, lw = 1;
            pdgeqrf_(&n, &n, a, &ia, &ja, desc, tau, &w1, &lw, &i1);
            ref(&n, &n, a, &ia, &ja, desc, tau, &w2, &lw, &i2);
            cases++;
            if (i1 != -9 || i2 != -9 || w1 != w2) {
                printf("FAIL {%d,%d} error exit: info %d, reference %d (want -9), work(1) %g, reference %g\n", myrow,
                       mycol, i1, i2, w1, w2);
                failures++;
            }
            free(a), free(tau);
        }
        Cblacs_gridexit(ctxt);
    }
    int tot, ncases;
    MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cases, &ncases, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("pdgeqrf_test: %d cases, %d failures\n", ncases, tot);
    if (ncases == 0) tot = 1;
    MPI_Finalize();
    return tot ? 1 : 0;
}
