/* cuda.c: a strict stand-in for the CUDA driver library (libcuda.so), test fixture only.
 *
 * Implements the driver functions hetla calls (and a few a test program needs), with the
 * behaviour the real driver documents, and reports as a violation (one line on stderr, then
 * abort) what the real one leaves undefined or silently tolerates. See README.md here for the
 * rules and the environment variables. Written for this project from the public CUDA driver API
 * documentation (names, signatures and enum values as in the CUDA headers and cudarc's bindings).
 */
#define _GNU_SOURCE
#include "fakecuda.h"

#include <complex.h>

#include <dlfcn.h>
#include <fenv.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#define EXPORT __attribute__((visibility("default")))
#define MAX_STREAMS 1024
#define MAX_DEVICES 8
#define CTX_MAGIC 0x43545846u
#define STREAM_MAGIC 0x5354524du
#define EVENT_MAGIC 0x45564e54u
#define POISON 0xff /* bytes of fresh, freed and not-yet-written memory: a NaN as a double */

/* ------------------------------------------------------------------------------------------ */
/* State                                                                                       */

struct fc_ctx {
    unsigned magic;
    int dev;
    int primary;
    int refs;
    int sticky;
    int destroyed;
    struct fc_stream *null_stream;
};

struct fc_stream {
    unsigned magic;
    int id;
    struct fc_ctx *ctx;
    pthread_t thread;
    pthread_cond_t cv;
    struct fc_op *head, *tail;
    uint64_t last; /* seq of the last op queued */
    uint64_t done; /* seq of the last op executed */
    uint32_t vc[MAX_STREAMS];
    int destroyed;
};

struct fc_event {
    unsigned magic;
    struct fc_ctx *ctx;
    struct fc_stream *s; /* stream of the last record, NULL if never recorded */
    uint64_t seq;
    uint32_t vc[MAX_STREAMS];
    int destroyed;
};

struct rec { /* one access by a queued op to a byte range of an allocation */
    size_t lo, hi;
    int stream;
    uint32_t seq;
    int write;
    const char *fn, *what;
};

struct alloc {
    CUdeviceptr addr;
    size_t size;
    unsigned char *mem;
    struct rec *recs;
    size_t nrec, caprec;
};

struct device {
    struct alloc *allocs; /* sorted by addr (addresses only grow) */
    size_t n, cap;
    CUdeviceptr next;
    size_t used, peak, capacity;
    struct fc_ctx primary;
    struct { CUdeviceptr lo, hi; } freed[256]; /* recently freed ranges, for messages */
    size_t nfreed;
};

struct pinned {
    unsigned char *p;
    size_t size;
};

static pthread_mutex_t G = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t DONE = PTHREAD_COND_INITIALIZER; /* broadcast whenever an op completes */
static int initialized;
static pid_t init_pid; /* the process that called cuInit */
static int ndev = 1;
static size_t mem_per_dev = (size_t)256 << 20;
static unsigned delay_us = 50;
static struct device devs[MAX_DEVICES];
static struct fc_stream *streams[MAX_STREAMS];
static int nstreams, live_streams, live_events;
static uint32_t H[MAX_STREAMS]; /* what the host knows to have completed */
static struct pinned *pins;
static size_t npins, cappins, pinned_live;

static void host_wait(struct fc_stream *s, uint64_t seq, const uint32_t *vc);

static __thread struct fc_ctx *ctx_stack[32];
static __thread int ctx_depth;

void fakecuda_lock(void) { pthread_mutex_lock(&G); }
void fakecuda_unlock(void) { pthread_mutex_unlock(&G); }

void fakecuda_violation(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "fakecuda: violation: %s\n", buf);
    fflush(stderr);
    abort();
}

/* ------------------------------------------------------------------------------------------ */
/* Host BLAS/LAPACK, taken from OpenBLAS by dlsym on its own handle: when libhetla.so is
 * preloaded it interposes dgemm_, dpotrf_, ... and a plain call would go back into hetla. */

/* Fortran BLAS/LAPACK of any type: matrices and scalars by address (the s, d, c, z members of a
 * family take the same arguments in the same order; HERK's alpha and beta are real). */
typedef void (*gemm_fn)(const char *, const char *, const int *, const int *, const int *, const void *,
                        const void *, const int *, const void *, const int *, const void *, void *, const int *,
                        size_t, size_t);
typedef void (*syrk_fn)(const char *, const char *, const int *, const int *, const void *, const void *,
                        const int *, const void *, void *, const int *, size_t, size_t);
typedef void (*trxm_fn)(const char *, const char *, const char *, const char *, const int *, const int *,
                        const void *, const void *, const int *, void *, const int *, size_t, size_t, size_t,
                        size_t);
typedef void (*potrf_fn)(const char *, const int *, void *, const int *, int *, size_t);
typedef void (*getrf_fn)(const int *, const int *, void *, const int *, int *, int *);
typedef void (*geqrf_fn)(const int *, const int *, void *, const int *, void *, void *, const int *, int *);
/* Per type, in the order s, d, c, z; SYRK is HERK for c and z. */
static gemm_fn p_gemm[4];
static syrk_fn p_syrk[4];
static trxm_fn p_trsm[4], p_trmm[4];
static potrf_fn p_potrf[4];
static getrf_fn p_getrf[4];
static geqrf_fn p_geqrf[4];

static int ty_index(char ty)
{
    switch (ty) {
    case 's': return 0;
    case 'd': return 1;
    case 'c': return 2;
    case 'z': return 3;
    default: fakecuda_violation("element type '%c' is not s, d, c or z", ty);
    }
}

static void *blas_sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "fakecuda: cannot find %s in libopenblas.so.0\n", name);
        abort();
    }
    return p;
}

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    switch (*end) {
    case 'k': case 'K': v *= 1024; break;
    case 'm': case 'M': v *= 1024 * 1024; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
    default: break;
    }
    return (size_t)v;
}

/* Fault injection: FAKECUDA_FAIL=FUNCTION:N[+][,...] */
struct fail_spec {
    char name[64];
    unsigned long n;
    int plus;
};
static struct fail_spec fails[32];
static int nfails;
struct counter {
    const char *name;
    unsigned long calls;
};
static struct counter counters[128];
static int ncounters;
static pthread_mutex_t INJ = PTHREAD_MUTEX_INITIALIZER;

int fakecuda_inject(const char *name)
{
    int hit = 0;
    pthread_mutex_lock(&INJ);
    int i;
    for (i = 0; i < ncounters; i++)
        if (counters[i].name == name || strcmp(counters[i].name, name) == 0)
            break;
    if (i == ncounters && ncounters < 128)
        counters[ncounters++] = (struct counter){name, 0};
    unsigned long call = i < 128 ? ++counters[i].calls : 0;
    for (int f = 0; f < nfails; f++)
        if (strcmp(fails[f].name, name) == 0 && (call == fails[f].n || (fails[f].plus && call > fails[f].n)))
            hit = 1;
    pthread_mutex_unlock(&INJ);
    if (hit)
        fprintf(stderr, "fakecuda: injected: %s call %lu\n", name, call);
    return hit;
}

static void report_at_exit(void)
{
    size_t live = 0, peak = 0;
    /* A library only loaded and unloaded again (a presence check's dlopen/dlclose runs this
     * handler at the dlclose) has nothing to report. */
    if (!initialized)
        return;
    pthread_mutex_lock(&G);
    for (int d = 0; d < ndev; d++) {
        live += devs[d].used;
        peak += devs[d].peak;
    }
    fprintf(stderr, "fakecuda: at exit: device live=%zu peak=%zu, pinned live=%zu, streams=%d, events=%d\n", live,
            peak, pinned_live, live_streams, live_events);
    pthread_mutex_unlock(&G);
}

static void counts_at_exit(void)
{
    if (!initialized)
        return;
    pthread_mutex_lock(&INJ);
    fprintf(stderr, "fakecuda: calls:");
    for (int i = 0; i < ncounters; i++)
        fprintf(stderr, " %s=%lu", counters[i].name, counters[i].calls);
    fprintf(stderr, "\n");
    pthread_mutex_unlock(&INJ);
}

__attribute__((constructor)) static void fc_init(void)
{
    const char *e;
    if ((e = getenv("FAKECUDA_DEVICES")))
        ndev = atoi(e);
    if (ndev < 0 || ndev > MAX_DEVICES) {
        fprintf(stderr, "fakecuda: FAKECUDA_DEVICES must be 0..%d\n", MAX_DEVICES);
        abort();
    }
    if ((e = getenv("FAKECUDA_MEM")))
        mem_per_dev = parse_size(e);
    if ((e = getenv("FAKECUDA_DELAY_US")))
        delay_us = (unsigned)atoi(e);
    if ((e = getenv("FAKECUDA_FAIL")) && *e) {
        char *s = strdup(e), *save = NULL;
        for (char *t = strtok_r(s, ",", &save); t && nfails < 32; t = strtok_r(NULL, ",", &save)) {
            char *colon = strchr(t, ':');
            if (!colon || colon == t || (size_t)(colon - t) >= sizeof fails[0].name) {
                fprintf(stderr, "fakecuda: FAKECUDA_FAIL: bad spec '%s' (FUNCTION:N or FUNCTION:N+)\n", t);
                abort();
            }
            struct fail_spec *f = &fails[nfails++];
            memcpy(f->name, t, (size_t)(colon - t));
            f->name[colon - t] = 0;
            char *end;
            f->n = strtoul(colon + 1, &end, 10);
            f->plus = *end == '+';
            if (f->n == 0 || (*end && strcmp(end, "+") != 0)) {
                fprintf(stderr, "fakecuda: FAKECUDA_FAIL: bad count in '%s'\n", t);
                abort();
            }
        }
        free(s);
    }
    if ((e = getenv("FAKECUDA_REPORT")) && strcmp(e, "1") == 0)
        atexit(report_at_exit);
    if ((e = getenv("FAKECUDA_COUNTS")) && strcmp(e, "1") == 0)
        atexit(counts_at_exit);
    for (int d = 0; d < ndev; d++) {
        devs[d].next = 0x4000000000000000ULL + ((CUdeviceptr)d << 44) + 0x10000;
        devs[d].capacity = mem_per_dev;
        devs[d].primary = (struct fc_ctx){.magic = CTX_MAGIC, .dev = d, .primary = 1};
    }
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "fakecuda: cannot dlopen libopenblas.so.0: %s\n", dlerror());
        abort();
    }
    static const char *const names[][4] = {
        {"sgemm_", "dgemm_", "cgemm_", "zgemm_"}, {"ssyrk_", "dsyrk_", "cherk_", "zherk_"},
        {"strsm_", "dtrsm_", "ctrsm_", "ztrsm_"}, {"strmm_", "dtrmm_", "ctrmm_", "ztrmm_"},
        {"spotrf_", "dpotrf_", "cpotrf_", "zpotrf_"}, {"sgetrf_", "dgetrf_", "cgetrf_", "zgetrf_"},
        {"sgeqrf_", "dgeqrf_", "cgeqrf_", "zgeqrf_"},
    };
    for (int t = 0; t < 4; t++) {
        p_gemm[t] = (gemm_fn)blas_sym(h, names[0][t]);
        p_syrk[t] = (syrk_fn)blas_sym(h, names[1][t]);
        p_trsm[t] = (trxm_fn)blas_sym(h, names[2][t]);
        p_trmm[t] = (trxm_fn)blas_sym(h, names[3][t]);
        p_potrf[t] = (potrf_fn)blas_sym(h, names[4][t]);
        p_getrf[t] = (getrf_fn)blas_sym(h, names[5][t]);
        p_geqrf[t] = (geqrf_fn)blas_sym(h, names[6][t]);
    }
    /* Many stream threads compute at once; OpenBLAS's own threads would only oversubscribe. */
    void (*set_threads)(int) = (void (*)(int))dlsym(h, "openblas_set_num_threads");
    if (set_threads)
        set_threads(1);
}

/* ------------------------------------------------------------------------------------------ */
/* Contexts                                                                                    */

static struct fc_ctx *cur_ctx(void) { return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL; }

static void check_ctx(struct fc_ctx *c, const char *fn)
{
    if (!c || c->magic != CTX_MAGIC)
        fakecuda_violation("%s: %p is not a context", fn, (void *)c);
    if (c->destroyed)
        fakecuda_violation("%s: context %p was destroyed", fn, (void *)c);
}

struct fc_ctx *fakecuda_current(const char *fn)
{
    /* A forked child has the parent's CUDA state but none of its threads (the stream threads
     * here): the real driver refuses such calls, and hetla means never to make them. */
    if (initialized && getpid() != init_pid)
        fakecuda_violation("%s: called in a forked child of the process that initialised CUDA", fn);
    struct fc_ctx *c = cur_ctx();
    if (!c)
        fakecuda_violation("%s: no context is current on this thread", fn);
    check_ctx(c, fn);
    return c;
}

int fakecuda_ctx_error(struct fc_ctx *c) { return c->sticky; }
int fakecuda_ctx_dev(struct fc_ctx *c) { return c->dev; }
void fakecuda_poison_ctx(struct fc_ctx *c, int err) { c->sticky = err; }

/* Entry checks of a driver call that works in the current context: initialised, injection,
 * sticky error. Returns 0 or the error to return. `oom` selects the error an injected failure
 * gives (allocation functions) instead of a sticky launch failure. */
static CUresult enter(const char *fn, int oom, struct fc_ctx **out)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_ctx *c = fakecuda_current(fn);
    if (out)
        *out = c;
    if (c->sticky)
        return c->sticky;
    if (fakecuda_inject(fn)) {
        if (oom)
            return CUDA_ERROR_OUT_OF_MEMORY;
        c->sticky = CUDA_ERROR_LAUNCH_FAILED;
        return CUDA_ERROR_LAUNCH_FAILED;
    }
    return CUDA_SUCCESS;
}

/* Entry of a call that releases resources: it works on a context with a sticky error too (so a
 * program can clean up and a leak check means something), first waiting for that context's
 * queued work to be abandoned; it is not a fault-injection point. Called without the lock. */
static struct fc_ctx *enter_cleanup(const char *fn)
{
    struct fc_ctx *c = fakecuda_current(fn);
    if (c->sticky) {
        pthread_mutex_lock(&G);
        for (int i = 0; i < nstreams; i++)
            if (streams[i] && streams[i]->ctx == c)
                host_wait(streams[i], streams[i]->last, streams[i]->vc);
        pthread_mutex_unlock(&G);
    }
    return c;
}

EXPORT CUresult cuInit(unsigned flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (fakecuda_inject("cuInit"))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!initialized)
        init_pid = getpid();
    initialized = 1;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *n)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    *n = ndev;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ordinal < 0 || ordinal >= ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (d < 0 || d >= ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *bytes = devs[d].capacity;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (d < 0 || d >= ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    if (fakecuda_inject("cuDevicePrimaryCtxRetain"))
        return CUDA_ERROR_LAUNCH_FAILED;
    fakecuda_lock();
    devs[d].primary.refs++;
    fakecuda_unlock();
    *c = &devs[d].primary;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
    if (d < 0 || d >= ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    fakecuda_lock();
    if (devs[d].primary.refs <= 0)
        fakecuda_violation("cuDevicePrimaryCtxRelease_v2: device %d's primary context was not retained", d);
    devs[d].primary.refs--;
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext c)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (c)
        check_ctx(c, "cuCtxSetCurrent");
    if (c && c->primary && c->refs <= 0)
        fakecuda_violation("cuCtxSetCurrent: device %d's primary context is not retained", c->dev);
    if (fakecuda_inject("cuCtxSetCurrent"))
        return CUDA_ERROR_LAUNCH_FAILED;
    if (!c) {
        if (ctx_depth > 0)
            ctx_depth--;
    } else if (ctx_depth == 0) {
        ctx_stack[ctx_depth++] = c;
    } else {
        ctx_stack[ctx_depth - 1] = c;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *c)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (fakecuda_inject("cuCtxGetCurrent"))
        return CUDA_ERROR_LAUNCH_FAILED;
    *c = cur_ctx();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *d)
{
    struct fc_ctx *c;
    CUresult r = enter("cuCtxGetDevice", 0, &c);
    if (r)
        return r;
    *d = c->dev;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxCreate_v2(CUcontext *out, unsigned flags, CUdevice d)
{
    (void)flags;
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (d < 0 || d >= ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    if (fakecuda_inject("cuCtxCreate_v2"))
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct fc_ctx *c = calloc(1, sizeof *c);
    *c = (struct fc_ctx){.magic = CTX_MAGIC, .dev = d, .refs = 1};
    if (ctx_depth >= 32)
        fakecuda_violation("cuCtxCreate_v2: context stack overflow");
    ctx_stack[ctx_depth++] = c; /* the new context is pushed, as the real call does */
    *out = c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxDestroy_v2(CUcontext c)
{
    check_ctx(c, "cuCtxDestroy_v2");
    if (c->primary)
        fakecuda_violation("cuCtxDestroy_v2: a primary context is released, not destroyed");
    c->destroyed = 1; /* kept allocated so that later use is reported */
    for (int i = 0; i < ctx_depth; i++)
        if (ctx_stack[i] == c) {
            memmove(&ctx_stack[i], &ctx_stack[i + 1], (size_t)(ctx_depth - i - 1) * sizeof c);
            ctx_depth--;
            i--;
        }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext c)
{
    check_ctx(c, "cuCtxPushCurrent_v2");
    if (ctx_depth >= 32)
        fakecuda_violation("cuCtxPushCurrent_v2: context stack overflow");
    ctx_stack[ctx_depth++] = c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *c)
{
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct fc_ctx *top = ctx_stack[--ctx_depth];
    if (c)
        *c = top;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult e, const char **s)
{
    switch (e) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case CUDA_ERROR_NOT_INITIALIZED: *s = "CUDA_ERROR_NOT_INITIALIZED"; break;
    case CUDA_ERROR_INVALID_DEVICE: *s = "CUDA_ERROR_INVALID_DEVICE"; break;
    case CUDA_ERROR_INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; break;
    case CUDA_ERROR_INVALID_HANDLE: *s = "CUDA_ERROR_INVALID_HANDLE"; break;
    case CUDA_ERROR_NOT_READY: *s = "CUDA_ERROR_NOT_READY"; break;
    case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; break;
    default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorString(CUresult e, const char **s)
{
    switch (e) {
    case CUDA_SUCCESS: *s = "no error"; break;
    case CUDA_ERROR_INVALID_VALUE: *s = "invalid argument"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "out of memory"; break;
    case CUDA_ERROR_NOT_INITIALIZED: *s = "initialization error"; break;
    case CUDA_ERROR_INVALID_DEVICE: *s = "invalid device ordinal"; break;
    case CUDA_ERROR_INVALID_CONTEXT: *s = "invalid device context"; break;
    case CUDA_ERROR_INVALID_HANDLE: *s = "invalid resource handle"; break;
    case CUDA_ERROR_NOT_READY: *s = "device not ready"; break;
    case CUDA_ERROR_LAUNCH_FAILED: *s = "unspecified launch failure"; break;
    default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Device memory: a separate arena. Addresses are non-canonical on x86-64 (bit 62 set), so a
 * device pointer dereferenced on the host faults; allocations are never adjacent (64 KiB gaps)
 * and addresses are never reused, so an overrun or a stale pointer cannot land in a neighbour. */

static struct alloc *find_alloc(int d, CUdeviceptr p)
{
    struct device *dv = &devs[d];
    size_t lo = 0, hi = dv->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (dv->allocs[mid].addr + dv->allocs[mid].size <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < dv->n && dv->allocs[lo].addr <= p && p < dv->allocs[lo].addr + dv->allocs[lo].size)
        return &dv->allocs[lo];
    return NULL;
}

static const char *describe(int d, CUdeviceptr p)
{
    static __thread char buf[200];
    for (size_t i = 0; i < devs[d].nfreed && i < 256; i++)
        if (devs[d].freed[i].lo <= p && p < devs[d].freed[i].hi) {
            snprintf(buf, sizeof buf, "it lies in a freed allocation [0x%llx, 0x%llx)", devs[d].freed[i].lo,
                     devs[d].freed[i].hi);
            return buf;
        }
    for (int e = 0; e < ndev; e++)
        if (e != d && find_alloc(e, p)) {
            snprintf(buf, sizeof buf, "it belongs to device %d, not device %d", e, d);
            return buf;
        }
    struct alloc *a = find_alloc(d, p);
    if (a) {
        snprintf(buf, sizeof buf, "it starts in allocation [0x%llx, 0x%llx) but runs past its end", a->addr,
                 a->addr + a->size);
        return buf;
    }
    return "it is not in any live allocation";
}

/* The host view of device bytes [p, p+bytes) of device d, all inside one live allocation. */
static unsigned char *dev_bytes(int d, CUdeviceptr p, size_t bytes, const char *fn, const char *what,
                                struct alloc **out)
{
    struct alloc *a = find_alloc(d, p);
    if (!a || p + bytes > a->addr + a->size || p + bytes < p)
        fakecuda_violation("%s: %s: device bytes [0x%llx, 0x%llx) are not inside one live allocation (%s)", fn,
                           what, p, p + bytes, describe(d, p));
    if (out)
        *out = a;
    return a->mem + (p - a->addr);
}

static size_t extent(long m, long n, long ld, size_t elem)
{
    if (m <= 0 || n <= 0)
        return 0;
    return ((size_t)(n - 1) * (size_t)ld + (size_t)m) * elem;
}

void *fakecuda_dev_matrix(struct fc_ctx *ctx, const char *fn, const char *what, CUdeviceptr p, long m, long n,
                          long ld, size_t elem)
{
    if (m < 0 || n < 0)
        fakecuda_violation("%s: %s has a negative dimension (%ld x %ld)", fn, what, m, n);
    if (ld < (m > 1 ? m : 1))
        fakecuda_violation("%s: %s: leading dimension %ld < rows %ld", fn, what, ld, m);
    if (m == 0 || n == 0)
        return NULL;
    if (p == 0)
        fakecuda_violation("%s: %s is a null device pointer", fn, what);
    return dev_bytes(ctx->dev, p, extent(m, n, ld, elem), fn, what, NULL);
}

/* Merges the host's knowledge into a stream's clock: what the host has seen complete is ordered
 * before everything it queues afterwards. */
static void merge(uint32_t *dst, const uint32_t *src)
{
    for (int i = 0; i < nstreams; i++)
        if (src[i] > dst[i])
            dst[i] = src[i];
}

static void prune(struct alloc *a)
{
    size_t k = 0;
    for (size_t i = 0; i < a->nrec; i++)
        if (a->recs[i].seq > H[a->recs[i].stream])
            a->recs[k++] = a->recs[i];
    a->nrec = k;
}

static void access_bytes(struct fc_stream *s, const char *fn, const char *what, CUdeviceptr p, size_t bytes,
                         int write)
{
    if (bytes == 0)
        return;
    struct alloc *a;
    dev_bytes(s->ctx->dev, p, bytes, fn, what, &a);
    merge(s->vc, H);
    size_t lo = p - a->addr, hi = lo + bytes;
    prune(a);
    for (size_t i = 0; i < a->nrec; i++) {
        struct rec *r = &a->recs[i];
        if (r->stream == s->id || (!write && !r->write) || r->hi <= lo || hi <= r->lo)
            continue;
        if (s->vc[r->stream] < r->seq)
            fakecuda_violation("race: %s (%s, %s) on stream %d touches device bytes [0x%llx, 0x%llx) that %s (%s, "
                               "%s) queued on stream %d still %s, with no event wait or synchronization between "
                               "them",
                               fn, what, write ? "write" : "read", s->id, a->addr + (r->lo > lo ? r->lo : lo),
                               a->addr + (r->hi < hi ? r->hi : hi), r->fn, r->what, r->write ? "write" : "read",
                               r->stream, r->write ? "writes" : "reads");
    }
    if (a->nrec == a->caprec) {
        a->caprec = a->caprec ? 2 * a->caprec : 8;
        a->recs = realloc(a->recs, a->caprec * sizeof *a->recs);
    }
    a->recs[a->nrec++] =
        (struct rec){.lo = lo, .hi = hi, .stream = s->id, .seq = (uint32_t)(s->last + 1), .write = write, .fn = fn,
                     .what = what};
}

void fakecuda_access(struct fc_stream *s, const char *fn, const char *what, CUdeviceptr p, long m, long n, long ld,
                     size_t elem, int write)
{
    access_bytes(s, fn, what, p, extent(m, n, ld, elem), write);
}

void *fakecuda_operand(struct fc_stream *s, const char *fn, const char *what, CUdeviceptr p, long m, long n, long ld,
                       size_t elem, int write)
{
    void *h = fakecuda_dev_matrix(s->ctx, fn, what, p, m, n, ld, elem);
    fakecuda_access(s, fn, what, p, m, n, ld, elem, write);
    return h;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
    struct fc_ctx *c;
    CUresult r = enter("cuMemAlloc_v2", 1, &c);
    if (r)
        return r;
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    fakecuda_lock();
    struct device *dv = &devs[c->dev];
    size_t rounded = (bytes + 255) & ~(size_t)255;
    if (dv->used + rounded > dv->capacity) {
        fakecuda_unlock();
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    unsigned char *mem = malloc(bytes);
    if (!mem) {
        fakecuda_unlock();
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memset(mem, POISON, bytes); /* fresh device memory holds garbage: NaNs here */
    if (dv->n == dv->cap) {
        dv->cap = dv->cap ? 2 * dv->cap : 64;
        dv->allocs = realloc(dv->allocs, dv->cap * sizeof *dv->allocs);
    }
    dv->allocs[dv->n++] = (struct alloc){.addr = dv->next, .size = bytes, .mem = mem};
    *p = dv->next;
    dv->next += rounded + 0x10000;
    dv->used += rounded;
    if (dv->used > dv->peak)
        dv->peak = dv->used;
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_ctx *c = enter_cleanup("cuMemFree_v2");
    fakecuda_lock();
    struct device *dv = &devs[c->dev];
    struct alloc *a = find_alloc(c->dev, p);
    if (!a || a->addr != p)
        fakecuda_violation("cuMemFree_v2: 0x%llx is not the start of a live allocation of device %d (%s)", p, c->dev,
                           describe(c->dev, p));
    prune(a);
    if (a->nrec > 0)
        fakecuda_violation("cuMemFree_v2: allocation 0x%llx is still used by %s (%s) queued on stream %d, which "
                           "the host has not synchronized with",
                           p, a->recs[0].fn, a->recs[0].what, a->recs[0].stream);
    memset(a->mem, POISON, a->size);
    free(a->mem);
    free(a->recs);
    dv->freed[dv->nfreed++ % 256].lo = a->addr;
    dv->freed[(dv->nfreed - 1) % 256].hi = a->addr + a->size;
    dv->used -= (a->size + 255) & ~(size_t)255;
    size_t i = (size_t)(a - dv->allocs);
    memmove(&dv->allocs[i], &dv->allocs[i + 1], (dv->n - i - 1) * sizeof *dv->allocs);
    dv->n--;
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    struct fc_ctx *c;
    CUresult r = enter("cuMemGetInfo_v2", 0, &c);
    if (r)
        return r;
    fakecuda_lock();
    *free_bytes = devs[c->dev].capacity - devs[c->dev].used;
    *total = devs[c->dev].capacity;
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

/* Pinned host memory */

static CUresult host_alloc(const char *fn, void **pp, size_t bytes)
{
    CUresult r = enter(fn, 1, NULL);
    if (r)
        return r;
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *p;
    if (posix_memalign(&p, 4096, bytes))
        return CUDA_ERROR_OUT_OF_MEMORY;
    fakecuda_lock();
    if (npins == cappins) {
        cappins = cappins ? 2 * cappins : 16;
        pins = realloc(pins, cappins * sizeof *pins);
    }
    pins[npins++] = (struct pinned){p, bytes};
    pinned_live += bytes;
    fakecuda_unlock();
    *pp = p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned flags)
{
    (void)flags;
    return host_alloc("cuMemHostAlloc", pp, bytes);
}

EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytes) { return host_alloc("cuMemAllocHost_v2", pp, bytes); }

static int pinned_range(const void *p, size_t bytes)
{
    const unsigned char *q = p;
    for (size_t i = 0; i < npins; i++)
        if (pins[i].p <= q && q + bytes <= pins[i].p + pins[i].size)
            return 1;
    return 0;
}

static int op_uses_host(const struct fc_op *o, const unsigned char *lo, const unsigned char *hi)
{
    if (o->kind != OP_COPY)
        return 0;
    const unsigned char *h = o->src_pinned ? o->src : o->dst_pinned ? o->dst : NULL;
    size_t pitch = o->src_pinned ? o->spitch : o->dpitch;
    return h && h < hi && lo < h + (o->height ? (o->height - 1) * pitch + o->width : 0);
}

EXPORT CUresult cuMemFreeHost(void *p)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    enter_cleanup("cuMemFreeHost");
    fakecuda_lock();
    size_t i;
    for (i = 0; i < npins; i++)
        if (pins[i].p == p)
            break;
    if (i == npins)
        fakecuda_violation("cuMemFreeHost: %p is not pinned memory from cuMemHostAlloc", p);
    for (int s = 0; s < nstreams; s++)
        if (streams[s])
            for (struct fc_op *o = streams[s]->head; o; o = o->next)
                if (op_uses_host(o, pins[i].p, pins[i].p + pins[i].size))
                    fakecuda_violation("cuMemFreeHost: %p is still used by %s queued on stream %d", p, o->name,
                                       s);
    pinned_live -= pins[i].size;
    pins[i] = pins[--npins];
    fakecuda_unlock();
    free(p);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Streams: one thread each, running its ops in order, each after a random short delay.       */

static uint64_t checksum(const unsigned char *p, size_t width, size_t height, size_t pitch)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t j = 0; j < height; j++)
        for (size_t i = 0; i < width; i++)
            h = (h ^ p[j * pitch + i]) * 1099511628211ULL;
    return h;
}

/* C = alpha op(A) + beta op(B) in the op's type; beta == 0 ignores B (NaN-safe), as cuBLAS
 * documents. 'C' conjugates. */
#define GEAM_AS(T, conjf)                                                                                             \
    do {                                                                                                              \
        T al, be;                                                                                                     \
        memcpy(&al, o->alpha, sizeof al);                                                                             \
        memcpy(&be, o->beta, sizeof be);                                                                              \
        const T *A = o->a, *B = o->b;                                                                                 \
        T *C = o->c;                                                                                                  \
        for (int j = 0; j < o->n; j++)                                                                                \
            for (int i = 0; i < o->m; i++) {                                                                          \
                T x = o->c1 == 'N' ? A[i + (size_t)j * o->lda] : A[j + (size_t)i * o->lda];                          \
                T y = o->c2 == 'N' ? B[i + (size_t)j * o->ldb] : B[j + (size_t)i * o->ldb];                          \
                if (o->c1 == 'C')                                                                                     \
                    x = conjf(x);                                                                                     \
                if (o->c2 == 'C')                                                                                     \
                    y = conjf(y);                                                                                     \
                C[i + (size_t)j * o->ldc] = al * x + (be == 0 ? 0 : be * y);                                          \
            }                                                                                                         \
    } while (0)
#define SAME(x) (x)

static void geam(struct fc_op *o)
{
    switch (o->ty) {
    case 's': GEAM_AS(float, SAME); break;
    case 'd': GEAM_AS(double, SAME); break;
    case 'c': GEAM_AS(float complex, conjf); break;
    case 'z': GEAM_AS(double complex, conj); break;
    default: fakecuda_violation("%s: element type '%c'", o->name, o->ty);
    }
}

static void exec_op(struct fc_stream *s, struct fc_op *o)
{
    switch (o->kind) {
    case OP_COPY:
        if (o->src_pinned && checksum(o->src, o->width, o->height, o->spitch) != o->src_sum)
            fakecuda_violation("race: %s on stream %d: the pinned host source changed between queueing the copy "
                               "and its execution (the host reused it without waiting for the copy)",
                               o->name, s->id);
        if (o->dst_pinned && checksum(o->dst, o->width, o->height, o->dpitch) != o->dst_sum)
            fakecuda_violation("race: %s on stream %d: the host wrote the pinned destination of this copy before "
                               "it completed",
                               o->name, s->id);
        for (size_t j = 0; j < o->height; j++)
            memmove(o->dst + j * o->dpitch, o->src + j * o->spitch, o->width);
        break;
    case OP_SET:
        memset(o->dst, o->byte, o->width);
        break;
    case OP_WAIT:
        pthread_mutex_lock(&G);
        while (o->ws->done < o->wseq)
            pthread_cond_wait(&DONE, &G);
        pthread_mutex_unlock(&G);
        break;
    case OP_GEMM:
        p_gemm[ty_index(o->ty)](&o->c1, &o->c2, &o->m, &o->n, &o->k, o->alpha, o->a, &o->lda, o->b, &o->ldb,
                                o->beta, o->c, &o->ldc, 1, 1);
        break;
    case OP_SYRK:
        p_syrk[ty_index(o->ty)](&o->c1, &o->c2, &o->n, &o->k, o->alpha, o->a, &o->lda, o->beta, o->c, &o->ldc, 1,
                                1);
        break;
    case OP_TRSM:
        p_trsm[ty_index(o->ty)](&o->c1, &o->c2, &o->c3, &o->c4, &o->m, &o->n, o->alpha, o->a, &o->lda, o->b,
                                &o->ldb, 1, 1, 1, 1);
        break;
    case OP_TRMM: {
        /* cuBLAS's TRMM is out of place (C = alpha op(A) B); C may be B. */
        size_t e = fc_elem(o->ty);
        if (o->c != o->b)
            for (int j = 0; j < o->n; j++)
                memmove((unsigned char *)o->c + (size_t)j * o->ldc * e, (unsigned char *)o->b + (size_t)j * o->ldb * e,
                        (size_t)o->m * e);
        p_trmm[ty_index(o->ty)](&o->c1, &o->c2, &o->c3, &o->c4, &o->m, &o->n, o->alpha, o->a, &o->lda, o->c,
                                &o->ldc, 1, 1, 1, 1);
        break;
    }
    case OP_GEAM:
        geam(o);
        break;
    case OP_POTRF: {
        int info = 0;
        p_potrf[ty_index(o->ty)](&o->c1, &o->n, o->a, &o->lda, &info, 1);
        memcpy(o->info, &info, sizeof info); /* devInfo is device memory */
        break;
    }
    case OP_GETRF: {
        /* LAPACK's pivots are 1-based, as cuSOLVER's devIpiv; INFO > 0 is an exactly zero pivot. */
        int info = 0;
        p_getrf[ty_index(o->ty)](&o->m, &o->n, o->a, &o->lda, o->ipiv, &info);
        memcpy(o->info, &info, sizeof info);
        break;
    }
    case OP_GEQRF: {
        /* The device workspace is device memory, unusable on the host: LAPACK gets its own,
         * of the size its workspace query gives. */
        int info = 0, query = -1;
        size_t e = fc_elem(o->ty);
        unsigned char wq[16] = {0}; /* WORK(1) of the query: a scalar of the type */
        geqrf_fn f = p_geqrf[ty_index(o->ty)];
        f(&o->m, &o->n, o->a, &o->lda, o->tau, wq, &query, &info);
        double q;
        if (o->ty == 's' || o->ty == 'c') {
            float x;
            memcpy(&x, wq, sizeof x);
            q = x;
        } else {
            memcpy(&q, wq, sizeof q);
        }
        int lwork = q > 1 ? (int)q : 1;
        void *work = malloc((size_t)lwork * e);
        if (!work) {
            fprintf(stderr, "fakecuda: %s: cannot allocate LAPACK's host workspace of %d elements\n", o->name, lwork);
            abort();
        }
        f(&o->m, &o->n, o->a, &o->lda, o->tau, work, &lwork, &info);
        free(work);
        memcpy(o->info, &info, sizeof info);
        break;
    }
    case OP_GEMM_BATCHED: {
        /* As on a device, the pointer arrays are read when the kernel runs (an earlier copy on
         * the stream may have written them); every pointer must then lie, with its matrix's whole
         * extent, in a live allocation of the device, and no two C matrices may start at one
         * address. The matrices' accesses are not race-checked (the arrays themselves are). */
        long ar = o->c1 == 'N' ? o->m : o->k, ac = o->c1 == 'N' ? o->k : o->m;
        long br = o->c2 == 'N' ? o->k : o->n, bc = o->c2 == 'N' ? o->n : o->k;
        void **m = malloc(3 * (size_t)o->batch * sizeof *m);
        pthread_mutex_lock(&G);
        size_t e = fc_elem(o->ty);
        size_t ea = extent(ar, ac, o->lda, e), eb = extent(br, bc, o->ldb, e), ec = extent(o->m, o->n, o->ldc, e);
        for (int i = 0; i < o->batch; i++) {
            m[3 * i] = ea ? dev_bytes(o->dev, o->pa[i], ea, o->name, "Aarray[i]", NULL) : NULL;
            m[3 * i + 1] = eb ? dev_bytes(o->dev, o->pb[i], eb, o->name, "Barray[i]", NULL) : NULL;
            m[3 * i + 2] = dev_bytes(o->dev, o->pc[i], ec, o->name, "Carray[i]", NULL);
            for (int j = 0; j < i; j++)
                if (o->pc[j] == o->pc[i])
                    fakecuda_violation("%s: Carray[%d] and Carray[%d] are the same matrix (0x%llx)", o->name, j,
                                       i, o->pc[i]);
        }
        pthread_mutex_unlock(&G);
        for (int i = 0; i < o->batch; i++)
            p_gemm[ty_index(o->ty)](&o->c1, &o->c2, &o->m, &o->n, &o->k, o->alpha, m[3 * i], &o->lda, m[3 * i + 1],
                                    &o->ldb, o->beta, m[3 * i + 2], &o->ldc, 1, 1);
        free(m);
        break;
    }
    }
}

static void *stream_main(void *arg)
{
    struct fc_stream *s = arg;
    unsigned seed = (unsigned)s->id * 2654435761u ^ (unsigned)time(NULL);
    /* A GPU's double arithmetic rounds to nearest and keeps subnormals, whatever the host thread
     * that made the stream had set (a new thread inherits its creator's floating-point settings). */
    fesetround(FE_TONEAREST);
#if defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() & ~0x8040u); /* FTZ (bit 15) and DAZ (bit 6) off */
#endif
    /* The delays below are meant to be 0..FAKECUDA_DELAY_US µs. With the kernel's default timer
     * slack (50 µs per thread) usleep(0..50) slept 85 µs on average (measured, 2000 calls),
     * and those sleeps were most of every fake-CUDA test's time; with 1 µs of slack they average
     * 34 µs (the rest is the syscall and the wake-up). */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    pthread_mutex_lock(&G);
    for (;;) {
        while (!s->head && !s->destroyed)
            pthread_cond_wait(&s->cv, &G);
        if (!s->head)
            break;
        struct fc_op *o = s->head;
        pthread_mutex_unlock(&G);
        /* Work queued on a context with a sticky error is abandoned, as on a real device. */
        if (!s->ctx->sticky) {
            if (delay_us)
                usleep(rand_r(&seed) % (delay_us + 1));
            exec_op(s, o);
        }
        pthread_mutex_lock(&G);
        s->head = o->next;
        if (!s->head)
            s->tail = NULL;
        s->done = o->seq;
        free(o);
        pthread_cond_broadcast(&DONE);
    }
    pthread_mutex_unlock(&G);
    return NULL;
}

static struct fc_stream *new_stream(struct fc_ctx *c)
{
    if (nstreams >= MAX_STREAMS)
        fakecuda_violation("cuStreamCreate: more than %d streams created in this process (are streams leaked?)",
                           MAX_STREAMS);
    struct fc_stream *s = calloc(1, sizeof *s);
    s->magic = STREAM_MAGIC;
    s->id = nstreams;
    s->ctx = c;
    pthread_cond_init(&s->cv, NULL);
    streams[nstreams++] = s;
    live_streams++;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&s->thread, &at, stream_main, s))
        fakecuda_violation("cuStreamCreate: cannot start the stream's thread");
    pthread_attr_destroy(&at);
    return s;
}

struct fc_stream *fakecuda_stream_of(struct fc_ctx *ctx, struct fc_stream *s, const char *fn)
{
    if (!s) {
        if (!ctx->null_stream) {
            ctx->null_stream = new_stream(ctx);
            live_streams--; /* the default stream is not the program's to destroy */
        }
        return ctx->null_stream;
    }
    if (s->magic != STREAM_MAGIC)
        fakecuda_violation("%s: %p is not a stream", fn, (void *)s);
    if (s->destroyed)
        fakecuda_violation("%s: stream %d was destroyed", fn, s->id);
    if (s->ctx != ctx)
        fakecuda_violation("%s: stream %d belongs to another context (device %d) than the current one (device %d)",
                           fn, s->id, s->ctx->dev, ctx->dev);
    return s;
}

void fakecuda_enqueue(struct fc_stream *s, const struct fc_op *op)
{
    struct fc_op *o = malloc(sizeof *o);
    *o = *op;
    merge(s->vc, H);
    o->seq = ++s->last;
    s->vc[s->id] = (uint32_t)s->last;
    o->next = NULL;
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
    pthread_cond_signal(&s->cv);
}

EXPORT CUresult cuStreamCreate(CUstream *out, unsigned flags)
{
    (void)flags;
    struct fc_ctx *c;
    CUresult r = enter("cuStreamCreate", 0, &c);
    if (r)
        return r;
    fakecuda_lock();
    *out = new_stream(c);
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
    struct fc_ctx *c = enter_cleanup("cuStreamDestroy_v2");
    CUresult r = CUDA_SUCCESS;
    fakecuda_lock();
    s = fakecuda_stream_of(c, s, "cuStreamDestroy_v2");
    if (s == c->null_stream)
        fakecuda_violation("cuStreamDestroy_v2: the default stream cannot be destroyed");
    s->destroyed = 1; /* its queued work still runs, as the real driver does; then the thread ends */
    live_streams--;
    pthread_cond_signal(&s->cv);
    fakecuda_unlock();
    return r;
}

/* Waits until stream s has executed up to seq; the host then knows what s knew. */
static void host_wait(struct fc_stream *s, uint64_t seq, const uint32_t *vc)
{
    while (s->done < seq)
        pthread_cond_wait(&DONE, &G);
    merge(H, vc);
}

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
    struct fc_ctx *c;
    CUresult r = enter("cuStreamSynchronize", 0, &c);
    if (r)
        return r;
    fakecuda_lock();
    s = fakecuda_stream_of(c, s, "cuStreamSynchronize");
    host_wait(s, s->last, s->vc);
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void)
{
    struct fc_ctx *c;
    CUresult r = enter("cuCtxSynchronize", 0, &c);
    if (r)
        return r;
    fakecuda_lock();
    for (int i = 0; i < nstreams; i++)
        if (streams[i] && streams[i]->ctx == c)
            host_wait(streams[i], streams[i]->last, streams[i]->vc);
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

/* Events */

static struct fc_event *check_event(struct fc_ctx *c, CUevent e, const char *fn)
{
    if (!e || e->magic != EVENT_MAGIC)
        fakecuda_violation("%s: %p is not an event", fn, (void *)e);
    if (e->destroyed)
        fakecuda_violation("%s: the event was destroyed", fn);
    if (e->ctx != c)
        fakecuda_violation("%s: the event belongs to another context (device %d) than the current one (device %d)",
                           fn, e->ctx->dev, c->dev);
    return e;
}

EXPORT CUresult cuEventCreate(CUevent *out, unsigned flags)
{
    (void)flags;
    struct fc_ctx *c;
    CUresult r = enter("cuEventCreate", 0, &c);
    if (r)
        return r;
    struct fc_event *e = calloc(1, sizeof *e);
    e->magic = EVENT_MAGIC;
    e->ctx = c;
    fakecuda_lock();
    live_events++;
    fakecuda_unlock();
    *out = e;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
    struct fc_ctx *c = enter_cleanup("cuEventDestroy_v2");
    CUresult r = CUDA_SUCCESS;
    fakecuda_lock();
    check_event(c, e, "cuEventDestroy_v2")->destroyed = 1; /* kept so that later use is reported */
    live_events--;
    fakecuda_unlock();
    return r;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
    struct fc_ctx *c;
    CUresult r = enter("cuEventRecord", 0, &c);
    if (r)
        return r;
    fakecuda_lock();
    check_event(c, e, "cuEventRecord");
    s = fakecuda_stream_of(c, s, "cuEventRecord");
    merge(s->vc, H);
    e->s = s;
    e->seq = s->last;
    memcpy(e->vc, s->vc, sizeof e->vc);
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventSynchronize(CUevent e)
{
    struct fc_ctx *c;
    CUresult r = enter("cuEventSynchronize", 0, &c);
    if (r)
        return r;
    fakecuda_lock();
    check_event(c, e, "cuEventSynchronize");
    if (e->s)
        host_wait(e->s, e->seq, e->vc);
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventQuery(CUevent e)
{
    struct fc_ctx *c;
    CUresult r = enter("cuEventQuery", 0, &c);
    if (r)
        return r;
    fakecuda_lock();
    check_event(c, e, "cuEventQuery");
    int ready = !e->s || e->s->done >= e->seq;
    if (ready && e->s)
        merge(H, e->vc);
    fakecuda_unlock();
    return ready ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags)
{
    struct fc_ctx *c;
    CUresult r = enter("cuStreamWaitEvent", 0, &c);
    if (r)
        return r;
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    fakecuda_lock();
    check_event(c, e, "cuStreamWaitEvent");
    s = fakecuda_stream_of(c, s, "cuStreamWaitEvent");
    if (e->s && e->s != s) {
        merge(s->vc, e->vc);
        struct fc_op op = {.kind = OP_WAIT, .name = "cuStreamWaitEvent", .ws = e->s, .wseq = e->seq};
        fakecuda_enqueue(s, &op);
    }
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Copies and memset                                                                           */

/* One side of a copy: a host pointer (pinned required: these are async copies) or device
 * bytes of the current context's device, with its whole 2-D extent checked. */
static unsigned char *copy_side(struct fc_stream *s, const char *fn, const char *what, int type, const void *host,
                                CUdeviceptr dev, size_t x, size_t y, size_t pitch, size_t width, size_t height,
                                int write, int *pinned)
{
    size_t span = height ? (height - 1) * pitch + width : 0;
    size_t off = y * pitch + x;
    *pinned = 0;
    if (type == CU_MEMORYTYPE_HOST) {
        const unsigned char *h = (const unsigned char *)host + off;
        if (!host)
            fakecuda_violation("%s: %s is a null host pointer", fn, what);
        if (!pinned_range(h, span))
            fakecuda_violation("%s: %s: host bytes [%p, %p) are not pinned memory (an async copy from or to "
                               "pageable memory is staged and synchronous in the real driver; hetla stages "
                               "through pinned buffers)",
                               fn, what, (const void *)h, (const void *)(h + span));
        *pinned = 1;
        return (unsigned char *)h;
    }
    if (type != CU_MEMORYTYPE_DEVICE)
        fakecuda_violation("%s: %s: memory type %d is not supported by this fake", fn, what, type);
    if (span == 0)
        return NULL;
    access_bytes(s, fn, what, dev + off, span, write);
    return dev_bytes(s->ctx->dev, dev + off, span, fn, what, NULL);
}

static CUresult copy2d(const char *fn, const CUDA_MEMCPY2D *d, CUstream hs)
{
    struct fc_ctx *c;
    CUresult r = enter(fn, 0, &c);
    if (r)
        return r;
    if (d->srcPitch < d->WidthInBytes && d->Height > 1)
        fakecuda_violation("%s: source pitch %zu < width %zu", fn, d->srcPitch, d->WidthInBytes);
    if (d->dstPitch < d->WidthInBytes && d->Height > 1)
        fakecuda_violation("%s: destination pitch %zu < width %zu", fn, d->dstPitch, d->WidthInBytes);
    fakecuda_lock();
    struct fc_stream *s = fakecuda_stream_of(c, hs, fn);
    struct fc_op op = {.kind = OP_COPY, .name = fn, .width = d->WidthInBytes, .height = d->Height,
                       .spitch = d->srcPitch, .dpitch = d->dstPitch};
    op.src = copy_side(s, fn, "source", d->srcMemoryType, d->srcHost, d->srcDevice, d->srcXInBytes, d->srcY,
                       d->srcPitch, d->WidthInBytes, d->Height, 0, &op.src_pinned);
    op.dst = copy_side(s, fn, "destination", d->dstMemoryType, d->dstHost, d->dstDevice, d->dstXInBytes, d->dstY,
                       d->dstPitch, d->WidthInBytes, d->Height, 1, &op.dst_pinned);
    if (op.width && op.height) {
        if (op.src_pinned)
            op.src_sum = checksum(op.src, op.width, op.height, op.spitch);
        if (op.dst_pinned) {
            /* Until the copy completes the destination holds nothing the host may use. */
            for (size_t j = 0; j < op.height; j++)
                memset(op.dst + j * op.dpitch, POISON, op.width);
            op.dst_sum = checksum(op.dst, op.width, op.height, op.dpitch);
        }
        fakecuda_enqueue(s, &op);
    }
    fakecuda_unlock();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *d, CUstream s) { return copy2d("cuMemcpy2DAsync_v2", d, s); }

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    CUDA_MEMCPY2D d = {.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = src, .srcPitch = bytes,
                       .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = dst, .dstPitch = bytes,
                       .WidthInBytes = bytes, .Height = 1};
    return copy2d("cuMemcpyHtoDAsync_v2", &d, s);
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    CUDA_MEMCPY2D d = {.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = src, .srcPitch = bytes,
                       .dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = dst, .dstPitch = bytes,
                       .WidthInBytes = bytes, .Height = 1};
    return copy2d("cuMemcpyDtoHAsync_v2", &d, s);
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    CUDA_MEMCPY2D d = {.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = src, .srcPitch = bytes,
                       .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = dst, .dstPitch = bytes,
                       .WidthInBytes = bytes, .Height = 1};
    return copy2d("cuMemcpyDtoDAsync_v2", &d, s);
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream hs)
{
    struct fc_ctx *c;
    CUresult r = enter("cuMemsetD8Async", 0, &c);
    if (r)
        return r;
    fakecuda_lock();
    struct fc_stream *s = fakecuda_stream_of(c, hs, "cuMemsetD8Async");
    if (n) {
        access_bytes(s, "cuMemsetD8Async", "destination", p, n, 1);
        struct fc_op op = {.kind = OP_SET, .name = "cuMemsetD8Async", .width = n, .byte = v,
                           .dst = dev_bytes(c->dev, p, n, "cuMemsetD8Async", "destination", NULL)};
        fakecuda_enqueue(s, &op);
    }
    fakecuda_unlock();
    return CUDA_SUCCESS;
}
