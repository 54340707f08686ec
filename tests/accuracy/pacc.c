/* tests/accuracy/pacc.c: the accuracy of every ScaLAPACK routine hetla runs, against the reference
 * ScaLAPACK's on the same input, in one program under mpirun.
 *
 * Usage: mpirun -np P*Q pacc P Q [N] [NB] [SEEDS]
 *        (PACC_ONLY=<routine prefix> runs one routine; PACC_VERBOSE=1 prints every measure)
 *
 * For each routine, input class and seed, the same global matrix (made on every rank from the seed,
 * then dealt block-cyclically with NB×NB blocks) goes through the routine as the program resolves
 * it (hetla when preloaded) and through the reference routine taken with dlsym from
 * libscalapack-openmpi.so. Both results are gathered on every rank and measured in long double:
 *   pdpotrf      ‖A − L·Lᵀ‖₁ / (‖A‖₁ ε)                      (U: Uᵀ·U)
 *   pdgetrf      ‖P·A − L·U‖₁ / (‖A‖₁ ε)
 *   pdgeqrf      ‖A − Q·R‖₁ / (‖A‖₁ ε) and ‖QᵀQ − I‖₁ / ε    (Q formed from V and tau)
 *   pdpotrs, pdposv, pdgetrs, pdgesv   ‖B − A·X‖₁ / (‖A‖₁ ‖X‖₁ ε)
 *   pdtrtri, pdpotri, pdgetri          ‖X·A − I‖₁ and ‖A·X − I‖₁ / (‖A‖₁ ‖X‖₁ ε)
 *   pdorgqr      ‖QᵀQ − I‖₁ / ε and ‖A − Q·R‖₁ / (‖A‖₁ ε)
 *   pdormqr      ‖C' − QᵀC‖₁ / (‖C‖₁ ε), QᵀC applied reflector by reflector in long double
 * The factored inputs of the solves and inverses, and the reflectors of pdorgqr and pdormqr, are
 * the reference's own, so both libraries start from the same numbers.
 * Input classes: well conditioned; condition 1e6, 1e10, 1e14 (Q₁·Σ·Q₂ᵀ with Q from a Householder QR
 * of a random matrix, Σ geometric; symmetric ones Q·Σ·Qᵀ); rows and columns graded over 1e±100;
 * entries near overflow (×2^1000) and near underflow (×2^-1000); an exact zero (a zero column, or a
 * zero diagonal element of a factor); a NaN. For the last two only INFO is compared, and whether the
 * output holds a NaN: which entries do depends on the blocking, not only on the mathematics (a
 * block reflector or a block product multiplies a NaN by an exact zero that an unblocked code never
 * forms: the reference's pdgeqrf with blocks of 16 leaves R(32,48) NaN for a NaN in A(65,43), where
 * R(32,48) does not depend on that entry), so entry-by-entry agreement is asked of no library.
 * A ratio is hetla's measure over the reference's, each taken at least FLOOR = 0.01 (a hundredth
 * of one rounding error of the problem's scale: below that both are exact to working precision,
 * and a ratio of two such values is noise; the suites' own thresholds are 30·N in these units).
 * It fails where the median ratio over the seeds of a (routine, class) exceeds 2, where any ratio
 * exceeds 4, or where INFO differs. Prints, on rank 0, one line per (routine, class) with the
 * medians and the maximum, then "pacc: N cases, F failures"; exit status 1 on a failure. */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
int numroc_(const int *, const int *, const int *, const int *, const int *);

/* The routines, as the program resolves them (hetla's when preloaded). */
typedef const int ci;
void pdpotrf_(const char *, ci *, double *, ci *, ci *, ci *, int *, size_t);
void pdpotrs_(const char *, ci *, ci *, const double *, ci *, ci *, ci *, double *, ci *, ci *, ci *, int *,
              size_t);
void pdposv_(const char *, ci *, ci *, double *, ci *, ci *, ci *, double *, ci *, ci *, ci *, int *, size_t);
void pdgetrf_(ci *, ci *, double *, ci *, ci *, ci *, int *, int *);
void pdgetrs_(const char *, ci *, ci *, const double *, ci *, ci *, ci *, ci *, double *, ci *, ci *, ci *, int *,
              size_t);
void pdgesv_(ci *, ci *, double *, ci *, ci *, ci *, int *, double *, ci *, ci *, ci *, int *);
void pdgeqrf_(ci *, ci *, double *, ci *, ci *, ci *, double *, double *, ci *, int *);
void pdtrtri_(const char *, const char *, ci *, double *, ci *, ci *, ci *, int *, size_t, size_t);
void pdpotri_(const char *, ci *, double *, ci *, ci *, ci *, int *, size_t);
void pdgetri_(ci *, double *, ci *, ci *, ci *, ci *, double *, ci *, int *, ci *, int *);
void pdorgqr_(ci *, ci *, ci *, double *, ci *, ci *, ci *, const double *, double *, ci *, int *);
void pdormqr_(const char *, const char *, ci *, ci *, ci *, const double *, ci *, ci *, ci *, const double *,
              double *, ci *, ci *, ci *, double *, ci *, int *, size_t, size_t);

typedef struct {
    __typeof__(pdpotrf_) *potrf;
    __typeof__(pdpotrs_) *potrs;
    __typeof__(pdposv_) *posv;
    __typeof__(pdgetrf_) *getrf;
    __typeof__(pdgetrs_) *getrs;
    __typeof__(pdgesv_) *gesv;
    __typeof__(pdgeqrf_) *geqrf;
    __typeof__(pdtrtri_) *trtri;
    __typeof__(pdpotri_) *potri;
    __typeof__(pdgetri_) *getri;
    __typeof__(pdorgqr_) *orgqr;
    __typeof__(pdormqr_) *ormqr;
} lib_t;

static lib_t hetla = {pdpotrf_, pdpotrs_, pdposv_, pdgetrf_, pdgetrs_, pdgesv_,
                      pdgeqrf_, pdtrtri_, pdpotri_, pdgetri_, pdorgqr_, pdormqr_};
static lib_t ref;

static int nprow, npcol, myrow, mycol, ctxt, rank;
static int one = 1;
#define EPS DBL_EPSILON
#define FLOOR 0.01
#define G(a, ld, i, j) ((a)[(size_t)(i) + (size_t)(j) * (size_t)(ld)])

/* ---- random numbers, orthogonal matrices, the input classes ---- */

static unsigned long long rng_state;
static double unif(void) { /* in [-0.5, 0.5) */
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1.0p-53 - 0.5;
}

/* An m×m orthogonal matrix: the product of m Householder reflectors with random vectors. */
static double *orthogonal(int m) {
    double *q = calloc((size_t)m * m, sizeof(double)), *v = malloc(sizeof(double) * m);
    for (int i = 0; i < m; i++) G(q, m, i, i) = 1.0;
    for (int r = 0; r < m; r++) {
        long double vv = 0;
        for (int i = 0; i < m; i++) v[i] = unif(), vv += (long double)v[i] * v[i];
        for (int j = 0; j < m; j++) { /* Q ← (I − 2vvᵀ/vᵀv)·Q */
            long double s = 0;
            for (int i = 0; i < m; i++) s += (long double)v[i] * G(q, m, i, j);
            s = 2 * s / vv;
            for (int i = 0; i < m; i++) G(q, m, i, j) -= (double)(s * v[i]);
        }
    }
    free(v);
    return q;
}

enum { WELL, COND6, COND10, COND14, GRADED, HUGE_, TINY_, ZERO, NAN_, NCLASS };
static const char *class_name[NCLASS] = {"well", "cond1e6", "cond1e10", "cond1e14", "graded",
                                         "near-overflow", "near-underflow", "zero", "nan"};

/* The m×n input of class `cls` (symmetric positive definite where `spd`), column-major, ld m. */
static double *make(int m, int n, int cls, int spd, unsigned seed) {
    rng_state = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)seed * 1000003ULL + (unsigned long long)cls * 7919ULL);
    double *a = malloc(sizeof(double) * (size_t)m * n);
    int k = m < n ? m : n;
    double cond = cls == COND6 ? 1e6 : cls == COND10 ? 1e10 : cls == COND14 ? 1e14 : 0;
    if (cond > 0) {
        double *q1 = orthogonal(m), *q2 = spd ? q1 : orthogonal(n), *sigma = malloc(sizeof(double) * k);
        for (int l = 0; l < k; l++) sigma[l] = pow(cond, -(double)l / (k - 1));
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                long double s = 0;
                for (int l = 0; l < k; l++) s += (long double)G(q1, m, i, l) * sigma[l] * G(q2, n, j, l);
                G(a, m, i, j) = (double)s;
            }
        free(q1), free(sigma);
        if (!spd) free(q2);
        return a;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) G(a, m, i, j) = unif();
    if (spd) { /* symmetric, with a dominant diagonal */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < j; i++) G(a, m, i, j) = G(a, m, j, i);
        for (int i = 0; i < n; i++) G(a, m, i, i) = fabs(G(a, m, i, i)) + n;
    }
    if (cls == GRADED) { /* D·A·D (rows and columns graded alike: A stays symmetric) */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                G(a, m, i, j) *= pow(10.0, 100.0 * (2.0 * i / (m - 1) - 1)) * pow(10.0, 100.0 * (2.0 * j / (n - 1) - 1));
    }
    double scale = cls == HUGE_ ? 0x1.0p1000 : cls == TINY_ ? 0x1.0p-1000 : 1.0;
    for (size_t i = 0; i < (size_t)m * n; i++) a[i] *= scale;
    if (cls == ZERO) { /* a zero column (and row, where symmetric) in the middle */
        int z = n / 3;
        for (int i = 0; i < m; i++) G(a, m, i, z) = 0.0;
        if (spd)
            for (int j = 0; j < n; j++) G(a, m, z, j) = 0.0;
    }
    if (cls == NAN_) G(a, m, m / 2, n / 3) = NAN, G(a, m, n / 3, m / 2 < n ? m / 2 : 0) = NAN;
    return a;
}

/* ---- block-cyclic arrays ---- */

typedef struct {
    int m, n, nb, mloc, nloc, lld;
    int desc[9];
} dmat;

static dmat dm(int m, int n, int nb) {
    dmat d = {m, n, nb, 0, 0, 0, {0}};
    int zero = 0;
    d.mloc = numroc_(&m, &nb, &myrow, &zero, &nprow);
    d.nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    d.lld = d.mloc > 1 ? d.mloc : 1;
    int desc[9] = {1, ctxt, m, n, nb, nb, 0, 0, d.lld};
    memcpy(d.desc, desc, sizeof desc);
    return d;
}
static size_t dlen(const dmat *d) { return (size_t)d->lld * (size_t)(d->nloc > 0 ? d->nloc : 1); }
static int grow(const dmat *d, int il) { return (il / d->nb * nprow + myrow) * d->nb + il % d->nb; }
static int gcol(const dmat *d, int jl) { return (jl / d->nb * npcol + mycol) * d->nb + jl % d->nb; }

static double *scatter(const double *g, const dmat *d) {
    double *l = calloc(dlen(d), sizeof(double));
    for (int jl = 0; jl < d->nloc; jl++)
        for (int il = 0; il < d->mloc; il++) l[il + (size_t)jl * d->lld] = G(g, d->m, grow(d, il), gcol(d, jl));
    return l;
}

/* The global m×n matrix from every rank's local part (each entry is owned once; the others add 0). */
static double *gather(const double *l, const dmat *d) {
    double *g = calloc((size_t)d->m * d->n, sizeof(double)), *all = malloc(sizeof(double) * (size_t)d->m * d->n);
    for (int jl = 0; jl < d->nloc; jl++)
        for (int il = 0; il < d->mloc; il++) G(g, d->m, grow(d, il), gcol(d, jl)) = l[il + (size_t)jl * d->lld];
    MPI_Allreduce(g, all, d->m * d->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(g);
    return all;
}

/* IPIV of pdgetrf (global row indices, for the local rows, on every process column) as one global
 * vector; tau of pdgeqrf (for the local columns, on every process row) likewise. */
static int *gather_ipiv(const int *ipiv, const dmat *d, int k) {
    int *g = calloc(d->m, sizeof(int)), *all = calloc(d->m, sizeof(int));
    if (mycol == 0)
        for (int il = 0; il < d->mloc; il++)
            if (grow(d, il) < k) g[grow(d, il)] = ipiv[il];
    MPI_Allreduce(g, all, d->m, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(g);
    return all;
}
static double *gather_tau(const double *tau, const dmat *d, int k) {
    double *g = calloc(d->n, sizeof(double)), *all = calloc(d->n, sizeof(double));
    if (myrow == 0)
        for (int jl = 0; jl < d->nloc; jl++)
            if (gcol(d, jl) < k) g[gcol(d, jl)] = tau[jl];
    MPI_Allreduce(g, all, d->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(g);
    return all;
}

/* ---- measures, in long double ---- */

static long double norm1(const double *a, int m, int n, int ld) {
    long double best = 0;
    for (int j = 0; j < n; j++) {
        long double s = 0;
        for (int i = 0; i < m; i++) s += fabsl((long double)G(a, ld, i, j));
        if (s > best || isnan(s)) best = s;
    }
    return best;
}

/* ‖A − B·C‖₁ for m×k B and k×n C (long double products), every matrix column-major. */
static long double resid(const double *a, int lda, const double *b, int ldb, const double *c, int ldc, int m, int n,
                         int k) {
    long double best = 0;
    for (int j = 0; j < n; j++) {
        long double s = 0;
        for (int i = 0; i < m; i++) {
            long double x = a ? (long double)G(a, lda, i, j) : (long double)(i == j);
            for (int l = 0; l < k; l++) x -= (long double)G(b, ldb, i, l) * G(c, ldc, l, j);
            s += fabsl(x);
        }
        if (s > best || isnan(s)) best = s;
    }
    return best;
}

/* The triangle `uplo` (`unit`: with ones on the diagonal) of the n×n f, as a full matrix. */
static double *triangle(const double *f, int n, char uplo, int unit) {
    double *t = calloc((size_t)n * n, sizeof(double));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (i == j) G(t, n, i, j) = unit ? 1.0 : G(f, n, i, j);
            else if ((uplo == 'U') == (i < j)) G(t, n, i, j) = G(f, n, i, j);
    return t;
}
static double *transpose(const double *a, int m, int n) {
    double *t = malloc(sizeof(double) * (size_t)m * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) G(t, n, j, i) = G(a, m, i, j);
    return t;
}
/* The symmetric matrix whose `uplo` triangle is that of a. */
static double *symmetric(const double *a, int n, char uplo) {
    double *s = malloc(sizeof(double) * (size_t)n * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) G(s, n, i, j) = (uplo == 'U') == (i <= j) ? G(a, n, i, j) : G(a, n, j, i);
    return s;
}

/* C ← H_k…H_1·C (trans) or H_1…H_k·C, with the m-long reflectors of the m×k f and tau. */
static void apply_q(const double *f, const double *tau, int m, int k, int trans, double *c, int n) {
    for (int s = 0; s < k; s++) {
        int r = trans ? s : k - 1 - s;
        for (int j = 0; j < n; j++) {
            long double d = G(c, m, r, j);
            for (int i = r + 1; i < m; i++) d += (long double)G(f, m, i, r) * G(c, m, i, j);
            d *= tau[r];
            G(c, m, r, j) -= (double)d;
            for (int i = r + 1; i < m; i++) G(c, m, i, j) -= (double)(d * G(f, m, i, r));
        }
    }
}
/* The first n columns of Q from the m×k reflectors. */
static double *form_q(const double *f, const double *tau, int m, int n, int k) {
    double *q = calloc((size_t)m * n, sizeof(double));
    for (int i = 0; i < n; i++) G(q, m, i, i) = 1.0;
    apply_q(f, tau, m, k, 0, q, n);
    return q;
}

/* ---- the cases ---- */

enum { R_POTRF_L, R_POTRF_U, R_GETRF, R_GEQRF, R_POTRS, R_POSV, R_GETRS, R_GESV, R_TRTRI_U, R_TRTRI_LU,
       R_POTRI, R_GETRI, R_ORGQR, R_ORMQR, NROUTINE };
static const char *routine_name[NROUTINE] = {"pdpotrf(L)", "pdpotrf(U)", "pdgetrf", "pdgeqrf",  "pdpotrs",
                                             "pdposv",     "pdgetrs",    "pdgesv",  "pdtrtri(U,N)", "pdtrtri(L,U)",
                                             "pdpotri",    "pdgetri",    "pdorgqr", "pdormqr"};

static int N = 130, NB = 16, NRHS = 7;

typedef struct {
    int info;
    double m[2]; /* the measures (NAN: not measured) */
    double *out; /* the gathered output matrix, for the NaN rule */
    size_t len;
} result;

/* Runs routine `r` of `lib` on class `cls`, seed `seed`; measures the result. */
static result run(const lib_t *lib, int r, int cls, unsigned seed) {
    result res = {0, {NAN, NAN}, NULL, 0};
    int n = N, m = r == R_GEQRF || r == R_ORGQR || r == R_ORMQR ? N + 23 : N, nrhs = NRHS;
    int spd = r == R_POTRF_L || r == R_POTRF_U || r == R_POTRS || r == R_POSV || r == R_POTRI;
    char uplo = r == R_POTRF_U || r == R_TRTRI_U ? 'U' : 'L';
    double *a = make(m, n, cls, spd, seed);
    double *b = make(n, nrhs, WELL, 0, seed + 77);
    dmat da = dm(m, n, NB), db = dm(n, nrhs, NB);
    double *la = scatter(a, &da), *lb = scatter(b, &db);
    int *ipiv = calloc(da.mloc + NB + 1, sizeof(int)), info = 0, k = n;
    double *tau = calloc(da.nloc + 1, sizeof(double)), wq = 0;
    int lwork = -1;
    double *factors = NULL; /* gathered reference factors, where the routine takes them */
    int *gpiv = NULL;
    double *gtau = NULL;
    /* The reference's factorization first, where the routine takes factors. */
    if (r == R_POTRS || r == R_POTRI) ref.potrf(&uplo, &n, la, &one, &one, da.desc, &info, 1);
    if (r == R_GETRS || r == R_GETRI) ref.getrf(&n, &n, la, &one, &one, da.desc, ipiv, &info);
    if (r == R_ORGQR || r == R_ORMQR) {
        ref.geqrf(&m, &n, la, &one, &one, da.desc, tau, &wq, &lwork, &info);
        lwork = (int)wq + 1;
        double *w = malloc(sizeof(double) * lwork);
        ref.geqrf(&m, &n, la, &one, &one, da.desc, tau, w, &lwork, &info);
        free(w);
    }
    if (r == R_TRTRI_U || r == R_TRTRI_LU) { /* a triangle of the class's own conditioning: R of its QR */
        lwork = -1;
        ref.geqrf(&n, &n, la, &one, &one, da.desc, tau, &wq, &lwork, &info);
        lwork = (int)wq + 1;
        double *w = malloc(sizeof(double) * lwork);
        ref.geqrf(&n, &n, la, &one, &one, da.desc, tau, w, &lwork, &info);
        free(w);
        double *f = gather(la, &da), *t = calloc((size_t)n * n, sizeof(double));
        for (int j = 0; j < n; j++)
            for (int i = 0; i <= j; i++) {
                if (r == R_TRTRI_U) G(t, n, i, j) = G(f, n, i, j); /* R */
                else G(t, n, j, i) = i == j ? 1.0 : G(f, n, i, j) / G(f, n, i, i); /* unit lower: (D⁻¹R)ᵀ */
            }
        if (cls == ZERO) G(t, n, n / 3, n / 3) = 0.0; /* an exact zero on the diagonal */
        free(f), free(a), free(la);
        la = scatter(t, &da);
        a = r == R_TRTRI_U ? triangle(t, n, 'U', 0) : triangle(t, n, 'L', 1);
        free(t);
    }
    if (info != 0) { /* the reference's factorization failed: the class says nothing of this routine */
        res.info = -1000;
        goto done;
    }
    factors = gather(la, &da);
    if (r == R_GETRS || r == R_GETRI) gpiv = gather_ipiv(ipiv, &da, n);
    if (r == R_ORGQR || r == R_ORMQR) gtau = gather_tau(tau, &da, n);
    switch (r) {
    case R_POTRF_L:
    case R_POTRF_U:
        lib->potrf(&uplo, &n, la, &one, &one, da.desc, &info, 1);
        break;
    case R_GETRF:
        lib->getrf(&n, &n, la, &one, &one, da.desc, ipiv, &info);
        break;
    case R_GEQRF:
    case R_ORGQR: {
        lwork = -1;
        if (r == R_GEQRF) lib->geqrf(&m, &n, la, &one, &one, da.desc, tau, &wq, &lwork, &info);
        else lib->orgqr(&m, &n, &k, la, &one, &one, da.desc, tau, &wq, &lwork, &info);
        lwork = (int)wq + 1;
        double *w = malloc(sizeof(double) * lwork);
        if (r == R_GEQRF) lib->geqrf(&m, &n, la, &one, &one, da.desc, tau, w, &lwork, &info);
        else lib->orgqr(&m, &n, &k, la, &one, &one, da.desc, tau, w, &lwork, &info);
        free(w);
        break;
    }
    case R_ORMQR: {
        /* C ← Qᵀ·C for an m×nrhs C. */
        double *c = make(m, nrhs, WELL, 0, seed + 99);
        dmat dc = dm(m, nrhs, NB);
        double *lc = scatter(c, &dc);
        lwork = -1;
        lib->ormqr("L", "T", &m, &nrhs, &k, la, &one, &one, da.desc, tau, lc, &one, &one, dc.desc, &wq, &lwork,
                   &info, 1, 1);
        lwork = (int)wq + 1;
        double *w = malloc(sizeof(double) * lwork);
        lib->ormqr("L", "T", &m, &nrhs, &k, la, &one, &one, da.desc, tau, lc, &one, &one, dc.desc, w, &lwork,
                   &info, 1, 1);
        free(w);
        double *got = gather(lc, &dc), *want = malloc(sizeof(double) * (size_t)m * nrhs);
        memcpy(want, c, sizeof(double) * (size_t)m * nrhs);
        apply_q(factors, gtau, m, k, 1, want, nrhs);
        res.m[0] = (double)(resid(got, m, want, m, NULL, 0, m, nrhs, 0) / (norm1(c, m, nrhs, m) * EPS));
        res.out = got, res.len = (size_t)m * nrhs;
        free(want), free(c), free(lc);
        res.info = info;
        goto done;
    }
    case R_POTRS:
        lib->potrs(&uplo, &n, &nrhs, la, &one, &one, da.desc, lb, &one, &one, db.desc, &info, 1);
        break;
    case R_POSV:
        lib->posv(&uplo, &n, &nrhs, la, &one, &one, da.desc, lb, &one, &one, db.desc, &info, 1);
        break;
    case R_GETRS:
        lib->getrs("N", &n, &nrhs, la, &one, &one, da.desc, ipiv, lb, &one, &one, db.desc, &info, 1);
        break;
    case R_GESV:
        lib->gesv(&n, &nrhs, la, &one, &one, da.desc, ipiv, lb, &one, &one, db.desc, &info);
        break;
    case R_TRTRI_U:
        lib->trtri("U", "N", &n, la, &one, &one, da.desc, &info, 1, 1);
        break;
    case R_TRTRI_LU:
        lib->trtri("L", "U", &n, la, &one, &one, da.desc, &info, 1, 1);
        break;
    case R_POTRI:
        lib->potri(&uplo, &n, la, &one, &one, da.desc, &info, 1);
        break;
    case R_GETRI: {
        int liwork = -1, iwq = 0;
        lwork = -1;
        lib->getri(&n, la, &one, &one, da.desc, ipiv, &wq, &lwork, &iwq, &liwork, &info);
        lwork = (int)wq + 1, liwork = iwq + 1;
        double *w = malloc(sizeof(double) * lwork);
        int *iw = malloc(sizeof(int) * liwork);
        lib->getri(&n, la, &one, &one, da.desc, ipiv, w, &lwork, iw, &liwork, &info);
        free(w), free(iw);
        break;
    }
    }
    res.info = info;
    double *f = gather(la, &da);
    int solve = r == R_POTRS || r == R_POSV || r == R_GETRS || r == R_GESV;
    if (solve) {
        free(f);
        f = gather(lb, &db);
    }
    res.out = f, res.len = solve ? (size_t)n * nrhs : (size_t)m * n;
    if (info != 0 || cls == ZERO || cls == NAN_) goto done;
    long double na = norm1(a, m, n, m);
    if (r == R_POTRF_L || r == R_POTRF_U) {
        double *t = triangle(f, n, uplo, 0), *tt = transpose(t, n, n), *s = symmetric(a, n, uplo);
        res.m[0] = (double)(uplo == 'L' ? resid(s, n, t, n, tt, n, n, n, n) : resid(s, n, tt, n, t, n, n, n, n)) /
                   (double)(na * EPS);
        free(t), free(tt), free(s);
    } else if (r == R_GETRF) {
        int *gp = gather_ipiv(ipiv, &da, n);
        double *pa = malloc(sizeof(double) * (size_t)n * n), *l = triangle(f, n, 'L', 1), *u = triangle(f, n, 'U', 0);
        memcpy(pa, a, sizeof(double) * (size_t)n * n);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n && gp[i] - 1 != i; j++) {
                double x = G(pa, n, i, j);
                G(pa, n, i, j) = G(pa, n, gp[i] - 1, j), G(pa, n, gp[i] - 1, j) = x;
            }
        res.m[0] = (double)(resid(pa, n, l, n, u, n, n, n, n) / (na * EPS));
        free(gp), free(pa), free(l), free(u);
    } else if (r == R_GEQRF || r == R_ORGQR) {
        double *q, *rr;
        if (r == R_GEQRF) {
            double *gt = gather_tau(tau, &da, n);
            q = form_q(f, gt, m, n, n);
            rr = calloc((size_t)n * n, sizeof(double));
            for (int j = 0; j < n; j++)
                for (int i = 0; i <= j; i++) G(rr, n, i, j) = G(f, m, i, j);
            free(gt);
        } else {
            q = malloc(sizeof(double) * (size_t)m * n);
            memcpy(q, f, sizeof(double) * (size_t)m * n);
            rr = calloc((size_t)n * n, sizeof(double));
            for (int j = 0; j < n; j++)
                for (int i = 0; i <= j; i++) G(rr, n, i, j) = G(factors, m, i, j);
        }
        double *qt = transpose(q, m, n);
        res.m[0] = (double)(resid(a, m, q, m, rr, n, m, n, n) / (na * EPS));
        res.m[1] = (double)(resid(NULL, 0, qt, n, q, m, n, n, m) / EPS);
        free(q), free(rr), free(qt);
    } else if (solve) {
        res.m[0] = (double)(resid(b, n, a, n, f, n, n, nrhs, n) / (na * norm1(f, n, nrhs, n) * EPS));
    } else { /* the inverses: X·A − I and A·X − I */
        double *x = r == R_POTRI ? symmetric(f, n, uplo)
                    : r == R_GETRI ? (double *)memcpy(malloc(sizeof(double) * (size_t)n * n), f,
                                                      sizeof(double) * (size_t)n * n)
                                   : triangle(f, n, r == R_TRTRI_U ? 'U' : 'L', r == R_TRTRI_LU);
        double *aa = r == R_POTRI ? symmetric(a, n, 'L') : a;
        long double scale = norm1(aa, n, n, n) * norm1(x, n, n, n) * EPS;
        res.m[0] = (double)(resid(NULL, 0, x, n, aa, n, n, n, n) / scale);
        res.m[1] = (double)(resid(NULL, 0, aa, n, x, n, n, n, n) / scale);
        if (aa != a) free(aa);
        free(x);
    }
done:
    free(a), free(b), free(la), free(lb), free(ipiv), free(tau), free(factors), free(gpiv), free(gtau);
    return res;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        fprintf(stderr, "usage: %s P Q [N] [NB] [SEEDS]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int p = atoi(argv[1]), q = atoi(argv[2]), seeds = argc > 5 ? atoi(argv[5]) : 3;
    if (argc > 3) N = atoi(argv[3]);
    if (argc > 4) NB = atoi(argv[4]);
    void *h = dlopen("libscalapack-openmpi.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libscalapack-openmpi.so.2.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "pacc: no reference ScaLAPACK: %s\n", dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#define REF(f) ref.f = (__typeof__(ref.f))dlsym(h, "pd" #f "_")
    REF(potrf), REF(potrs), REF(posv), REF(getrf), REF(getrs), REF(gesv), REF(geqrf), REF(trtri), REF(potri),
        REF(getri), REF(orgqr), REF(ormqr);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "R", p, q);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    int cases = 0, failures = 0;
    const char *only = getenv("PACC_ONLY"); /* a routine name's prefix, to run it alone */
    for (int r = 0; r < NROUTINE; r++)
        for (int cls = 0; cls < NCLASS; cls++) {
            if (only && strncmp(routine_name[r], only, strlen(only))) continue;
            double ratio[2][16];
            int measured = 0, bad = 0, two = 0;
            char why[160] = "";
            for (int s = 0; s < seeds && s < 16; s++) {
                result hr = run(&hetla, r, cls, 1 + s), rr = run(&ref, r, cls, 1 + s);
                cases++;
                if (rr.info == -1000) { /* the reference's own factorization failed on this input */
                    free(hr.out), free(rr.out);
                    continue;
                }
                if (hr.info != rr.info) {
                    bad = 1;
                    snprintf(why, sizeof why, "seed %d: INFO %d, reference %d", s + 1, hr.info, rr.info);
                }
                size_t nan_h = 0, nan_r = 0;
                for (size_t i = 0; i < hr.len; i++) nan_h += isnan(hr.out[i]) != 0;
                for (size_t i = 0; i < rr.len; i++) nan_r += isnan(rr.out[i]) != 0;
                if ((nan_h > 0) != (nan_r > 0)) {
                    bad = 1;
                    snprintf(why, sizeof why, "seed %d: %zu NaN in hetla's output, %zu in the reference's", s + 1,
                             nan_h, nan_r);
                }
                for (int k = 0; k < 2; k++)
                    if (!isnan(rr.m[k])) {
                        double h1 = isnan(hr.m[k]) ? INFINITY : fmax(hr.m[k], FLOOR);
                        ratio[k][measured] = h1 / fmax(rr.m[k], FLOOR);
                        if (ratio[k][measured] > 4) {
                            bad = 1;
                            snprintf(why, sizeof why, "seed %d: measure %d %.3g, reference %.3g (ratio %.2f > 4)",
                                     s + 1, k + 1, hr.m[k], rr.m[k], ratio[k][measured]);
                        }
                    }
                if (getenv("PACC_VERBOSE") && rank == 0)
                    printf("     %s %s seed %d: info %d/%d measures %.3g %.3g, reference %.3g %.3g\n", routine_name[r],
                           class_name[cls], s + 1, hr.info, rr.info, hr.m[0], hr.m[1], rr.m[0], rr.m[1]);
                if (!isnan(rr.m[1])) two = 1;
                if (!isnan(rr.m[0])) measured++;
                free(hr.out), free(rr.out);
            }
            char line[200] = "";
            for (int k = 0; k < 1 + two && measured > 0; k++) {
                double sorted[16];
                memcpy(sorted, ratio[k], sizeof(double) * measured);
                qsort(sorted, measured, sizeof(double), cmp_double);
                double med = measured % 2 ? sorted[measured / 2] : 0.5 * (sorted[measured / 2 - 1] + sorted[measured / 2]);
                size_t at = strlen(line);
                snprintf(line + at, sizeof line - at, " m%d median %.2f max %.2f", k + 1, med, sorted[measured - 1]);
                if (med > 2) {
                    bad = 1;
                    snprintf(why, sizeof why, "median ratio %.2f > 2 (measure %d)", med, k + 1);
                }
            }
            if (bad) failures++;
            if (rank == 0)
                printf("%s %-13s %-15s%s%s%s\n", bad ? "FAIL" : "ok  ", routine_name[r], class_name[cls],
                       measured ? line : " INFO and NaN only", bad ? ": " : "", bad ? why : "");
        }
    if (rank == 0) printf("pacc: %d cases, %d failures\n", cases, failures);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return failures ? 1 : 0;
}
