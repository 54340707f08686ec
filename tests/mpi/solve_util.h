/* Shared by pdpotrs_test.c and pdgetrs_test.c: the BLACS grid from the command line (as in
 * pdpotrf_test.c: R/C grid order, SUBGRID 1 = a Cblacs_gridmap context over the highest-numbered
 * ranks in reverse order), block-cyclic matrices with padding, and the guard/compare check.
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

static int nprow, npcol, myrow, mycol;
static int failures = 0, cases = 0;
static MPI_Comm gcomm; /* the ranks of the grid: reductions inside a case involve only them */

/* Global index of local index l (block mb, this process me_, source src, np_ processes). */
static int gidx(int l, int mb, int me_, int src, int np_) {
    return ((l / mb) * np_ + (np_ + me_ - src) % np_) * mb + l % mb;
}

/* Pseudo-random in [-0.5, 0.5) from a global position and a seed. */
static double rnd(int gi, int gj, unsigned seed) {
    unsigned x = (unsigned)(gi * 7919 + gj * 104729 + 12345) ^ (seed * 2654435761u);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    x ^= x >> 11;
    return (double)(x % 100000) / 100000.0 - 0.5;
}

/* A block-cyclic mg×ng matrix of ELEM: this process's local array, with 3 padding rows
 * (LLD > LOCr) holding GUARDV so that writes there show. DEFINE_MAT(Name, ctor, entry, ELEM,
 * GUARDV) declares the type Name, the entry function type `entry` (ELEM of a global position)
 * and the constructor `ctor`; ptyped_test.c instantiates it for its own element type. */
#define DEFINE_MAT(Name, ctor, entry, ELEM, GUARDV)                                                  \
    typedef struct {                                                                                 \
        int desc[9];                                                                                 \
        int mloc, nloc, lld, mb, nb, rsrc, csrc;                                                     \
        size_t sz;                                                                                   \
        ELEM *v;                                                                                     \
    } Name;                                                                                          \
    typedef ELEM (*entry)(int gi, int gj, const void *ctx);                                          \
    static Name ctor(int ctxt, int mg, int ng, int mb, int nb, int rsrc, int csrc, entry f,           \
                     const void *ctx) {                                                              \
        Name m;                                                                                      \
        m.mloc = numroc_(&mg, &mb, &myrow, &rsrc, &nprow);                                           \
        m.nloc = numroc_(&ng, &nb, &mycol, &csrc, &npcol);                                           \
        m.lld = (m.mloc > 0 ? m.mloc : 1) + 3;                                                       \
        m.mb = mb, m.nb = nb, m.rsrc = rsrc, m.csrc = csrc;                                          \
        int d[9] = {1, ctxt, mg, ng, mb, nb, rsrc, csrc, m.lld};                                     \
        memcpy(m.desc, d, sizeof d);                                                                 \
        m.sz = (size_t)m.lld * (m.nloc > 0 ? m.nloc : 1);                                            \
        m.v = malloc(m.sz * sizeof(ELEM));                                                           \
        for (size_t k = 0; k < m.sz; k++) m.v[k] = (GUARDV);                                         \
        for (int lj = 0; lj < m.nloc; lj++) {                                                        \
            int gj = gidx(lj, nb, mycol, csrc, npcol);                                               \
            for (int li = 0; li < m.mloc; li++)                                                      \
                m.v[li + (size_t)lj * m.lld] = f(gidx(li, mb, myrow, rsrc, nprow), gj, ctx);         \
        }                                                                                            \
        return m;                                                                                    \
    }

DEFINE_MAT(Mat, mat_new, entry_fn, double, -777.0)

static double *mat_copy(const Mat *m) {
    double *c = malloc(m->sz * sizeof(double));
    memcpy(c, m->v, m->sz * sizeof(double));
    return c;
}

/* Inside the region (rows i0..i0+rows-1, columns j0..j0+cols-1, 0-based global; `tri` 'L'/'U'
 * keeps only that triangle, relative to the region's corner, anything else the whole region):
 * |got - want| <= tol * (1 + max|want| over the grid), or got == orig when want is NULL.
 * Everywhere else (rows/columns outside, padding): got == orig exactly. Returns 1 and writes
 * `why` on the first mismatch. Collective over gcomm (the scale). */
static int check_region(const Mat *m, const double *orig, const double *got, const double *want, int i0, int j0,
                        int rows, int cols, char tri, double tol, const char *what, char *why, size_t wn) {
    double amax = 0, g;
    if (want)
        for (size_t k = 0; k < m->sz; k++)
            if (fabs(want[k]) > amax && want[k] != -777.0) amax = fabs(want[k]);
    MPI_Allreduce(&amax, &g, 1, MPI_DOUBLE, MPI_MAX, gcomm);
    double bound = tol * (1.0 + g);
    for (int lj = 0; lj < m->nloc; lj++) {
        int gj = gidx(lj, m->nb, mycol, m->csrc, npcol);
        for (int li = 0; li < m->lld; li++) {
            size_t k = li + (size_t)lj * m->lld;
            int inside = 0, gi = -1;
            if (li < m->mloc) {
                gi = gidx(li, m->mb, myrow, m->rsrc, nprow);
                int si = gi - i0, sj = gj - j0;
                inside = si >= 0 && si < rows && sj >= 0 && sj < cols;
                if (tri == 'L') inside = inside && si >= sj;
                if (tri == 'U') inside = inside && si <= sj;
            }
            if (inside && want) {
                if (!(fabs(got[k] - want[k]) <= bound)) {
                    snprintf(why, wn, "%s(%d,%d) = %.17g, reference %.17g", what, gi - i0, gj - j0, got[k], want[k]);
                    return 1;
                }
            } else if (got[k] != orig[k]) {
                if (li >= m->mloc)
                    snprintf(why, wn, "%s padding changed", what);
                else
                    snprintf(why, wn, "%s(%d,%d) (global, %s) changed", what, gi, gj, inside ? "inside" : "outside");
                return 1;
            }
        }
    }
    return 0;
}

/* Records one case: any rank's failure fails it; each failing rank prints its reason. */
static void record(int bad, const char *desc, const char *why) {
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, gcomm);
    if (bad) printf("FAIL {%d,%d} %s: %s\n", myrow, mycol, desc, why);
    cases++;
    if (any) failures++;
}

/* The grid from argv (ORDER P Q [SUBGRID]); returns whether this process is in it. */
static int setup_grid(int argc, char **argv, int *ctxt) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s R|C P Q [SUBGRID]\n", argv[0]);
        exit(2);
    }
    char order = argv[1][0];
    int p = atoi(argv[2]), q = atoi(argv[3]), sub = argc > 4 ? atoi(argv[4]) : 0;
    int me, np;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, ctxt);
    if (sub) {
        int *map = malloc(sizeof(int) * p * q);
        for (int j = 0; j < q; j++)
            for (int i = 0; i < p; i++) map[i + j * p] = np - 1 - (i + j * p);
        Cblacs_gridmap(ctxt, map, p, p, q);
        free(map);
    } else {
        Cblacs_gridinit(ctxt, order == 'C' ? "Col" : "Row", p, q);
    }
    int in_grid = 0;
    if (*ctxt >= 0) {
        Cblacs_gridinfo(*ctxt, &nprow, &npcol, &myrow, &mycol);
        in_grid = myrow >= 0 && mycol >= 0 && myrow < nprow && mycol < npcol;
    }
    MPI_Comm_split(MPI_COMM_WORLD, in_grid, me, &gcomm);
    return in_grid;
}

/* The reference routine `name` from libscalapack-openmpi.so (not the one the program resolves). */
static void *reference(const char *name) {
    static void *h = NULL;
    if (!h) h = dlopen("libscalapack-openmpi.so", RTLD_NOW | RTLD_GLOBAL);
    void *f = h ? dlsym(h, name) : NULL;
    if (!f) {
        fprintf(stderr, "cannot find the reference %s: %s\n", name, dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return f;
}

/* Prints "<name>: N cases, F failures"; the exit status. */
static int finish(const char *name) {
    int me, tot, ncases;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cases, &ncases, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("%s: %d cases, %d failures\n", name, ncases, tot);
    if (ncases == 0) tot = 1; /* a run that tested nothing is a failure */
    MPI_Finalize();
    return tot ? 1 : 0;
}
