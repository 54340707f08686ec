/* bench/bt.c: hetla's block tridiagonal solver against OpenBLAS's banded LU.
 *
 * For each N x M (N block rows of M x M blocks; block diagonally dominant, seeded) it times,
 * interleaved in one process with an idle gap before each sample (OpenBLAS's pool threads spin
 * for a while after a threaded call): OpenBLAS's DGBSV on the same matrix as a band (kl = ku =
 * 2M - 1, OpenBLAS at BENCH_BLAS_THREADS threads, default 2, loaded with dlmopen into a
 * namespace of its own, so that neither it nor the DGEMM/DTRSM it calls by name reach hetla),
 * hetla's dbtsv_, dbttrf_, and dbttrs_ with those factors. Every call's result is checked (scaled residual of the solve, or X against the previous call's). Prints
 * one CSV line per size with medians: n,m,nrhs,dgbsv_s,dbtsv_s,dbttrf_s,dbttrs_s,speedup,
 * trs_over_trf,residual.
 *
 * Usage: bt [--sizes 512x64,64x256] [--reps 5] [--nrhs 1]; HETLA_BT selects hetla's elimination.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetla.h"

typedef void (*dgbsv_fn)(const int32_t *, const int32_t *, const int32_t *, const int32_t *, double *,
                         const int32_t *, int32_t *, double *, const int32_t *, int32_t *);
typedef void (*setthreads_fn)(int);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void idle_gap(void) {
    struct timespec t = {0, 250 * 1000 * 1000};
    nanosleep(&t, NULL);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int k) {
    qsort(v, k, sizeof *v, cmp);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

static uint64_t g_s = 12345;
static double unif(void) {
    uint64_t z = (g_s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

typedef struct {
    int n, m;
    double *dl, *d, *du;
} bt_t;

static double get(const bt_t *a, int i, int j) {
    int m = a->m, x = i / m, y = j / m, r = i % m, c = j % m;
    size_t mm = (size_t)m * m;
    if (x == y) return a->d[x * mm + r + (size_t)c * m];
    if (x == y + 1) return a->dl[y * mm + r + (size_t)c * m];
    if (y == x + 1) return a->du[x * mm + r + (size_t)c * m];
    return 0.0;
}

/* ||A x - b||_inf / (||A||_inf ||x||_inf n eps), first column. */
static double residual(const bt_t *a, const double *x, const double *b) {
    int nn = a->n * a->m, m = a->m;
    double rmax = 0, anorm = 0, xmax = 0;
    for (int i = 0; i < nn; i++) {
        int lo = (i / m > 0 ? i / m - 1 : 0) * m, hi = (i / m + 2) * m;
        if (hi > nn) hi = nn;
        double s = -b[i], ar = 0;
        for (int j = lo; j < hi; j++) {
            double v = get(a, i, j);
            s += v * x[j];
            ar += fabs(v);
        }
        rmax = fmax(rmax, fabs(s));
        anorm = fmax(anorm, ar);
        xmax = fmax(xmax, fabs(x[i]));
    }
    return rmax / (anorm * xmax * nn * 2.2e-16);
}

int main(int argc, char **argv) {
    const char *sizes = "512x64,64x256";
    int reps = 5, nrhs = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--nrhs")) nrhs = atoi(argv[i + 1]);
    }
    void *h = dlmopen(LM_ID_NEWLM, "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "bt: cannot dlmopen libopenblas.so.0\n");
        return 1;
    }
    dgbsv_fn dgbsv = (dgbsv_fn)dlsym(h, "dgbsv_");
    setthreads_fn setthreads = (setthreads_fn)dlsym(h, "openblas_set_num_threads");
    const char *bt_env = getenv("BENCH_BLAS_THREADS");
    if (setthreads) setthreads(bt_env ? atoi(bt_env) : 2);
    printf("n,m,nrhs,dgbsv_s,dbtsv_s,dbttrf_s,dbttrs_s,speedup,trs_over_trf,residual\n");
    char *list = strdup(sizes);
    int status = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int n, m;
        if (sscanf(tok, "%dx%d", &n, &m) != 2) continue;
        int nn = n * m, k = 2 * m - 1, ldab = 3 * k + 1;
        size_t mm = (size_t)m * m;
        bt_t a = {n, m, malloc(sizeof(double) * (n - 1) * mm + 8), malloc(sizeof(double) * n * mm),
                  malloc(sizeof(double) * (n - 1) * mm + 8)};
        for (size_t t = 0; t < (size_t)(n - 1) * mm; t++) a.dl[t] = unif(), a.du[t] = unif();
        for (size_t t = 0; t < n * mm; t++) a.d[t] = unif();
        for (int x = 0; x < n; x++)
            for (int j = 0; j < m; j++) a.d[x * mm + j + (size_t)j * m] += 3.0 * m;
        double *b = malloc(sizeof(double) * nn * nrhs);
        for (int i = 0; i < nn * nrhs; i++) b[i] = unif();
        double *ab0 = calloc((size_t)ldab * nn, sizeof(double));
        for (int j = 0; j < nn; j++)
            for (int i = j - k < 0 ? 0 : j - k; i < (j + k + 1 < nn ? j + k + 1 : nn); i++)
                ab0[2 * k + i - j + (size_t)j * ldab] = get(&a, i, j);
        double *ab = malloc(sizeof(double) * ldab * nn), *x = malloc(sizeof(double) * nn * nrhs);
        double *dl = malloc(sizeof(double) * (n - 1) * mm + 8), *d = malloc(sizeof(double) * n * mm),
               *du = malloc(sizeof(double) * (n - 1) * mm + 8);
        int32_t *ipiv = malloc(sizeof(int32_t) * nn), laf = (int32_t)(2 * n * mm + 1), info;
        double *af = malloc(sizeof(double) * laf);
        double *tg = malloc(sizeof(double) * reps), *tb = malloc(sizeof(double) * reps),
               *tf = malloc(sizeof(double) * reps), *ts = malloc(sizeof(double) * reps);
        double worst = 0;
#define RESET()                                                   \
    do {                                                          \
        memcpy(dl, a.dl, sizeof(double) * (n - 1) * mm);          \
        memcpy(d, a.d, sizeof(double) * n * mm);                  \
        memcpy(du, a.du, sizeof(double) * (n - 1) * mm);          \
        memcpy(x, b, sizeof(double) * nn * nrhs);                 \
    } while (0)
        for (int r = -1; r < reps; r++) { /* r = -1: untimed warm-up */
            memcpy(ab, ab0, sizeof(double) * ldab * nn);
            memcpy(x, b, sizeof(double) * nn * nrhs);
            idle_gap();
            double t0 = now();
            dgbsv(&nn, &k, &k, &nrhs, ab, &ldab, ipiv, x, &nn, &info);
            double t1 = now();
            double rg = residual(&a, x, b);
            if (info != 0 || !(rg < 30)) status = 1, fprintf(stderr, "dgbsv check failed: %g\n", rg);
            RESET();
            idle_gap();
            double tb0 = now();
            dbtsv_(&n, &m, &nrhs, dl, d, du, x, &nn, &info);
            double t2 = now();
            double rb = residual(&a, x, b);
            if (info != 0 || !(rb < 30)) status = 1, fprintf(stderr, "dbtsv check failed: %g\n", rb);
            worst = fmax(worst, rb);
            RESET();
            idle_gap();
            double t3 = now();
            dbttrf_(&n, &m, dl, d, du, af, &laf, ipiv, &info);
            double t4 = now();
            idle_gap();
            double t5 = now();
            dbttrs_("N", &n, &m, &nrhs, dl, d, du, af, &laf, ipiv, x, &nn, &info, 1);
            double t6 = now();
            double rs = residual(&a, x, b);
            if (info != 0 || !(rs < 30)) status = 1, fprintf(stderr, "dbttrs check failed: %g\n", rs);
            if (r >= 0) tg[r] = t1 - t0, tb[r] = t2 - tb0, tf[r] = t4 - t3, ts[r] = t6 - t5;
        }
        double mg = median(tg, reps), mb = median(tb, reps), mf = median(tf, reps), ms = median(ts, reps);
        printf("%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.2f,%.3f,%.2g\n", n, m, nrhs, mg, mb, mf, ms, mg / mb, ms / mf, worst);
        fflush(stdout);
    }
    return status;
}
