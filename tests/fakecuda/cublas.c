/* cublas.c: a strict stand-in for libcublas.so (the functions hetla calls), test fixture only.
 *
 * A handle belongs to the context current when it was created; every call must be made with
 * that context current, runs on the stream set on the handle (the context's default stream if
 * none), checks every matrix's whole extent against live device allocations, records its
 * accesses for the race check, and queues the arithmetic (done by OpenBLAS on the stream's
 * thread). Scalars are read from host memory when the call is made (CUBLAS_POINTER_MODE_HOST,
 * the default). Names, signatures and enum values follow the public cuBLAS API.
 */
#include "fakecuda.h"

#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define HANDLE_MAGIC 0x43424c53u

typedef int cublasStatus_t;
enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
};

struct handle {
    unsigned magic;
    struct fc_ctx *ctx;
    struct fc_stream *stream;
    int destroyed;
};
typedef struct handle *cublasHandle_t;

static char op_char(int op, const char *fn)
{
    switch (op) {
    case 0: return 'N';
    case 1: return 'T';
    case 2: return 'C';
    default: fakecuda_violation("%s: operation %d is not a cublasOperation_t", fn, op);
    }
}
static char fill_char(int f, const char *fn)
{
    switch (f) {
    case 0: return 'L';
    case 1: return 'U';
    default: fakecuda_violation("%s: fill mode %d is not LOWER or UPPER", fn, f);
    }
}
static char side_char(int s, const char *fn)
{
    if (s != 0 && s != 1)
        fakecuda_violation("%s: side %d is not LEFT or RIGHT", fn, s);
    return s == 0 ? 'L' : 'R';
}
static char diag_char(int d, const char *fn)
{
    if (d != 0 && d != 1)
        fakecuda_violation("%s: diag %d is not NON_UNIT or UNIT", fn, d);
    return d == 0 ? 'N' : 'U';
}

/* Entry of every call on a handle: valid handle, its context current, injection. Returns the
 * stream to run on with the lock held, or NULL (lock not held) with *st set. */
static struct fc_stream *begin(cublasHandle_t h, const char *fn, cublasStatus_t *st)
{
    if (!h || h->magic != HANDLE_MAGIC)
        fakecuda_violation("%s: %p is not a cuBLAS handle", fn, (void *)h);
    if (h->destroyed)
        fakecuda_violation("%s: the cuBLAS handle was destroyed", fn);
    struct fc_ctx *c = fakecuda_current(fn);
    if (c != h->ctx)
        fakecuda_violation("%s: the handle's context (device %d) is not current on this thread", fn, fakecuda_ctx_dev(h->ctx));
    if (fakecuda_ctx_error(c) || fakecuda_inject(fn)) {
        *st = CUBLAS_STATUS_EXECUTION_FAILED;
        return NULL;
    }
    fakecuda_lock();
    return fakecuda_stream_of(c, h->stream, fn);
}

EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *out)
{
    struct fc_ctx *c = fakecuda_current("cublasCreate_v2");
    if (fakecuda_inject("cublasCreate_v2"))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct handle *h = calloc(1, sizeof *h);
    h->magic = HANDLE_MAGIC;
    h->ctx = c;
    *out = h;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t h)
{
    if (!h || h->magic != HANDLE_MAGIC || h->destroyed)
        fakecuda_violation("cublasDestroy_v2: %p is not a live cuBLAS handle", (void *)h);
    h->destroyed = 1; /* kept so that later use is reported */
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t h, struct fc_stream *s)
{
    if (!h || h->magic != HANDLE_MAGIC || h->destroyed)
        fakecuda_violation("cublasSetStream_v2: %p is not a live cuBLAS handle", (void *)h);
    if (fakecuda_inject("cublasSetStream_v2"))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    fakecuda_lock();
    fakecuda_stream_of(h->ctx, s, "cublasSetStream_v2"); /* checks it is a stream of the handle's context */
    h->stream = s;
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

/* Rows and columns of op(X) stored as an r x c matrix. */
#define DIMS(op, rows, cols, r, c)                                                                                    \
    do {                                                                                                              \
        if ((op) == 'N') {                                                                                            \
            r = rows;                                                                                                 \
            c = cols;                                                                                                 \
        } else {                                                                                                      \
            r = cols;                                                                                                 \
            c = rows;                                                                                                 \
        }                                                                                                             \
    } while (0)

#define OPERAND(what, p, m, n, ld, w) fakecuda_operand(s, fn, what, (CUdeviceptr)(p), m, n, ld, fc_elem(ty), w)

/* Copies a host scalar of type ty (real: HERK's alpha and beta for c and z) into an op. */
static void scalar(unsigned char *dst, const void *src, char ty, int real)
{
    size_t e = fc_elem(ty);
    memcpy(dst, src, real && (ty == 'c' || ty == 'z') ? e / 2 : e);
}

/* Every function below exists in four types, S, D, C and Z, as in cuBLAS: one body taking the
 * type (`ty`) and the exported name (`fn`), and thin exports. */

static cublasStatus_t gemm(const char *fn, char ty, cublasHandle_t h, int ta, int tb, int m, int n, int k,
                           const void *alpha, const void *A, int lda, const void *B, int ldb, const void *beta,
                           void *C, int ldc)
{
    cublasStatus_t st;
    char a = op_char(ta, fn), b = op_char(tb, fn);
    if (m < 0 || n < 0 || k < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    long ar, ac, br, bc;
    DIMS(a, m, k, ar, ac);
    DIMS(b, k, n, br, bc);
    struct fc_op op = {.kind = OP_GEMM, .name = fn, .ty = ty, .c1 = a, .c2 = b, .m = m, .n = n, .k = k, .lda = lda,
                       .ldb = ldb, .ldc = ldc};
    scalar(op.alpha, alpha, ty, 0);
    scalar(op.beta, beta, ty, 0);
    if (k > 0) {
        op.a = OPERAND("A", A, ar, ac, lda, 0);
        op.b = OPERAND("B", B, br, bc, ldb, 0);
    }
    op.c = OPERAND("C", C, m, n, ldc, 1);
    if (m > 0 && n > 0)
        fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

#define EXPORT_GEMM(name, ty)                                                                                         \
    EXPORT cublasStatus_t name(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha,             \
                               const void *A, int lda, const void *B, int ldb, const void *beta, void *C, int ldc)   \
    {                                                                                                                 \
        return gemm(#name, ty, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                              \
    }
EXPORT_GEMM(cublasSgemm_v2, 's')
EXPORT_GEMM(cublasDgemm_v2, 'd')
EXPORT_GEMM(cublasCgemm_v2, 'c')
EXPORT_GEMM(cublasZgemm_v2, 'z')

/* The pointer arrays are device memory (checked, and recorded as read, when the call is made);
 * the pointers in them are read and checked when the operation executes (see OP_GEMM_BATCHED). */
static cublasStatus_t gemm_batched(const char *fn, char ty, cublasHandle_t h, int ta, int tb, int m, int n, int k,
                                   const void *alpha, const void *Aarray, int lda, const void *Barray, int ldb,
                                   const void *beta, const void *Carray, int ldc, int batch)
{
    cublasStatus_t st;
    char a = op_char(ta, fn), b = op_char(tb, fn);
    if (m < 0 || n < 0 || k < 0 || batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    long ar = a == 'N' ? m : k, br = b == 'N' ? k : n; /* rows of A and B as stored */
    if (lda < (ar > 1 ? ar : 1) || ldb < (br > 1 ? br : 1) || ldc < (m > 1 ? m : 1))
        fakecuda_violation("%s: leading dimensions %d, %d, %d below the rows %ld, %ld, %d", fn, lda, ldb, ldc, ar, br,
                           m);
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    struct fc_op op = {.kind = OP_GEMM_BATCHED, .name = fn, .ty = ty, .c1 = a, .c2 = b, .m = m, .n = n, .k = k,
                       .lda = lda, .ldb = ldb, .ldc = ldc, .batch = batch,
                       .dev = fakecuda_ctx_dev(fakecuda_current(fn))};
    scalar(op.alpha, alpha, ty, 0);
    scalar(op.beta, beta, ty, 0);
    if (batch > 0 && m > 0 && n > 0) {
        op.pa = fakecuda_operand(s, fn, "Aarray", (CUdeviceptr)Aarray, batch, 1, batch, 8, 0);
        op.pb = fakecuda_operand(s, fn, "Barray", (CUdeviceptr)Barray, batch, 1, batch, 8, 0);
        op.pc = fakecuda_operand(s, fn, "Carray", (CUdeviceptr)Carray, batch, 1, batch, 8, 0);
        fakecuda_enqueue(s, &op);
    }
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

#define EXPORT_GEMM_BATCHED(name, ty)                                                                                 \
    EXPORT cublasStatus_t name(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha,             \
                               const void *Aarray, int lda, const void *Barray, int ldb, const void *beta,            \
                               const void *Carray, int ldc, int batch)                                                \
    {                                                                                                                 \
        return gemm_batched(#name, ty, h, ta, tb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,        \
                            batch);                                                                                   \
    }
EXPORT_GEMM_BATCHED(cublasSgemmBatched, 's')
EXPORT_GEMM_BATCHED(cublasDgemmBatched, 'd')
EXPORT_GEMM_BATCHED(cublasCgemmBatched, 'c')
EXPORT_GEMM_BATCHED(cublasZgemmBatched, 'z')

/* SYRK for s and d, HERK (real alpha and beta; op N or C) for c and z. */
static cublasStatus_t rank_k(const char *fn, char ty, cublasHandle_t h, int uplo, int trans, int n, int k,
                             const void *alpha, const void *A, int lda, const void *beta, void *C, int ldc)
{
    cublasStatus_t st;
    char u = fill_char(uplo, fn), t = op_char(trans, fn);
    if (n < 0 || k < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((ty == 'c' || ty == 'z') && t == 'T')
        return CUBLAS_STATUS_INVALID_VALUE; /* HERK takes N or C only */
    if ((ty == 's' || ty == 'd') && t == 'C')
        t = 'T';
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    long ar, ac;
    DIMS(t, n, k, ar, ac);
    struct fc_op op = {.kind = OP_SYRK, .name = fn, .ty = ty, .c1 = u, .c2 = t, .n = n, .k = k, .lda = lda,
                       .ldc = ldc};
    scalar(op.alpha, alpha, ty, 1);
    scalar(op.beta, beta, ty, 1);
    if (k > 0)
        op.a = OPERAND("A", A, ar, ac, lda, 0);
    op.c = OPERAND("C", C, n, n, ldc, 1);
    if (n > 0)
        fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

#define EXPORT_RANK_K(name, ty)                                                                                       \
    EXPORT cublasStatus_t name(cublasHandle_t h, int uplo, int trans, int n, int k, const void *alpha, const void *A, \
                               int lda, const void *beta, void *C, int ldc)                                           \
    {                                                                                                                 \
        return rank_k(#name, ty, h, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);                                  \
    }
EXPORT_RANK_K(cublasSsyrk_v2, 's')
EXPORT_RANK_K(cublasDsyrk_v2, 'd')
EXPORT_RANK_K(cublasCherk_v2, 'c')
EXPORT_RANK_K(cublasZherk_v2, 'z')

static cublasStatus_t trsm(const char *fn, char ty, cublasHandle_t h, int side, int uplo, int trans, int diag, int m,
                           int n, const void *alpha, const void *A, int lda, void *B, int ldb)
{
    cublasStatus_t st;
    char sd = side_char(side, fn), u = fill_char(uplo, fn), t = op_char(trans, fn), d = diag_char(diag, fn);
    if (m < 0 || n < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    long na = sd == 'L' ? m : n;
    struct fc_op op = {.kind = OP_TRSM, .name = fn, .ty = ty, .c1 = sd, .c2 = u, .c3 = t, .c4 = d, .m = m, .n = n,
                       .lda = lda, .ldb = ldb};
    scalar(op.alpha, alpha, ty, 0);
    if (m > 0 && n > 0)
        op.a = OPERAND("A", A, na, na, lda, 0);
    op.b = OPERAND("B", B, m, n, ldb, 1);
    if (m > 0 && n > 0)
        fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

#define EXPORT_TRSM(name, ty)                                                                                         \
    EXPORT cublasStatus_t name(cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n,              \
                               const void *alpha, const void *A, int lda, void *B, int ldb)                           \
    {                                                                                                                 \
        return trsm(#name, ty, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb);                              \
    }
EXPORT_TRSM(cublasStrsm_v2, 's')
EXPORT_TRSM(cublasDtrsm_v2, 'd')
EXPORT_TRSM(cublasCtrsm_v2, 'c')
EXPORT_TRSM(cublasZtrsm_v2, 'z')

static cublasStatus_t trmm(const char *fn, char ty, cublasHandle_t h, int side, int uplo, int trans, int diag, int m,
                           int n, const void *alpha, const void *A, int lda, const void *B, int ldb, void *C, int ldc)
{
    cublasStatus_t st;
    char sd = side_char(side, fn), u = fill_char(uplo, fn), t = op_char(trans, fn), d = diag_char(diag, fn);
    if (m < 0 || n < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    long na = sd == 'L' ? m : n;
    struct fc_op op = {.kind = OP_TRMM, .name = fn, .ty = ty, .c1 = sd, .c2 = u, .c3 = t, .c4 = d, .m = m, .n = n,
                       .lda = lda, .ldb = ldb, .ldc = ldc};
    scalar(op.alpha, alpha, ty, 0);
    if (m > 0 && n > 0)
        op.a = OPERAND("A", A, na, na, lda, 0);
    op.b = OPERAND("B", B, m, n, ldb, 0);
    op.c = OPERAND("C", C, m, n, ldc, 1);
    if (B == C && ldb != ldc)
        fakecuda_violation("%s: in place (C == B) with ldc %d != ldb %d", fn, ldc, ldb);
    if (m > 0 && n > 0)
        fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

#define EXPORT_TRMM(name, ty)                                                                                         \
    EXPORT cublasStatus_t name(cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n,              \
                               const void *alpha, const void *A, int lda, const void *B, int ldb, void *C, int ldc)   \
    {                                                                                                                 \
        return trmm(#name, ty, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc);                      \
    }
EXPORT_TRMM(cublasStrmm_v2, 's')
EXPORT_TRMM(cublasDtrmm_v2, 'd')
EXPORT_TRMM(cublasCtrmm_v2, 'c')
EXPORT_TRMM(cublasZtrmm_v2, 'z')

static cublasStatus_t geam(const char *fn, char ty, cublasHandle_t h, int ta, int tb, int m, int n,
                           const void *alpha, const void *A, int lda, const void *beta, const void *B, int ldb,
                           void *C, int ldc)
{
    cublasStatus_t st;
    char a = op_char(ta, fn), b = op_char(tb, fn);
    if (m < 0 || n < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    long ar, ac, br, bc;
    DIMS(a, m, n, ar, ac);
    DIMS(b, m, n, br, bc);
    /* In place is allowed only as C == A with lda == ldc and no transpose (or the same for B). */
    if ((A == C && (a != 'N' || lda != ldc)) || (B == C && (b != 'N' || ldb != ldc)))
        fakecuda_violation("%s: in place needs op N and equal leading dimensions", fn);
    struct fc_op op = {.kind = OP_GEAM, .name = fn, .ty = ty, .c1 = a, .c2 = b, .m = m, .n = n, .lda = lda,
                       .ldb = ldb, .ldc = ldc};
    scalar(op.alpha, alpha, ty, 0);
    scalar(op.beta, beta, ty, 0);
    op.a = OPERAND("A", A, ar, ac, lda, 0);
    op.b = OPERAND("B", B, br, bc, ldb, 0);
    op.c = OPERAND("C", C, m, n, ldc, 1);
    if (m > 0 && n > 0)
        fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

#define EXPORT_GEAM(name, ty)                                                                                         \
    EXPORT cublasStatus_t name(cublasHandle_t h, int ta, int tb, int m, int n, const void *alpha, const void *A,     \
                               int lda, const void *beta, const void *B, int ldb, void *C, int ldc)                   \
    {                                                                                                                 \
        return geam(#name, ty, h, ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc);                                 \
    }
EXPORT_GEAM(cublasSgeam, 's')
EXPORT_GEAM(cublasDgeam, 'd')
EXPORT_GEAM(cublasCgeam, 'c')
EXPORT_GEAM(cublasZgeam, 'z')
