/* ffi-tests/common.h: helpers shared by the C call-site tests of hetla.
 *
 * The tests call hetla's exported LAPACK routines exactly as a C application would: through
 * include/hetla.h, with every argument by pointer and each CHARACTER argument's length passed as
 * a trailing size_t. Results are judged by residuals computed here in plain C loops (never by
 * calling the routine under test again), with LAPACK's test threshold of 30, and INFO values are
 * compared with the reference: the same routine taken by dlsym from a dlopen'd OpenBLAS, which
 * the dynamic loader resolves inside that library, so hetla's interposed symbols are never hit.
 *
 * Each test program counts its checks and failures and ends with `return finish("name")`, which
 * prints `PASS name (N checks)` or `FAIL name (F of N checks failed)` and gives the exit status.
 */
#ifndef HETLA_FFI_COMMON_H
#define HETLA_FFI_COMMON_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetla.h"

/* LAPACK's test suite accepts a scaled residual below 30; so do we. */
#define THRESH 30.0
#define EPS DBL_EPSILON
/* Written into every element outside the M×N part of an LDA-strided array, so that a write
 * there is caught. */
#define SENTINEL (-7777.25)

#define AT(a, lda, i, j) ((a)[(size_t)(i) + (size_t)(j) * (size_t)(lda)])
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static int g_checks, g_failed;
static pthread_mutex_t g_check_lock = PTHREAD_MUTEX_INITIALIZER;

/* Records one check; prints the message only when it fails. Safe to call from several threads. */
static inline int check(int ok, const char *fmt, ...) {
    pthread_mutex_lock(&g_check_lock);
    g_checks++;
    if (!ok) {
        va_list ap;
        g_failed++;
        va_start(ap, fmt);
        fputs("  FAILED: ", stdout);
        vprintf(fmt, ap);
        fputc('\n', stdout);
        va_end(ap);
        fflush(stdout);
    }
    pthread_mutex_unlock(&g_check_lock);
    return ok;
}

/* A scaled residual must be finite and below THRESH. */
static inline int check_ratio(double ratio, const char *what, int m, int n) {
    return check(isfinite(ratio) && ratio < THRESH, "%s (m=%d n=%d): scaled residual %.3g >= %.0f",
                 what, m, n, ratio, THRESH);
}

static inline int finish(const char *name) {
    if (g_failed) {
        printf("FAIL %s (%d of %d checks failed)\n", name, g_failed, g_checks);
        return 1;
    }
    printf("PASS %s (%d checks)\n", name, g_checks);
    return 0;
}

/* ---- seeded random numbers (splitmix64), so every run sees the same matrices ---- */

typedef struct {
    uint64_t s;
} rng_t;

static inline uint64_t rng_next(rng_t *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static inline double rng_unif(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-52 - 1.0; }

/* ---- LDA-strided matrices with guarded padding ---- */

/* An lda×n array whose rows m..lda-1 hold SENTINEL and whose M×N part is uniform random. */
static inline double *mat_random(rng_t *r, int m, int n, int lda) {
    double *a = malloc(sizeof(double) * (size_t)MAX(1, lda) * (size_t)MAX(1, n));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < lda; i++) AT(a, lda, i, j) = i < m ? rng_unif(r) : SENTINEL;
    return a;
}

/* A symmetric positive definite n×n matrix G·Gᵀ + n·I in an lda×n array (padding SENTINEL). */
static inline double *mat_spd(rng_t *r, int n, int lda) {
    double *g = mat_random(r, n, n, n);
    double *a = mat_random(r, n, n, lda);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = i == j ? (double)n : 0.0;
            for (int k = 0; k < n; k++) s += AT(g, n, i, k) * AT(g, n, j, k);
            AT(a, lda, i, j) = s;
        }
    free(g);
    return a;
}

static inline double *mat_copy(const double *a, int lda, int n) {
    size_t sz = sizeof(double) * (size_t)MAX(1, lda) * (size_t)MAX(1, n);
    double *c = malloc(sz);
    memcpy(c, a, sz);
    return c;
}

/* True when every element of rows m..lda-1 still holds SENTINEL. */
static inline int padding_untouched(const double *a, int m, int n, int lda) {
    for (int j = 0; j < n; j++)
        for (int i = m; i < lda; i++)
            if (AT(a, lda, i, j) != SENTINEL) return 0;
    return 1;
}

/* Matrix 1-norm (largest column sum) of the m×n part. */
static inline double norm1(const double *a, int m, int n, int lda) {
    double best = 0.0;
    for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int i = 0; i < m; i++) s += fabs(AT(a, lda, i, j));
        if (!(s <= best)) best = s; /* NaN propagates */
    }
    return best;
}

/* ‖B − op(A)·X‖₁ / (n·‖A‖₁·‖X‖₁·eps), LAPACK's dget02 ratio; A is n×n, X and B n×nrhs. */
static inline double solve_ratio(int trans, int n, int nrhs, const double *a, int lda, const double *x,
                          int ldx, const double *b, int ldb) {
    double *r = malloc(sizeof(double) * (size_t)n * (size_t)nrhs);
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) {
            double s = AT(b, ldb, i, j);
            for (int k = 0; k < n; k++)
                s -= (trans ? AT(a, lda, k, i) : AT(a, lda, i, k)) * AT(x, ldx, k, j);
            AT(r, n, i, j) = s;
        }
    double rn = norm1(r, n, nrhs, n), an = norm1(a, n, n, lda), xn = norm1(x, n, nrhs, ldx);
    free(r);
    if (an == 0.0 || xn == 0.0) return rn == 0.0 ? 0.0 : INFINITY;
    return rn / (MAX(n, 1) * an * xn * EPS);
}

/* ---- residuals of the three factorizations, shared by the tests ---- */

/* ‖A − L·Lᵀ‖₁ (uplo L) or ‖A − Uᵀ·U‖₁ (uplo U) / (n·‖A‖₁·eps), from the factor stored in the
 * `uplo` triangle of f; a holds the symmetric input (both triangles). */
static inline double potrf_ratio(char uplo, int n, const double *a, const double *f, int lda) {
    double *r = malloc(sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int k = 0; k <= MIN(i, j); k++)
                s += uplo == 'L' ? AT(f, lda, i, k) * AT(f, lda, j, k) : AT(f, lda, k, i) * AT(f, lda, k, j);
            AT(r, n, i, j) = AT(a, lda, i, j) - s;
        }
    double ratio = norm1(r, n, n, n) / (MAX(n, 1) * norm1(a, n, n, lda) * EPS);
    free(r);
    return ratio;
}

/* ‖P·A − L·U‖₁/(max(m,n)·‖A‖₁·eps) for DGETRF's factors in f and interchanges in ipiv, P·A
 * being the input with IPIV's interchanges applied in order. Sets *ipiv_ok when every IPIV(i)
 * lies in [i, M] and *l_ok when |L(i,j)| <= 1 (partial pivoting). */
static inline double lu_ratio(int m, int n, const double *a, const double *f, int lda, const int32_t *ipiv,
                              int *ipiv_ok, int *l_ok) {
    int k = MIN(m, n);
    double *pa = malloc(sizeof(double) * (size_t)m * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) AT(pa, m, i, j) = AT(a, lda, i, j);
    *ipiv_ok = 1;
    *l_ok = 1;
    for (int i = 0; i < k; i++) {
        int p = ipiv[i] - 1;
        if (p < i || p >= m) {
            *ipiv_ok = 0;
            continue;
        }
        for (int j = 0; j < n; j++) {
            double t = AT(pa, m, i, j);
            AT(pa, m, i, j) = AT(pa, m, p, j);
            AT(pa, m, p, j) = t;
        }
    }
    for (int j = 0; j < k; j++)
        for (int i = j + 1; i < m; i++)
            if (!(fabs(AT(f, lda, i, j)) <= 1.0 + 4 * EPS)) *l_ok = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0.0;
            for (int t = 0; t <= MIN(i, MIN(j, k - 1)); t++) s += (i == t ? 1.0 : AT(f, lda, i, t)) * AT(f, lda, t, j);
            AT(pa, m, i, j) -= s;
        }
    double an = norm1(a, m, n, lda);
    double ratio = norm1(pa, m, n, m) / (MAX(m, n) * (an > 0 ? an : 1.0) * EPS);
    free(pa);
    return ratio;
}

typedef void (*dorgqr_fn)(const int32_t *, const int32_t *, const int32_t *, double *, const int32_t *,
                          const double *, double *, const int32_t *, int32_t *);
static inline void *ref_sym(const char *name);

/* For DGEQRF's output f/tau of the m×n input a: Q (m×k) is rebuilt by OpenBLAS's DORGQR;
 * *res = ‖A − Q·R‖₁/(m·‖A‖₁·eps), *orth = ‖I − QᵀQ‖₁/(m·eps). Returns DORGQR's INFO. */
static inline int qr_ratios(int m, int n, const double *a, const double *f, int lda, const double *tau,
                            double *res, double *orth) {
    int k = MIN(m, n), lw = 64 * MAX(1, k), info = -99;
    double *q = malloc(sizeof(double) * (size_t)m * (size_t)k), *w = malloc(sizeof(double) * (size_t)lw);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++) AT(q, m, i, j) = AT(f, lda, i, j);
    /* The reference's own DORGQR (hetla exports one too). */
    ((dorgqr_fn)ref_sym("dorgqr_"))(&m, &k, &k, q, &m, tau, w, &lw, &info);
    double *r = malloc(sizeof(double) * (size_t)m * (size_t)n), *o = malloc(sizeof(double) * (size_t)k * (size_t)k);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0.0;
            for (int t = 0; t <= MIN(j, k - 1); t++) s += AT(q, m, i, t) * AT(f, lda, t, j);
            AT(r, m, i, j) = AT(a, lda, i, j) - s;
        }
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) {
            double s = i == j ? 1.0 : 0.0;
            for (int t = 0; t < m; t++) s -= AT(q, m, t, i) * AT(q, m, t, j);
            AT(o, k, i, j) = s;
        }
    *res = norm1(r, m, n, m) / (MAX(m, 1) * norm1(a, m, n, lda) * EPS);
    *orth = norm1(o, k, k, k) / (MAX(m, 1) * EPS);
    free(q); free(w); free(r); free(o);
    return info;
}

/* ---- the reference LAPACK, taken from OpenBLAS by dlopen/dlsym ---- */

/* Address of `name` inside libopenblas.so.0 itself. dlsym on a dlopen handle searches that
 * library and its dependencies only, so even under LD_PRELOAD this is OpenBLAS's routine; the
 * dladdr check makes sure of it. */
static inline void *ref_sym(const char *name) {
    static void *h;
    if (!h) h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "cannot dlopen libopenblas.so.0: %s\n", dlerror());
        exit(2);
    }
    void *p = dlsym(h, name);
    Dl_info info;
    if (!p || !dladdr(p, &info) || !info.dli_fname || strstr(info.dli_fname, "hetla")) {
        fprintf(stderr, "reference symbol %s not found in OpenBLAS\n", name);
        exit(2);
    }
    return p;
}

typedef void (*dpotrf_fn)(const char *, const int32_t *, double *, const int32_t *, int32_t *,
                          size_t);
typedef void (*dposv_fn)(const char *, const int32_t *, const int32_t *, double *,
                         const int32_t *, double *, const int32_t *, int32_t *, size_t);
typedef void (*dgetrf_fn)(const int32_t *, const int32_t *, double *, const int32_t *,
                          int32_t *, int32_t *);
typedef void (*dgesv_fn)(const int32_t *, const int32_t *, double *, const int32_t *, int32_t *,
                         double *, const int32_t *, int32_t *);
typedef void (*dgeqrf_fn)(const int32_t *, const int32_t *, double *, const int32_t *, double *,
                          double *, const int32_t *, int32_t *);
typedef void (*dgels_fn)(const char *, const int32_t *, const int32_t *, const int32_t *,
                         double *, const int32_t *, double *, const int32_t *, double *,
                         const int32_t *, int32_t *, size_t);
#define REF(name) ((name##_fn)ref_sym(#name "_"))

/* ---- xerbla: the test program's own, as LAPACK's test suite does, to observe argument errors.
 * It must be exported from the executable (link with -rdynamic) so that both hetla and the
 * reference find it. A program that wants the system's handler defines FFI_SYSTEM_XERBLA. ---- */
#ifndef FFI_SYSTEM_XERBLA

static char g_xerbla_name[16];
static int g_xerbla_info, g_xerbla_calls;

void xerbla_(const char *srname, const int32_t *info, size_t len) {
    size_t n = len < sizeof g_xerbla_name - 1 ? len : sizeof g_xerbla_name - 1;
    memcpy(g_xerbla_name, srname, n);
    while (n > 0 && g_xerbla_name[n - 1] == ' ') n--;
    g_xerbla_name[n] = 0;
    g_xerbla_info = *info;
    g_xerbla_calls++;
}

static inline void xerbla_reset(void) {
    g_xerbla_name[0] = 0;
    g_xerbla_info = 0;
    g_xerbla_calls = 0;
}

/* After a call that should have rejected argument `pos`: INFO = -pos and exactly one xerbla_
 * call naming `routine` with `pos`. */
static inline void check_arg_error(const char *routine, int pos, int info) {
    /* OpenBLAS 0.3.21's own DGETRS calls xerbla_ correctly but leaves INFO unwritten; only the
     * run against OpenBLAS alone (run.sh's `reference` mode, FFI_REFERENCE=1) excuses that. */
    int quirk = getenv("FFI_REFERENCE") && strcmp(routine, "DGETRS") == 0;
    check(info == -pos || quirk, "%s bad argument %d: INFO=%d, want %d", routine, pos, info, -pos);
    check(g_xerbla_calls == 1 && strcmp(g_xerbla_name, routine) == 0 && g_xerbla_info == pos,
          "%s bad argument %d: xerbla_ called %d times, last with (%s, %d)", routine, pos,
          g_xerbla_calls, g_xerbla_name, g_xerbla_info);
    xerbla_reset();
}
#endif /* FFI_SYSTEM_XERBLA */

#endif
