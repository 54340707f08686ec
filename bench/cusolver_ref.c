/* cuSOLVER alone, for bench/gpu.sh: DPOTRF, DGETRF and DGEQRF of one n×n matrix with the
 * dense cuSOLVER routines on one GPU, timed two ways:
 *   total_s   host matrix in, factor, factor back out (what a LAPACK call costs end to end);
 *   device_s  the factorization alone on device-resident data (cuSOLVER's best case).
 *
 * It is written against dlopen/dlsym with the handful of prototypes it needs spelled out below,
 * so it builds with no CUDA headers or toolkit; on a machine without libcuda/libcusolver it
 * exits with status 2 and says which library is missing.
 *
 * usage: cusolver_ref ROUTINE N [REPS]    (ROUTINE = dpotrf | dgetrf | dgeqrf; GPU 0)
 * output: one CSV line  routine,n,total_s,device_s,total_gflops,device_gflops,info
 * (medians of REPS runs, default 3, after one warm-up). Flop counts as bench/driver.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult; /* 0 = CUDA_SUCCESS */
typedef int cusolverStatus_t; /* 0 = CUSOLVER_STATUS_SUCCESS */
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext;
typedef void *cusolverDnHandle_t;
enum { FILL_LOWER = 0 };

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(int *, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, int);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuCtxSynchronize)(void);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuMemFree)(CUdeviceptr);
static CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static cusolverStatus_t (*DnCreate)(cusolverDnHandle_t *);
static cusolverStatus_t (*DnDpotrf_bufferSize)(cusolverDnHandle_t, int, int, double *, int, int *);
static cusolverStatus_t (*DnDpotrf)(cusolverDnHandle_t, int, int, double *, int, double *, int, int *);
static cusolverStatus_t (*DnDgetrf_bufferSize)(cusolverDnHandle_t, int, int, double *, int, int *);
static cusolverStatus_t (*DnDgetrf)(cusolverDnHandle_t, int, int, double *, int, double *, int *, int *);
static cusolverStatus_t (*DnDgeqrf_bufferSize)(cusolverDnHandle_t, int, int, double *, int, int *);
static cusolverStatus_t (*DnDgeqrf)(cusolverDnHandle_t, int, int, double *, int, double *, double *, int, int *);

static void *open_any(const char *what, const char **names) {
    for (const char **n = names; *n; n++) {
        void *h = dlopen(*n, RTLD_NOW | RTLD_GLOBAL);
        if (h) return h;
    }
    fprintf(stderr, "cusolver_ref: %s not found (tried %s ...); needs an NVIDIA GPU machine\n", what, names[0]);
    exit(2);
}

static void *sym(void *h, const char *name) {
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "cusolver_ref: missing symbol %s\n", name);
        exit(2);
    }
    return p;
}

#define CK(call)                                                                                 \
    do {                                                                                         \
        int rc_ = (call);                                                                        \
        if (rc_ != 0) {                                                                          \
            fprintf(stderr, "cusolver_ref: %s failed with %d (line %d)\n", #call, rc_, __LINE__);  \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static void load(void) {
    const char *cuda[] = {"libcuda.so.1", "libcuda.so", NULL};
    const char *solver[] = {"libcusolver.so", "libcusolver.so.12", "libcusolver.so.11", "libcusolver.so.13", NULL};
    void *c = open_any("libcuda", cuda);
    void *s = open_any("libcusolver", solver);
    *(void **)&cuInit = sym(c, "cuInit");
    *(void **)&cuDeviceGet = sym(c, "cuDeviceGet");
    *(void **)&cuDevicePrimaryCtxRetain = sym(c, "cuDevicePrimaryCtxRetain");
    *(void **)&cuCtxSetCurrent = sym(c, "cuCtxSetCurrent");
    *(void **)&cuCtxSynchronize = sym(c, "cuCtxSynchronize");
    *(void **)&cuMemAlloc = sym(c, "cuMemAlloc_v2");
    *(void **)&cuMemFree = sym(c, "cuMemFree_v2");
    *(void **)&cuMemcpyHtoD = sym(c, "cuMemcpyHtoD_v2");
    *(void **)&cuMemcpyDtoH = sym(c, "cuMemcpyDtoH_v2");
    *(void **)&DnCreate = sym(s, "cusolverDnCreate");
    *(void **)&DnDpotrf_bufferSize = sym(s, "cusolverDnDpotrf_bufferSize");
    *(void **)&DnDpotrf = sym(s, "cusolverDnDpotrf");
    *(void **)&DnDgetrf_bufferSize = sym(s, "cusolverDnDgetrf_bufferSize");
    *(void **)&DnDgetrf = sym(s, "cusolverDnDgetrf");
    *(void **)&DnDgeqrf_bufferSize = sym(s, "cusolverDnDgeqrf_bufferSize");
    *(void **)&DnDgeqrf = sym(s, "cusolverDnDgeqrf");
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: cusolver_ref dpotrf|dgetrf|dgeqrf N [REPS]\n");
        return 2;
    }
    const char *r = argv[1];
    int n = atoi(argv[2]), reps = argc > 3 ? atoi(argv[3]) : 3;
    int kind = !strcmp(r, "dpotrf") ? 0 : !strcmp(r, "dgetrf") ? 1 : !strcmp(r, "dgeqrf") ? 2 : -1;
    if (kind < 0 || n <= 0 || reps <= 0) {
        fprintf(stderr, "cusolver_ref: bad arguments\n");
        return 2;
    }
    load();
    int dev;
    CUcontext ctx;
    cusolverDnHandle_t h;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(DnCreate(&h));

    /* A seeded matrix; diagonally dominant so that it is SPD (symmetric) and LU pivots mildly. */
    size_t bytes = (size_t)n * n * sizeof(double);
    double *a = malloc(bytes), *out = malloc(bytes);
    uint64_t s = 42;
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            double v = (double)(s >> 11) / 9007199254740992.0 - 0.5;
            a[i + (size_t)j * n] = a[j + (size_t)i * n] = (i == j) ? v + n : v;
        }

    CUdeviceptr da, dw, dtau, dipiv, dinfo;
    int lwork = 0;
    CK(cuMemAlloc(&da, bytes));
    CK(cuMemAlloc(&dtau, (size_t)n * sizeof(double)));
    CK(cuMemAlloc(&dipiv, (size_t)n * sizeof(int)));
    CK(cuMemAlloc(&dinfo, sizeof(int)));
    if (kind == 0) CK(DnDpotrf_bufferSize(h, FILL_LOWER, n, (double *)da, n, &lwork));
    if (kind == 1) CK(DnDgetrf_bufferSize(h, n, n, (double *)da, n, &lwork));
    if (kind == 2) CK(DnDgeqrf_bufferSize(h, n, n, (double *)da, n, &lwork));
    CK(cuMemAlloc(&dw, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));

    double *tot = malloc(sizeof(double) * reps), *fac = malloc(sizeof(double) * reps);
    int info = 0;
    for (int rep = -1; rep < reps; rep++) {
        double t0 = now();
        CK(cuMemcpyHtoD(da, a, bytes));
        CK(cuCtxSynchronize());
        double t1 = now();
        if (kind == 0) CK(DnDpotrf(h, FILL_LOWER, n, (double *)da, n, (double *)dw, lwork, (int *)dinfo));
        if (kind == 1) CK(DnDgetrf(h, n, n, (double *)da, n, (double *)dw, (int *)dipiv, (int *)dinfo));
        if (kind == 2) CK(DnDgeqrf(h, n, n, (double *)da, n, (double *)dtau, (double *)dw, lwork, (int *)dinfo));
        CK(cuCtxSynchronize());
        double t2 = now();
        CK(cuMemcpyDtoH(out, da, bytes));
        CK(cuMemcpyDtoH(&info, dinfo, sizeof(int)));
        double t3 = now();
        if (rep >= 0) {
            tot[rep] = t3 - t0;
            fac[rep] = t2 - t1;
        }
    }
    qsort(tot, reps, sizeof(double), cmp);
    qsort(fac, reps, sizeof(double), cmp);
    double dn = n;
    double f = kind == 0 ? dn * dn * dn / 3.0 + dn * dn / 2.0
             : kind == 1 ? 2.0 * dn * dn * dn / 3.0 - dn * dn / 2.0
                         : 4.0 * dn * dn * dn / 3.0 + 2.0 * dn * dn;
    double ts = tot[reps / 2], fs = fac[reps / 2];
    printf("%s,%d,%.6e,%.6e,%.3f,%.3f,%d\n", r, n, ts, fs, f / ts * 1e-9, f / fs * 1e-9, info);
    return info != 0;
}
