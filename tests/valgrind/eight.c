/* tests/valgrind/eight.c: each of the eight LAPACK routines hetla runs, once, on tiles (the
 * script forces HETLA_MIN_N=0 and small tiles), for valgrind's memcheck: no invalid access, no
 * use of an uninitialised value, nothing definitely lost. Exits non-zero when an INFO is not 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetla.h"

#define N 45
#define NRHS 3

static double *spd(void) {
    double *a = malloc(sizeof(double) * N * N);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) a[i + j * N] = (i == j) ? 2.0 * N : 1.0 / (1.0 + i + j);
    return a;
}

static double *general(int m, int n, unsigned seed) {
    double *a = malloc(sizeof(double) * (size_t)m * (size_t)n);
    for (int k = 0; k < m * n; k++) {
        seed = seed * 1103515245u + 12345u;
        a[k] = (double)(seed >> 8) / (double)(1u << 24) - 0.5;
    }
    return a;
}

int main(void) {
    int32_t n = N, m = N + 7, nrhs = NRHS, lda = N, ldm = N + 7, info = 0, bad = 0;
    int32_t ipiv[N];
    double *a = spd(), *b = general(N, NRHS, 1);
    dpotrf_("L", &n, a, &lda, &info, 1);
    bad |= info;
    dpotrs_("L", &n, &nrhs, a, &lda, b, &lda, &info, 1);
    bad |= info;
    free(a), free(b);
    a = spd(), b = general(N, NRHS, 2);
    dposv_("U", &n, &nrhs, a, &lda, b, &lda, &info, 1);
    bad |= info;
    free(a), free(b);

    a = general(N, N, 3), b = general(N, NRHS, 4);
    dgetrf_(&n, &n, a, &lda, ipiv, &info);
    bad |= info;
    dgetrs_("N", &n, &nrhs, a, &lda, ipiv, b, &lda, &info, 1);
    bad |= info;
    free(a), free(b);
    a = general(N, N, 5), b = general(N, NRHS, 6);
    dgesv_(&n, &nrhs, a, &lda, ipiv, b, &lda, &info);
    bad |= info;
    free(a), free(b);

    double tau[N], wq;
    int32_t lwork = -1;
    a = general(m, n, 7);
    dgeqrf_(&m, &n, a, &ldm, tau, &wq, &lwork, &info);
    lwork = (int32_t)wq;
    double *work = malloc(sizeof(double) * (size_t)lwork);
    dgeqrf_(&m, &n, a, &ldm, tau, work, &lwork, &info);
    bad |= info;
    free(a), free(work);
    a = general(m, n, 8), b = general(m, NRHS, 9);
    lwork = -1;
    dgels_("N", &m, &n, &nrhs, a, &ldm, b, &ldm, &wq, &lwork, &info, 1);
    lwork = (int32_t)wq;
    work = malloc(sizeof(double) * (size_t)lwork);
    dgels_("N", &m, &n, &nrhs, a, &ldm, b, &ldm, work, &lwork, &info, 1);
    bad |= info;
    free(a), free(b), free(work);
    printf("eight: %s\n", bad ? "an INFO was not 0" : "all INFO 0");
    return bad != 0;
}
