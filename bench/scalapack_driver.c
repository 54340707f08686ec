/* The ScaLAPACK benchmark driver: hetla's pdpotrf_/pdgetrf_/pdgeqrf_, the solves
 * pdpotrs_/pdgetrs_, the inverses pdtrtri_/pdpotri_/pdgetri_ and Q (pdorgqr_, pdormqr_) against
 * reference ScaLAPACK in the same MPI program. One source for the four types: built with
 * -DTYPE_S, -DTYPE_C or -DTYPE_Z it runs ps*, pc* or pz* instead (Q: pcungqr_/pcunmqr_, TRANS 'C';
 * Hermitian positive definite matrices for the Cholesky family; complex values with independent
 * real and imaginary parts), its ceiling the same type's GEMM, its flops LAPACK Working Note 41's
 * real ones (a complex multiply-add counts 4), and the factors compared to 1e-9 (double types)
 * or 1e-3 (single types; their LU by its solve's residual instead, lu_solve_ratio).
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
 * The ceiling: every rank runs a single-threaded GEMM of the driver's type (DGEMM, ...) of order
 * 2000 at the same time; the sum of their rates is the GEMM rate of the whole grid (with one rank
 * per core, the machine's all-core rate). It is measured twice: once before the factorizations
 * (best of 3, gemm_gflops) and once per configuration, one GEMM sample after each of its pairs of
 * timed samples (best of those R, gemm_near_gflops). On a shared machine a neighbour can slow every call for tens of seconds;
 * the speedup is immune (the two libraries' samples alternate), and the second ceiling makes the
 * share so too: it is taken in the same seconds as the samples it divides.
 *
 * Rank 0 writes one CSV row per (routine, nb, n):
 *   routine,n,nb,grid,reps,hetla_s,ref_s,speedup,hetla_gflops,ref_gflops,check,maxdiff,gemm_gflops,
 *   gemm_near_gflops
 * (maxdiff: the largest difference of the outputs relative to the reference's largest entry; for
 * the single types' p?getrf, hetla's solve residual over the reference's, ok up to 4.)
 *
 * Usage: mpirun -np P*Q scalapack_driver [--sizes 2000,4000] [--nbs 64,128]
 *          [--routines pdpotrf,pdgetrf,pdgeqrf,pdpotrs,pdgetrs,pdtrtri,pdpotri,pdgetri,pdorgqr,pdormqr]
 *          (the type's letter in each name: pzpotrf, ..., pzungqr, pzunmqr for -DTYPE_Z)
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

/* The element type: double by default; -DTYPE_S, -DTYPE_C, -DTYPE_Z build the same driver for
 * single real, single complex and double complex (T; R its real type; TL its LAPACK letter). */
#if defined(TYPE_S)
typedef float T;
typedef float R;
#define TL s
#elif defined(TYPE_C)
#include <complex.h>
typedef float _Complex T;
typedef float R;
#define TL c
#define COMPLEX 1
#elif defined(TYPE_Z)
#include <complex.h>
typedef double _Complex T;
typedef double R;
#define TL z
#define COMPLEX 1
#else
typedef double T;
typedef double R;
#define TL d
#endif
#define CAT_(a, b, c) a##b##c
#define CAT(a, b, c) CAT_(a, b, c)
#define STR_(x) #x
#define STR(x) STR_(x)
#define PR(stem) CAT(p, TL, stem) /* PR(potrf_): pdpotrf_, pzpotrf_, ... */
#ifdef COMPLEX
#define QGEN ungqr_
#define QMUL unmqr_
#define ADJ "C" /* pz/pcunmqr's TRANS for Qᴴ */
#define RE(x) ((double)creal(x))
#define ABS(x) ((double)cabs(x))
#define CONJ(x) conj(x)
#define FLOPS_PER 4.0 /* a complex multiply-add is four real ones (LAPACK Working Note 41) */
#else
#define QGEN orgqr_
#define QMUL ormqr_
#define ADJ "T"
#define RE(x) ((double)(x))
#define ABS(x) fabs((double)(x))
#define CONJ(x) (x)
#define FLOPS_PER 1.0
#endif
#define LETTER (STR(TL)[0])
/* The factors of the two libraries agree to this relative difference (rounding grows with N). */
#define TOL (sizeof(R) == 4 ? 1e-3 : 1e-9)

void Cblacs_pinfo(int *, int *);
void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
int numroc_(const int *, const int *, const int *, const int *, const int *);
void CAT(, TL, gemm_)(const char *, const char *, const int *, const int *, const int *, const T *, const T *,
                      const int *, const T *, const int *, const T *, T *, const int *, size_t, size_t);
/* PBLAS's matrix-vector product (the reference's: hetla exports none). */
void PR(gemv_)(const char *, const int *, const int *, const T *, const T *, const int *, const int *, const int *,
               const T *, const int *, const int *, const int *, const int *, const T *, T *, const int *,
               const int *, const int *, const int *, size_t);
typedef void potrf_f(const char *, const int *, T *, const int *, const int *, const int *, int *, size_t);
typedef void getrf_f(const int *, const int *, T *, const int *, const int *, const int *, int *, int *);
typedef void geqrf_f(const int *, const int *, T *, const int *, const int *, const int *, T *, T *, const int *,
                     int *);
typedef void potrs_f(const char *, const int *, const int *, const T *, const int *, const int *, const int *, T *,
                     const int *, const int *, const int *, int *, size_t);
typedef void getrs_f(const char *, const int *, const int *, const T *, const int *, const int *, const int *,
                     const int *, T *, const int *, const int *, const int *, int *, size_t);
typedef void trtri_f(const char *, const char *, const int *, T *, const int *, const int *, const int *, int *,
                     size_t, size_t);
typedef void potri_f(const char *, const int *, T *, const int *, const int *, const int *, int *, size_t);
typedef void getri_f(const int *, T *, const int *, const int *, const int *, const int *, T *, const int *, int *,
                     const int *, int *);
typedef void orgqr_f(const int *, const int *, const int *, T *, const int *, const int *, const int *, const T *,
                     T *, const int *, int *);
typedef void ormqr_f(const char *, const char *, const int *, const int *, const int *, T *, const int *,
                     const int *, const int *, const T *, T *, const int *, const int *, const int *, T *,
                     const int *, int *, size_t, size_t);
/* hetla's, by the names a relinked program calls. */
potrf_f PR(potrf_);
getrf_f PR(getrf_);
geqrf_f PR(geqrf_);
potrs_f PR(potrs_);
getrs_f PR(getrs_);
trtri_f PR(trtri_);
potri_f PR(potri_);
getri_f PR(getri_);
orgqr_f PR(QGEN);
ormqr_f PR(QMUL);

static int nprow = 1, npcol = 2, myrow, mycol, me;
/* The reference's, from dlsym. */
static potrf_f *ref_potrf;
static getrf_f *ref_getrf;
static geqrf_f *ref_geqrf;
static potrs_f *ref_potrs;
static getrs_f *ref_getrs;
static trtri_f *ref_trtri;
static potri_f *ref_potri;
static getri_f *ref_getri;
static orgqr_f *ref_orgqr;
static ormqr_f *ref_ormqr;
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

/* Element (i, j) of a random matrix in T: complex types take a second stream for the imaginary part. */
static T rnd(unsigned long i, unsigned long j) {
#ifdef COMPLEX
    return u01(i, j) + u01(i + 0x51ED27UL, j + 0x2545F491UL) * I;
#else
    return u01(i, j);
#endif
}

/* Whether routine `rt` (p + the type's letter + the stem: pzpotrf) is `stem`; the complex types'
 * ungqr/unmqr are the real ones' orgqr/ormqr. */
static int is(const char *rt, const char *stem) {
    const char *s = rt + 2;
    if (!strcmp(s, "ungqr")) s = "orgqr";
    if (!strcmp(s, "unmqr")) s = "ormqr";
    return !strcmp(s, stem);
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

/* Real flops of one call (a complex type's count times FLOPS_PER). */
static double flops(const char *rt, double n) {
    double f = 4.0 * n * n * n / 3.0; /* geqrf, getri, orgqr with M = N = K */
    if (is(rt, "potrf")) f = n * n * n / 3.0;
    if (is(rt, "getrf")) f = 2.0 * n * n * n / 3.0;
    if (is(rt, "potrs") || is(rt, "getrs")) f = 2.0 * n * n * nrhs;
    if (is(rt, "trtri")) f = n * n * n / 3.0;
    if (is(rt, "potri")) f = 2.0 * n * n * n / 3.0;
    if (is(rt, "ormqr")) f = 2.0 * n * n * (ccols > 0 ? ccols : n);
    return f * FLOPS_PER;
}

/* The grid's GEMM rate in the driver's type (DGEMM, SGEMM, CGEMM, ZGEMM), GFLOP/s: every rank
 * multiplies two n×n matrices at the same time, best of `samples`; the rates are summed over the
 * ranks. */
static double grid_gemm_gflops(int samples) {
    const int n = 2000;
    const T one = 1.0, zero = 0.0;
    T *a = malloc(sizeof(T) * n * n), *b = malloc(sizeof(T) * n * n), *c = malloc(sizeof(T) * n * n);
    for (long k = 0; k < (long)n * n; k++) a[k] = rnd(k, 1), b[k] = rnd(k, 2), c[k] = 0.0;
    double best = 1e30;
    for (int r = 0; r < samples; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        CAT(, TL, gemm_)("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
        double t = MPI_Wtime() - t0;
        if (t < best) best = t;
    }
    double mine = 2.0 * n * n * (double)n * FLOPS_PER / best * 1e-9, sum = 0.0;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(a), free(b), free(c);
    return sum;
}

/* The single types' LU check. Two correct partial-pivoting factorizations may pick different
 * pivots where two candidates are within rounding of each other, which in single precision at
 * N = 4000 happens in a few columns (the largest and second largest of 4000 values are about
 * 1/4000 apart, rounding differences about 1e-7 times the growth), so their factors differ by
 * O(1) there and are not compared. Instead each library's factors solve A·x = b for a random x
 * (the reference's p?getrs for both) and the residuals ‖b − A·x‖∞ are compared: returned is
 * hetla's over the reference's. */
static double lu_solve_ratio(int ctxt, int n, int nb, int lld, int mloc, const int *desc, T *a0, T *ah, int *ph, T *ar,
                             int *pr) {
    int zero = 0, one = 1, info = 0;
    int desv[9] = {1, ctxt, n, 1, nb, nb, 0, 0, lld};
    int vl = numroc_(&one, &nb, &mycol, &zero, &npcol);
    size_t sz = (size_t)lld * (vl > 0 ? vl : 1);
    T *x0 = calloc(sz, sizeof(T)), *b = calloc(sz, sizeof(T)), *x = calloc(sz, sizeof(T)), *r = calloc(sz, sizeof(T));
    const T t1 = 1.0, t0 = 0.0, tm1 = -1.0;
    for (int li = 0; li < mloc && vl > 0; li++) x0[li] = rnd(gidx(li, nb, myrow, nprow), 99991);
    PR(gemv_)("N", &n, &n, &t1, a0, &one, &one, desc, x0, &one, &one, desv, &one, &t0, b, &one, &one, desv, &one, 1);
    double res[2];
    for (int s = 0; s < 2; s++) {
        memcpy(x, b, sz * sizeof(T));
        ref_getrs("N", &n, &one, s ? ar : ah, &one, &one, desc, s ? pr : ph, x, &one, &one, desv, &info, 1);
        memcpy(r, b, sz * sizeof(T));
        PR(gemv_)("N", &n, &n, &tm1, a0, &one, &one, desc, x, &one, &one, desv, &one, &t1, r, &one, &one, desv, &one, 1);
        double m = 0;
        for (int li = 0; li < mloc && vl > 0; li++)
            if (!(ABS(r[li]) <= m)) m = ABS(r[li]); /* NaN propagates */
        MPI_Allreduce(&m, &res[s], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    free(x0), free(b), free(x), free(r);
    return res[0] / res[1];
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
    T *a0 = malloc(sz * sizeof(T)), *ah = malloc(sz * sizeof(T)), *ar = malloc(sz * sizeof(T));
    int spd = is(rt, "potrf") || is(rt, "potrs") || is(rt, "potri");
    int solve = is(rt, "potrs") || is(rt, "getrs");
    int trtri = is(rt, "trtri"), potri = is(rt, "potri"), getri = is(rt, "getri");
    int orgqr = is(rt, "orgqr"), ormqr = is(rt, "ormqr");
    int tri = trtri || potri; /* only the lower triangle is compared */
    for (int lj = 0; lj < nloc; lj++) {
        int gj = gidx(lj, nb, mycol, npcol);
        for (int li = 0; li < mloc; li++) {
            int gi = gidx(li, nb, myrow, nprow);
            T v;
            /* Symmetric (Hermitian) positive definite: the lower triangle's values, their
             * conjugates above, N on the (real) diagonal. */
            if (spd) v = gi == gj ? (T)n : gi > gj ? rnd(gj, gi) : CONJ(rnd(gi, gj));
            else v = rnd(gi, gj) + (trtri && gi == gj ? (T)n : 0.0);
            a0[li + (size_t)lj * lld] = v;
        }
    }
    int np = mloc + nb;
    int *ph = calloc(np, sizeof(int)), *pr = calloc(np, sizeof(int));
    T *tauh = calloc(nloc + 1, sizeof(T)), *taur = calloc(nloc + 1, sizeof(T));
    int lwork = 1;
    T *work = NULL;
    if (is(rt, "geqrf")) {
        T q1 = 0, q2 = 0;
        int m1 = -1, info;
        memcpy(ah, a0, sz * sizeof(T));
        PR(geqrf_)(&n, &n, ah, &one, &one, desc, tauh, &q1, &m1, &info);
        ref_geqrf(&n, &n, ah, &one, &one, desc, tauh, &q2, &m1, &info);
        lwork = (int)(RE(q1) > RE(q2) ? RE(q1) : RE(q2)) + 1;
        work = malloc((size_t)lwork * sizeof(T));
    }
    /* The solves: factor once with the reference (untimed); B (n x nrhs, same blocks as A). */
    int nbl = numroc_(&nrhs, &nb, &mycol, &zero, &npcol);
    int descb[9] = {1, ctxt, n, nrhs, nb, nb, 0, 0, lld};
    size_t szb = (size_t)lld * (nbl > 0 ? nbl : 1);
    T *b0 = NULL, *bh = NULL, *br = NULL, *fac = NULL;
    if (solve) {
        int info = 0;
        fac = malloc(sz * sizeof(T));
        memcpy(fac, a0, sz * sizeof(T));
        if (spd) ref_potrf("L", &n, fac, &one, &one, desc, &info, 1);
        else ref_getrf(&n, &n, fac, &one, &one, desc, pr, &info);
        b0 = malloc(szb * sizeof(T)), bh = malloc(szb * sizeof(T)), br = malloc(szb * sizeof(T));
        for (int lj = 0; lj < nbl; lj++)
            for (int li = 0; li < mloc; li++)
                b0[li + (size_t)lj * lld] = rnd(gidx(li, nb, myrow, nprow), gidx(lj, nb, mycol, npcol) + 7 * (size_t)n);
    }
    /* The inverses' and Q's inputs, once (untimed); for pdormqr C (N x nc) in bh/br from b0. */
    int nc = ccols > 0 ? ccols : n;
    int ncl = numroc_(&nc, &nb, &mycol, &zero, &npcol);
    int descc[9] = {1, ctxt, n, nc, nb, nb, 0, 0, lld};
    size_t szc = (size_t)lld * (ncl > 0 ? ncl : 1);
    int *iw = NULL, liwork = 1;
    if (potri || getri || orgqr || ormqr) {
        int info = 0;
        fac = malloc(sz * sizeof(T));
        memcpy(fac, a0, sz * sizeof(T));
        if (potri) ref_potrf("L", &n, fac, &one, &one, desc, &info, 1);
        if (getri) ref_getrf(&n, &n, fac, &one, &one, desc, pr, &info);
        if (orgqr || ormqr) {
            T q = 0;
            int m1 = -1;
            ref_geqrf(&n, &n, fac, &one, &one, desc, taur, &q, &m1, &info);
            int lw = (int)RE(q) + 1;
            T *w = malloc((size_t)lw * sizeof(T));
            ref_geqrf(&n, &n, fac, &one, &one, desc, taur, w, &lw, &info);
            free(w);
        }
        T q1 = 0, q2 = 0;
        int m1 = -1, iq1 = 0, iq2 = 0;
        if (getri) {
            PR(getri_)(&n, ah, &one, &one, desc, pr, &q1, &m1, &iq1, &m1, &info);
            ref_getri(&n, ah, &one, &one, desc, pr, &q2, &m1, &iq2, &m1, &info);
            liwork = (iq1 > iq2 ? iq1 : iq2) + 1;
            iw = malloc((size_t)liwork * sizeof(int));
        } else if (orgqr) {
            PR(QGEN)(&n, &n, &n, ah, &one, &one, desc, taur, &q1, &m1, &info);
            ref_orgqr(&n, &n, &n, ah, &one, &one, desc, taur, &q2, &m1, &info);
        } else if (ormqr) {
            PR(QMUL)("L", ADJ, &n, &nc, &n, ah, &one, &one, desc, taur, bh, &one, &one, descc, &q1, &m1, &info, 1, 1);
            ref_ormqr("L", ADJ, &n, &nc, &n, ah, &one, &one, desc, taur, br, &one, &one, descc, &q2, &m1, &info, 1, 1);
            b0 = malloc(szc * sizeof(T)), bh = malloc(szc * sizeof(T)), br = malloc(szc * sizeof(T));
            for (int lj = 0; lj < ncl; lj++)
                for (int li = 0; li < mloc; li++)
                    b0[li + (size_t)lj * lld] = rnd(gidx(li, nb, myrow, nprow), gidx(lj, nb, mycol, npcol) + 3 * (size_t)n);
        }
        if (!potri) {
            lwork = (int)(RE(q1) > RE(q2) ? RE(q1) : RE(q2)) + 1;
            work = malloc((size_t)lwork * sizeof(T));
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
            T *a = side ? ar : ah;
            memcpy(a, fac ? fac : a0, sz * sizeof(T));
            if (solve) memcpy(side ? br : bh, b0, szb * sizeof(T));
            if (ormqr) memcpy(side ? br : bh, b0, szc * sizeof(T));
            int info = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (trtri) {
                if (side) ref_trtri("L", "N", &n, a, &one, &one, desc, &info, 1, 1);
                else PR(trtri_)("L", "N", &n, a, &one, &one, desc, &info, 1, 1);
            } else if (potri) {
                if (side) ref_potri("L", &n, a, &one, &one, desc, &info, 1);
                else PR(potri_)("L", &n, a, &one, &one, desc, &info, 1);
            } else if (getri) {
                if (side) ref_getri(&n, a, &one, &one, desc, pr, work, &lwork, iw, &liwork, &info);
                else PR(getri_)(&n, a, &one, &one, desc, pr, work, &lwork, iw, &liwork, &info);
            } else if (orgqr) {
                if (side) ref_orgqr(&n, &n, &n, a, &one, &one, desc, taur, work, &lwork, &info);
                else PR(QGEN)(&n, &n, &n, a, &one, &one, desc, taur, work, &lwork, &info);
            } else if (ormqr) {
                if (side)
                    ref_ormqr("L", ADJ, &n, &nc, &n, a, &one, &one, desc, taur, br, &one, &one, descc, work, &lwork,
                              &info, 1, 1);
                else
                    PR(QMUL)("L", ADJ, &n, &nc, &n, a, &one, &one, desc, taur, bh, &one, &one, descc, work, &lwork,
                             &info, 1, 1);
            } else if (solve && spd) {
                if (side) ref_potrs("L", &n, &nrhs, a, &one, &one, desc, br, &one, &one, descb, &info, 1);
                else PR(potrs_)("L", &n, &nrhs, a, &one, &one, desc, bh, &one, &one, descb, &info, 1);
            } else if (solve) {
                if (side) ref_getrs("N", &n, &nrhs, a, &one, &one, desc, pr, br, &one, &one, descb, &info, 1);
                else PR(getrs_)("N", &n, &nrhs, a, &one, &one, desc, pr, bh, &one, &one, descb, &info, 1);
            } else if (spd) {
                if (side) ref_potrf("L", &n, a, &one, &one, desc, &info, 1);
                else PR(potrf_)("L", &n, a, &one, &one, desc, &info, 1);
            } else if (is(rt, "getrf")) {
                if (side) ref_getrf(&n, &n, a, &one, &one, desc, pr, &info);
                else PR(getrf_)(&n, &n, a, &one, &one, desc, ph, &info);
            } else {
                if (side) ref_geqrf(&n, &n, a, &one, &one, desc, taur, work, &lwork, &info);
                else PR(geqrf_)(&n, &n, a, &one, &one, desc, tauh, work, &lwork, &info);
            }
            double t1 = MPI_Wtime();
            double t = now_max(t0, t1);
            if (s < 0) continue;
            if (side) { tr[s] = t; infor = info; }
            else { th[s] = t; infoh = info; }
        }
        if (s >= 0 && reps > 0) { /* the ceiling in the same seconds as this pair of samples */
            double g = grid_gemm_gflops(1);
            if (g > gemm_near) gemm_near = g;
        }
    }
    /* The check: equal INFO, factors (lower triangle for pdpotrf), ipiv, tau; X for the solves. */
    double dmax = 0, amax = 0;
    int bad = infoh != infor;
    if (ormqr)
        for (size_t k = 0; k < (size_t)lld * ncl && mloc > 0; k++) {
            double d = ABS(bh[k] - br[k]);
            if (!(d <= dmax)) dmax = d;
            if (ABS(br[k]) > amax) amax = ABS(br[k]);
        }
    if (solve)
        for (size_t k = 0; k < (size_t)lld * nbl && mloc > 0; k++) {
            double d = ABS(bh[k] - br[k]);
            if (!(d <= dmax)) dmax = d;
            if (ABS(br[k]) > amax) amax = ABS(br[k]);
        }
    for (int lj = 0; lj < nloc && !solve && !ormqr; lj++) {
        int gj = gidx(lj, nb, mycol, npcol);
        for (int li = 0; li < mloc; li++) {
            if ((spd || tri) && gidx(li, nb, myrow, nprow) < gj) continue;
            size_t k = li + (size_t)lj * lld;
            double d = ABS(ah[k] - ar[k]);
            if (!(d <= dmax)) dmax = d; /* NaN propagates as a failure */
            if (ABS(ar[k]) > amax) amax = ABS(ar[k]);
        }
    }
    /* The single types' LU: the solve residuals instead (lu_solve_ratio), at most 4x. */
    int lu_by_solve = is(rt, "getrf") && sizeof(R) == 4;
    double solve_ratio = lu_by_solve ? lu_solve_ratio(ctxt, n, nb, lld, mloc, desc, a0, ah, ph, ar, pr) : 0;
    if (is(rt, "getrf") && !lu_by_solve)
        for (int i = 0; i < mloc; i++) bad |= ph[i] != pr[i];
    if (is(rt, "geqrf"))
        for (int j = 0; j < nloc; j++) {
            double d = ABS(tauh[j] - taur[j]);
            if (!(d <= dmax)) dmax = d;
        }
    double loc[2] = {dmax, amax}, glob[2];
    MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    struct result res;
    res.maxdiff = glob[1] > 0 ? glob[0] / glob[1] : glob[0];
    res.ok = !anybad && res.maxdiff <= TOL;
    if (lu_by_solve) res.maxdiff = solve_ratio, res.ok = !anybad && solve_ratio <= 4.0;
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
    char routines[256];
    snprintf(routines, sizeof routines, "p%cpotrf,p%cgetrf,p%cgeqrf", LETTER, LETTER, LETTER);
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
        ref_potrf = (potrf_f *)dlsym(h, STR(PR(potrf_)));
        ref_getrf = (getrf_f *)dlsym(h, STR(PR(getrf_)));
        ref_geqrf = (geqrf_f *)dlsym(h, STR(PR(geqrf_)));
        ref_potrs = (potrs_f *)dlsym(h, STR(PR(potrs_)));
        ref_getrs = (getrs_f *)dlsym(h, STR(PR(getrs_)));
        ref_trtri = (trtri_f *)dlsym(h, STR(PR(trtri_)));
        ref_potri = (potri_f *)dlsym(h, STR(PR(potri_)));
        ref_getri = (getri_f *)dlsym(h, STR(PR(getri_)));
        ref_orgqr = (orgqr_f *)dlsym(h, STR(PR(QGEN)));
        ref_ormqr = (ormqr_f *)dlsym(h, STR(PR(QMUL)));
    }
    if (!ref_potrf || !ref_getrf || !ref_geqrf || !ref_potrs || !ref_getrs || !ref_trtri || !ref_potri || !ref_getri ||
        !ref_orgqr || !ref_ormqr) {
        fprintf(stderr, "cannot find the reference ScaLAPACK: %s\n", dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *lh = lib_of((void *)PR(potrf_)), *lr = lib_of((void *)ref_potrf);
    if (!strstr(lh, "hetla") || !strstr(lr, "scalapack")) {
        fprintf(stderr, "%s comes from %s, the reference from %s: link -lhetla ahead of ScaLAPACK\n",
                STR(PR(potrf_)), lh, lr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int ctxt;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", nprow, npcol);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    double gemm = grid_gemm_gflops(3);
    FILE *f = NULL;
    if (me == 0) {
        f = out ? fopen(out, "w") : stdout;
        if (!f) { perror(out); MPI_Abort(MPI_COMM_WORLD, 2); }
        fprintf(f, "routine,n,nb,grid,reps,hetla_s,ref_s,speedup,hetla_gflops,ref_gflops,check,maxdiff,gemm_gflops,gemm_near_gflops\n");
        fflush(f);
        fprintf(stderr, "scalapack_driver: hetla %s, reference %s, grid %dx%d, reps %d, grid %cGEMM %.1f GFLOP/s\n", lh,
                lr, nprow, npcol, reps, LETTER - 32, gemm);
    }
    int failed = 0, nc = 0;
    struct config cf[MAX_CONFIGS];
    char *save, *rt = strtok_r(routines, ",", &save);
    for (; rt; rt = strtok_r(NULL, ",", &save)) {
        int known = 0;
        for (const char **k = (const char *[]){"potrf", "getrf", "geqrf", "potrs", "getrs", "trtri", "potri",
                                               "getri", "orgqr", "ormqr", NULL};
             *k; k++)
            known |= strlen(rt) == 7 && rt[0] == 'p' && rt[1] == LETTER && is(rt, *k);
#ifdef COMPLEX
        known &= !is(rt, "orgqr") || !strcmp(rt + 2, "ungqr");
        known &= !is(rt, "ormqr") || !strcmp(rt + 2, "unmqr");
#else
        known &= !is(rt, "orgqr") || !strcmp(rt + 2, "orgqr");
        known &= !is(rt, "ormqr") || !strcmp(rt + 2, "ormqr");
#endif
        if (!known) {
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
            fprintf(stderr, "scalapack_driver: %s n=%d nb=%d hetla %.3fs reference %.3fs (%.2fx) %cGEMM %.1f %s\n",
                    c->rt, c->n, c->nb, th, tr, tr / th, LETTER - 32, c->gemm, c->ok ? "ok" : "FAIL");
        }
        free(c->th), free(c->tr);
    }
    if (f && f != stdout) fclose(f);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return failed;
}
