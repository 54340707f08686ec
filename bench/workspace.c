/* bench/workspace.c: DGETRI, DORGQR and DORMQR called legacy style, with the documented minimum
 * LWORK, through hetla (linked ahead of LAPACK: it hands the backend the workspace the backend's
 * query asks for) and through OpenBLAS alone (a copy loaded with dlmopen into a namespace of its
 * own, so that the DTRTRI that OpenBLAS's DGETRI calls by name is OpenBLAS's, not hetla's),
 * interleaved; medians of REPS.
 * Also OpenBLAS with its optimal LWORK, the best a program could get by changing its code.
 *
 *   bench/out/workspace N [REPS]      (built and run by bench/workspace.sh)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hetla.h"

typedef void (*getri_t)(const int32_t *, double *, const int32_t *, const int32_t *, double *, const int32_t *,
                        int32_t *);
typedef void (*orgqr_t)(const int32_t *, const int32_t *, const int32_t *, double *, const int32_t *,
                        const double *, double *, const int32_t *, int32_t *);
typedef void (*ormqr_t)(const char *, const char *, const int32_t *, const int32_t *, const int32_t *, double *,
                        const int32_t *, const double *, double *, const int32_t *, double *, const int32_t *,
                        int32_t *, size_t, size_t);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int k) {
    qsort(v, (size_t)k, sizeof *v, cmp);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2000, reps = argc > 2 ? atoi(argv[2]) : 3, info = 0;
    void *ob = dlmopen(LM_ID_NEWLM, "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!ob) { fprintf(stderr, "no libopenblas.so.0\n"); return 2; }
    getri_t ob_getri = (getri_t)dlsym(ob, "dgetri_");
    orgqr_t ob_orgqr = (orgqr_t)dlsym(ob, "dorgqr_");
    ormqr_t ob_ormqr = (ormqr_t)dlsym(ob, "dormqr_");
    size_t nn = (size_t)n * (size_t)n;
    double *a = malloc(8 * nn), *lu = malloc(8 * nn), *qr = malloc(8 * nn), *x = malloc(8 * nn), *c = malloc(8 * nn),
           *tau = malloc(8 * (size_t)n), *big = malloc(8 * 128 * (size_t)n), *w = malloc(8 * (size_t)n);
    int32_t *ipiv = malloc(4 * (size_t)n), lbig = 128 * n, minw = n;
    srand(7);
    for (size_t i = 0; i < nn; i++) a[i] = rand() / (double)RAND_MAX - 0.5;
    memcpy(lu, a, 8 * nn);
    dgetrf_(&n, &n, lu, &n, ipiv, &info);
    memcpy(qr, a, 8 * nn);
    dgeqrf_(&n, &n, qr, &n, tau, big, &lbig, &info);
    const char *names[3] = {"dgetri", "dorgqr", "dormqr L,T"};
    printf("routine,n,lwork,hetla_s,openblas_s,openblas_optimal_lwork_s,speedup\n");
    for (int r = 0; r < 3; r++) {
        double t[3][64];
        for (int k = 0; k < reps && k < 64; k++)
            for (int lib = 0; lib < 3; lib++) {
                double *w_use = lib == 2 ? big : w;
                int32_t *lw = lib == 2 ? &lbig : &minw;
                memcpy(x, r == 0 ? lu : qr, 8 * nn);
                memcpy(c, a, 8 * nn);
                struct timespec gap = {0, 250000000};
                nanosleep(&gap, NULL);
                double t0 = now();
                if (r == 0) {
                    if (lib == 0) dgetri_(&n, x, &n, ipiv, w_use, lw, &info);
                    else ob_getri(&n, x, &n, ipiv, w_use, lw, &info);
                } else if (r == 1) {
                    if (lib == 0) dorgqr_(&n, &n, &n, x, &n, tau, w_use, lw, &info);
                    else ob_orgqr(&n, &n, &n, x, &n, tau, w_use, lw, &info);
                } else {
                    if (lib == 0) dormqr_("L", "T", &n, &n, &n, x, &n, tau, c, &n, w_use, lw, &info, 1, 1);
                    else ob_ormqr("L", "T", &n, &n, &n, x, &n, tau, c, &n, w_use, lw, &info, 1, 1);
                }
                t[lib][k] = now() - t0;
                if (info != 0) { fprintf(stderr, "%s: INFO=%d\n", names[r], info); return 1; }
            }
        double h = median(t[0], reps), o = median(t[1], reps), oo = median(t[2], reps);
        printf("%s,%d,%d,%.4f,%.4f,%.4f,%.2f\n", names[r], n, n, h, o, oo, o / h);
        fflush(stdout);
    }
    return 0;
}
