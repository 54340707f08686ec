/* tests/backends/spy.c: a BLAS spy preloaded between hetla and the backend
 * (LD_PRELOAD="libhetla.so spy.so"): hetla's kernels find its dgemm_, dtrsm_, dsyrk_ and dtrmm_
 * first (hetla looks its backend up with RTLD_NEXT). Each records the backend's thread count as
 * it is when the kernel is called, then calls the backend's own. threads.c reads the largest
 * count seen since its last spy_reset(): 1 while hetla's workers run, or the backend's threads
 * would run under them. Built per backend (-DBACKEND_...), like threads.c. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

static atomic_int most, calls;

/* The backend's thread-count functions, passed on under their own names, so that hetla, which
 * asks the library of its dgemm_ for them, finds the backend's through the spy. */
#if defined(BACKEND_OPENBLAS)
#define GET_NAME "openblas_get_num_threads"
#define SET_NAME "openblas_set_num_threads"
typedef int count_t;
#elif defined(BACKEND_MKL)
#define GET_NAME "MKL_Get_Max_Threads"
#define SET_NAME "MKL_Set_Num_Threads"
typedef int count_t;
#elif defined(BACKEND_BLIS)
#define GET_NAME "bli_thread_get_num_threads"
#define SET_NAME "bli_thread_set_num_threads"
typedef int64_t count_t;
#else
#error "build with -DBACKEND_OPENBLAS, -DBACKEND_MKL or -DBACKEND_BLIS"
#endif

static count_t get_next(void) {
    static count_t (*next)(void);
    if (!next)
        next = (count_t(*)(void))dlsym(RTLD_NEXT, GET_NAME);
    return next();
}

static void set_next(count_t n) {
    static void (*next)(count_t);
    if (!next)
        next = (void (*)(count_t))dlsym(RTLD_NEXT, SET_NAME);
    next(n);
}

#if defined(BACKEND_OPENBLAS)
__attribute__((visibility("default"))) int openblas_get_num_threads(void) { return get_next(); }
__attribute__((visibility("default"))) void openblas_set_num_threads(int n) { set_next(n); }
#elif defined(BACKEND_MKL)
__attribute__((visibility("default"))) int MKL_Get_Max_Threads(void) { return get_next(); }
__attribute__((visibility("default"))) void MKL_Set_Num_Threads(int n) { set_next(n); }
#else
__attribute__((visibility("default"))) int64_t bli_thread_get_num_threads(void) { return get_next(); }
__attribute__((visibility("default"))) void bli_thread_set_num_threads(int64_t n) { set_next(n); }
#endif

static int threads_now(void) { return (int)get_next(); }

static void seen(void) {
    int t = threads_now(), m = atomic_load(&most);
    while (t > m && !atomic_compare_exchange_weak(&most, &m, t)) {
    }
    atomic_fetch_add(&calls, 1);
}

__attribute__((visibility("default"))) void spy_reset(void) { atomic_store(&most, 0), atomic_store(&calls, 0); }
__attribute__((visibility("default"))) int spy_most(void) { return atomic_load(&most); }
__attribute__((visibility("default"))) int spy_calls(void) { return atomic_load(&calls); }

#define NEXT(name, type) static type next; if (!next) next = (type)dlsym(RTLD_NEXT, name)

typedef void (*gemm_t)(const char *, const char *, const int *, const int *, const int *, const double *,
                       const double *, const int *, const double *, const int *, const double *, double *, const int *,
                       size_t, size_t);
__attribute__((visibility("default"))) void dgemm_(const char *ta, const char *tb, const int *m, const int *n,
                                                   const int *k, const double *al, const double *a, const int *lda,
                                                   const double *b, const int *ldb, const double *be, double *c,
                                                   const int *ldc, size_t l1, size_t l2) {
    NEXT("dgemm_", gemm_t);
    seen();
    next(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc, l1, l2);
}

typedef void (*trsm_t)(const char *, const char *, const char *, const char *, const int *, const int *,
                       const double *, const double *, const int *, double *, const int *, size_t, size_t, size_t,
                       size_t);
__attribute__((visibility("default"))) void dtrsm_(const char *s, const char *u, const char *t, const char *d,
                                                   const int *m, const int *n, const double *al, const double *a,
                                                   const int *lda, double *b, const int *ldb, size_t l1, size_t l2,
                                                   size_t l3, size_t l4) {
    NEXT("dtrsm_", trsm_t);
    seen();
    next(s, u, t, d, m, n, al, a, lda, b, ldb, l1, l2, l3, l4);
}

typedef void (*syrk_t)(const char *, const char *, const int *, const int *, const double *, const double *,
                       const int *, const double *, double *, const int *, size_t, size_t);
__attribute__((visibility("default"))) void dsyrk_(const char *u, const char *t, const int *n, const int *k,
                                                   const double *al, const double *a, const int *lda,
                                                   const double *be, double *c, const int *ldc, size_t l1,
                                                   size_t l2) {
    NEXT("dsyrk_", syrk_t);
    seen();
    next(u, t, n, k, al, a, lda, be, c, ldc, l1, l2);
}
