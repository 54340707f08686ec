/* pdpotrf against the reference ScaLAPACK in the same program.
 *
 * Usage: mpirun -np P*Q' pdpotrf_test ORDER P Q [SUBGRID]
 *   ORDER   R or C: row- or column-major process grid (Cblacs_gridinit)
 *   SUBGRID 1: build the P x Q grid with Cblacs_gridmap from the highest-numbered ranks, in
 *           reverse order, so the context covers only some ranks of MPI_COMM_WORLD and its
 *           ranks differ from the world's.
 *
 * For every case (uplo, N, MB, aligned IA/JA offset, SPD or not) the same block-cyclic matrix is
 * factored by `pdpotrf_` as the program resolves it (hetla when preloaded or linked first) and by
 * the reference `pdpotrf_` taken with dlsym from libscalapack-openmpi.so. Checks: equal INFO on
 * every rank; the uplo triangle of sub(A) equal to rounding when INFO = 0 (and, when INFO > 0, the
 * columns before the failing block of both libraries); every other element of the local arrays (the other triangle, the
 * rows and columns outside sub(A), the LLD padding) unchanged. One error exit is checked too.
 * Prints one line per failure and "pdpotrf_test: N cases, F failures"; exit status 1 on failure.
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
void pdpotrf_(const char *, const int *, double *, const int *, const int *, const int *, int *, size_t);

typedef void (*potrf_fn)(const char *, const int *, double *, const int *, const int *, const int *, int *,
                         size_t);

static int nprow, npcol, myrow, mycol;

/* The global matrix: symmetric, diagonally dominant (so SPD) unless `bad` > 0, in which case
 * global diagonal element bad-1 of sub(A) (offset `off`) is made negative. */
static double entry(int gi, int gj, int n, int off, int bad) {
    if (gi == gj) {
        if (bad > 0 && gi == off + bad - 1) return -1.0;
        return 2.0 * n + 1.0 + 0.01 * gi;
    }
    int lo = gi < gj ? gi : gj, hi = gi < gj ? gj : gi;
    return 1.0 / (1.0 + hi - lo) + 0.001 * ((lo * 7 + hi * 3) % 11);
}

static int failures = 0, cases = 0;
static MPI_Comm gcomm; /* the ranks of the grid: reductions inside a case involve only them */

static void run_case(int ctxt, potrf_fn ref, char uplo, int n, int mb, int off, int bad, int rsrc, int csrc) {
    int mg = n + off + 2; /* global rows/cols: sub(A) plus rows/columns around it */
    int izero = 0;
    int mloc = numroc_(&mg, &mb, &myrow, &rsrc, &nprow);
    int nloc = numroc_(&mg, &mb, &mycol, &csrc, &npcol);
    int lld = (mloc > 0 ? mloc : 1) + 3; /* padding rows that must stay untouched */
    int desc[9] = {1, ctxt, mg, mg, mb, mb, rsrc, csrc, lld};
    size_t sz = (size_t)lld * (nloc > 0 ? nloc : 1);
    double *a0 = malloc(sz * sizeof(double)), *a1 = malloc(sz * sizeof(double)), *a2 = malloc(sz * sizeof(double));
    (void)izero;
    for (size_t k = 0; k < sz; k++) a0[k] = -777.0; /* padding marker */
    for (int lj = 0; lj < nloc; lj++) {
        int gj = ((lj / mb) * npcol + (npcol + mycol - csrc) % npcol) * mb + lj % mb;
        for (int li = 0; li < mloc; li++) {
            int gi = ((li / mb) * nprow + (nprow + myrow - rsrc) % nprow) * mb + li % mb;
            a0[li + (size_t)lj * lld] = entry(gi, gj, n, off, bad);
        }
    }
    memcpy(a1, a0, sz * sizeof(double));
    memcpy(a2, a0, sz * sizeof(double));
    int ia = off + 1, ja = off + 1, info1 = 0, info2 = 0;
    pdpotrf_(&uplo, &n, a1, &ia, &ja, desc, &info1, 1);
    ref(&uplo, &n, a2, &ia, &ja, desc, &info2, 1);
    cases++;
    int bad_here = 0;
    char why[200] = "";
    if (info1 != info2) {
        bad_here = 1;
        snprintf(why, sizeof why, "info %d, reference %d", info1, info2);
    }
    /* Columns known to be final: all of them on success, those before the failing block
     * otherwise (the reference stops there; the rest of the triangle is left partially updated). */
    int done = info2 == 0 ? n : ((info2 - 1) / mb) * mb;
    /* hetla's tile edge (HETLA_NB, default 256): on failure it completes whole tile columns
     * before the failing one, the reference whole MB-blocks, so compare what both finished. */
    const char *e = getenv("HETLA_NB");
    int nbh = e && atoi(e) > 0 ? atoi(e) : 256;
    if (info2 > 0 && ((info2 - 1) / nbh) * nbh < done) done = ((info2 - 1) / nbh) * nbh;
    for (int lj = 0; lj < nloc && !bad_here; lj++) {
        int gj = ((lj / mb) * npcol + (npcol + mycol - csrc) % npcol) * mb + lj % mb;
        for (int li = 0; li < lld && !bad_here; li++) {
            size_t k = li + (size_t)lj * lld;
            if (li >= mloc) {
                if (a1[k] != a0[k]) { bad_here = 1; snprintf(why, sizeof why, "padding changed"); }
                continue;
            }
            int gi = ((li / mb) * nprow + (nprow + myrow - rsrc) % nprow) * mb + li % mb;
            int si = gi - off, sj = gj - off;
            int inside = si >= 0 && si < n && sj >= 0 && sj < n && (uplo == 'L' ? si >= sj : si <= sj);
            if (!inside) {
                if (a1[k] != a0[k]) {
                    bad_here = 1;
                    snprintf(why, sizeof why, "element (%d,%d) outside sub(A)'s triangle changed", gi, gj);
                }
            } else if ((uplo == 'L' ? sj : si) < done) {
                /* a factor column (row for U) that the reference finished */
                if (fabs(a1[k] - a2[k]) > 1e-12 * (1.0 + fabs(a2[k]))) {
                    bad_here = 1;
                    snprintf(why, sizeof why, "L/U(%d,%d) = %.17g, reference %.17g", si, sj, a1[k], a2[k]);
                }
            }
        }
    }
    int any;
    MPI_Allreduce(&bad_here, &any, 1, MPI_INT, MPI_MAX, gcomm);
    if (bad_here) {
        printf("FAIL {%d,%d} uplo=%c n=%d mb=%d off=%d bad=%d src=(%d,%d): %s\n", myrow, mycol, uplo, n, mb, off, bad,
               rsrc, csrc, why);
    }
    if (any) failures++;
    free(a0);
    free(a1);
    free(a2);
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
        /* ranks np-1, np-2, ... fill the grid column by column */
        int *map = malloc(sizeof(int) * p * q);
        for (int j = 0; j < q; j++)
            for (int i = 0; i < p; i++) map[i + j * p] = np - 1 - (i + j * p);
        Cblacs_gridmap(&ctxt, map, p, p, q);
        free(map);
    } else {
        Cblacs_gridinit(&ctxt, order == 'C' ? "Col" : "Row", p, q);
    }
    void *h = dlopen("libscalapack-openmpi.so", RTLD_NOW | RTLD_GLOBAL);
    potrf_fn ref = h ? (potrf_fn)dlsym(h, "pdpotrf_") : NULL;
    if (!ref) {
        fprintf(stderr, "cannot find the reference pdpotrf_: %s\n", dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int in_grid = 0;
    if (ctxt >= 0) {
        Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
        in_grid = myrow >= 0 && mycol >= 0 && myrow < nprow && mycol < npcol;
    }
    MPI_Comm_split(MPI_COMM_WORLD, in_grid, me, &gcomm);
    if (in_grid) {
        const int ns[] = {1, 7, 33, 64};
        const int mbs[] = {1, 4, 8};
        for (int u = 0; u < 2; u++)
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 3; b++)
                    for (int o = 0; o < 2; o++)
                        for (int bad = 0; bad < 2; bad++) {
                            int n = ns[a], mb = mbs[b];
                            int off = o * mb * 2;
                            int badcol = bad ? (n * 2) / 3 + 1 : 0;
                            int rsrc = (o + bad) % nprow, csrc = o % npcol;
                            run_case(ctxt, ref, u ? 'U' : 'L', n, mb, off, badcol, rsrc, csrc);
                        }
        /* An error exit: IA not aligned to MB gives INFO = -4 from both. */
        {
            int mg = 20, mb = 4, n = 8, zero = 0;
            int mloc = numroc_(&mg, &mb, &myrow, &zero, &nprow), nloc = numroc_(&mg, &mb, &mycol, &zero, &npcol);
            int lld = mloc > 0 ? mloc : 1;
            int desc[9] = {1, ctxt, mg, mg, mb, mb, 0, 0, lld};
            double *a = calloc((size_t)lld * (nloc > 0 ? nloc : 1), sizeof(double));
            int ia = 2, ja = 1, i1 = 0, i2 = 0;
            pdpotrf_("L", &n, a, &ia, &ja, desc, &i1, 1);
            ref("L", &n, a, &ia, &ja, desc, &i2, 1);
            cases++;
            if (i1 != -4 || i2 != -4) {
                printf("FAIL {%d,%d} error exit: info %d, reference %d (want -4)\n", myrow, mycol, i1, i2);
                failures++;
            }
            free(a);
        }
        Cblacs_gridexit(ctxt);
    }
    int tot, ncases;
    MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cases, &ncases, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("pdpotrf_test: %d cases, %d failures\n", ncases, tot);
    if (ncases == 0) tot = 1; /* a run that tested nothing is a failure */
    MPI_Finalize();
    return tot ? 1 : 0;
}
