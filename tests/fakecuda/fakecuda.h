/* fakecuda.h: the internal interface between the three fake CUDA libraries (test fixture only).
 *
 * libcuda.so (cuda.c) holds all state: contexts, the device-memory arena, pinned host memory,
 * streams (one thread each), events, the vector clocks that find races, fault injection, and the
 * executor that does the arithmetic with the host's OpenBLAS. libcublas.so (cublas.c) and
 * libcusolver.so (cusolver.c) only check their arguments and queue operations through the
 * functions below. Nothing here is part of hetla; see README.md in this directory.
 */
#ifndef FAKECUDA_H
#define FAKECUDA_H

#include <stddef.h>
#include <stdint.h>

/* CUDA driver API types and values, as the public headers define them (and cudarc's bindings). */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct fc_ctx *CUcontext;
typedef struct fc_stream *CUstream;
typedef struct fc_event *CUevent;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_LAUNCH_FAILED = 719,
};
enum { CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2, CU_MEMORYTYPE_ARRAY = 3, CU_MEMORYTYPE_UNIFIED = 4 };

typedef struct {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

/* One queued operation. Device addresses are translated to host pointers into the arena when
 * the operation is queued (after every check), so the stream thread only computes. */
enum fc_kind {
    OP_COPY,  /* 2-D byte copy: height columns of width bytes */
    OP_SET,   /* memset */
    OP_WAIT,  /* wait until stream `ws` has executed up to `wseq` (cuStreamWaitEvent) */
    OP_GEMM,
    OP_SYRK,
    OP_TRSM,
    OP_TRMM,
    OP_GEAM,
    OP_POTRF,
    OP_GETRF, /* LU with partial pivoting: pivots and INFO written to device memory */
    OP_GEQRF, /* Householder QR: tau and INFO written to device memory */
    OP_GEMM_BATCHED, /* pointer arrays read (and their pointers checked) when it executes */
};

struct fc_op {
    enum fc_kind kind;
    const char *name;      /* the API function that queued it (for messages) */
    uint64_t seq;          /* position in its stream */
    struct fc_op *next;
    /* copies */
    unsigned char *dst;
    const unsigned char *src;
    size_t width, height, spitch, dpitch;
    int src_pinned, dst_pinned; /* host side of the copy is pinned memory (checked at run time) */
    uint64_t src_sum;           /* checksum of a pinned source when queued */
    uint64_t dst_sum;           /* checksum of the poisoned pinned destination when queued */
    unsigned char byte;         /* memset value */
    /* waits */
    struct fc_stream *ws;
    uint64_t wseq;
    /* BLAS/LAPACK: the element type ('s', 'd', 'c', 'z'), transposes etc. as Fortran characters */
    char ty, c1, c2, c3, c4;
    int m, n, k, lda, ldb, ldc;
    /* alpha and beta as the caller's host memory held them: a scalar of the type (HERK's real) */
    unsigned char alpha[16], beta[16];
    void *a, *b, *c;
    int *info;
    /* LAPACK outputs besides A and INFO: GETRF's pivots, GEQRF's tau (host views of device memory) */
    int *ipiv;
    void *tau;
    /* batched GEMM: host views of the device pointer arrays, their count, the device */
    const CUdeviceptr *pa, *pb, *pc;
    int batch, dev;
};

/* Bytes of one element of type ty ('s', 'd', 'c', 'z'); a violation naming fn for another. */
static inline size_t fc_elem(char ty)
{
    return ty == 's' ? 4 : ty == 'd' || ty == 'c' ? 8 : ty == 'z' ? 16 : 0;
}

/* The functions below are exported by libcuda.so for the other two libraries. */
#pragma GCC visibility push(default)

/* Shared state lock (one for the whole fake). */
void fakecuda_lock(void);
void fakecuda_unlock(void);

/* Prints `fakecuda: violation: ...` and aborts. */
void fakecuda_violation(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Fault injection: whether this call of exported function `name` must fail (counts the call). */
int fakecuda_inject(const char *name);

/* The calling thread's current context, or a violation naming `fn` when there is none. */
struct fc_ctx *fakecuda_current(const char *fn);
/* Sticky error of a context (0 when healthy); `fakecuda_poison_ctx` makes it sticky. */
int fakecuda_ctx_error(struct fc_ctx *c);
int fakecuda_ctx_dev(struct fc_ctx *c);
void fakecuda_poison_ctx(struct fc_ctx *c, int err);
/* A stream to run on for a library handle of context `ctx` (NULL: the context's default
 * stream); a violation if it is not a live stream of `ctx`. */
struct fc_stream *fakecuda_stream_of(struct fc_ctx *ctx, struct fc_stream *s, const char *fn);
/* Checks that the whole m x n matrix (column-major, leading dimension ld, elem-byte entries)
 * at device address `p` lies in a live allocation of `ctx`'s device; returns its host view.
 * `what` names the argument for messages. m or n == 0 is an empty matrix (NULL returned). */
void *fakecuda_dev_matrix(struct fc_ctx *ctx, const char *fn, const char *what, CUdeviceptr p, long m, long n,
                          long ld, size_t elem);
/* Records that the op about to be queued on `s` reads (write = 0) or writes the matrix; reports
 * a race with an unordered queued operation on another stream. */
void fakecuda_access(struct fc_stream *s, const char *fn, const char *what, CUdeviceptr p, long m, long n, long ld,
                     size_t elem, int write);
/* Both of the above for an operand of an op about to be queued on `s` (whose context gives the
 * device): checks the extent, records the access, returns the host view (NULL when empty). */
void *fakecuda_operand(struct fc_stream *s, const char *fn, const char *what, CUdeviceptr p, long m, long n, long ld,
                       size_t elem, int write);
/* Queues `op` (copied) on stream `s`. Called with the lock held. */
void fakecuda_enqueue(struct fc_stream *s, const struct fc_op *op);

#pragma GCC visibility pop

#endif
