/* bench/onecall.c: one LAPACK call in a fresh process, timed, as a script that makes one call per
 * run sees it. bench/backends.sh links it with each backend (OpenBLAS, MKL, BLIS + reference
 * LAPACK, FlexiBLAS) and runs it with and without hetla preloaded.
 *
 *   onecall ROUTINE N [SEED]     ROUTINE: dpotrf dgetrf dgesv dgeqrf dgels dposv
 *
 * ONECALL_SLEEP_US=U waits U microseconds before the timed call (after the input is made): with
 * 200000, OpenBLAS's pool threads, which spin for about 0.1 s after the library starts, are
 * asleep by then, so what is left of a cold call is the library's own start-up.
 *
 * Prints "ROUTINE N SECONDS GFLOPS INFO RESIDUAL" on stdout. The input is seeded (the same in
 * every process); the residual is a randomized O(n^2) check of the result against the input,
 * relative, so that a fast wrong answer shows. Nominal flop counts as LAPACK's working notes
 * give them: potrf n^3/3, getrf 2n^3/3, geqrf 4n^3/3, gels 4n^3/3, solves add 2n^2 per
 * right-hand side (NRHS = 1 here).
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int32_t fint;
void dpotrf_(const char *, const fint *, double *, const fint *, fint *, size_t);
void dposv_(const char *, const fint *, const fint *, double *, const fint *, double *, const fint *, fint *,
            size_t);
void dgetrf_(const fint *, const fint *, double *, const fint *, fint *, fint *);
void dgesv_(const fint *, const fint *, double *, const fint *, fint *, double *, const fint *, fint *);
void dgeqrf_(const fint *, const fint *, double *, const fint *, double *, double *, const fint *, fint *);
void dgels_(const char *, const fint *, const fint *, const fint *, double *, const fint *, double *,
            const fint *, double *, const fint *, fint *, size_t);

static uint64_t state;
static double uniform(void) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(state >> 11) * 0x1p-53 * 2.0 - 1.0;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ||A x - b|| / (||A|| ||x|| + ||b||) with Frobenius norms, A general n x n (column-major). */
static double solve_residual(int n, const double *a, const double *x, const double *b) {
    double r = 0, an = 0, xn = 0, bn = 0;
    for (int i = 0; i < n; i++) {
        double s = -b[i];
        for (int j = 0; j < n; j++) s += a[i + (size_t)j * n] * x[j];
        r += s * s;
        xn += x[i] * x[i];
        bn += b[i] * b[i];
    }
    for (size_t k = 0; k < (size_t)n * n; k++) an += a[k] * a[k];
    return sqrt(r) / (sqrt(an) * sqrt(xn) + sqrt(bn)) / DBL_EPSILON;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: onecall ROUTINE N [SEED]\n");
        return 2;
    }
    const char *r = argv[1];
    fint n = atoi(argv[2]), one = 1, info = 0;
    state = argc > 3 ? strtoull(argv[3], NULL, 10) : 20261128;
    int spd = !strcmp(r, "dpotrf") || !strcmp(r, "dposv");
    size_t nn = (size_t)n * n;
    double *a = malloc(nn * sizeof *a), *a0 = malloc(nn * sizeof *a), *b = malloc((size_t)n * sizeof *b),
           *b0 = malloc((size_t)n * sizeof *b), *tau = malloc((size_t)n * sizeof *tau);
    fint *ipiv = malloc((size_t)n * sizeof *ipiv);
    for (fint j = 0; j < n; j++)
        for (fint i = 0; i < n; i++) a[i + (size_t)j * n] = uniform();
    if (spd) { /* symmetric, diagonally dominant */
        for (fint j = 0; j < n; j++)
            for (fint i = 0; i < j; i++) a[i + (size_t)j * n] = a[j + (size_t)i * n];
        for (fint i = 0; i < n; i++) a[i + (size_t)i * n] += n;
    }
    for (fint i = 0; i < n; i++) b[i] = uniform();
    memcpy(a0, a, nn * sizeof *a);
    memcpy(b0, b, (size_t)n * sizeof *b);
    double dn = n, flops;
    fint lwork = -1;
    double wq = 0, *work = NULL;
    if (!strcmp(r, "dgeqrf") || !strcmp(r, "dgels")) { /* workspace query, not timed */
        if (!strcmp(r, "dgeqrf"))
            dgeqrf_(&n, &n, a, &n, tau, &wq, &lwork, &info);
        else
            dgels_("N", &n, &n, &one, a, &n, b, &n, &wq, &lwork, &info, 1);
        lwork = (fint)wq;
        work = malloc(((size_t)lwork + 1) * sizeof *work);
    }
    const char *pause = getenv("ONECALL_SLEEP_US");
    if (pause)
        usleep((useconds_t)strtoul(pause, NULL, 10));
    double t0 = now();
    if (!strcmp(r, "dpotrf")) {
        dpotrf_("L", &n, a, &n, &info, 1);
        flops = dn * dn * dn / 3;
    } else if (!strcmp(r, "dposv")) {
        dposv_("L", &n, &one, a, &n, b, &n, &info, 1);
        flops = dn * dn * dn / 3 + 2 * dn * dn;
    } else if (!strcmp(r, "dgetrf")) {
        dgetrf_(&n, &n, a, &n, ipiv, &info);
        flops = 2 * dn * dn * dn / 3;
    } else if (!strcmp(r, "dgesv")) {
        dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
        flops = 2 * dn * dn * dn / 3 + 2 * dn * dn;
    } else if (!strcmp(r, "dgeqrf")) {
        dgeqrf_(&n, &n, a, &n, tau, work, &lwork, &info);
        flops = 4 * dn * dn * dn / 3;
    } else if (!strcmp(r, "dgels")) {
        dgels_("N", &n, &n, &one, a, &n, b, &n, work, &lwork, &info, 1);
        flops = 4 * dn * dn * dn / 3 + 4 * dn * dn;
    } else {
        fprintf(stderr, "onecall: unknown routine %s\n", r);
        return 2;
    }
    double t = now() - t0;
    /* The check: the solves' residual; for a factorization, L*U (or L*L^T, Q*R) against A on a
     * random vector, in O(n^2). */
    double res = 0;
    if (info == 0) {
        if (!strcmp(r, "dposv") || !strcmp(r, "dgesv") || !strcmp(r, "dgels")) {
            res = solve_residual(n, a0, b, b0);
        } else {
            double *v = malloc((size_t)n * sizeof *v), *w = calloc((size_t)n, sizeof *w),
                   *y = calloc((size_t)n, sizeof *y), num = 0, den = 0, an = 0;
            for (fint i = 0; i < n; i++) v[i] = uniform();
            if (!strcmp(r, "dpotrf")) { /* y = L (L^T v) */
                for (fint i = 0; i < n; i++)
                    for (fint k = i; k < n; k++) w[i] += a[k + (size_t)i * n] * v[k];
                for (fint i = 0; i < n; i++)
                    for (fint k = 0; k <= i; k++) y[i] += a[i + (size_t)k * n] * w[k];
            } else if (!strcmp(r, "dgetrf")) { /* y = P^T L (U v) */
                for (fint i = 0; i < n; i++)
                    for (fint k = i; k < n; k++) w[i] += a[i + (size_t)k * n] * v[k];
                for (fint i = 0; i < n; i++) {
                    y[i] = w[i];
                    for (fint k = 0; k < i; k++) y[i] += a[i + (size_t)k * n] * w[k];
                }
                for (fint i = n - 1; i >= 0; i--) {
                    double s = y[i];
                    y[i] = y[ipiv[i] - 1];
                    y[ipiv[i] - 1] = s;
                }
            } else { /* dgeqrf: y = Q (R v), Q = H_1 ... H_n applied right to left */
                for (fint i = 0; i < n; i++)
                    for (fint k = i; k < n; k++) y[i] += a[i + (size_t)k * n] * v[k];
                for (fint j = n - 1; j >= 0; j--) {
                    double s = y[j];
                    for (fint i = j + 1; i < n; i++) s += a[i + (size_t)j * n] * y[i];
                    s *= tau[j];
                    y[j] -= s;
                    for (fint i = j + 1; i < n; i++) y[i] -= s * a[i + (size_t)j * n];
                }
            }
            for (fint i = 0; i < n; i++) {
                double s = -y[i];
                for (fint k = 0; k < n; k++) s += a0[i + (size_t)k * n] * v[k];
                num += s * s;
                den += v[i] * v[i];
            }
            for (size_t k = 0; k < nn; k++) an += a0[k] * a0[k];
            res = sqrt(num) / (sqrt(an) * sqrt(den)) / DBL_EPSILON;
            free(v), free(w), free(y);
        }
    }
    printf("%s %d %.6f %.2f %d %.2f\n", r, n, t, flops / t * 1e-9, info, res);
    return 0;
}
