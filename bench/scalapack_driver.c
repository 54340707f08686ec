/* The ScaLAPACK benchmark driver: hetla's pdpotrf_/pdgetrf_/pdgeqrf_, the solves
 * pdpotrs_/pdgetrs_, the inverses pdtrtri_/pdpotri_/pdgetri_ and Q (pdorgqr_, pdormqr_) against
 * reference ScaLAPACK in the same MPI program.
 *
 * Linked with -lhetla ahead of -lscalapack-openmpi, so its calls to the p?-routines reach hetla as
 * in a relinked application; the reference definitions of the same names come from
 * dlopen("libscalapack-openmpi.so") + dlsym, which bypasses hetla's exports. dladdr checks at start
 * that each side comes from the library it should.
 *
 * For each (routine, nb, n), a configuration: the same seeded block-cyclic matrix (global N x N,
 * MB = NB = nb, on a P x Q grid from Cblacs_gridinit, IA = JA = 1, LLD = LOCr) is factored R times
 * by each library, hetla then the reference; every call works on a fresh copy (the copy is not
 * timed). A sample is the wall time from a barrier to the slowest rank's return (MPI_Allreduce MAX);
 * the reported time is the median of the R samples. The samples are taken in R rounds, each round
 * one sample pair of every configuration in turn, so that a configuration's samples are spread
 * over the whole run: on a shared machine whose speed changes for tens of seconds at a time, the
 * median then keeps the machine's usual state instead of whatever state one configuration's few
 * seconds fell in. In the first round, each configuration starts with one untimed call per
 * library at a small size (thread pools, MPI connections) and hetla's warm-up calls (BENCH_WARM).
 * Each sample pair's results are compared: equal INFO, and the factors (and tau, ipiv) equal to
 * a relative 1e-9 (the check column: every round's).
 *
 * The solves (pdpotrs, pdgetrs) start from factors the reference computed once (untimed) and time
 * only the solve of NRHS right-hand sides (--nrhs, default 1), B with the same blocks as A; X of
 * both libraries is compared the same way.
 *
 * The inverses and Q start from inputs made once, untimed: pdtrtri ('L', 'N') from a lower
 * triangle with N on the diagonal, pdpotri ('L') and pdgetri from the reference's PDPOTRF and
 * PDGETRF factors, pdorgqr (M = N = K) and pdormqr ('L', 'T', C random N x N, or N x C with --cols C)
 * from the reference's
 * PDGEQRF; workspaces are the larger of the two libraries' queries. The reference PDPOTRI and
 * PDGETRI call PDTRTRI by name, which in this program is hetla's: run them with
 * HETLA_DISABLE=pdtrtri (hetla's own PDPOTRI and PDGETRI do not call it) so that the reference
 * side is the reference's throughout.
 *
 * The ceiling: every rank runs a single-threaded DGEMM of order 2000 at the same time; the sum of
 * their rates is the DGEMM rate of the whole grid (with one rank per core, the machine's all-core
 * DGEMM rate). It is measured twice: once before the factorizations (best of 3, dgemm_gflops) and
 * once per configuration, one DGEMM sample after each of its pairs of timed samples (best of
 * those R, dgemm_near_gflops). On a shared machine a neighbour can slow every call for tens of seconds;
 * the speedup is immune (the two libraries' samples alternate), and the second ceiling makes the
 * share so too: it is taken in the same seconds as the samples it divides.
 *
 * Rank 0 writes one CSV row per (routine, nb, n):
 *   routine,n,nb,grid,reps,hetla_s,ref_s,speedup,hetla_gflops,ref_gflops,check,maxdiff,dgemm_gflops,
 *   dgemm_near_gflops
 *
 * Usage: mpirun -np P*Q scalapack_driver [--sizes 2000,4000] [--nbs 64,128]
 *          [--routines pdpotrf,pdgetrf,pdgeqrf,pdpotrs,pdgetrs,pdtrtri,pdpotri,pdgetri,pdorgqr,pdormqr]
 *          [--nrhs K] [--cols C] [--reps R] [--grid PxQ]
 *          [--out FILE]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void Cblacs_pinfo(int *, int *);
void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
int numroc_(const int *, const int *, const int *, const int *, const int *);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void pdpotrf_(const char *, const int *, double *, const int *, const int *, const int *, int *, size_t);
void pdgetrf_(const int *, const int *, double *, const int *, const int *, const int *, int *, int *);
void pdgeqrf_(const int *, const int *, double *, const int *, const int *, const int *, double *, double *,
              const int *, int *);
void pdpotrs_(const char *, const int *, const int *, const double *, const int *, const int *, const int *, double *,
              const int *, const int *, const int *, int *, size_t);
void pdgetrs_(const char *, const int *, const int *, const double *, const int *, const int *, const int *,
              const int *, double *, const int *, const int *, const int *, int *, size_t);

void pdtrtri_(const char *, const char *, const int *, double *, const int *, const int *, const int *, int *,
              size_t, size_t);
void pdpotri_(const char *, const int *, double *, const int *, const int *, const int *, int *, size_t);
void pdgetri_(const int *, double *, const int *, const int *, const int *, const int *, double *, const int *,
              int *, const int *, int *);
void pdorgqr_(const int *, const int *, const int *, double *, const int *, const int *, const int *, const double *,
              double *, const int *, int *);
void pdormqr_(const char *, const char *, const int *, const int *, const int *, double *, const int *, const int *,
              const int *, const double *, double *, const int *, const int *, const int *, double *, const int *,
              int *, size_t, size_t);
typedef void (*trtri_fn)(const char *, const char *, const int *, double *, const int *, const int *,
                         const int *, int *, size_t, size_t);
typedef void (*potri_fn)(const char *, const int *, double *, const int *, const int *, const int *, int *,
                         size_t);
typedef void (*getri_fn)(const int *, double *, const int *, const int *, const int *, const int *, double *,
                         const int *, int *, const int *, int *);
typedef void (*orgqr_fn)(const int *, const int *, const int *, double *, const int *, const int *, const int *,
                         const double *, double *, const int *, int *);
typedef void (*ormqr_fn)(const char *, const char *, const int *, const int *, const int *, double *, const int *,
                         const int *, const int *, const double *, double *, const int *, const int *, const int *,
                         double *, const int *, int *, size_t, size_t);
typedef void (*potrf_fn)(const char *, const int *, double *, const int *, const int *, const int *, int *, size_t);
typedef void (*getrf_fn)(const int *, const int *, double *, const int *, const int *, const int *, int *, int *);
typedef void (*geqrf_fn)(const int *, const int *, double *, const int *, const int *, const int *, double *,
                         double *, const int *, int *);
typedef void (*potrs_fn)(const char *, const int *, const int *, const double *, const int *, const int *, const int *,
                         double *, const int *, const int *, const int *, int *, size_t);
typedef void (*getrs_fn)(const char *, const int *, const int *, const double *, const int *, const int *,
                         const int *, const int *, double *, const int *, const int *, const int *, int *, size_t);

static int nprow = 1, npcol = 2, myrow, mycol, me;
static potrf_fn ref_potrf;
static getrf_fn ref_getrf;
static geqrf_fn ref_geqrf;
static potrs_fn ref_potrs;
static getrs_fn ref_getrs;
static trtri_fn ref_trtri;
static potri_fn ref_potri;
static getri_fn ref_getri;
static orgqr_fn ref_orgqr;
static ormqr_fn ref_ormqr;
static int nrhs = 1;
static int ccols = 0; /* pdormqr: columns of C (--cols; 0: N) */
/* Untimed hetla calls before each configuration's samples, 250 ms apart (BENCH_WARM, default 2;
 * 0 when HETLA_MIN_N is set or HETLA_CACHE_DIR=off). Without HETLA_MIN_N, hetla decides each
 * size class per grid and caller block size before the class's first call answers, by trials on
 * copies of the local arrays (three or five on tiles, as many forwarded, src/api/tune.rs); the
 * samples then show the path it settled on, as a program making many calls sees it. The gap
 * keeps the first trial from starting while the driver's own reference calls may still have
 * threads spinning. */
static int warm_calls(void) {
    const char *w = getenv("BENCH_WARM"), *m = getenv("HETLA_MIN_N"), *c = getenv("HETLA_CACHE_DIR");
    if (w && *w) return atoi(w);
    return (m && *m) || (c && !strcmp(c, "off")) ? 0 : 2;
}

/* A reproducible uniform number in [-0.5, 0.5) for global element (i, j): independent of the grid. */
static double u01(unsigned long i, unsigned long j) {
    unsigned long x = i * 0x9E3779B97F4A7C15UL ^ (j + 0x632BE59BD9B4E019UL) * 0xD1B54A32D192ED03UL;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9UL;
    x ^= x >> 29;
    return (double)(x >> 11) / 9007199254740992.0 - 0.5;
}

static int gidx(int l, int nb, int me_, int np_) { return ((l / nb) * np_ + me_) * nb + l % nb; }

static double now_max(double t0, double t1) {
    double d = t1 - t0, m;
    MPI_Allreduce(&d, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int r) {
    qsort(v, r, sizeof(double), cmp_d);
    return r % 2 ? v[r / 2] : 0.5 * (v[r / 2 - 1] + v[r / 2]);
}

static double flops(const char *rt, double n) {
    if (!strcmp(rt, "pdpotrf")) return n * n * n / 3.0;
    if (!strcmp(rt, "pdgetrf")) return 2.0 * n * n * n / 3.0;
    if (!strcmp(rt, "pdpotrs") || !strcmp(rt, "pdgetrs")) return 2.0 * n * n * nrhs;
    if (!strcmp(rt, "pdtrtri")) return n * n * n / 3.0;
    if (!strcmp(rt, "pdpotri")) return 2.0 * n * n * n / 3.0;
    if (!strcmp(rt, "pdormqr")) return 2.0 * n * n * (ccols > 0 ? ccols : n);
    return 4.0 * n * n * n / 3.0; /* pdgeqrf, pdgetri, pdorgqr with M = N = K */
}

/* The grid's DGEMM rate in GFLOP/s: every rank multiplies two n×n matrices at the same time, best
 * of `samples`; the rates are summed over the ranks. */
static double grid_dgemm_gflops(int samples) {
    const int n = 2000;
    const double one = 1.0, zero = 0.0;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n), *c = malloc(sizeof(double) * n * n);
    for (long k = 0; k < (long)n * n; k++) a[k] = u01(k, 1), b[k] = u01(k, 2), c[k] = 0.0;
    double best = 1e30;
    for (int r = 0; r < samples; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
        double t = MPI_Wtime() - t0;
        if (t < best) best = t;
    }
    double mine = 2.0 * n * n * (double)n / best * 1e-9, sum = 0.0;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(a), free(b), free(c);
    return sum;
}

/* One configuration's samples over the rounds. */
#define MAX_CONFIGS 256
struct config {
    char rt[8];
    int n, nb, ok;
    double *th, *tr, maxdiff, gemm;
};

struct result {
    double t_h, t_r, maxdiff, gemm_near;
    int ok;
};

/* `reps` sample pairs of one (routine, nb, n) configuration after `warm` untimed hetla calls;
 * reps = 0 is the untimed warm-up. */
static struct result run(int ctxt, const char *rt, int n, int nb, int reps, int warm) {
    int zero = 0, one = 1;
    int mloc = numroc_(&n, &nb, &myrow, &zero, &nprow), nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    int lld = mloc > 0 ? mloc : 1;
    int desc[9] = {1, ctxt, n, n, nb, nb, 0, 0, lld};
    size_t sz = (size_t)lld * (nloc > 0 ? nloc : 1);
    double *a0 = malloc(sz * sizeof(double)), *ah = malloc(sz * sizeof(double)), *ar = malloc(sz * sizeof(double));
    int spd = !strcmp(rt, "pdpotrf") || !strcmp(rt, "pdpotrs") || !strcmp(rt, "pdpotri");
    int solve = !strcmp(rt, "pdpotrs") || !strcmp(rt, "pdgetrs");
    int trtri = !strcmp(rt, "pdtrtri"), potri = !strcmp(rt, "pdpotri"), getri = !strcmp(rt, "pdgetri");
    int orgqr = !strcmp(rt, "pdorgqr"), ormqr = !strcmp(rt, "pdormqr");
    int tri = trtri || potri; /* only the lower triangle is compared */
    for (int lj = 0; lj < nloc; lj++) {
        int gj = gidx(lj, nb, mycol, npcol);
        for (int li = 0; li < mloc; li++) {
            int gi = gidx(li, nb, myrow, nprow);
            double v;
            if (spd) v = gi == gj ? (double)n : u01(gi < gj ? gi : gj, gi < gj ? gj : gi);
            else v = u01(gi, gj) + (trtri && gi == gj ? (double)n : 0.0);
            a0[li + (size_t)lj * lld] = v;
        }
    }
    int np = mloc + nb;
    int *ph = calloc(np, sizeof(int)), *pr = calloc(np, sizeof(int));
    double *tauh = calloc(nloc + 1, sizeof(double)), *taur = calloc(nloc + 1, sizeof(double));
    int lwork = 1;
    double *work = NULL;
    if (!strcmp(rt, "pdgeqrf")) {
        double q1 = 0, q2 = 0;
        int m1 = -1, info;
        memcpy(ah, a0, sz * sizeof(double));
        pdgeqrf_(&n, &n, ah, &one, &one, desc, tauh, &q1, &m1, &info);
        ref_geqrf(&n, &n, ah, &one, &one, desc, tauh, &q2, &m1, &info);
        lwork = (int)(q1 > q2 ? q1 : q2) + 1;
        work = malloc((size_t)lwork * sizeof(double));
    }
    /* The solves: factor once with the reference (untimed); B (n x nrhs, same blocks as A). */
    int nbl = numroc_(&nrhs, &nb, &mycol, &zero, &npcol);
    int descb[9] = {1, ctxt, n, nrhs, nb, nb, 0, 0, lld};
    size_t szb = (size_t)lld * (nbl > 0 ? nbl : 1);
    double *b0 = NULL, *bh = NULL, *br = NULL, *fac = NULL;
    if (solve) {
        int info = 0;
        fac = malloc(sz * sizeof(double));
        memcpy(fac, a0, sz * sizeof(double));
        if (spd) ref_potrf("L", &n, fac, &one, &one, desc, &info, 1);
        else ref_getrf(&n, &n, fac, &one, &one, desc, pr, &info);
        b0 = malloc(szb * sizeof(double)), bh = malloc(szb * sizeof(double)), br = malloc(szb * sizeof(double));
        for (int lj = 0; lj < nbl; lj++)
            for (int li = 0; li < mloc; li++)
                b0[li + (size_t)lj * lld] = u01(gidx(li, nb, myrow, nprow), gidx(lj, nb, mycol, npcol) + 7 * (size_t)n);
    }
    /* The inverses' and Q's inputs, once (untimed); for pdormqr C (N x nc) in bh/br from b0. */
    int nc = ccols > 0 ? ccols : n;
    int ncl = numroc_(&nc, &nb, &mycol, &zero, &npcol);
    int descc[9] = {1, ctxt, n, nc, nb, nb, 0, 0, lld};
    size_t szc = (size_t)lld * (ncl > 0 ? ncl : 1);
    int *iw = NULL, liwork = 1;
    if (potri || getri || orgqr || ormqr) {
        int info = 0;
        fac = malloc(sz * sizeof(double));
        memcpy(fac, a0, sz * sizeof(double));
        if (potri) ref_potrf("L", &n, fac, &one, &one, desc, &info, 1);
        if (getri) ref_getrf(&n, &n, fac, &one, &one, desc, pr, &info);
        if (orgqr || ormqr) {
            double q = 0;
            int m1 = -1;
            ref_geqrf(&n, &n, fac, &one, &one, desc, taur, &q, &m1, &info);
            double *w = malloc(((size_t)q + 1) * sizeof(double));
            int lw = (int)q + 1;
            ref_geqrf(&n, &n, fac, &one, &one, desc, taur, w, &lw, &info);
            free(w);
        }
        double q1 = 0, q2 = 0;
        int m1 = -1, iq1 = 0, iq2 = 0;
        if (getri) {
            pdgetri_(&n, ah, &one, &one, desc, pr, &q1, &m1, &iq1, &m1, &info);
            ref_getri(&n, ah, &one, &one, desc, pr, &q2, &m1, &iq2, &m1, &info);
            liwork = (iq1 > iq2 ? iq1 : iq2) + 1;
            iw = malloc((size_t)liwork * sizeof(int));
        } else if (orgqr) {
            pdorgqr_(&n, &n, &n, ah, &one, &one, desc, taur, &q1, &m1, &info);
            ref_orgqr(&n, &n, &n, ah, &one, &one, desc, taur, &q2, &m1, &info);
        } else if (ormqr) {
            pdormqr_("L", "T", &n, &nc, &n, ah, &one, &one, desc, taur, bh, &one, &one, descc, &q1, &m1, &info, 1, 1);
            ref_ormqr("L", "T", &n, &nc, &n, ah, &one, &one, desc, taur, br, &one, &one, descc, &q2, &m1, &info, 1, 1);
            b0 = malloc(szc * sizeof(double)), bh = malloc(szc * sizeof(double)), br = malloc(szc * sizeof(double));
            for (int lj = 0; lj < ncl; lj++)
                for (int li = 0; li < mloc; li++)
                    b0[li + (size_t)lj * lld] = u01(gidx(li, nb, myrow, nprow), gidx(lj, nb, mycol, npcol) + 3 * (size_t)n);
        }
        if (!potri) {
            lwork = (int)(q1 > q2 ? q1 : q2) + 1;
            work = malloc((size_t)lwork * sizeof(double));
        }
    }
    int r = reps > 0 ? reps : 1;
    double *th = malloc(r * sizeof(double)), *tr = malloc(r * sizeof(double));
    int infoh = 0, infor = 0;
    double gemm_near = 0.0;
    for (int s = -warm; s < r; s++) {
        for (int side = 0; side < 2; side++) {
            if (s < 0 && side) continue; /* warm-up: hetla only */
            if (s < 0) usleep(250000);
            double *a = side ? ar : ah;
            memcpy(a, fac ? fac : a0, sz * sizeof(double));
            if (solve) memcpy(side ? br : bh, b0, szb * sizeof(double));
            if (ormqr) memcpy(side ? br : bh, b0, szc * sizeof(double));
            int info = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (trtri) {
                if (side) ref_trtri("L", "N", &n, a, &one, &one, desc, &info, 1, 1);
                else pdtrtri_("L", "N", &n, a, &one, &one, desc, &info, 1, 1);
            } else if (potri) {
                if (side) ref_potri("L", &n, a, &one, &one, desc, &info, 1);
                else pdpotri_("L", &n, a, &one, &one, desc, &info, 1);
            } else if (getri) {
                if (side) ref_getri(&n, a, &one, &one, desc, pr, work, &lwork, iw, &liwork, &info);
                else pdgetri_(&n, a, &one, &one, desc, pr, work, &lwork, iw, &liwork, &info);
            } else if (orgqr) {
                if (side) ref_orgqr(&n, &n, &n, a, &one, &one, desc, taur, work, &lwork, &info);
                else pdorgqr_(&n, &n, &n, a, &one, &one, desc, taur, work, &lwork, &info);
            } else if (ormqr) {
                if (side)
                    ref_ormqr("L", "T", &n, &nc, &n, a, &one, &one, desc, taur, br, &one, &one, descc, work, &lwork,
                              &info, 1, 1);
                else
                    pdormqr_("L", "T", &n, &nc, &n, a, &one, &one, desc, taur, bh, &one, &one, descc, work, &lwork,
                             &info, 1, 1);
            } else if (solve && spd) {
                if (side) ref_potrs("L", &n, &nrhs, a, &one, &one, desc, br, &one, &one, descb, &info, 1);
                else pdpotrs_("L", &n, &nrhs, a, &one, &one, desc, bh, &one, &one, descb, &info, 1);
            } else if (solve) {
                if (side) ref_getrs("N", &n, &nrhs, a, &one, &one, desc, pr, br, &one, &one, descb, &info, 1);
                else pdgetrs_("N", &n, &nrhs, a, &one, &one, desc, pr, bh, &one, &one, descb, &info, 1);
            } else if (spd) {
                if (side) ref_potrf("L", &n, a, &one, &one, desc, &info, 1);
                else pdpotrf_("L", &n, a, &one, &one, desc, &info, 1);
            } else if (!strcmp(rt, "pdgetrf")) {
                if (side) ref_getrf(&n, &n, a, &one, &one, desc, pr, &info);
                else pdgetrf_(&n, &n, a, &one, &one, desc, ph, &info);
            } else {
                if (side) ref_geqrf(&n, &n, a, &one, &one, desc, taur, work, &lwork, &info);
                else pdgeqrf_(&n, &n, a, &one, &one, desc, tauh, work, &lwork, &info);
            }
            double t1 = MPI_Wtime();
            double t = now_max(t0, t1);
            if (s < 0) continue;
            if (side) { tr[s] = t; infor = info; }
            else { th[s] = t; infoh = info; }
        }
        if (s >= 0 && reps > 0) { /* the ceiling in the same seconds as this pair of samples */
            double g = grid_dgemm_gflops(1);
            if (g > gemm_near) gemm_near = g;
        }
    }
    /* The check: equal INFO, factors (lower triangle for pdpotrf), ipiv, tau; X for the solves. */
    double dmax = 0, amax = 0;
    int bad = infoh != infor;
    if (ormqr)
        for (size_t k = 0; k < (size_t)lld * ncl && mloc > 0; k++) {
            double d = fabs(bh[k] - br[k]);
            if (!(d <= dmax)) dmax = d;
            if (fabs(br[k]) > amax) amax = fabs(br[k]);
        }
    if (solve)
        for (size_t k = 0; k < (size_t)lld * nbl && mloc > 0; k++) {
            double d = fabs(bh[k] - br[k]);
            if (!(d <= dmax)) dmax = d;
            if (fabs(br[k]) > amax) amax = fabs(br[k]);
        }
    for (int lj = 0; lj < nloc && !solve && !ormqr; lj++) {
        int gj = gidx(lj, nb, mycol, npcol);
        for (int li = 0; li < mloc; li++) {
            if ((spd || tri) && gidx(li, nb, myrow, nprow) < gj) continue;
            size_t k = li + (size_t)lj * lld;
            double d = fabs(ah[k] - ar[k]);
            if (!(d <= dmax)) dmax = d; /* NaN propagates as a failure */
            if (fabs(ar[k]) > amax) amax = fabs(ar[k]);
        }
    }
    if (!strcmp(rt, "pdgetrf"))
        for (int i = 0; i < mloc; i++) bad |= ph[i] != pr[i];
    if (!strcmp(rt, "pdgeqrf"))
        for (int j = 0; j < nloc; j++) {
            double d = fabs(tauh[j] - taur[j]);
            if (!(d <= dmax)) dmax = d;
        }
    double loc[2] = {dmax, amax}, glob[2];
    MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    struct result res;
    res.maxdiff = glob[1] > 0 ? glob[0] / glob[1] : glob[0];
    res.ok = !anybad && res.maxdiff <= 1e-9;
    res.t_h = median(th, r);
    res.t_r = median(tr, r);
    res.gemm_near = gemm_near;
    free(a0), free(ah), free(ar), free(ph), free(pr), free(tauh), free(taur), free(work), free(th), free(tr);
    free(b0), free(bh), free(br), free(fac), free(iw);
    return res;
}

static int parse_list(const char *s, int *out, int max) {
    int k = 0;
    while (*s && k < max) {
        out[k++] = atoi(s);
        const char *c = strchr(s, ',');
        if (!c) break;
        s = c + 1;
    }
    return k;
}

static const char *lib_of(void *f) {
    Dl_info di;
    return f && dladdr(f, &di) && di.dli_fname ? di.dli_fname : "?";
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int sizes[64] = {2000, 4000, 6000, 8000}, ns = 4, nbs[16] = {64, 128}, nnb = 2, reps = 3;
    char routines[256] = "pdpotrf,pdgetrf,pdgeqrf";
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--sizes")) ns = parse_list(v, sizes, 64), i++;
        else if (!strcmp(a, "--nbs")) nnb = parse_list(v, nbs, 16), i++;
        else if (!strcmp(a, "--reps")) reps = atoi(v), i++;
        else if (!strcmp(a, "--routines")) snprintf(routines, sizeof routines, "%s", v), i++;
        else if (!strcmp(a, "--nrhs")) nrhs = atoi(v), i++;
        else if (!strcmp(a, "--cols")) ccols = atoi(v), i++;
        else if (!strcmp(a, "--grid")) sscanf(v, "%dx%d", &nprow, &npcol), i++;
        else if (!strcmp(a, "--out")) out = v, i++;
        else {
            fprintf(stderr, "usage: %s [--sizes 2000,4000] [--nbs 64,128] [--routines pdpotrf,...,pdormqr] "
                            "[--nrhs K] [--cols C] [--reps R] [--grid PxQ] [--out FILE]\n", argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (reps < 1) reps = 1;
    int np;
    Cblacs_pinfo(&me, &np);
    if (np != nprow * npcol) {
        if (me == 0) fprintf(stderr, "need %d ranks for a %dx%d grid, have %d\n", nprow * npcol, nprow, npcol, np);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    void *h = dlopen("libscalapack-openmpi.so", RTLD_NOW | RTLD_GLOBAL);
    if (!h) h = dlopen("libscalapack-openmpi.so.2.2", RTLD_NOW | RTLD_GLOBAL);
    if (h) {
        ref_potrf = (potrf_fn)dlsym(h, "pdpotrf_");
        ref_getrf = (getrf_fn)dlsym(h, "pdgetrf_");
        ref_geqrf = (geqrf_fn)dlsym(h, "pdgeqrf_");
        ref_potrs = (potrs_fn)dlsym(h, "pdpotrs_");
        ref_getrs = (getrs_fn)dlsym(h, "pdgetrs_");
        ref_trtri = (trtri_fn)dlsym(h, "pdtrtri_");
        ref_potri = (potri_fn)dlsym(h, "pdpotri_");
        ref_getri = (getri_fn)dlsym(h, "pdgetri_");
        ref_orgqr = (orgqr_fn)dlsym(h, "pdorgqr_");
        ref_ormqr = (ormqr_fn)dlsym(h, "pdormqr_");
    }
    if (!ref_potrf || !ref_getrf || !ref_geqrf || !ref_potrs || !ref_getrs || !ref_trtri || !ref_potri || !ref_getri ||
        !ref_orgqr || !ref_ormqr) {
        fprintf(stderr, "cannot find the reference ScaLAPACK: %s\n", dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *lh = lib_of((void *)pdpotrf_), *lr = lib_of((void *)ref_potrf);
    if (!strstr(lh, "hetla") || !strstr(lr, "scalapack")) {
        fprintf(stderr, "pdpotrf_ comes from %s, the reference from %s: link -lhetla ahead of ScaLAPACK\n", lh, lr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int ctxt;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", nprow, npcol);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    double gemm = grid_dgemm_gflops(3);
    FILE *f = NULL;
    if (me == 0) {
        f = out ? fopen(out, "w") : stdout;
        if (!f) { perror(out); MPI_Abort(MPI_COMM_WORLD, 2); }
        fprintf(f, "routine,n,nb,grid,reps,hetla_s,ref_s,speedup,hetla_gflops,ref_gflops,check,maxdiff,dgemm_gflops,dgemm_near_gflops\n");
        fflush(f);
        fprintf(stderr, "scalapack_driver: hetla %s, reference %s, grid %dx%d, reps %d, grid DGEMM %.1f GFLOP/s\n", lh,
                lr, nprow, npcol, reps, gemm);
    }
    int failed = 0, nc = 0;
    struct config cf[MAX_CONFIGS];
    char *save, *rt = strtok_r(routines, ",", &save);
    for (; rt; rt = strtok_r(NULL, ",", &save)) {
        if (!strstr(",pdpotrf,pdgetrf,pdgeqrf,pdpotrs,pdgetrs,pdtrtri,pdpotri,pdgetri,pdorgqr,pdormqr,", rt) ||
            strlen(rt) != 7) {
            if (me == 0) fprintf(stderr, "unknown routine %s\n", rt);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (int b = 0; b < nnb; b++)
            for (int s = 0; s < ns && nc < MAX_CONFIGS; s++) {
                struct config *c = &cf[nc++];
                snprintf(c->rt, sizeof c->rt, "%s", rt);
                c->n = sizes[s], c->nb = nbs[b], c->ok = 1, c->maxdiff = 0, c->gemm = 0;
                c->th = malloc(sizeof(double) * reps), c->tr = malloc(sizeof(double) * reps);
            }
    }
    /* The rounds: one sample pair of every configuration per round. */
    for (int round = 0; round < reps; round++)
        for (int i = 0; i < nc; i++) {
            struct config *c = &cf[i];
            if (round == 0) run(ctxt, c->rt, 4 * c->nb + 7, c->nb, 0, 0); /* warm-up */
            struct result r = run(ctxt, c->rt, c->n, c->nb, 1, round == 0 ? warm_calls() : 0);
            c->th[round] = r.t_h, c->tr[round] = r.t_r;
            c->ok &= r.ok;
            if (!(r.maxdiff <= c->maxdiff)) c->maxdiff = r.maxdiff;
            if (r.gemm_near > c->gemm) c->gemm = r.gemm_near;
        }
    for (int i = 0; i < nc; i++) {
        struct config *c = &cf[i];
        double th = median(c->th, reps), tr = median(c->tr, reps);
        failed |= !c->ok;
        if (me == 0) {
            double fl = flops(c->rt, c->n) * 1e-9;
            fprintf(f, "%s,%d,%d,%dx%d,%d,%.6f,%.6f,%.3f,%.2f,%.2f,%s,%.2e,%.2f,%.2f\n", c->rt, c->n, c->nb, nprow,
                    npcol, reps, th, tr, tr / th, fl / th, fl / tr, c->ok ? "ok" : "FAIL", c->maxdiff, gemm, c->gemm);
            fflush(f);
            fprintf(stderr, "scalapack_driver: %s n=%d nb=%d hetla %.3fs reference %.3fs (%.2fx) DGEMM %.1f %s\n",
                    c->rt, c->n, c->nb, th, tr, tr / th, c->gemm, c->ok ? "ok" : "FAIL");
        }
        free(c->th), free(c->tr);
    }
    if (f && f != stdout) fclose(f);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return failed;
}
