/* hetla benchmark driver: hetla against the process's own OpenBLAS, interleaved, in one process.
 *
 * The program is linked with -lhetla ahead of -llapack, so the LAPACK names it calls directly
 * (dpotrf_, dgetrf_, ...) resolve to hetla's exports. OpenBLAS's own definitions of the same
 * names come from a second copy of libopenblas.so.0 loaded with dlmopen into a new link-map
 * namespace, where hetla is not loaded: there OpenBLAS's routines that call other LAPACK routines
 * by name (DGELS calls DGEQRF and DORMQR, DPOTRI calls DTRTRI, DGETRI calls DTRTRI, DLARFB calls
 * DGEMM) reach OpenBLAS's own, as they would in a program without hetla. A plain dlopen is not
 * enough: its internal calls bind to the first definition in the global scope, hetla's, so the
 * "OpenBLAS" DGELS used to run hetla's tile DGEQRF. Both sides are checked at start-up with
 * dladdr.
 *
 * For each routine and each n, the driver takes R samples of each library, interleaved (hetla,
 * OpenBLAS, hetla, OpenBLAS, ...), every call on a fresh copy of the same seeded input (the copy
 * is not timed), and reports medians. Small problems time a batch of calls per sample so that a
 * per-call overhead of a few microseconds is visible. Every result of either library is checked
 * with an O(n^2) randomized residual (see check()), so a fast wrong answer is flagged.
 *
 * Output: one CSV row per (routine, n) on stdout (or --out FILE); progress on stderr.
 * Run `driver --help` for the options; bench/README.md explains the columns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetla.h"

extern char **environ;

typedef int32_t fint;

/* ---- the two implementations ------------------------------------------------------------ */

typedef void (*potrf_fn)(const char *, const fint *, double *, const fint *, fint *, size_t);
typedef void (*getrf_fn)(const fint *, const fint *, double *, const fint *, fint *, fint *);
typedef void (*geqrf_fn)(const fint *, const fint *, double *, const fint *, double *, double *,
                         const fint *, fint *);
typedef void (*posv_fn)(const char *, const fint *, const fint *, double *, const fint *, double *,
                        const fint *, fint *, size_t);
typedef void (*gesv_fn)(const fint *, const fint *, double *, const fint *, fint *, double *,
                        const fint *, fint *);
typedef void (*gels_fn)(const char *, const fint *, const fint *, const fint *, double *,
                        const fint *, double *, const fint *, double *, const fint *, fint *,
                        size_t);
typedef void (*trtri_fn)(const char *, const char *, const fint *, double *, const fint *, fint *,
                         size_t, size_t);
typedef void (*potri_fn)(const char *, const fint *, double *, const fint *, fint *, size_t);
typedef void (*getri_fn)(const fint *, double *, const fint *, const fint *, double *, const fint *,
                         fint *);
typedef void (*orgqr_fn)(const fint *, const fint *, const fint *, double *, const fint *,
                         const double *, double *, const fint *, fint *);
typedef void (*ormqr_fn)(const char *, const char *, const fint *, const fint *, const fint *,
                         const double *, const fint *, const double *, double *, const fint *,
                         double *, const fint *, fint *, size_t, size_t);

struct lapack {
    const char *name;
    potrf_fn potrf;
    getrf_fn getrf;
    geqrf_fn geqrf;
    posv_fn posv;
    gesv_fn gesv;
    gels_fn gels;
    trtri_fn trtri;
    potri_fn potri;
    getri_fn getri;
    orgqr_fn orgqr;
    ormqr_fn ormqr;
};

enum { HETLA = 0, OPENBLAS = 1 };
static struct lapack LIB[2];

/* OpenBLAS helpers used for the DGEMM rate, the checks and the thread count. */
typedef void (*gemm_fn)(const char *, const char *, const fint *, const fint *, const fint *,
                        const double *, const double *, const fint *, const double *, const fint *,
                        const double *, double *, const fint *, size_t, size_t);
typedef void (*gemv_fn)(const char *, const fint *, const fint *, const double *, const double *,
                        const fint *, const double *, const fint *, const double *, double *,
                        const fint *, size_t);
typedef void (*trmv_fn)(const char *, const char *, const char *, const fint *, const double *,
                        const fint *, double *, const fint *, size_t, size_t, size_t);
typedef void (*symv_fn)(const char *, const fint *, const double *, const double *, const fint *,
                        const double *, const fint *, const double *, double *, const fint *, size_t);
typedef void (*setthreads_fn)(int);
typedef char *(*getstr_fn)(void);

static gemm_fn ob_dgemm;
static gemv_fn ob_dgemv;
static trmv_fn ob_dtrmv;
static ormqr_fn ob_dormqr;
static symv_fn ob_dsymv;
static setthreads_fn ob_set_threads;
static getstr_fn ob_get_config, ob_get_corename;

static int NPROC = 1;

static void *need(void *h, const char *name) {
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "driver: %s not found in libopenblas.so.0: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

static const char *lib_of(const void *p) {
    Dl_info info;
    if (dladdr(p, &info) && info.dli_fname) return info.dli_fname;
    return "?";
}

static void load_libs(int quiet) {
    void *h = dlmopen(LM_ID_NEWLM, "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "driver: cannot dlmopen libopenblas.so.0 into a new namespace: %s\n",
                dlerror());
        exit(2);
    }
    LIB[HETLA] = (struct lapack){"hetla", dpotrf_, dgetrf_, dgeqrf_, dposv_, dgesv_, dgels_,
                                 dtrtri_, dpotri_, dgetri_, dorgqr_, (ormqr_fn)dormqr_};
    LIB[OPENBLAS] = (struct lapack){"openblas",
                                    (potrf_fn)need(h, "dpotrf_"),
                                    (getrf_fn)need(h, "dgetrf_"),
                                    (geqrf_fn)need(h, "dgeqrf_"),
                                    (posv_fn)need(h, "dposv_"),
                                    (gesv_fn)need(h, "dgesv_"),
                                    (gels_fn)need(h, "dgels_"),
                                    (trtri_fn)need(h, "dtrtri_"),
                                    (potri_fn)need(h, "dpotri_"),
                                    (getri_fn)need(h, "dgetri_"),
                                    (orgqr_fn)need(h, "dorgqr_"),
                                    (ormqr_fn)need(h, "dormqr_")};
    ob_dgemm = (gemm_fn)need(h, "dgemm_");
    ob_dgemv = (gemv_fn)need(h, "dgemv_");
    ob_dtrmv = (trmv_fn)need(h, "dtrmv_");
    ob_dormqr = (ormqr_fn)need(h, "dormqr_");
    ob_dsymv = (symv_fn)need(h, "dsymv_");
    ob_set_threads = (setthreads_fn)need(h, "openblas_set_num_threads");
    ob_get_config = (getstr_fn)dlsym(h, "openblas_get_config");
    ob_get_corename = (getstr_fn)dlsym(h, "openblas_get_corename");

    /* A mistake in the link order would silently compare OpenBLAS with itself. */
    const char *mine = lib_of((const void *)LIB[HETLA].potrf);
    const char *theirs = lib_of((const void *)LIB[OPENBLAS].potrf);
    if (!strstr(mine, "hetla")) {
        fprintf(stderr, "driver: dpotrf_ resolves to %s, not libhetla: link -lhetla first\n", mine);
        exit(2);
    }
    if (strstr(theirs, "hetla")) {
        fprintf(stderr, "driver: the OpenBLAS handle resolves dpotrf_ to %s\n", theirs);
        exit(2);
    }
    if (!quiet) fprintf(stderr, "driver: hetla from %s\ndriver: openblas from %s\n", mine, theirs);
}

/* ---- small utilities -------------------------------------------------------------------- */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int k) {
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* xorshift64*: seeded, fast, the same stream on every machine. */
static uint64_t rng_state;
static void rng_seed(uint64_t s) { rng_state = s * 0x9E3779B97F4A7C15ull + 1; }
static double rng_uniform(void) { /* in [-1, 1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 0x2545F4914F6CDD1Dull;
    return (double)(r >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void *xmalloc(size_t bytes) {
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "driver: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

/* ---- routines --------------------------------------------------------------------------- */

enum { POTRF, GETRF, GEQRF, POSV, GESV, GELS, TRTRI, POTRI, GETRI, ORGQR, ORMQR, NROUTINES };
static const char *RNAME[NROUTINES] = {"dpotrf", "dgetrf", "dgeqrf", "dposv", "dgesv", "dgels",
                                       "dtrtri", "dpotri", "dgetri", "dorgqr", "dormqr"};
/* Solvers (with right-hand sides B) and inverses (checked by applying the result). */
static int has_rhs(int r) { return r == POSV || r == GESV || r == GELS; }
static int is_inverse(int r) { return r == TRTRI || r == POTRI || r == GETRI; }
/* Q of a QR factorization (DORGQR forms it, DORMQR applies Q^T from the left to an n x n C). */
static int is_q(int r) { return r == ORGQR || r == ORMQR; }

/* Nominal flop counts (LAPACK Working Note 41), the leading terms plus the solves. dgels runs
 * on a square m = n matrix with trans = 'N': QR (4n^3/3), Q^T B (4n^2 nrhs), R \ (n^2 nrhs). */
static double flops(int r, double n, double nrhs) {
    switch (r) {
    case POTRF: return n * n * n / 3.0 + n * n / 2.0;
    case GETRF: return 2.0 * n * n * n / 3.0 - n * n / 2.0;
    case GEQRF: return 4.0 * n * n * n / 3.0 + 2.0 * n * n;
    case POSV: return n * n * n / 3.0 + n * n / 2.0 + 2.0 * n * n * nrhs;
    case GESV: return 2.0 * n * n * n / 3.0 - n * n / 2.0 + 2.0 * n * n * nrhs;
    case GELS: return 4.0 * n * n * n / 3.0 + 2.0 * n * n + 5.0 * n * n * nrhs;
    /* The inverses from their factors: triangular n^3/3, Cholesky 2n^3/3, LU 4n^3/3. */
    case TRTRI: return n * n * n / 3.0;
    case POTRI: return 2.0 * n * n * n / 3.0;
    case GETRI: return 4.0 * n * n * n / 3.0;
    /* m = n = k: DORGQR 4mnk - 2(m+n)k^2 + 4k^3/3, DORMQR (L) 4nmk - 2nk^2. */
    case ORGQR: return 4.0 * n * n * n / 3.0;
    case ORMQR: return 2.0 * n * n * n;
    }
    return 0;
}

struct problem {
    int r;
    fint n, nrhs, lwork;
    double *a0, *a; /* the seeded input and the working copy */
    double *m0;     /* inverses, Q: the matrix whose factors a0 holds (NULL otherwise) */
    double *c0, *c; /* DORMQR's C: the seeded input and the working copy */
    double *b0, *b; /* right-hand sides (solvers) */
    fint *ipiv;
    double *tau, *work;
    double *x, *y, *z; /* check vectors */
    double anorm;      /* ||A0||_inf (inverses: of the matrix inverted) */
};

static void gen(struct problem *p) {
    fint n = p->n;
    size_t nn = (size_t)n * (size_t)n;
    rng_seed(0x5EED0000ull + (uint64_t)p->r * 1000003ull + (uint64_t)n);
    if (p->r == POTRF || p->r == POSV || p->r == TRTRI || p->r == POTRI) {
        /* Symmetric with a dominant diagonal, hence positive definite and well conditioned. */
        for (fint j = 0; j < n; j++)
            for (fint i = j; i < n; i++) {
                double v = rng_uniform();
                if (i == j) v = fabs(v) + (double)n;
                p->a0[(size_t)j * n + i] = v;
                p->a0[(size_t)i * n + j] = v;
            }
    } else {
        for (size_t k = 0; k < nn; k++) p->a0[k] = rng_uniform();
    }
    for (size_t k = 0; k < (size_t)n * p->nrhs; k++) p->b0[k] = rng_uniform();
    for (fint i = 0; i < n; i++) p->x[i] = rng_uniform();
    p->anorm = 0;
    for (fint i = 0; i < n; i++) {
        double s = 0;
        for (fint j = 0; j < n; j++) s += fabs(p->a0[(size_t)j * n + i]);
        if (s > p->anorm) p->anorm = s;
    }
}

static fint run(int lib, struct problem *p);

/* ||M||_inf of the n x n matrix m, its lower triangle only when `lower`. */
static double norm_inf(const double *m, fint n, int lower) {
    double best = 0;
    for (fint i = 0; i < n; i++) {
        double s = 0;
        for (fint j = 0; j < (lower ? i + 1 : n); j++) s += fabs(m[(size_t)j * n + i]);
        if (s > best) best = s;
    }
    return best;
}

/* The inverses' inputs, made once per problem by OpenBLAS: DTRTRI inverts the lower triangle of
 * the diagonally dominant matrix gen() made; DPOTRI gets its Cholesky factor (L), DGETRI the LU
 * factors and pivots of the random matrix (m0 keeps the matrix itself for the check). */
static void prepare_inverse(struct problem *p) {
    fint n = p->n, info = 0;
    size_t bytes = (size_t)n * n * sizeof(double);
    if (p->r == TRTRI) {
        p->anorm = norm_inf(p->a0, n, 1);
        return;
    }
    p->m0 = xmalloc(bytes);
    memcpy(p->m0, p->a0, bytes);
    p->anorm = norm_inf(p->m0, n, 0);
    if (p->r == POTRI) LIB[OPENBLAS].potrf("L", &n, p->a0, &n, &info, 1);
    else LIB[OPENBLAS].getrf(&n, &n, p->a0, &n, p->ipiv, &info);
    if (info != 0) {
        fprintf(stderr, "driver: %s: the input's factorization failed (INFO %d)\n", RNAME[p->r], (int)info);
        exit(2);
    }
}

/* Q's inputs, made once per problem by OpenBLAS: the reflectors and tau of the random matrix's
 * DGEQRF (m0 keeps the matrix itself); DORMQR's C is another random matrix. */
static void prepare_q(struct problem *p) {
    fint n = p->n, info = 0, lw = 64 * n;
    size_t bytes = (size_t)n * n * sizeof(double);
    p->m0 = xmalloc(bytes);
    memcpy(p->m0, p->a0, bytes);
    double *w = xmalloc((size_t)lw * sizeof(double));
    LIB[OPENBLAS].geqrf(&n, &n, p->a0, &n, p->tau, w, &lw, &info);
    free(w);
    if (info != 0) {
        fprintf(stderr, "driver: %s: DGEQRF of the input failed (INFO %d)\n", RNAME[p->r], (int)info);
        exit(2);
    }
    if (p->r == ORMQR) {
        p->c0 = xmalloc(bytes);
        p->c = xmalloc(bytes);
        for (size_t k = 0; k < (size_t)n * n; k++) p->c0[k] = rng_uniform();
        p->anorm = norm_inf(p->c0, n, 0);
    } else {
        p->anorm = norm_inf(p->m0, n, 0);
    }
}

static void problem_init(struct problem *p, int r, fint n, fint nrhs) {
    memset(p, 0, sizeof *p);
    p->r = r;
    p->n = n;
    p->nrhs = nrhs;
    size_t nn = (size_t)n * (size_t)n;
    p->a0 = xmalloc(nn * sizeof(double));
    p->a = xmalloc(nn * sizeof(double));
    p->b0 = xmalloc((size_t)n * nrhs * sizeof(double));
    p->b = xmalloc((size_t)n * nrhs * sizeof(double));
    p->ipiv = xmalloc((size_t)n * sizeof(fint));
    p->tau = xmalloc((size_t)n * sizeof(double));
    p->x = xmalloc((size_t)n * sizeof(double));
    p->y = xmalloc((size_t)n * sizeof(double));
    p->z = xmalloc((size_t)n * sizeof(double));
    gen(p);
    if (is_inverse(r)) prepare_inverse(p);
    if (is_q(r)) prepare_q(p);
    /* Workspace: the larger of both libraries' optimal sizes (and DORMQR's for the check). */
    double opt = 64.0 * n;
    p->lwork = -1;
    for (int lib = 0; lib < 2; lib++) {
        double q = 0;
        p->work = &q;
        if (r == GEQRF || r == GELS || r == GETRI || is_q(r)) run(lib, p);
        if (q > opt) opt = q;
    }
    p->lwork = (fint)opt;
    p->work = xmalloc((size_t)p->lwork * sizeof(double));
}

static void problem_free(struct problem *p) {
    free(p->a0); free(p->a); free(p->b0); free(p->b); free(p->ipiv);
    free(p->tau); free(p->work); free(p->x); free(p->y); free(p->z); free(p->m0);
    free(p->c0); free(p->c);
}

static void reset(struct problem *p) {
    memcpy(p->a, p->a0, (size_t)p->n * p->n * sizeof(double));
    if (has_rhs(p->r)) memcpy(p->b, p->b0, (size_t)p->n * p->nrhs * sizeof(double));
    if (p->r == ORMQR) memcpy(p->c, p->c0, (size_t)p->n * p->n * sizeof(double));
}

static fint run(int lib, struct problem *p) {
    const struct lapack *L = &LIB[lib];
    fint info = 0, n = p->n, nrhs = p->nrhs;
    switch (p->r) {
    case POTRF: L->potrf("L", &n, p->a, &n, &info, 1); break;
    case GETRF: L->getrf(&n, &n, p->a, &n, p->ipiv, &info); break;
    case GEQRF: L->geqrf(&n, &n, p->a, &n, p->tau, p->work, &p->lwork, &info); break;
    case POSV: L->posv("L", &n, &nrhs, p->a, &n, p->b, &n, &info, 1); break;
    case GESV: L->gesv(&n, &nrhs, p->a, &n, p->ipiv, p->b, &n, &info); break;
    case GELS: L->gels("N", &n, &n, &nrhs, p->a, &n, p->b, &n, p->work, &p->lwork, &info, 1); break;
    case TRTRI: L->trtri("L", "N", &n, p->a, &n, &info, 1, 1); break;
    case POTRI: L->potri("L", &n, p->a, &n, &info, 1); break;
    case GETRI: L->getri(&n, p->a, &n, p->ipiv, p->work, &p->lwork, &info); break;
    case ORGQR: L->orgqr(&n, &n, &n, p->a, &n, p->tau, p->work, &p->lwork, &info); break;
    case ORMQR:
        L->ormqr("L", "T", &n, &n, &n, p->a, &n, p->tau, p->c, &n, p->work, &p->lwork, &info, 1, 1);
        break;
    }
    return info;
}

static double inf_norm(const double *v, fint n) {
    double m = 0;
    for (fint i = 0; i < n; i++) {
        if (isnan(v[i])) return NAN;
        if (fabs(v[i]) > m) m = fabs(v[i]);
    }
    return m;
}

/* Scaled residual of the result in p (after run()): ||r||_inf / (||A||_inf ||x||_inf n eps).
 * Factorizations are checked on a random vector x: A x against the factors applied to x
 * (L (L^T x); P^T L (U x); Q (R x) with DORMQR reading the Householder vectors and tau as any
 * LAPACK caller would); solvers by b - A x for each solution column. All of it is O(n^2), so
 * every sample can be checked. LAPACK's own tests accept such ratios below 30. */
static double check(struct problem *p) {
    fint n = p->n, one = 1;
    const double d1 = 1.0, d0 = 0.0, m1 = -1.0;
    double worst = 0;
    if (is_inverse(p->r)) {
        /* X = the computed inverse of M: ||M (X x) - x|| / (||M|| ||X|| ||x|| n eps). */
        memcpy(p->z, p->x, (size_t)n * sizeof(double));
        if (p->r == TRTRI) {
            ob_dtrmv("L", "N", "N", &n, p->a, &n, p->z, &one, 1, 1, 1); /* z = X x */
            ob_dtrmv("L", "N", "N", &n, p->a0, &n, p->z, &one, 1, 1, 1); /* z = L z */
        } else {
            if (p->r == POTRI) ob_dsymv("L", &n, &d1, p->a, &n, p->x, &one, &d0, p->y, &one, 1);
            else ob_dgemv("N", &n, &n, &d1, p->a, &n, p->x, &one, &d0, p->y, &one, 1);
            ob_dgemv("N", &n, &n, &d1, p->m0, &n, p->y, &one, &d0, p->z, &one, 1);
        }
        double xnorm = p->r == GETRI ? norm_inf(p->a, n, 0) : norm_inf(p->a, n, 1);
        if (p->r == POTRI) { /* the symmetric inverse from its lower triangle */
            xnorm = 0;
            for (fint i = 0; i < n; i++) {
                double s = 0;
                for (fint j = 0; j < n; j++)
                    s += fabs(i >= j ? p->a[(size_t)j * n + i] : p->a[(size_t)i * n + j]);
                if (s > xnorm) xnorm = s;
            }
        }
        for (fint i = 0; i < n; i++) p->z[i] -= p->x[i];
        worst = inf_norm(p->z, n) / (p->anorm * xnorm * inf_norm(p->x, n) * n * DBL_EPSILON);
    } else if (is_q(p->r)) {
        /* DORGQR: ||M x - Q (R x)||; DORMQR: ||C x - Q (C' x)|| with C' = Q^T C; over
         * (||M or C|| ||x|| n eps), Q applied by OpenBLAS's DORMQR from the reflectors. */
        fint info = 0;
        if (p->r == ORGQR) {
            memcpy(p->z, p->x, (size_t)n * sizeof(double));
            ob_dtrmv("U", "N", "N", &n, p->a0, &n, p->z, &one, 1, 1, 1);                /* R x */
            ob_dgemv("N", &n, &n, &d1, p->a, &n, p->z, &one, &d0, p->y, &one, 1);     /* Q R x */
            ob_dgemv("N", &n, &n, &d1, p->m0, &n, p->x, &one, &d0, p->z, &one, 1);    /* M x */
        } else {
            ob_dgemv("N", &n, &n, &d1, p->c, &n, p->x, &one, &d0, p->y, &one, 1);     /* C' x */
            ob_dormqr("L", "N", &n, &one, &n, p->a0, &n, p->tau, p->y, &n, p->work, &p->lwork,
                      &info, 1, 1);                                                    /* Q C' x */
            ob_dgemv("N", &n, &n, &d1, p->c0, &n, p->x, &one, &d0, p->z, &one, 1);    /* C x */
        }
        if (info != 0) return NAN;
        for (fint i = 0; i < n; i++) p->z[i] -= p->y[i];
        worst = inf_norm(p->z, n) / (p->anorm * inf_norm(p->x, n) * n * DBL_EPSILON);
    } else if (p->r <= GEQRF) {
        ob_dgemv("N", &n, &n, &d1, p->a0, &n, p->x, &one, &d0, p->y, &one, 1); /* y = A x */
        memcpy(p->z, p->x, (size_t)n * sizeof(double));
        if (p->r == POTRF) {
            ob_dtrmv("L", "T", "N", &n, p->a, &n, p->z, &one, 1, 1, 1);
            ob_dtrmv("L", "N", "N", &n, p->a, &n, p->z, &one, 1, 1, 1);
        } else if (p->r == GETRF) {
            ob_dtrmv("U", "N", "N", &n, p->a, &n, p->z, &one, 1, 1, 1);
            ob_dtrmv("L", "N", "U", &n, p->a, &n, p->z, &one, 1, 1, 1);
            for (fint i = 0; i < n; i++) { /* y = P A x: the row interchanges in order */
                fint k = p->ipiv[i] - 1;
                if (k < 0 || k >= n) return NAN;
                double t = p->y[i]; p->y[i] = p->y[k]; p->y[k] = t;
            }
        } else {
            fint info = 0;
            ob_dtrmv("U", "N", "N", &n, p->a, &n, p->z, &one, 1, 1, 1);
            ob_dormqr("L", "N", &n, &one, &n, p->a, &n, p->tau, p->z, &n, p->work, &p->lwork,
                      &info, 1, 1);
            if (info != 0) return NAN;
        }
        for (fint i = 0; i < n; i++) p->y[i] -= p->z[i];
        worst = inf_norm(p->y, n) / (p->anorm * inf_norm(p->x, n) * n * DBL_EPSILON);
    } else {
        for (fint j = 0; j < p->nrhs; j++) {
            double *xs = p->b + (size_t)j * n;
            memcpy(p->y, p->b0 + (size_t)j * n, (size_t)n * sizeof(double));
            ob_dgemv("N", &n, &n, &m1, p->a0, &n, xs, &one, &d1, p->y, &one, 1); /* b - A x */
            double r = inf_norm(p->y, n) / (p->anorm * inf_norm(xs, n) * n * DBL_EPSILON);
            if (isnan(r) || r > worst) worst = r;
        }
    }
    return isnan(worst) || isinf(worst) ? NAN : worst;
}

/* ---- measurement ------------------------------------------------------------------------ */

#define RESID_LIMIT 30.0

/* --selftest: spoil hetla's result after each call so that the checks must flag every row. */
static int CORRUPT = 0;

static uint64_t fnv(uint64_t h, const void *data, size_t bytes) {
    const unsigned char *c = data;
    for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 0x100000001B3ull;
    return h;
}

/* Hash of everything the routine writes, so identical outputs are visible in the CSV. */
static uint64_t output_hash(const struct problem *p) {
    size_t n = (size_t)p->n;
    uint64_t h = fnv(0xCBF29CE484222325ull, p->a, n * n * sizeof(double));
    if (p->r == GETRF || p->r == GESV) h = fnv(h, p->ipiv, n * sizeof(fint));
    if (p->r == GEQRF) h = fnv(h, p->tau, n * sizeof(double));
    if (has_rhs(p->r)) h = fnv(h, p->b, n * p->nrhs * sizeof(double));
    if (p->r == ORMQR) h = fnv(h, p->c, n * n * sizeof(double));
    return h;
}

struct result {
    double t[2];      /* median seconds per call */
    uint64_t hash[2]; /* of the last output, to tell "same bits as OpenBLAS" */
    double resid[2];  /* worst scaled residual over all samples */
    fint info[2];     /* first nonzero INFO seen */
    int reps, batch;
    char path[48];    /* hetla's path in the timed samples (hetla_last_path), "mixed" if they differ */
};

static void set_threads(void) { ob_set_threads(NPROC); }

/* One sample of `lib`: `batch` calls, each on a fresh copy, summing only the calls' time. */
static double sample(int lib, struct problem *p, int batch, struct result *res) {
    double total = 0;
    set_threads();
    for (int c = 0; c < batch; c++) {
        reset(p);
        double t0 = now();
        fint info = run(lib, p);
        total += now() - t0;
        if (info != 0 && res->info[lib] == 0) res->info[lib] = info;
        if (lib == HETLA) { /* read after the clock stopped: the path this very call took */
            const char *path = hetla_last_path();
            if (!res->path[0]) snprintf(res->path, sizeof res->path, "%s", path);
            else if (strcmp(res->path, path)) snprintf(res->path, sizeof res->path, "mixed");
        }
    }
    if (CORRUPT && lib == HETLA) {
        size_t mid = (size_t)p->n / 2;
        if (has_rhs(p->r)) p->b[mid] += 1e-6 * fabs(p->b[mid]) + 1e-6;
        else if (p->r == ORMQR) p->c[mid * p->n + mid] *= 1.0 + 1e-6;
        else if (is_inverse(p->r)) /* an inverse's residual is scaled by ||X||: a larger spoil */
            p->a[mid * p->n + mid] += 1e-4 * (fabs(p->a[mid * p->n + mid]) + 1.0);
        else p->a[mid * p->n + mid] *= 1.0 + 1e-6;
    }
    res->hash[lib] = output_hash(p);
    double r = check(p);
    if (isnan(r) || r > res->resid[lib] || isnan(res->resid[lib])) res->resid[lib] = r;
    return total / batch;
}

static int default_reps(fint n) { return n <= 2000 ? 5 : 3; }

static int default_batch(int r, fint n) {
    if (n <= 64) return 200;
    double b = 5e7 / flops(r, n, 1); /* a few milliseconds per sample */
    return b < 1 ? 1 : b > 200 ? 200 : (int)b;
}

/* Idle time before every timed sample. After a multithreaded call, OpenBLAS's pool threads keep
 * spinning for a while (OPENBLAS_THREAD_TIMEOUT, about 0.1 s by default) waiting for more work;
 * without a gap the library timed next would share the cores with them. */
static double gap_s = 0.25;

/* Untimed hetla calls before the samples (and before the path is read): thread pools started,
 * code paged in. Where hetla has not yet decided whether a size runs faster forwarded or on tiles
 * (src/api/tune.rs), the first call of that size runs the learner's trials on copies of its
 * arrays (three per path, five where the two are within 25%) before it answers, and every later
 * call takes the decided path; the samples show that path, as a program making many calls sees
 * it. Each warm-up call gets the samples' idle gap too: the first one follows the driver's own
 * OpenBLAS calls (the DGEMM rate, the previous size's reference samples), whose spinning threads
 * hetla cannot see, and a trial slowed by them would settle the size on what the samples do not
 * measure. */
static int warm_calls = 2;

static void idle_gap(void) {
    struct timespec ts = {(time_t)gap_s, (long)((gap_s - (time_t)gap_s) * 1e9)};
    nanosleep(&ts, NULL);
}

static struct result measure(int r, fint n, fint nrhs, int reps, int batch) {
    struct problem p;
    struct result res;
    memset(&res, 0, sizeof res);
    problem_init(&p, r, n, nrhs);
    res.reps = reps;
    res.batch = batch;
    for (int w = 0; w < warm_calls; w++) {
        reset(&p);
        set_threads();
        idle_gap();
        run(HETLA, &p);
    }
    double *ts[2] = {malloc(sizeof(double) * reps), malloc(sizeof(double) * reps)};
    for (int k = 0; k < reps; k++) /* interleaved: hetla, OpenBLAS, hetla, OpenBLAS, ... */
        for (int lib = 0; lib < 2; lib++) {
            idle_gap();
            ts[lib][k] = sample(lib, &p, batch, &res);
        }
    for (int lib = 0; lib < 2; lib++) {
        res.t[lib] = median(ts[lib], reps);
        free(ts[lib]);
    }
    problem_free(&p);
    return res;
}

/* Median two-core (all-core) OpenBLAS DGEMM rate, in GFLOP/s: the machine's practical peak. */
static double dgemm_rate(fint n, int reps) {
    if (n <= 0) return NAN;
    size_t nn = (size_t)n * n;
    double *a = xmalloc(nn * sizeof(double)), *b = xmalloc(nn * sizeof(double)),
           *c = xmalloc(nn * sizeof(double));
    rng_seed(42);
    for (size_t k = 0; k < nn; k++) { a[k] = rng_uniform(); b[k] = rng_uniform(); c[k] = 0; }
    const double one = 1.0, zero = 0.0;
    double *ts = malloc(sizeof(double) * reps);
    for (int k = 0; k < reps; k++) {
        set_threads();
        double t0 = now();
        ob_dgemm("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
        ts[k] = now() - t0;
    }
    double t = median(ts, reps);
    free(ts); free(a); free(b); free(c);
    return 2.0 * (double)n * n * n / t * 1e-9;
}

/* ---- which path hetla takes --------------------------------------------------------------
 *
 * hetla reads HETLA_VERBOSE once per process, and the timed runs must not pay for the verbose
 * line. So the driver runs itself once more in --probe mode with HETLA_VERBOSE=1 (the rest of
 * the environment unchanged), which calls each routine at each size (after the same warm-up
 * calls) and reports what hetla's line says: path=tiles with its tile size nb, or path=forward
 * and why. The timed process reads each call's path itself (hetla_last_path); the probe adds the
 * tile size, which depends on the size (smaller problems get narrower tiles), so every size is
 * probed. */


struct pathinfo {
    char path[48];
    char nb[16];
};

static void parse_verbose(const char *buf, const char *routine, struct pathinfo *pi) {
    char key[32];
    snprintf(key, sizeof key, "hetla: %s ", routine);
    const char *line = NULL, *s = buf;
    while ((s = strstr(s, key))) { line = s; s += strlen(key); }
    strcpy(pi->path, "unknown");
    strcpy(pi->nb, "-");
    if (!line) return;
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char l[512];
    snprintf(l, sizeof l, "%.*s", (int)(len < 511 ? len : 511), line);
    char *tok = strtok(l, " ");
    char path[16] = "", why[24] = "";
    while (tok) {
        if (!strncmp(tok, "path=", 5)) snprintf(path, sizeof path, "%s", tok + 5);
        if (!strncmp(tok, "reason=", 7)) snprintf(why, sizeof why, "%s", tok + 7);
        /* A tile call the learner kept off the devices (hetla_last_path's tiles:host). */
        if (!strncmp(tok, "devices=off(", 12)) snprintf(why, sizeof why, "host");
        if (!strncmp(tok, "nb=", 3)) snprintf(pi->nb, sizeof pi->nb, "%s", tok + 3);
        tok = strtok(NULL, " ");
    }
    if (why[0]) snprintf(pi->path, sizeof pi->path, "%s:%s", path, why);
    else snprintf(pi->path, sizeof pi->path, "%s", path);
    /* A forwarded call can still reach hetla: the backend's DPOSV calls dpotrf_ through the
     * global symbol table, which is ours. Name such inner tile calls, e.g.
     * forward:untiled(dpotrf:tiles), so the row is not read as plain OpenBLAS. */
    if (strcmp(path, "tiles")) {
        for (s = buf; (s = strstr(s, "hetla: ")); s++) {
            char inner[16];
            const char *eol = strchr(s, '\n');
            size_t ll = eol ? (size_t)(eol - s) : strlen(s);
            const char *t = strstr(s, " path=tiles");
            if (t && (size_t)(t - s) < ll && sscanf(s, "hetla: %15s", inner) == 1 &&
                strcmp(inner, routine) && !strstr(pi->path, "(")) {
                size_t used = strlen(pi->path);
                snprintf(pi->path + used, sizeof pi->path - used, "(%s:tiles)", inner);
            }
        }
    }
}

static void probe_child(int nr, const int *routines, int ns, const fint *sizes, fint nrhs) {
    FILE *log = tmpfile();
    if (!log) { perror("tmpfile"); exit(2); }
    fflush(stderr);
    dup2(fileno(log), 2);
    for (int i = 0; i < nr; i++) {
        int r = routines[i];
        struct pathinfo last = {"unknown", "-"};
        for (int k = 0; k < ns; k++) {
            fint n = sizes[k];
            struct problem p;
            problem_init(&p, r, n, nrhs);
            /* The warm-up calls first (see measure()); the last call's line is the path. */
            for (int w = 0; w < warm_calls; w++) {
                reset(&p);
                set_threads();
                idle_gap();
                run(HETLA, &p);
            }
            fflush(stderr);
            reset(&p);
            long at = ftell(log);
            set_threads();
            run(HETLA, &p);
            fflush(stderr);
            fseek(log, 0, SEEK_END);
            long len = ftell(log) - at;
            char *buf = calloc((size_t)len + 1, 1);
            fseek(log, at, SEEK_SET);
            if (fread(buf, 1, (size_t)len, log) != (size_t)len) buf[0] = 0;
            fseek(log, 0, SEEK_END);
            parse_verbose(buf, RNAME[r], &last);
            free(buf);
            problem_free(&p);
            printf("%s %d %s %s\n", RNAME[r], (int)n, last.path, last.nb);
        }
    }
    fflush(stdout);
}

/* Runs the probe child and fills paths[routine index][size index]. */
static void probe(char *self, int nr, const int *routines, int ns, const fint *sizes, fint nrhs,
                  struct pathinfo *paths) {
    for (int i = 0; i < nr * ns; i++) { strcpy(paths[i].path, "unknown"); strcpy(paths[i].nb, "-"); }
    char rl[256] = "", sl[1024] = "", nl[16];
    for (int i = 0; i < nr; i++) { strcat(rl, i ? "," : ""); strcat(rl, RNAME[routines[i]]); }
    for (int k = 0; k < ns; k++) {
        char t[16];
        snprintf(t, sizeof t, "%s%d", k ? "," : "", (int)sizes[k]);
        strncat(sl, t, sizeof sl - strlen(sl) - 1);
    }
    snprintf(nl, sizeof nl, "%d", (int)nrhs);
    char wl[16];
    snprintf(wl, sizeof wl, "%d", warm_calls);
    char *argv[] = {self, "--probe", "--routines", rl, "--sizes", sl, "--nrhs", nl, "--warm", wl, NULL};
    int ne = 0;
    while (environ[ne]) ne++;
    char **envp = calloc((size_t)ne + 2, sizeof *envp);
    int k = 0;
    for (int i = 0; i < ne; i++)
        if (strncmp(environ[i], "HETLA_VERBOSE=", 14)) envp[k++] = environ[i];
    envp[k++] = "HETLA_VERBOSE=1";
    envp[k] = NULL;
    int fd[2];
    if (pipe(fd)) { perror("pipe"); return; }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, envp)) {
        perror("posix_spawn");
        return;
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char line[256];
    while (fgets(line, sizeof line, in)) {
        char rn[16], path[48], nb[16];
        int n;
        if (sscanf(line, "%15s %d %47s %15s", rn, &n, path, nb) != 4) continue;
        for (int i = 0; i < nr; i++)
            for (int s = 0; s < ns; s++)
                if (!strcmp(rn, RNAME[routines[i]]) && n == sizes[s]) {
                    snprintf(paths[i * ns + s].path, sizeof paths->path, "%s", path);
                    snprintf(paths[i * ns + s].nb, sizeof paths->nb, "%s", nb);
                }
    }
    fclose(in);
    int st;
    waitpid(pid, &st, 0);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
}

/* ---- command line ----------------------------------------------------------------------- */

static void usage(void) {
    fprintf(stderr,
            "usage: driver [--routines LIST] [--sizes LIST] [--reps R] [--batch B] [--nrhs K] [--gap-ms G]\n"
            "              [--warm W]\n"
            "              [--dgemm-n N] [--out FILE] [--meta FILE] [--selftest]\n"
            "  LIST: comma or space separated. Environment defaults: BENCH_ROUTINES, BENCH_SIZES,\n"
            "  BENCH_REPS, BENCH_BATCH, BENCH_NRHS, BENCH_DGEMM_N, BENCH_GAP_MS (idle ms before each\n"
            "  sample, default 250: OpenBLAS's pool threads spin for a while after a threaded call),\n"
            "  BENCH_WARM (untimed hetla calls per size before its samples, default 2: the first call of\n"
            "  a size hetla has not decided runs its trials on copies first).\n"
            "  defaults: all of dpotrf,dgetrf,dgeqrf,dposv,dgesv,dgels,dtrtri,dpotri,dgetri,dorgqr,dormqr; sizes 64 500 1000 2000\n"
            "  3000 4000 6000 8000; reps 5 (n <= 2000) or 3; batch 200 calls for n <= 64, else\n"
            "  enough calls for a few ms per sample; nrhs 1; dgemm-n 4000 (0 skips the DGEMM rate)\n"
            "  --selftest spoils each hetla result slightly and passes only if every row is flagged\n");
}

static int parse_list(const char *s, char out[][16], int max) {
    int k = 0;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *t = strtok(buf, ", "); t && k < max; t = strtok(NULL, ", ")) snprintf(out[k++], 16, "%s", t);
    return k;
}

static const char *opt(int argc, char **argv, const char *flag, const char *env, const char *def) {
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], flag)) return argv[i + 1];
    const char *e = env ? getenv(env) : NULL;
    return e && *e ? e : def;
}

static int affinity_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int main(int argc, char **argv) {
    int is_probe = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { usage(); return 0; }
        if (!strcmp(argv[i], "--probe")) is_probe = 1;
        if (!strcmp(argv[i], "--selftest")) CORRUPT = 1;
    }
    NPROC = affinity_cores();
    load_libs(is_probe);

    char items[64][16];
    int routines[NROUTINES], nr = 0;
    int k = parse_list(opt(argc, argv, "--routines", "BENCH_ROUTINES",
                           "dpotrf,dgetrf,dgeqrf,dposv,dgesv,dgels,dtrtri,dpotri,dgetri,dorgqr,dormqr"), items, 64);
    for (int i = 0; i < k; i++) {
        int found = -1;
        for (int r = 0; r < NROUTINES; r++) if (!strcmp(items[i], RNAME[r])) found = r;
        if (found < 0 || nr == NROUTINES) { fprintf(stderr, "driver: unknown routine %s\n", items[i]); usage(); return 2; }
        routines[nr++] = found;
    }
    fint sizes[64];
    int ns = parse_list(opt(argc, argv, "--sizes", "BENCH_SIZES", "64 500 1000 2000 3000 4000 6000 8000"), items, 64);
    for (int i = 0; i < ns; i++) {
        sizes[i] = atoi(items[i]);
        if (sizes[i] <= 0) { fprintf(stderr, "driver: bad size %s\n", items[i]); return 2; }
    }
    int reps_opt = atoi(opt(argc, argv, "--reps", "BENCH_REPS", "0"));
    int batch_opt = atoi(opt(argc, argv, "--batch", "BENCH_BATCH", "0"));
    gap_s = atof(opt(argc, argv, "--gap-ms", "BENCH_GAP_MS", "250")) * 1e-3;
    warm_calls = atoi(opt(argc, argv, "--warm", "BENCH_WARM", "2"));
    fint nrhs = atoi(opt(argc, argv, "--nrhs", "BENCH_NRHS", "1"));
    fint dgemm_n = atoi(opt(argc, argv, "--dgemm-n", "BENCH_DGEMM_N", "4000"));
    const char *outpath = opt(argc, argv, "--out", NULL, NULL);
    const char *metapath = opt(argc, argv, "--meta", NULL, NULL);
    if (nrhs < 1) nrhs = 1;

    if (is_probe) {
        probe_child(nr, routines, ns, sizes, nrhs);
        return 0;
    }
    if (getenv("HETLA_VERBOSE") && strcmp(getenv("HETLA_VERBOSE"), "0"))
        fprintf(stderr, "driver: warning: HETLA_VERBOSE is set; the per-call line adds to hetla's times\n");

    FILE *out = stdout;
    if (outpath && !(out = fopen(outpath, "w"))) { perror(outpath); return 2; }

    struct pathinfo *paths = calloc((size_t)nr * ns, sizeof *paths);
    probe(argv[0], nr, routines, ns, sizes, nrhs, paths);

    /* Warm-up: thread pools started, code paged in, before anything is timed. */
    for (int i = 0; i < nr; i++) {
        struct result res;
        memset(&res, 0, sizeof res);
        struct problem p;
        problem_init(&p, routines[i], 300, nrhs);
        for (int lib = 0; lib < 2; lib++) sample(lib, &p, 1, &res);
        problem_free(&p);
    }

    double gemm = dgemm_rate(dgemm_n, 3);
    fprintf(stderr, "driver: %d cores; OpenBLAS DGEMM n=%d: %.2f GFLOP/s\n", NPROC, (int)dgemm_n, gemm);
    if (metapath) {
        FILE *m = fopen(metapath, "w");
        if (m) {
            fprintf(m, "cores=%d\n", NPROC);
            fprintf(m, "hetla_version=%s\n", hetla_version());
            fprintf(m, "hetla_lib=%s\n", lib_of((const void *)LIB[HETLA].potrf));
            fprintf(m, "openblas_lib=%s\n", lib_of((const void *)LIB[OPENBLAS].potrf));
            if (ob_get_config) fprintf(m, "openblas_config=%s\n", ob_get_config());
            if (ob_get_corename) fprintf(m, "openblas_core=%s\n", ob_get_corename());
            fprintf(m, "dgemm_n=%d\ndgemm_gflops=%.3f\nnrhs=%d\n", (int)dgemm_n, gemm, (int)nrhs);
            fclose(m);
        }
    }

    fprintf(out, "routine,n,nb,path,reps,batch,hetla_median_s,openblas_median_s,hetla_gflops,"
                 "openblas_gflops,ratio,hetla_frac_dgemm,openblas_frac_dgemm,dgemm_gflops,"
                 "hetla_resid,openblas_resid,same_bits,check\n");
    fflush(out);
    int bad = 0;
    for (int i = 0; i < nr; i++) {
        int r = routines[i];
        for (int s = 0; s < ns; s++) {
            fint n = sizes[s];
            int reps = reps_opt > 0 ? reps_opt : default_reps(n);
            int batch = batch_opt > 0 ? batch_opt : default_batch(r, n);
            struct result res = measure(r, n, nrhs, reps, batch);
            double f = flops(r, n, nrhs);
            double gh = f / res.t[HETLA] * 1e-9, go = f / res.t[OPENBLAS] * 1e-9;
            char chk[96] = "ok";
            if (res.info[HETLA] != res.info[OPENBLAS])
                snprintf(chk, sizeof chk, "WARN:info hetla=%d openblas=%d", (int)res.info[HETLA], (int)res.info[OPENBLAS]);
            else if (isnan(res.resid[HETLA]) || res.resid[HETLA] > RESID_LIMIT)
                snprintf(chk, sizeof chk, "WARN:hetla residual");
            else if (isnan(res.resid[OPENBLAS]) || res.resid[OPENBLAS] > RESID_LIMIT)
                snprintf(chk, sizeof chk, "WARN:openblas residual");
            if (strcmp(chk, "ok")) bad++;
            /* The path is what the timed calls took; the probe child (its own process, its own
             * trials) adds the tile size, and names inner tile calls of a forward, where it
             * agrees. */
            struct pathinfo timed = {"", "-"}, *pi = &paths[i * ns + s];
            size_t pl = strlen(res.path);
            snprintf(timed.path, sizeof timed.path, "%s", res.path);
            if (!strncmp(pi->path, res.path, pl) && (pi->path[pl] == 0 || pi->path[pl] == '(')) {
                snprintf(timed.path, sizeof timed.path, "%s", pi->path);
                snprintf(timed.nb, sizeof timed.nb, "%s", pi->nb);
            }
            pi = &timed;
            fprintf(out, "%s,%d,%s,%s,%d,%d,%.6e,%.6e,%.3f,%.3f,%.4f,%.4f,%.4f,%.3f,%.3g,%.3g,%s,%s\n",
                    RNAME[r], (int)n, pi->nb, pi->path, res.reps, res.batch, res.t[HETLA],
                    res.t[OPENBLAS], gh, go, res.t[OPENBLAS] / res.t[HETLA], gh / gemm, go / gemm,
                    gemm, res.resid[HETLA], res.resid[OPENBLAS],
                    res.hash[HETLA] == res.hash[OPENBLAS] ? "yes" : "no", chk);
            fflush(out);
            fprintf(stderr, "driver: %-6s n=%-5d %-16s hetla %9.3f ms %7.2f GF/s | openblas %9.3f ms %7.2f GF/s | ratio %.3f | %s\n",
                    RNAME[r], (int)n, pi->path, res.t[HETLA] * 1e3, gh, res.t[OPENBLAS] * 1e3, go,
                    res.t[OPENBLAS] / res.t[HETLA], chk);
        }
    }
    if (out != stdout) fclose(out);
    free(paths);
    if (CORRUPT) { /* every row must have been flagged */
        int rows = nr * ns;
        fprintf(stderr, "driver: selftest: %d of %d spoiled results flagged: %s\n", bad, rows,
                bad == rows ? "PASS" : "FAIL");
        return bad == rows ? 0 : 1;
    }
    return bad ? 1 : 0;
}
