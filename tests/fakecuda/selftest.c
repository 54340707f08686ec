/* selftest.c: tests of the fake CUDA itself (run by tests/fakecuda/selftest.sh).
 *
 * `selftest CASE` runs one scenario against the fake libraries. `ok` and `factor` are correct
 * CUDA usage and must pass with right numbers; every other case makes one mistake that the fake
 * must report (selftest.sh checks the `fakecuda: violation:` line and the abort) or, for `oom`,
 * must return as an error.
 */
#include "fakecuda.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The API under test, as the public CUDA headers declare it. */
CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemGetInfo_v2(size_t *, size_t *);
CUresult cuMemHostAlloc(void **, size_t, unsigned);
CUresult cuMemFreeHost(void *);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuEventRecord(CUevent, CUstream);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, CUstream);
CUresult cuMemcpyDtoHAsync_v2(void *, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *, CUstream);
CUresult cuMemsetD8Async(CUdeviceptr, unsigned char, size_t, CUstream);
typedef struct handle *cublasHandle_t;
int cublasCreate_v2(cublasHandle_t *);
int cublasSetStream_v2(cublasHandle_t, CUstream);
int cublasDgemm_v2(cublasHandle_t, int, int, int, int, int, const double *, const double *, int, const double *,
                   int, const double *, double *, int);
int cublasDgemmBatched(cublasHandle_t, int, int, int, int, int, const double *, const double *const[], int,
                       const double *const[], int, const double *, double *const[], int, int);
typedef struct handle *cusolverDnHandle_t;
int cusolverDnCreate(cusolverDnHandle_t *);
int cusolverDnSetStream(cusolverDnHandle_t, CUstream);
int cusolverDnDpotrf_bufferSize(cusolverDnHandle_t, int, int, double *, int, int *);
int cusolverDnDpotrf(cusolverDnHandle_t, int, int, double *, int, double *, int, int *);
int cusolverDnDgetrf_bufferSize(cusolverDnHandle_t, int, int, double *, int, int *);
int cusolverDnDgetrf(cusolverDnHandle_t, int, int, double *, int, double *, int *, int *);
int cusolverDnDgeqrf_bufferSize(cusolverDnHandle_t, int, int, double *, int, int *);
int cusolverDnDgeqrf(cusolverDnHandle_t, int, int, double *, int, double *, double *, int, int *);
enum { CUSOLVER_STATUS_INVALID_VALUE = 3 };

/* The host's LAPACK for reference results: the OpenBLAS the fake computes with, taken the same
 * way (dlopen/dlsym), so equal results check the fake's plumbing (arguments, leading dimensions,
 * pivots, tau, INFO through device memory), not its arithmetic. */
typedef void (*getrf_fn)(const int *, const int *, double *, const int *, int *, int *);
typedef void (*geqrf_fn)(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
static getrf_fn ref_getrf;
static geqrf_fn ref_geqrf;

#define CK(x)                                                                                                        \
    do {                                                                                                             \
        int r_ = (x);                                                                                                \
        if (r_ != 0) {                                                                                               \
            fprintf(stderr, "selftest: %s returned %d\n", #x, r_);                                                   \
            exit(2);                                                                                                 \
        }                                                                                                            \
    } while (0)

enum { N = 32 };

static CUstream sa, sb, sc;
static CUevent ev;
static cublasHandle_t blas;
static double *pin; /* pinned staging of 3 N x N matrices */

static void setup(void)
{
    CUdevice d;
    CUcontext c;
    CK(cuInit(0));
    CK(cuDeviceGet(&d, 0));
    CK(cuDevicePrimaryCtxRetain(&c, d));
    CK(cuCtxSetCurrent(c));
    CK(cuStreamCreate(&sa, 1));
    CK(cuStreamCreate(&sb, 1));
    CK(cuStreamCreate(&sc, 1));
    CK(cuEventCreate(&ev, 2));
    CK(cublasCreate_v2(&blas));
    CK(cuMemHostAlloc((void **)&pin, 3 * N * N * sizeof(double), 0));
    for (int i = 0; i < 3 * N * N; i++)
        pin[i] = (double)(i % 7) - 3.0;
}

/* Copies A and B in on stream sa, C = A*B on the handle's stream, C out on that stream. With
 * `wait` the handle's stream waits for the copies through the event, as it must. */
static void gemm_round(CUstream on, int wait, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c)
{
    const double one = 1.0, zero = 0.0;
    CK(cuMemcpyHtoDAsync_v2(a, pin, N * N * 8, sa));
    CK(cuMemcpyHtoDAsync_v2(b, pin + N * N, N * N * 8, sa));
    CK(cuEventRecord(ev, sa));
    if (wait)
        CK(cuStreamWaitEvent(sb, ev, 0));
    CK(cublasSetStream_v2(blas, on));
    CK(cublasDgemm_v2(blas, 0, 0, N, N, N, &one, (const double *)a, N, (const double *)b, N, &zero, (double *)c, N));
    CK(cuMemcpyDtoHAsync_v2(pin + 2 * N * N, c, N * N * 8, on));
    CK(cuStreamSynchronize(on));
    CK(cuStreamSynchronize(sa));
}

/* Deterministic entries in [-0.5, 0.5) (xorshift; the same matrices in every run). */
static unsigned long long rng = 88172645463325252ULL;
static double rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 - 0.5;
}

/* Rows lda > m of the padding between columns: nothing may write them. */
#define PAD 777.0

/* An m x n matrix (leading dimension lda, column `zero_col` all zeros when >= 0) factored by
 * cusolverDnDgetrf (`qr` 0) or cusolverDnDgeqrf (`qr` 1) on handle `sol`, whose stream is sc,
 * copied in and out on sc, and compared with the host LAPACK's result on the same input: the
 * same INFO and pivots, factors and tau within 1e-12, the padding rows untouched. Returns the
 * INFO, or exits 1 (with the reason) on a mismatch. */
static int factor_check(cusolverDnHandle_t sol, int qr, int m, int n, int lda, int zero_col)
{
    const char *name = qr ? "geqrf" : "getrf";
    int mn = m < n ? m : n, lw, info, ref_info;
    size_t len = (size_t)lda * n;
    double *in = malloc(len * 8), *ref = malloc(len * 8), *ref_tau = malloc((size_t)mn * 8);
    int *ref_piv = malloc((size_t)mn * 4);
    for (size_t k = 0; k < len; k++)
        in[k] = (int)(k % lda) < m ? (zero_col >= 0 && (int)(k / lda) == zero_col ? 0.0 : rnd()) : PAD;
    double *out = pin + N * N;                   /* A after the factorisation */
    double *tau = pin + 2 * N * N;               /* tau (QR) */
    int *piv = (int *)(pin + 2 * N * N);         /* pivots (LU) */
    int *inf = (int *)(pin + 2 * N * N + N * N / 2);
    CUdeviceptr da, dw, dv, di;
    CK(cuMemAlloc_v2(&da, len * 8));
    CK(cuMemAlloc_v2(&dv, (size_t)mn * 8));
    CK(cuMemAlloc_v2(&di, 4));
    memcpy(pin, in, len * 8);
    CK(cuMemcpyHtoDAsync_v2(da, pin, len * 8, sc));
    if (qr) {
        CK(cusolverDnDgeqrf_bufferSize(sol, m, n, (double *)da, lda, &lw));
        CK(cuMemAlloc_v2(&dw, (size_t)lw * 8));
        CK(cusolverDnDgeqrf(sol, m, n, (double *)da, lda, (double *)dv, (double *)dw, lw, (int *)di));
        CK(cuMemcpyDtoHAsync_v2(tau, dv, (size_t)mn * 8, sc));
    } else {
        CK(cusolverDnDgetrf_bufferSize(sol, m, n, (double *)da, lda, &lw));
        CK(cuMemAlloc_v2(&dw, (size_t)lw * 8));
        CK(cusolverDnDgetrf(sol, m, n, (double *)da, lda, (double *)dw, (int *)dv, (int *)di));
        CK(cuMemcpyDtoHAsync_v2(piv, dv, (size_t)mn * 4, sc));
    }
    CK(cuMemcpyDtoHAsync_v2(out, da, len * 8, sc));
    CK(cuMemcpyDtoHAsync_v2(inf, di, 4, sc));
    CK(cuStreamSynchronize(sc));
    memcpy(&info, inf, 4);

    memcpy(ref, in, len * 8);
    if (qr) {
        double wq;
        int query = -1;
        ref_geqrf(&m, &n, ref, &lda, ref_tau, &wq, &query, &ref_info);
        int lwork = (int)wq;
        double *work = malloc((size_t)lwork * 8);
        ref_geqrf(&m, &n, ref, &lda, ref_tau, work, &lwork, &ref_info);
        free(work);
    } else {
        ref_getrf(&m, &n, ref, &lda, ref_piv, &ref_info);
    }
    if (info != ref_info) {
        fprintf(stderr, "selftest: %s %dx%d: devInfo %d, host LAPACK's INFO %d\n", name, m, n, info, ref_info);
        exit(1);
    }
    for (int i = 0; i < mn; i++)
        if (qr ? fabs(tau[i] - ref_tau[i]) > 1e-12 : piv[i] != ref_piv[i]) {
            fprintf(stderr, "selftest: %s %dx%d: %s %d differs from host LAPACK's\n", name, m, n,
                    qr ? "tau" : "pivot", i);
            exit(1);
        }
    for (size_t k = 0; k < len; k++)
        if ((int)(k % lda) < m ? !(fabs(out[k] - ref[k]) <= 1e-12) : out[k] != PAD) {
            fprintf(stderr, "selftest: %s %dx%d lda %d: element (%d, %d) is %g, host LAPACK's %g\n", name, m, n, lda,
                    (int)(k % lda), (int)(k / lda), out[k], ref[k]);
            exit(1);
        }
    CK(cuMemFree_v2(da));
    CK(cuMemFree_v2(dw));
    CK(cuMemFree_v2(dv));
    CK(cuMemFree_v2(di));
    free(in);
    free(ref);
    free(ref_tau);
    free(ref_piv);
    return info;
}

/* Row i of the N x N matrix at `a` becomes row N-1-i of the one at `c`, as hetla's LASWP does it:
 * one batched GEMM of 1x1 by 1xN products, whose pointer arrays (and the 1.0) are copied to `p`
 * on stream sa first. With `bad`, one source pointer lies past the end of `a`. */
static void reverse_rows(CUdeviceptr a, CUdeviceptr c, CUdeviceptr p, int bad)
{
    const double one = 1.0, zero = 0.0;
    unsigned long long *w = (unsigned long long *)(pin + 2 * N * N);
    memcpy(&w[0], &one, 8);
    for (int i = 0; i < N; i++) {
        w[1 + i] = p;
        w[1 + N + i] = a + 8 * (unsigned long long)i;
        w[1 + 2 * N + i] = c + 8 * (unsigned long long)(N - 1 - i);
    }
    if (bad)
        w[1 + N + N / 2] = a + 8ULL * N * N;
    CK(cuMemcpyHtoDAsync_v2(p, w, (1 + 3 * N) * 8, sa));
    CK(cublasSetStream_v2(blas, sa));
    CK(cublasDgemmBatched(blas, 0, 0, 1, N, 1, &one, (const double *const *)(p + 8), 1,
                          (const double *const *)(p + 8 + 8 * N), N, &zero, (double *const *)(p + 8 + 16 * N), N,
                          N));
    CK(cuMemcpyDtoHAsync_v2(pin + N * N, c, N * N * 8, sa));
    CK(cuStreamSynchronize(sa));
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "ok";
    setup();
    CUdeviceptr a, b, c;
    CK(cuMemAlloc_v2(&a, N * N * 8));
    CK(cuMemAlloc_v2(&b, N * N * 8));
    CK(cuMemAlloc_v2(&c, N * N * 8));

    if (strcmp(what, "ok") == 0) {
        /* Correct use: the numbers must be right, devInfo must come back through device memory,
         * cuMemGetInfo must account for the allocations. */
        gemm_round(sb, 1, a, b, c);
        double maxerr = 0;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double s = 0;
                for (int k = 0; k < N; k++)
                    s += pin[i + k * N] * pin[N * N + k + j * N];
                maxerr = fmax(maxerr, fabs(s - pin[2 * N * N + i + j * N]));
            }
        if (maxerr > 1e-9) {
            fprintf(stderr, "selftest: gemm wrong by %g\n", maxerr);
            return 1;
        }
        size_t fr, tot;
        CK(cuMemGetInfo_v2(&fr, &tot));
        if (tot - fr != 3 * ((N * N * 8 + 255) / 256 * 256)) {
            fprintf(stderr, "selftest: cuMemGetInfo says %zu bytes used\n", tot - fr);
            return 1;
        }
        /* POTRF of a matrix that is not positive definite at column 3: devInfo = 3. */
        cusolverDnHandle_t sol;
        CK(cusolverDnCreate(&sol));
        CK(cusolverDnSetStream(sol, sc));
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                pin[i + j * N] = i == j ? (i == 2 ? -1.0 : 4.0) : 0.0;
        int lwork;
        CUdeviceptr w, info;
        CK(cusolverDnDpotrf_bufferSize(sol, 0, N, (double *)a, N, &lwork));
        CK(cuMemAlloc_v2(&w, (size_t)lwork * 8));
        CK(cuMemAlloc_v2(&info, 4));
        CK(cuMemcpyHtoDAsync_v2(a, pin, N * N * 8, sc));
        CK(cusolverDnDpotrf(sol, 0, N, (double *)a, N, (double *)w, lwork, (int *)info));
        CK(cuMemcpyDtoHAsync_v2(pin + N * N, info, 4, sc));
        CK(cuStreamSynchronize(sc));
        int got;
        memcpy(&got, pin + N * N, 4);
        if (got != 3) {
            fprintf(stderr, "selftest: devInfo %d, expected 3\n", got);
            return 1;
        }
        CK(cuMemFree_v2(w));
        CK(cuMemFree_v2(info));
        /* A batched GEMM whose pointer arrays a copy on the same stream wrote: rows reversed. */
        CUdeviceptr p;
        CK(cuMemAlloc_v2(&p, (1 + 3 * N) * 8));
        for (int i = 0; i < N * N; i++)
            pin[i] = i;
        CK(cuMemcpyHtoDAsync_v2(a, pin, N * N * 8, sa));
        reverse_rows(a, c, p, 0);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                if (pin[N * N + (N - 1 - i) + j * N] != (double)(i + j * N)) {
                    fprintf(stderr, "selftest: batched row copy wrong at row %d column %d\n", i, j);
                    return 1;
                }
        CK(cuMemFree_v2(p));
        printf("selftest ok: gemm right, memory accounted, devInfo %d, batched rows right\n", got);
        return 0;
    }
    if (strcmp(what, "factor") == 0) {
        /* LU and QR of tall and wide matrices with lda > m, and LU of an exactly singular one,
         * against the host LAPACK; then the argument errors the real library returns. */
        void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!h || !(ref_getrf = (getrf_fn)dlsym(h, "dgetrf_")) || !(ref_geqrf = (geqrf_fn)dlsym(h, "dgeqrf_"))) {
            fprintf(stderr, "selftest: cannot take dgetrf_/dgeqrf_ from libopenblas.so.0\n");
            return 2;
        }
        cusolverDnHandle_t sol;
        CK(cusolverDnCreate(&sol));
        CK(cusolverDnSetStream(sol, sc));
        factor_check(sol, 0, 7, 5, 9, -1);
        factor_check(sol, 0, 5, 7, 6, -1);
        factor_check(sol, 1, 7, 5, 9, -1);
        factor_check(sol, 1, 5, 7, 6, -1);
        /* A zero column stays exactly zero through the elimination: U(3,3) = 0, INFO = 3. */
        int singular = factor_check(sol, 0, 5, 5, 5, 2);
        if (singular != 3) {
            fprintf(stderr, "selftest: getrf of a matrix whose third column is zero: devInfo %d, expected 3\n",
                    singular);
            return 1;
        }
        int lw;
        if (cusolverDnDgetrf_bufferSize(sol, 7, 5, (double *)a, 6, &lw) != CUSOLVER_STATUS_INVALID_VALUE ||
            cusolverDnDgetrf(sol, -1, 5, (double *)a, 1, (double *)b, (int *)c, (int *)c) !=
                CUSOLVER_STATUS_INVALID_VALUE ||
            cusolverDnDgeqrf_bufferSize(sol, 5, -1, (double *)a, 5, &lw) != CUSOLVER_STATUS_INVALID_VALUE ||
            cusolverDnDgeqrf(sol, 0, 5, (double *)a, 0, (double *)b, (double *)c, 0, (int *)c) !=
                CUSOLVER_STATUS_INVALID_VALUE) {
            fprintf(stderr, "selftest: m < 0, n < 0 or lda < max(1, m) did not give CUSOLVER_STATUS_INVALID_VALUE\n");
            return 1;
        }
        printf("selftest factor: getrf and geqrf of 7x5 and 5x7 equal to host LAPACK's, singular getrf devInfo %d, "
               "bad arguments INVALID_VALUE\n",
               singular);
        return 0;
    }
    if (strcmp(what, "getrfwork") == 0 || strcmp(what, "nullipiv") == 0 || strcmp(what, "geqrflwork") == 0) {
        /* getrfwork: a workspace one element smaller than bufferSize asked for (GETRF has no Lwork:
         * only the allocation's extent shows it); nullipiv: a NULL devIpiv (no pivoting);
         * geqrflwork: a GEQRF Lwork (and workspace) one element below bufferSize's. */
        cusolverDnHandle_t sol;
        CK(cusolverDnCreate(&sol));
        CK(cusolverDnSetStream(sol, sc));
        int lw, geqrf = strcmp(what, "geqrflwork") == 0, nullipiv = strcmp(what, "nullipiv") == 0;
        CUdeviceptr w;
        if (geqrf)
            CK(cusolverDnDgeqrf_bufferSize(sol, 7, 5, (double *)a, 9, &lw));
        else
            CK(cusolverDnDgetrf_bufferSize(sol, 7, 5, (double *)a, 9, &lw));
        CK(cuMemAlloc_v2(&w, (size_t)(nullipiv ? lw : lw - 1) * 8));
        if (geqrf)
            CK(cusolverDnDgeqrf(sol, 7, 5, (double *)a, 9, (double *)b, (double *)w, lw - 1, (int *)c));
        else
            CK(cusolverDnDgetrf(sol, 7, 5, (double *)a, 9, (double *)w, nullipiv ? NULL : (int *)b,
                                (int *)c));
        CK(cuStreamSynchronize(sc));
        return 0;
    }
    if (strcmp(what, "batchptr") == 0) {
        /* A pointer in a batched GEMM's array outside every allocation. */
        CUdeviceptr p;
        CK(cuMemAlloc_v2(&p, (1 + 3 * N) * 8));
        reverse_rows(a, c, p, 1);
        return 0;
    }
    if (strcmp(what, "pitch") == 0) {
        /* A 2-D copy whose destination pitch is one element too large for the buffer. */
        CUDA_MEMCPY2D d = {.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = pin, .srcPitch = N * 8,
                           .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = a, .dstPitch = (N + 1) * 8,
                           .WidthInBytes = N * 8, .Height = N};
        CK(cuMemcpy2DAsync_v2(&d, sa));
        CK(cuStreamSynchronize(sa));
        return 0;
    }
    if (strcmp(what, "nosync") == 0) {
        /* The kernel's stream does not wait for the copies in. */
        gemm_round(sb, 0, a, b, c);
        return 0;
    }
    if (strcmp(what, "freed") == 0) {
        CK(cuMemFree_v2(b));
        CK(cuMemsetD8Async(b, 0, 8, sa));
        CK(cuStreamSynchronize(sa));
        return 0;
    }
    if (strcmp(what, "wrongstream") == 0) {
        /* sb waits for the copies, but the handle still runs on sc. */
        gemm_round(sc, 1, a, b, c);
        return 0;
    }
    if (strcmp(what, "unpinned") == 0) {
        double *h = malloc(N * 8);
        CK(cuMemcpyHtoDAsync_v2(a, h, N * 8, sa));
        return 0;
    }
    if (strcmp(what, "freebusy") == 0) {
        /* Freeing a buffer a queued copy still writes, without synchronizing first. */
        CK(cuMemcpyHtoDAsync_v2(a, pin, N * N * 8, sa));
        CK(cuMemFree_v2(a));
        return 0;
    }
    if (strcmp(what, "nocontext") == 0) {
        CK(cuCtxSetCurrent(NULL));
        CK(cuMemsetD8Async(a, 0, 8, sa));
        return 0;
    }
    if (strcmp(what, "oom") == 0) {
        /* More than the device has: an error, not a crash; cuMemGetInfo's free is exact. */
        size_t fr, tot;
        CK(cuMemGetInfo_v2(&fr, &tot));
        CUdeviceptr x;
        if (cuMemAlloc_v2(&x, fr + 1) != CUDA_ERROR_OUT_OF_MEMORY) {
            fprintf(stderr, "selftest: allocating free+1 bytes did not fail\n");
            return 1;
        }
        CK(cuMemAlloc_v2(&x, fr));
        CK(cuMemFree_v2(x));
        printf("selftest oom: out of memory reported, all free memory allocatable\n");
        return 0;
    }
    fprintf(stderr, "selftest: unknown case %s\n", what);
    return 2;
}
