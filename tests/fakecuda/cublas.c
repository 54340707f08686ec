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

#define OPERAND(what, p, m, n, ld, w) ((double *)fakecuda_operand(s, fn, what, (CUdeviceptr)(p), m, n, ld, 8, w))

EXPORT cublasStatus_t cublasDgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha,
                                     const double *A, int lda, const double *B, int ldb, const double *beta,
                                     double *C, int ldc)
{
    static const char fn[] = "cublasDgemm_v2";
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
    struct fc_op op = {.kind = OP_GEMM, .name = fn, .c1 = a, .c2 = b, .m = m, .n = n, .k = k, .lda = lda,
                       .ldb = ldb, .ldc = ldc, .alpha = *alpha, .beta = *beta};
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

/* The pointer arrays are device memory (checked, and recorded as read, when the call is made);
 * the pointers in them are read and checked when the operation executes (see OP_GEMM_BATCHED). */
EXPORT cublasStatus_t cublasDgemmBatched(cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha,
                                         const double *const Aarray[], int lda, const double *const Barray[],
                                         int ldb, const double *beta, double *const Carray[], int ldc, int batch)
{
    static const char fn[] = "cublasDgemmBatched";
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
    struct fc_op op = {.kind = OP_GEMM_BATCHED, .name = fn, .c1 = a, .c2 = b, .m = m, .n = n, .k = k, .lda = lda,
                       .ldb = ldb, .ldc = ldc, .alpha = *alpha, .beta = *beta, .batch = batch,
                       .dev = fakecuda_ctx_dev(fakecuda_current(fn))};
    if (batch > 0 && m > 0 && n > 0) {
        op.pa = fakecuda_operand(s, fn, "Aarray", (CUdeviceptr)Aarray, batch, 1, batch, 8, 0);
        op.pb = fakecuda_operand(s, fn, "Barray", (CUdeviceptr)Barray, batch, 1, batch, 8, 0);
        op.pc = fakecuda_operand(s, fn, "Carray", (CUdeviceptr)Carray, batch, 1, batch, 8, 0);
        fakecuda_enqueue(s, &op);
    }
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasDsyrk_v2(cublasHandle_t h, int uplo, int trans, int n, int k, const double *alpha,
                                     const double *A, int lda, const double *beta, double *C, int ldc)
{
    static const char fn[] = "cublasDsyrk_v2";
    cublasStatus_t st;
    char u = fill_char(uplo, fn), t = op_char(trans, fn);
    if (n < 0 || k < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    long ar, ac;
    DIMS(t, n, k, ar, ac);
    struct fc_op op = {.kind = OP_SYRK, .name = fn, .c1 = u, .c2 = t, .n = n, .k = k, .lda = lda, .ldc = ldc,
                       .alpha = *alpha, .beta = *beta};
    if (k > 0)
        op.a = OPERAND("A", A, ar, ac, lda, 0);
    op.c = OPERAND("C", C, n, n, ldc, 1);
    if (n > 0)
        fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasDtrsm_v2(cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n,
                                     const double *alpha, const double *A, int lda, double *B, int ldb)
{
    static const char fn[] = "cublasDtrsm_v2";
    cublasStatus_t st;
    char sd = side_char(side, fn), u = fill_char(uplo, fn), t = op_char(trans, fn), d = diag_char(diag, fn);
    if (m < 0 || n < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    long na = sd == 'L' ? m : n;
    struct fc_op op = {.kind = OP_TRSM, .name = fn, .c1 = sd, .c2 = u, .c3 = t, .c4 = d, .m = m, .n = n,
                       .lda = lda, .ldb = ldb, .alpha = *alpha};
    if (m > 0 && n > 0)
        op.a = OPERAND("A", A, na, na, lda, 0);
    op.b = OPERAND("B", B, m, n, ldb, 1);
    if (m > 0 && n > 0)
        fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasDtrmm_v2(cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n,
                                     const double *alpha, const double *A, int lda, const double *B, int ldb,
                                     double *C, int ldc)
{
    static const char fn[] = "cublasDtrmm_v2";
    cublasStatus_t st;
    char sd = side_char(side, fn), u = fill_char(uplo, fn), t = op_char(trans, fn), d = diag_char(diag, fn);
    if (m < 0 || n < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fc_stream *s = begin(h, fn, &st);
    if (!s)
        return st;
    long na = sd == 'L' ? m : n;
    struct fc_op op = {.kind = OP_TRMM, .name = fn, .c1 = sd, .c2 = u, .c3 = t, .c4 = d, .m = m, .n = n,
                       .lda = lda, .ldb = ldb, .ldc = ldc, .alpha = *alpha};
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

EXPORT cublasStatus_t cublasDgeam(cublasHandle_t h, int ta, int tb, int m, int n, const double *alpha,
                                  const double *A, int lda, const double *beta, const double *B, int ldb, double *C,
                                  int ldc)
{
    static const char fn[] = "cublasDgeam";
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
    struct fc_op op = {.kind = OP_GEAM, .name = fn, .c1 = a, .c2 = b, .m = m, .n = n, .lda = lda, .ldb = ldb,
                       .ldc = ldc, .alpha = *alpha, .beta = *beta};
    op.a = OPERAND("A", A, ar, ac, lda, 0);
    op.b = OPERAND("B", B, br, bc, ldb, 0);
    op.c = OPERAND("C", C, m, n, ldc, 1);
    if (m > 0 && n > 0)
        fakecuda_enqueue(s, &op);
    fakecuda_unlock();
    return CUBLAS_STATUS_SUCCESS;
}
