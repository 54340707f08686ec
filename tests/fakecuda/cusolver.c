/* cusolver.c: a strict stand-in for libcusolver.so (the dense Cholesky, LU and QR hetla calls),
 * test fixture only. Like the real cusolverDnDpotrf/Dgetrf/Dgeqrf, each factorisation runs
 * asynchronously on the handle's stream and writes INFO (and LU's pivots, QR's tau) to *device*
 * memory; the workspace must be a device buffer of at least the size the matching _bufferSize
 * returned. Names, signatures and enum values follow the public cuSOLVER API.
 */
#include "fakecuda.h"

#include <stdio.h>

#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))
#define HANDLE_MAGIC 0x4353444eu

typedef int cusolverStatus_t;
enum {
    CUSOLVER_STATUS_SUCCESS = 0,
    CUSOLVER_STATUS_NOT_INITIALIZED = 1,
    CUSOLVER_STATUS_INVALID_VALUE = 3,
    CUSOLVER_STATUS_EXECUTION_FAILED = 6,
};

struct handle {
    unsigned magic;
    struct fc_ctx *ctx;
    struct fc_stream *stream;
    int destroyed;
};
typedef struct handle *cusolverDnHandle_t;

static void check(cusolverDnHandle_t h, const char *fn)
{
    if (!h || h->magic != HANDLE_MAGIC)
        fakecuda_violation("%s: %p is not a cuSOLVER handle", fn, (void *)h);
    if (h->destroyed)
        fakecuda_violation("%s: the cuSOLVER handle was destroyed", fn);
}

EXPORT cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *out)
{
    struct fc_ctx *c = fakecuda_current("cusolverDnCreate");
    if (fakecuda_inject("cusolverDnCreate"))
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    struct handle *h = calloc(1, sizeof *h);
    h->magic = HANDLE_MAGIC;
    h->ctx = c;
    *out = h;
    return CUSOLVER_STATUS_SUCCESS;
}

EXPORT cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t h)
{
    check(h, "cusolverDnDestroy");
    h->destroyed = 1;
    return CUSOLVER_STATUS_SUCCESS;
}

EXPORT cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t h, struct fc_stream *s)
{
    check(h, "cusolverDnSetStream");
    if (fakecuda_inject("cusolverDnSetStream"))
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    fakecuda_lock();
    fakecuda_stream_of(h->ctx, s, "cusolverDnSetStream");
    h->stream = s;
    fakecuda_unlock();
    return CUSOLVER_STATUS_SUCCESS;
}

/* The workspace this fake asks for (elements): the real library's size varies by version and
 * GPU; any positive size makes the caller allocate and pass one. */
static int work_elems(int n) { return n * 64 + 128; }

static char fill_char(int f, const char *fn)
{
    if (f != 0 && f != 1)
        fakecuda_violation("%s: fill mode %d is not LOWER or UPPER", fn, f);
    return f == 0 ? 'L' : 'U';
}

/* POTRF in four types (S, D, C, Z), as cuSOLVER has it: one body taking the element type. */
static cusolverStatus_t potrf_buffer_size(const char *fn, char ty, cusolverDnHandle_t h, int uplo, int n, void *A,
                                          int lda, int *lwork)
{
    check(h, fn);
    fill_char(uplo, fn);
    struct fc_ctx *c = fakecuda_current(fn);
    if (c != h->ctx)
        fakecuda_violation("%s: the handle's context (device %d) is not current on this thread", fn, fakecuda_ctx_dev(h->ctx));
    if (fakecuda_ctx_error(c) || fakecuda_inject(fn))
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    if (n < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    fakecuda_lock();
    fakecuda_dev_matrix(c, fn, "A", (CUdeviceptr)A, n, n, lda, fc_elem(ty));
    fakecuda_unlock();
    *lwork = work_elems(n);
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t potrf(const char *fn, char ty, cusolverDnHandle_t h, int uplo, int n, void *A, int lda,
                              void *work, int lwork, int *devInfo)
{
    check(h, fn);
    char u = fill_char(uplo, fn);
    struct fc_ctx *c = fakecuda_current(fn);
    if (c != h->ctx)
        fakecuda_violation("%s: the handle's context (device %d) is not current on this thread", fn, fakecuda_ctx_dev(h->ctx));
    if (fakecuda_ctx_error(c) || fakecuda_inject(fn))
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    if (n < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (lwork < work_elems(n))
        fakecuda_violation("%s: workspace of %d elements < the %d %s_bufferSize asked for", fn, lwork,
                           work_elems(n), fn);
    fakecuda_lock();
    struct fc_stream *s = fakecuda_stream_of(c, h->stream, fn);
    struct fc_op op = {.kind = OP_POTRF, .name = fn, .ty = ty, .c1 = u, .n = n, .lda = lda};
    op.a = fakecuda_operand(s, fn, "A", (CUdeviceptr)A, n, n, lda, fc_elem(ty), 1);
    fakecuda_operand(s, fn, "workspace", (CUdeviceptr)work, lwork, 1, lwork, fc_elem(ty), 1);
    op.info = fakecuda_operand(s, fn, "devInfo", (CUdeviceptr)devInfo, 1, 1, 1, 4, 1);
    fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUSOLVER_STATUS_SUCCESS;
}

#define EXPORT_POTRF(name, ty)                                                                                        \
    EXPORT cusolverStatus_t name##_bufferSize(cusolverDnHandle_t h, int uplo, int n, void *A, int lda, int *lwork)   \
    {                                                                                                                 \
        return potrf_buffer_size(#name "_bufferSize", ty, h, uplo, n, A, lda, lwork);                                 \
    }                                                                                                                 \
    EXPORT cusolverStatus_t name(cusolverDnHandle_t h, int uplo, int n, void *A, int lda, void *work, int lwork,     \
                                 int *devInfo)                                                                        \
    {                                                                                                                 \
        return potrf(#name, ty, h, uplo, n, A, lda, work, lwork, devInfo);                                            \
    }
EXPORT_POTRF(cusolverDnSpotrf, 's')
EXPORT_POTRF(cusolverDnDpotrf, 'd')
EXPORT_POTRF(cusolverDnCpotrf, 'c')
EXPORT_POTRF(cusolverDnZpotrf, 'z')

/* ------------------------------------------------------------------------------------------ */
/* LU (getrf) and QR (geqrf). The real library returns CUSOLVER_STATUS_INVALID_VALUE for
 * m < 0, n < 0 or lda < max(1, m), so these do too (an error the caller must handle, not a
 * violation); everything else wrong is a violation, as for POTRF. */

/* Workspaces this fake asks for (elements): any positive size works, but both are larger than
 * POTRF's for a square matrix of the same n, so a workspace sized by POTRF's query is caught
 * instead of passing by luck. */
static int getrf_work_elems(int m, int n) { return (m + n) * 32 + 256; }
static int geqrf_work_elems(int m, int n)
{
    (void)m; /* like LAPACK's n * nb: the panel width, not the height, sizes it */
    return n * 96 + 128;
}

/* Entry of the calls below: a live handle whose context is current here; a sticky error or an
 * injected failure is an execution failure. *out gets the context. */
static cusolverStatus_t begin(cusolverDnHandle_t h, const char *fn, struct fc_ctx **out)
{
    check(h, fn);
    struct fc_ctx *c = fakecuda_current(fn);
    if (c != h->ctx)
        fakecuda_violation("%s: the handle's context (device %d) is not current on this thread", fn,
                           fakecuda_ctx_dev(h->ctx));
    *out = c;
    if (fakecuda_ctx_error(c) || fakecuda_inject(fn))
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    return CUSOLVER_STATUS_SUCCESS;
}

static int bad_dims(int m, int n, int lda) { return m < 0 || n < 0 || lda < (m > 1 ? m : 1); }

/* The bufferSize queries of getrf and geqrf: A an m x n device matrix of type ty,
 * *lwork = elems(m, n). */
static cusolverStatus_t buffer_size(cusolverDnHandle_t h, const char *fn, char ty, int m, int n, void *A, int lda,
                                    int *lwork, int (*elems)(int, int))
{
    struct fc_ctx *c;
    cusolverStatus_t st = begin(h, fn, &c);
    if (st)
        return st;
    if (bad_dims(m, n, lda))
        return CUSOLVER_STATUS_INVALID_VALUE;
    fakecuda_lock();
    fakecuda_dev_matrix(c, fn, "A", (CUdeviceptr)A, m, n, lda, fc_elem(ty));
    fakecuda_unlock();
    *lwork = elems(m, n);
    return CUSOLVER_STATUS_SUCCESS;
}

/* No Lwork argument: the workspace must hold what the getrf bufferSize gave for these m, n,
 * checked as its extent in one live allocation. Vectors are 1 x len matrices with ld 1 (valid
 * for len 0 too). */
static cusolverStatus_t getrf(const char *fn, char ty, cusolverDnHandle_t h, int m, int n, void *A, int lda,
                              void *Workspace, int *devIpiv, int *devInfo)
{
    struct fc_ctx *c;
    cusolverStatus_t st = begin(h, fn, &c);
    if (st)
        return st;
    if (bad_dims(m, n, lda))
        return CUSOLVER_STATUS_INVALID_VALUE;
    /* The real library factors without pivoting when devIpiv is NULL: never what hetla means
     * (LAPACK's ?getrf pivots), so here it is a mistake. */
    if (!devIpiv)
        fakecuda_violation("%s: devIpiv is NULL, which factors without pivoting (hetla must always pivot, as "
                           "LAPACK's ?getrf does)",
                           fn);
    int mn = m < n ? m : n;
    size_t e = fc_elem(ty);
    char what[96];
    snprintf(what, sizeof what, "Workspace (of the size %s_bufferSize gave)", fn);
    fakecuda_lock();
    struct fc_stream *s = fakecuda_stream_of(c, h->stream, fn);
    struct fc_op op = {.kind = OP_GETRF, .name = fn, .ty = ty, .m = m, .n = n, .lda = lda};
    op.a = fakecuda_operand(s, fn, "A", (CUdeviceptr)A, m, n, lda, e, 1);
    fakecuda_operand(s, fn, what, (CUdeviceptr)Workspace, 1, getrf_work_elems(m, n), 1, e, 1);
    op.ipiv = fakecuda_operand(s, fn, "devIpiv", (CUdeviceptr)devIpiv, 1, mn, 1, 4, 1);
    op.info = fakecuda_operand(s, fn, "devInfo", (CUdeviceptr)devInfo, 1, 1, 1, 4, 1);
    fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t geqrf(const char *fn, char ty, cusolverDnHandle_t h, int m, int n, void *A, int lda,
                              void *TAU, void *Workspace, int Lwork, int *devInfo)
{
    struct fc_ctx *c;
    cusolverStatus_t st = begin(h, fn, &c);
    if (st)
        return st;
    if (bad_dims(m, n, lda))
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (Lwork < geqrf_work_elems(m, n))
        fakecuda_violation("%s: workspace of %d elements < the %d %s_bufferSize asked for", fn, Lwork,
                           geqrf_work_elems(m, n), fn);
    int mn = m < n ? m : n;
    size_t e = fc_elem(ty);
    fakecuda_lock();
    struct fc_stream *s = fakecuda_stream_of(c, h->stream, fn);
    struct fc_op op = {.kind = OP_GEQRF, .name = fn, .ty = ty, .m = m, .n = n, .lda = lda};
    op.a = fakecuda_operand(s, fn, "A", (CUdeviceptr)A, m, n, lda, e, 1);
    op.tau = fakecuda_operand(s, fn, "TAU", (CUdeviceptr)TAU, 1, mn, 1, e, 1);
    fakecuda_operand(s, fn, "Workspace", (CUdeviceptr)Workspace, 1, Lwork, 1, e, 1);
    op.info = fakecuda_operand(s, fn, "devInfo", (CUdeviceptr)devInfo, 1, 1, 1, 4, 1);
    fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUSOLVER_STATUS_SUCCESS;
}

/* The four types of each, as cuSOLVER has them. */
#define EXPORT_LU_QR(t, ty)                                                                                           \
    EXPORT cusolverStatus_t cusolverDn##t##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, void *A, int lda,    \
                                                            int *Lwork)                                               \
    {                                                                                                                 \
        return buffer_size(h, "cusolverDn" #t "getrf_bufferSize", ty, m, n, A, lda, Lwork, getrf_work_elems);        \
    }                                                                                                                 \
    EXPORT cusolverStatus_t cusolverDn##t##getrf(cusolverDnHandle_t h, int m, int n, void *A, int lda,               \
                                                 void *Workspace, int *devIpiv, int *devInfo)                         \
    {                                                                                                                 \
        return getrf("cusolverDn" #t "getrf", ty, h, m, n, A, lda, Workspace, devIpiv, devInfo);                     \
    }                                                                                                                 \
    EXPORT cusolverStatus_t cusolverDn##t##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, void *A, int lda,    \
                                                            int *lwork)                                               \
    {                                                                                                                 \
        return buffer_size(h, "cusolverDn" #t "geqrf_bufferSize", ty, m, n, A, lda, lwork, geqrf_work_elems);        \
    }                                                                                                                 \
    EXPORT cusolverStatus_t cusolverDn##t##geqrf(cusolverDnHandle_t h, int m, int n, void *A, int lda, void *TAU,    \
                                                 void *Workspace, int Lwork, int *devInfo)                            \
    {                                                                                                                 \
        return geqrf("cusolverDn" #t "geqrf", ty, h, m, n, A, lda, TAU, Workspace, Lwork, devInfo);                  \
    }
EXPORT_LU_QR(S, 's')
EXPORT_LU_QR(D, 'd')
EXPORT_LU_QR(C, 'c')
EXPORT_LU_QR(Z, 'z')
