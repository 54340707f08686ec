/* calls.c: a LAPACK program for the fake-CUDA fault and context tests (tests/fakecuda/faults.sh).
 *
 *   calls ITERS [own-context]
 *
 * Makes ITERS calls of dpotrf_, dgetrf_ and dgeqrf_ (in turn, on sizes from 20 to 64, every fifth
 * Cholesky on a matrix that is not positive definite) through whatever LAPACK the process has:
 * hetla when it is preloaded. Each result is compared with OpenBLAS's on the same input, OpenBLAS
 * reached by dlopen/dlsym so that a preloaded hetla cannot interpose it: INFO and pivots must be
 * equal, factors and tau equal to rounding. With `own-context`, the program first creates its own
 * CUDA context (cuCtxCreate_v2, current on this thread) and a device allocation in it, as a
 * program using CUDA itself does; after every call that context must still be current and the
 * allocation usable (a memset on it in that context, synchronized). Exit status 0 when everything
 * holds; every mismatch is printed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *, int *);

typedef void (*potrf_fn)(const char *, const int *, double *, const int *, int *, size_t);
typedef void (*getrf_fn)(const int *, const int *, double *, const int *, int *, int *);
typedef void (*geqrf_fn)(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
static potrf_fn ref_potrf;
static getrf_fn ref_getrf;
static geqrf_fn ref_geqrf;

/* The CUDA driver calls of the own-context mode, from the same libcuda hetla loads. */
typedef int (*init_fn)(unsigned);
typedef int (*devget_fn)(int *, int);
typedef int (*ctxcreate_fn)(void **, unsigned, int);
typedef int (*ctxget_fn)(void **);
typedef int (*alloc_fn)(unsigned long long *, size_t);
typedef int (*memset_fn)(unsigned long long, unsigned char, size_t, void *);
typedef int (*sync_fn)(void *);
static ctxget_fn cu_ctx_get;
static memset_fn cu_memset;
static sync_fn cu_sync;
static void *own_ctx;
static unsigned long long own_buf;

static unsigned long long rng = 88172645463325252ULL;
static double rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 - 0.5;
}

static int failures;
#define FAIL(...)                                                                                                    \
    do {                                                                                                             \
        fprintf(stderr, "calls: FAILED: " __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                                         \
        failures++;                                                                                                  \
    } while (0)

static double maxdiff(const double *a, const double *b, int m, int n, int ld, int lower_only)
{
    double d = 0, s = 0;
    for (int j = 0; j < n; j++)
        for (int i = lower_only ? j : 0; i < m; i++) {
            d = fmax(d, fabs(a[i + j * ld] - b[i + j * ld]));
            s = fmax(s, fabs(b[i + j * ld]));
        }
    return s > 0 ? d / s : d;
}

static void check_context(const char *after)
{
    if (!own_ctx)
        return;
    void *cur = NULL;
    if (cu_ctx_get(&cur) != 0 || cur != own_ctx)
        FAIL("after %s the program's own context is not current (current %p, own %p)", after, cur, own_ctx);
    if (cu_memset(own_buf, 7, 1024, NULL) != 0 || cu_sync(NULL) != 0)
        FAIL("after %s the program's own device allocation cannot be used", after);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 30;
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "calls: cannot dlopen libopenblas.so.0\n");
        return 2;
    }
    ref_potrf = (potrf_fn)dlsym(h, "dpotrf_");
    ref_getrf = (getrf_fn)dlsym(h, "dgetrf_");
    ref_geqrf = (geqrf_fn)dlsym(h, "dgeqrf_");
    if (argc > 2 && strcmp(argv[2], "own-context") == 0) {
        void *cu = dlopen("libcuda.so", RTLD_NOW | RTLD_GLOBAL);
        if (!cu) {
            fprintf(stderr, "calls: cannot dlopen libcuda.so\n");
            return 2;
        }
        int dev;
        if (((init_fn)dlsym(cu, "cuInit"))(0) || ((devget_fn)dlsym(cu, "cuDeviceGet"))(&dev, 0) ||
            ((ctxcreate_fn)dlsym(cu, "cuCtxCreate_v2"))(&own_ctx, 0, dev) ||
            ((alloc_fn)dlsym(cu, "cuMemAlloc_v2"))(&own_buf, 1024)) {
            fprintf(stderr, "calls: cannot set up the program's own CUDA context\n");
            return 2;
        }
        cu_ctx_get = (ctxget_fn)dlsym(cu, "cuCtxGetCurrent");
        cu_memset = (memset_fn)dlsym(cu, "cuMemsetD8Async");
        cu_sync = (sync_fn)dlsym(cu, "cuStreamSynchronize");
        check_context("setting it up");
    }

    for (int it = 0; it < iters; it++) {
        int n = 20 + (it * 7) % 45, m = n + (it % 3) * 5, lda = m + 3, info = 0, rinfo = 0;
        double *a = malloc(sizeof(double) * (size_t)lda * n), *r = malloc(sizeof(double) * (size_t)lda * n);
        switch (it % 3) {
        case 0: { /* Cholesky, lower or upper; every fifth one not positive definite */
            for (int j = 0; j < n; j++)
                for (int i = 0; i <= j; i++) {
                    double v = rnd();
                    a[i + j * lda] = a[j + i * lda] = i == j ? n + fabs(v) : v;
                }
            int bad = (it / 3) % 5 == 4 ? n / 2 : -1;
            if (bad >= 0)
                a[bad + bad * lda] = -1.0;
            memcpy(r, a, sizeof(double) * (size_t)lda * n);
            const char *uplo = (it / 3) % 2 ? "U" : "L";
            dpotrf_(uplo, &n, a, &lda, &info, 1);
            ref_potrf(uplo, &n, r, &lda, &rinfo, 1);
            if (info != rinfo)
                FAIL("call %d dpotrf n=%d uplo=%s: INFO %d, OpenBLAS %d", it, n, uplo, info, rinfo);
            else if (info == 0) {
                /* compare the factor's triangle (as the lower one of the transpose for U) */
                double d = 0;
                for (int j = 0; j < n; j++)
                    for (int i = j; i < n; i++) {
                        int p = *uplo == 'L' ? i + j * lda : j + i * lda;
                        d = fmax(d, fabs(a[p] - r[p]));
                    }
                if (d > 1e-10 * n)
                    FAIL("call %d dpotrf n=%d uplo=%s: factor differs by %g", it, n, uplo, d);
            }
            check_context("dpotrf");
            break;
        }
        case 1: { /* LU with pivoting */
            int *ip = malloc(sizeof(int) * n), *rip = malloc(sizeof(int) * n);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < lda; i++)
                    a[i + j * lda] = rnd();
            memcpy(r, a, sizeof(double) * (size_t)lda * n);
            dgetrf_(&m, &n, a, &lda, ip, &info);
            ref_getrf(&m, &n, r, &lda, rip, &rinfo);
            if (info != rinfo)
                FAIL("call %d dgetrf %dx%d: INFO %d, OpenBLAS %d", it, m, n, info, rinfo);
            if (memcmp(ip, rip, sizeof(int) * n) != 0)
                FAIL("call %d dgetrf %dx%d: pivots differ from OpenBLAS's", it, m, n);
            else if (maxdiff(a, r, m, n, lda, 0) > 1e-10 * n)
                FAIL("call %d dgetrf %dx%d: factors differ by %g", it, m, n, maxdiff(a, r, m, n, lda, 0));
            free(ip);
            free(rip);
            check_context("dgetrf");
            break;
        }
        default: { /* QR */
            double *tau = malloc(sizeof(double) * n), *rtau = malloc(sizeof(double) * n), wq;
            int lwork = -1;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < lda; i++)
                    a[i + j * lda] = rnd();
            memcpy(r, a, sizeof(double) * (size_t)lda * n);
            ref_geqrf(&m, &n, r, &lda, rtau, &wq, &lwork, &rinfo);
            lwork = (int)wq;
            double *work = malloc(sizeof(double) * (size_t)(lwork > 1 ? lwork : 1));
            ref_geqrf(&m, &n, r, &lda, rtau, work, &lwork, &rinfo);
            lwork = -1;
            dgeqrf_(&m, &n, a, &lda, tau, &wq, &lwork, &info);
            lwork = (int)wq;
            double *work2 = malloc(sizeof(double) * (size_t)(lwork > 1 ? lwork : 1));
            dgeqrf_(&m, &n, a, &lda, tau, work2, &lwork, &info);
            double dt = 0;
            for (int i = 0; i < n; i++)
                dt = fmax(dt, fabs(tau[i] - rtau[i]));
            if (info != rinfo)
                FAIL("call %d dgeqrf %dx%d: INFO %d, OpenBLAS %d", it, m, n, info, rinfo);
            else if (maxdiff(a, r, m, n, lda, 0) > 1e-10 * n || dt > 1e-10 * n)
                FAIL("call %d dgeqrf %dx%d: factors differ by %g, tau by %g", it, m, n, maxdiff(a, r, m, n, lda, 0),
                     dt);
            free(work);
            free(work2);
            free(tau);
            free(rtau);
            check_context("dgeqrf");
            break;
        }
        }
        free(a);
        free(r);
    }
    if (failures) {
        fprintf(stderr, "calls: %d failures in %d calls\n", failures, iters);
        return 1;
    }
    printf("calls: %d calls, all equal to OpenBLAS's%s\n", iters, own_ctx ? ", own context kept" : "");
    return 0;
}
