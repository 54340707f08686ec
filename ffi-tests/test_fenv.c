/* ffi-tests/test_fenv.c: the caller's floating-point environment after each routine.
 *
 * For each routine hetla runs on tiles (forced: HETLA_MIN_N=0, HETLA_NB=8, HETLA_CACHE_DIR=off,
 * four threads), on the same input as OpenBLAS's own routine (taken by dlsym, common.h):
 *   - well-conditioned input: the flags are cleared, the routine runs, and the exception flags
 *     it leaves (C's FE_ALL_EXCEPT and, on x86_64, the denormal-operand flag DE, from MXCSR and
 *     the x87 status word, as gfortran reads them) must be the reference's;
 *   - a NaN in the input: INVALID must be raised exactly where the reference raises it, and no
 *     DE either way unless the reference raises it;
 *   - a flag the caller had raised before the call (DIVBYZERO) is still raised after it;
 *   - the caller's rounding mode (FE_TOWARDZERO) and, on x86_64, MXCSR's FTZ and DAZ bits and
 *     the x87 control word are what the caller set, after the call.
 * Then the workers compute under the caller's settings: DGETRS with L = I, U = 3·I and B = ones,
 * its right-hand sides spread over many tiles and threads, gives X = RU(1/3) in every entry under
 * FE_UPWARD (RN(1/3) under the default: a worker that ignored the mode gives the latter), and,
 * under FTZ, B = 2^-1022 and U = 4·I give X = 0 in every entry (2^-1024 where a worker did not
 * flush); in both cases the same bits as OpenBLAS's DGETRS on the calling thread.
 * Built with FENV_DEVICES (test_fenv_devices.c) the same checks run with an emulated
 * accelerator taking part in every call, and DGEMM (which hetla then runs on tiles) is
 * checked the same way: A = [1, 2^-53, 0...] times B = ones is RU(1 + 2^-53) = 1 + 2^-52 under
 * FE_UPWARD in every entry of C.
 * Where hetla opened a CUDA library (a real GPU, or tests/fakecuda's stand-in), the work a GPU
 * does raises no flag on the host: there the flags must only be a subset of the reference's (no
 * flag the reference does not raise). A GPU rounds to nearest and keeps subnormals whatever the
 * caller set, so hetla keeps calls made under another rounding mode or FTZ/DAZ off CUDA devices:
 * the rounding checks hold there too, and under FE_TONEAREST DGEMM's C = 1 in every entry, with
 * the devices taking part (the fake CUDA computes as a GPU does).
 *
 * The single and complex routines (the same list in S, C and Z, TRANS = 'C' for the complex
 * types' GETRS and UNMQR) go through the same checks on inputs made from the double ones.
 *
 * hetla-expect: dpotrf=tiles dpotrs=tiles dposv=tiles dgetrf=tiles dgetrs=tiles dgesv=tiles dgeqrf=tiles dgels=tiles dtrtri=tiles dpotri=tiles dgetri=tiles dorgqr=tiles dormqr=tiles spotrf cpotrs zposv sgetrf cgetrs zgesv sgeqrf cgels zgels strtri cpotri zgetri sorgqr cungqr zunmqr
 * hetla-env: HETLA_CACHE_DIR=off OPENBLAS_NUM_THREADS=1
 * hetla-reference-env: OPENBLAS_NUM_THREADS=1
 */
#include "common.h"

#include <fenv.h>

typedef void (*dpotrs_fn)(const char *, const int32_t *, const int32_t *, const double *, const int32_t *,
                          double *, const int32_t *, int32_t *, size_t);
typedef void (*dgetrs_fn)(const char *, const int32_t *, const int32_t *, const double *, const int32_t *,
                          const int32_t *, double *, const int32_t *, int32_t *, size_t);
typedef void (*dtrtri_fn)(const char *, const char *, const int32_t *, double *, const int32_t *, int32_t *,
                          size_t, size_t);
typedef void (*dpotri_fn)(const char *, const int32_t *, double *, const int32_t *, int32_t *, size_t);
typedef void (*dgetri_fn)(const int32_t *, double *, const int32_t *, const int32_t *, double *,
                          const int32_t *, int32_t *);
typedef void (*dormqr_fn)(const char *, const char *, const int32_t *, const int32_t *, const int32_t *,
                          double *, const int32_t *, const double *, double *, const int32_t *, double *,
                          const int32_t *, int32_t *, size_t, size_t);
typedef void (*dgemm_fn)(const char *, const char *, const int32_t *, const int32_t *, const int32_t *,
                         const double *, const double *, const int32_t *, const double *, const int32_t *,
                         const double *, double *, const int32_t *, size_t, size_t);

/* ---- the floating-point state as a program sees it ---- */

#if defined(__x86_64__)
#define FL_DENORM 0x02u /* x86's denormal-operand flag, in MXCSR and the x87 status word */
static unsigned mxcsr(void) {
    unsigned m;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    return m;
}
static void set_mxcsr(unsigned m) { __asm__ volatile("ldmxcsr %0" : : "m"(m)); }
static unsigned short x87_cw(void) {
    unsigned short cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    return cw;
}
static unsigned short x87_sw(void) {
    unsigned short sw;
    __asm__ volatile("fnstsw %0" : "=m"(sw));
    return sw;
}
/* Every flag in x86's layout (IE 1, DE 2, ZE 4, OE 8, UE 16, PE 32) of both units. */
static unsigned fl_get(void) { return (mxcsr() | x87_sw()) & 0x3fu; }
static void fl_clear(void) {
    feclearexcept(FE_ALL_EXCEPT);
    set_mxcsr(mxcsr() & ~0x3fu);
    __asm__ volatile("fnclex");
}
/* The control settings: MXCSR without its flags, and the x87 control word. */
static unsigned long ctl_get(void) { return ((unsigned long)x87_cw() << 32) | (mxcsr() & ~0x3fu); }
#define FTZ_DAZ 0x8040u
static void ftz_daz(int on) { set_mxcsr(on ? mxcsr() | FTZ_DAZ : mxcsr() & ~FTZ_DAZ); }
#else
#define FL_DENORM 0u
static unsigned fl_get(void) { return (unsigned)fetestexcept(FE_ALL_EXCEPT); }
static void fl_clear(void) { feclearexcept(FE_ALL_EXCEPT); }
static unsigned long ctl_get(void) { return (unsigned long)fegetround(); }
static void ftz_daz(int on) { (void)on; }
#endif

#if defined(__x86_64__)
#define FL_INVALID 0x01u
#define FL_DIVBYZERO 0x04u
#else
#define FL_INVALID ((unsigned)FE_INVALID)
#define FL_DIVBYZERO ((unsigned)FE_DIVBYZERO)
#endif
#ifndef FENV_NAME
#define FENV_NAME "test_fenv"
#endif

static const char *fl_names(unsigned f, char *buf) {
    buf[0] = 0;
#if defined(__x86_64__)
    static const char *names[] = {"INVALID", "DENORMAL", "DIVBYZERO", "OVERFLOW", "UNDERFLOW", "INEXACT"};
    for (int b = 0; b < 6; b++)
        if (f & (1u << b)) strcat(strcat(buf, buf[0] ? "|" : ""), names[b]);
#else
    sprintf(buf, "0x%x", f);
#endif
    if (!buf[0]) strcpy(buf, "none");
    return buf;
}

/* Whether hetla opened a CUDA driver in this process (it does so on its first call). */
static int cuda_loaded(void) {
    static const char *names[] = {"libcuda.so.1", "libcuda.so"};
    for (int i = 0; i < 2; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
        if (h) {
            dlclose(h);
            return 1;
        }
    }
    return 0;
}

/* ---- one routine on one input, through hetla's symbol (which) = 0 or OpenBLAS's = 1 ---- */

enum { N = 40, LDA = 42, NRHS = 3, LWORK = 8192 };
static double *g_spd, *g_gen, *g_b, *g_wide, *g_pofact, *g_lufact, *g_qrfact, *g_tau, *g_work;
static int32_t g_ipiv[N];

typedef void (*routine_fn)(int ref, int nan);

/* Right before each call: the flags cleared, then DIVBYZERO raised when g_preraise is set (the
 * caller's own flag, which must survive the call). */
static int g_preraise;
static void prep(void) {
    fl_clear();
    if (g_preraise) feraiseexcept(FE_DIVBYZERO);
}

/* Fresh copies of the inputs, with a NaN in the first one when asked. */
static double *in(const double *src, int ld, int n, int nan, int i, int j) {
    double *c = mat_copy(src, ld, n);
    if (nan) AT(c, ld, i, j) = NAN;
    return c;
}

static void r_dpotrf(int ref, int nan) {
    int n = N, lda = LDA, info;
    double *a = in(g_spd, LDA, N, nan, 21, 9);
    prep();
    (ref ? REF(dpotrf) : dpotrf_)("L", &n, a, &lda, &info, 1);
    free(a);
}
static void r_dpotrs(int ref, int nan) {
    int n = N, lda = LDA, nrhs = NRHS, info;
    double *b = in(g_b, N, NRHS, nan, 7, 1);
    prep();
    (ref ? REF(dpotrs) : dpotrs_)("L", &n, &nrhs, g_pofact, &lda, b, &n, &info, 1);
    free(b);
}
static void r_dposv(int ref, int nan) {
    int n = N, lda = LDA, nrhs = NRHS, info;
    double *a = in(g_spd, LDA, N, nan, 30, 30), *b = mat_copy(g_b, N, NRHS);
    prep();
    (ref ? REF(dposv) : dposv_)("L", &n, &nrhs, a, &lda, b, &n, &info, 1);
    free(a), free(b);
}
static void r_dgetrf(int ref, int nan) {
    int n = N, lda = LDA, info;
    int32_t ipiv[N];
    double *a = in(g_gen, LDA, N, nan, 12, 17);
    prep();
    (ref ? REF(dgetrf) : dgetrf_)(&n, &n, a, &lda, ipiv, &info);
    free(a);
}
static void r_dgetrs(int ref, int nan) {
    int n = N, lda = LDA, nrhs = NRHS, info;
    double *b = in(g_b, N, NRHS, nan, 33, 2);
    prep();
    (ref ? REF(dgetrs) : dgetrs_)("N", &n, &nrhs, g_lufact, &lda, g_ipiv, b, &n, &info, 1);
    free(b);
}
static void r_dgesv(int ref, int nan) {
    int n = N, lda = LDA, nrhs = NRHS, info;
    int32_t ipiv[N];
    double *a = in(g_gen, LDA, N, nan, 3, 3), *b = mat_copy(g_b, N, NRHS);
    prep();
    (ref ? REF(dgesv) : dgesv_)(&n, &nrhs, a, &lda, ipiv, b, &n, &info);
    free(a), free(b);
}
static void r_dgeqrf(int ref, int nan) {
    int n = N, lda = LDA, lwork = LWORK, info;
    double tau[N], *a = in(g_gen, LDA, N, nan, 25, 14);
    prep();
    (ref ? REF(dgeqrf) : dgeqrf_)(&n, &n, a, &lda, tau, g_work, &lwork, &info);
    free(a);
}
static void r_dgels(int ref, int nan) {
    /* A 2N×N least-squares problem: the QR path. */
    int m = 2 * N, n = N, lda = 2 * N, nrhs = NRHS, lwork = LWORK, info;
    double *a = in(g_wide, 2 * N, N, nan, 50, 20), *b = mat_copy(g_wide, 2 * N, NRHS);
    prep();
    (ref ? REF(dgels) : dgels_)("N", &m, &n, &nrhs, a, &lda, b, &lda, g_work, &lwork, &info, 1);
    free(a), free(b);
}
static void r_dtrtri(int ref, int nan) {
    int n = N, lda = LDA, info;
    double *a = in(g_pofact, LDA, N, nan, 35, 4);
    prep();
    (ref ? REF(dtrtri) : dtrtri_)("L", "N", &n, a, &lda, &info, 1, 1);
    free(a);
}
static void r_dpotri(int ref, int nan) {
    int n = N, lda = LDA, info;
    double *a = in(g_pofact, LDA, N, nan, 18, 11);
    prep();
    (ref ? REF(dpotri) : dpotri_)("L", &n, a, &lda, &info, 1);
    free(a);
}
static void r_dgetri(int ref, int nan) {
    int n = N, lda = LDA, lwork = LWORK, info;
    double *a = in(g_lufact, LDA, N, nan, 27, 31);
    prep();
    (ref ? REF(dgetri) : dgetri_)(&n, a, &lda, g_ipiv, g_work, &lwork, &info);
    free(a);
}
static void r_dorgqr(int ref, int nan) {
    int n = N, lda = LDA, lwork = LWORK, info;
    double *a = in(g_qrfact, LDA, N, nan, 36, 2);
    prep();
    (ref ? REF(dorgqr) : dorgqr_)(&n, &n, &n, a, &lda, g_tau, g_work, &lwork, &info);
    free(a);
}
static void r_dormqr(int ref, int nan) {
    int n = N, lda = LDA, nrhs = NRHS, lwork = LWORK, info;
    double *c = in(g_b, N, NRHS, nan, 9, 0);
    prep();
    (ref ? REF(dormqr) : dormqr_)("L", "T", &n, &nrhs, &n, g_qrfact, &lda, g_tau, c, &n, g_work, &lwork, &info, 1, 1);
    free(c);
}
static void r_dgemm(int ref, int nan) {
    int n = N, lda = LDA;
    double one = 1.0, zero = 0.0, *c = malloc(sizeof(double) * N * N), *a = in(g_gen, LDA, N, nan, 5, 6);
    prep();
    (ref ? REF(dgemm) : dgemm_)("N", "T", &n, &n, &n, &one, a, &lda, g_spd, &lda, &zero, c, &n, 1, 1);
    free(a), free(c);
}

/* ---- the same routines in S, C and Z (hetla.h's prototypes) ---- */

#define REFT(name) ((__typeof__(&name##_))ref_sym(#name "_"))

/* The inputs of type prefix P (element E, real R, W reals per element) from the double ones: the
 * real parts those, the imaginary parts a quarter of the next column's entries (zero for the
 * Hermitian positive definite one); the factors by OpenBLAS's routine of the type. ADJ is the
 * type's adjoint TRANS, ORG/ORM its Q routines' names. */
#define DEFINE_FENV_TYPE(P, E, R, W, ADJ, ORG, ORM)                                                 \
    static E *P##_spd, *P##_gen, *P##_b, *P##_wide, *P##_pofact, *P##_lufact, *P##_qrfact, *P##_tau, \
        *P##_work;                                                                                  \
    static int32_t P##_ipiv[N];                                                                     \
    static E *P##_of(const double *src, int ld, int n, int herm) {                                  \
        E *x = malloc(sizeof(E) * (size_t)ld * (size_t)n);                                          \
        R *r = (R *)x;                                                                              \
        for (int j = 0; j < n; j++)                                                                 \
            for (int i = 0; i < ld; i++) {                                                          \
                r[W * (i + (size_t)j * ld)] = (R)AT(src, ld, i, j);                                 \
                if (W == 2) r[W * (i + (size_t)j * ld) + 1] = herm ? 0 : (R)(0.25 * AT(src, ld, i, (j + 1) % n)); \
            }                                                                                       \
        return x;                                                                                   \
    }                                                                                               \
    static E *P##_in(const E *src, int ld, int n, int nan, int i, int j) {                          \
        E *c = malloc(sizeof(E) * (size_t)ld * (size_t)n);                                          \
        memcpy(c, src, sizeof(E) * (size_t)ld * (size_t)n);                                         \
        if (nan) ((R *)c)[W * (i + (size_t)j * ld)] = (R)NAN;                                       \
        return c;                                                                                   \
    }                                                                                               \
    static void P##_setup(void) {                                                                   \
        int n = N, lda = LDA, lwork = LWORK, info;                                                  \
        P##_spd = P##_of(g_spd, LDA, N, 1), P##_gen = P##_of(g_gen, LDA, N, 0);                     \
        P##_b = P##_of(g_b, N, NRHS, 0), P##_wide = P##_of(g_wide, 2 * N, N, 0);                    \
        P##_work = malloc(sizeof(E) * LWORK), P##_tau = malloc(sizeof(E) * N);                      \
        P##_pofact = P##_in(P##_spd, LDA, N, 0, 0, 0);                                              \
        REFT(P##potrf)("L", &n, P##_pofact, &lda, &info, 1);                                        \
        check(info == 0, "reference " #P "potrf INFO=%d", info);                                    \
        P##_lufact = P##_in(P##_gen, LDA, N, 0, 0, 0);                                              \
        REFT(P##getrf)(&n, &n, P##_lufact, &lda, P##_ipiv, &info);                                  \
        check(info == 0, "reference " #P "getrf INFO=%d", info);                                    \
        P##_qrfact = P##_in(P##_gen, LDA, N, 0, 0, 0);                                              \
        REFT(P##geqrf)(&n, &n, P##_qrfact, &lda, P##_tau, P##_work, &lwork, &info);                 \
        check(info == 0, "reference " #P "geqrf INFO=%d", info);                                    \
    }                                                                                               \
    static void r_##P##potrf(int ref, int nan) {                                                    \
        int n = N, lda = LDA, info;                                                                 \
        E *a = P##_in(P##_spd, LDA, N, nan, 21, 9);                                                 \
        prep();                                                                                     \
        (ref ? REFT(P##potrf) : P##potrf_)("L", &n, a, &lda, &info, 1);                             \
        free(a);                                                                                    \
    }                                                                                               \
    static void r_##P##potrs(int ref, int nan) {                                                    \
        int n = N, lda = LDA, nrhs = NRHS, info;                                                    \
        E *b = P##_in(P##_b, N, NRHS, nan, 7, 1);                                                   \
        prep();                                                                                     \
        (ref ? REFT(P##potrs) : P##potrs_)("L", &n, &nrhs, P##_pofact, &lda, b, &n, &info, 1);     \
        free(b);                                                                                    \
    }                                                                                               \
    static void r_##P##posv(int ref, int nan) {                                                     \
        int n = N, lda = LDA, nrhs = NRHS, info;                                                    \
        E *a = P##_in(P##_spd, LDA, N, nan, 30, 30), *b = P##_in(P##_b, N, NRHS, 0, 0, 0);         \
        prep();                                                                                     \
        (ref ? REFT(P##posv) : P##posv_)("L", &n, &nrhs, a, &lda, b, &n, &info, 1);                 \
        free(a), free(b);                                                                           \
    }                                                                                               \
    static void r_##P##getrf(int ref, int nan) {                                                    \
        int n = N, lda = LDA, info;                                                                 \
        int32_t ipiv[N];                                                                            \
        E *a = P##_in(P##_gen, LDA, N, nan, 12, 17);                                                \
        prep();                                                                                     \
        (ref ? REFT(P##getrf) : P##getrf_)(&n, &n, a, &lda, ipiv, &info);                           \
        free(a);                                                                                    \
    }                                                                                               \
    static void r_##P##getrs(int ref, int nan) {                                                    \
        int n = N, lda = LDA, nrhs = NRHS, info;                                                    \
        E *b = P##_in(P##_b, N, NRHS, nan, 33, 2);                                                  \
        prep();                                                                                     \
        (ref ? REFT(P##getrs) : P##getrs_)(ADJ, &n, &nrhs, P##_lufact, &lda, P##_ipiv, b, &n, &info, 1); \
        free(b);                                                                                    \
    }                                                                                               \
    static void r_##P##gesv(int ref, int nan) {                                                     \
        int n = N, lda = LDA, nrhs = NRHS, info;                                                    \
        int32_t ipiv[N];                                                                            \
        E *a = P##_in(P##_gen, LDA, N, nan, 3, 3), *b = P##_in(P##_b, N, NRHS, 0, 0, 0);           \
        prep();                                                                                     \
        (ref ? REFT(P##gesv) : P##gesv_)(&n, &nrhs, a, &lda, ipiv, b, &n, &info);                   \
        free(a), free(b);                                                                           \
    }                                                                                               \
    static void r_##P##geqrf(int ref, int nan) {                                                    \
        int n = N, lda = LDA, lwork = LWORK, info;                                                  \
        E tau[N], *a = P##_in(P##_gen, LDA, N, nan, 25, 14);                                        \
        prep();                                                                                     \
        (ref ? REFT(P##geqrf) : P##geqrf_)(&n, &n, a, &lda, tau, P##_work, &lwork, &info);          \
        free(a);                                                                                    \
    }                                                                                               \
    static void r_##P##gels(int ref, int nan) {                                                     \
        int m = 2 * N, n = N, lda = 2 * N, nrhs = NRHS, lwork = LWORK, info;                        \
        E *a = P##_in(P##_wide, 2 * N, N, nan, 50, 20), *b = P##_in(P##_wide, 2 * N, NRHS, 0, 0, 0); \
        prep();                                                                                     \
        (ref ? REFT(P##gels) : P##gels_)("N", &m, &n, &nrhs, a, &lda, b, &lda, P##_work, &lwork, &info, 1); \
        free(a), free(b);                                                                           \
    }                                                                                               \
    static void r_##P##trtri(int ref, int nan) {                                                    \
        int n = N, lda = LDA, info;                                                                 \
        E *a = P##_in(P##_pofact, LDA, N, nan, 35, 4);                                              \
        prep();                                                                                     \
        (ref ? REFT(P##trtri) : P##trtri_)("L", "N", &n, a, &lda, &info, 1, 1);                     \
        free(a);                                                                                    \
    }                                                                                               \
    static void r_##P##potri(int ref, int nan) {                                                    \
        int n = N, lda = LDA, info;                                                                 \
        E *a = P##_in(P##_pofact, LDA, N, nan, 18, 11);                                             \
        prep();                                                                                     \
        (ref ? REFT(P##potri) : P##potri_)("L", &n, a, &lda, &info, 1);                             \
        free(a);                                                                                    \
    }                                                                                               \
    static void r_##P##getri(int ref, int nan) {                                                    \
        int n = N, lda = LDA, lwork = LWORK, info;                                                  \
        E *a = P##_in(P##_lufact, LDA, N, nan, 27, 31);                                             \
        prep();                                                                                     \
        (ref ? REFT(P##getri) : P##getri_)(&n, a, &lda, P##_ipiv, P##_work, &lwork, &info);         \
        free(a);                                                                                    \
    }                                                                                               \
    static void r_##P##orgqr(int ref, int nan) {                                                    \
        int n = N, lda = LDA, lwork = LWORK, info;                                                  \
        E *a = P##_in(P##_qrfact, LDA, N, nan, 36, 2);                                              \
        prep();                                                                                     \
        (ref ? REFT(ORG) : ORG##_)(&n, &n, &n, a, &lda, P##_tau, P##_work, &lwork, &info);          \
        free(a);                                                                                    \
    }                                                                                               \
    static void r_##P##ormqr(int ref, int nan) {                                                    \
        int n = N, lda = LDA, nrhs = NRHS, lwork = LWORK, info;                                     \
        E *c = P##_in(P##_b, N, NRHS, nan, 9, 0);                                                   \
        prep();                                                                                     \
        (ref ? REFT(ORM) : ORM##_)("L", ADJ, &n, &nrhs, &n, P##_qrfact, &lda, P##_tau, c, &n, P##_work, \
                                   &lwork, &info, 1, 1);                                            \
        free(c);                                                                                    \
    }
DEFINE_FENV_TYPE(s, float, float, 1, "T", sorgqr, sormqr)
DEFINE_FENV_TYPE(c, hetla_complex_float, float, 2, "C", cungqr, cunmqr)
DEFINE_FENV_TYPE(z, hetla_complex_double, double, 2, "C", zungqr, zunmqr)

#define TYPED_ROUTINES(P, ORG, ORM)                                                                 \
    {#P "potrf", r_##P##potrf}, {#P "potrs", r_##P##potrs}, {#P "posv", r_##P##posv},               \
        {#P "getrf", r_##P##getrf}, {#P "getrs", r_##P##getrs}, {#P "gesv", r_##P##gesv},           \
        {#P "geqrf", r_##P##geqrf}, {#P "gels", r_##P##gels}, {#P "trtri", r_##P##trtri},           \
        {#P "potri", r_##P##potri}, {#P "getri", r_##P##getri}, {#ORG, r_##P##orgqr}, {#ORM, r_##P##ormqr}

static const struct {
    const char *name;
    routine_fn run;
} ROUTINES[] = {
    {"dpotrf", r_dpotrf}, {"dpotrs", r_dpotrs}, {"dposv", r_dposv},   {"dgetrf", r_dgetrf}, {"dgetrs", r_dgetrs},
    {"dgesv", r_dgesv},   {"dgeqrf", r_dgeqrf}, {"dgels", r_dgels},   {"dtrtri", r_dtrtri}, {"dpotri", r_dpotri},
    {"dgetri", r_dgetri}, {"dorgqr", r_dorgqr}, {"dormqr", r_dormqr}, {"dgemm", r_dgemm},
    TYPED_ROUTINES(s, sorgqr, sormqr),
    TYPED_ROUTINES(c, cungqr, cunmqr),
    TYPED_ROUTINES(z, zungqr, zunmqr),
};
#define NROUTINES (sizeof ROUTINES / sizeof ROUTINES[0])

/* The flags routine r leaves (each r_* clears them right before its call, `prep`). */
static unsigned flags_after(routine_fn r, int ref, int nan) {
    r(ref, nan);
    unsigned f = fl_get();
    fl_clear();
    return f;
}

/* ---- the workers' rounding and flush-to-zero: DGETRS with U diagonal, B constant ---- */

/* Solves with L = I, U = d·I, ipiv = identity and B = v everywhere (n×nrhs, many tiles); every
 * entry of X must be `want` (bit for bit). Returns the number of entries that are not. (The
 * zeros of L and U contribute exact zeros, so each entry's only rounding is v/d's, or v·(1/d)'s,
 * which for these values round the same way.) */
static int diag_solve(int ref, double d, double v, double want, const char *mode) {
    int n = 48, nrhs = 256, info = -99, bad = 0;
    double *a = calloc((size_t)n * n, sizeof(double)), *b = malloc(sizeof(double) * (size_t)n * nrhs);
    int32_t ipiv[48];
    for (int i = 0; i < n; i++) AT(a, n, i, i) = d, ipiv[i] = i + 1;
    for (int i = 0; i < n * nrhs; i++) b[i] = v;
    (ref ? REF(dgetrs) : dgetrs_)("N", &n, &nrhs, a, &n, ipiv, b, &n, &info, 1);
    for (int i = 0; i < n * nrhs; i++) bad += memcmp(&b[i], &want, sizeof want) != 0;
    check(info == 0, "dgetrs %s (%s): INFO=%d", mode, ref ? "OpenBLAS" : "hetla", info);
    if (bad) {
        int first = 0;
        while (memcmp(&b[first], &want, sizeof want) == 0) first++;
        printf("  dgetrs %s (%s): %d of %d entries differ, first X[%d] = %a, want %a\n", mode,
               ref ? "OpenBLAS" : "hetla", bad, n * nrhs, first, b[first], want);
    }
    free(a), free(b);
    return bad;
}

#ifdef FENV_DEVICES
/* C = A·B with A = [1, 2^-53, 0, ...] (m×k) and B = ones (k×n): every entry is 1 + 2^-53 exactly
 * before rounding. Returns the entries of C that are not `want`. */
static int gemm_sum(int ref, double want) {
    int m = 96, n = 96, k = 64, bad = 0;
    double one = 1.0, zero = 0.0;
    double *a = calloc((size_t)m * k, sizeof(double)), *b = malloc(sizeof(double) * (size_t)k * n),
           *c = malloc(sizeof(double) * (size_t)m * n);
    for (int i = 0; i < m; i++) AT(a, m, i, 0) = 1.0, AT(a, m, i, 1) = 0x1p-53;
    for (int i = 0; i < k * n; i++) b[i] = 1.0;
    (ref ? REF(dgemm) : dgemm_)("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    for (int i = 0; i < m * n; i++) bad += c[i] != want;
    free(a), free(b), free(c);
    return bad;
}
#endif

int main(void) {
    rng_t r = {20240611};
    char h[64], w[64];
    g_spd = mat_spd(&r, N, LDA);
    g_gen = mat_random(&r, N, N, LDA);
    for (int i = 0; i < N; i++) AT(g_gen, LDA, i, i) += 4.0; /* well conditioned */
    g_b = mat_random(&r, N, NRHS, N);
    g_wide = mat_random(&r, 2 * N, N, 2 * N);
    g_work = malloc(sizeof(double) * LWORK);
    g_tau = malloc(sizeof(double) * N);
    /* The factors the solvers and inverses start from, by OpenBLAS. */
    int n = N, lda = LDA, lwork = LWORK, info;
    g_pofact = mat_copy(g_spd, LDA, N);
    REF(dpotrf)("L", &n, g_pofact, &lda, &info, 1);
    check(info == 0, "reference dpotrf INFO=%d", info);
    g_lufact = mat_copy(g_gen, LDA, N);
    REF(dgetrf)(&n, &n, g_lufact, &lda, g_ipiv, &info);
    check(info == 0, "reference dgetrf INFO=%d", info);
    g_qrfact = mat_copy(g_gen, LDA, N);
    REF(dgeqrf)(&n, &n, g_qrfact, &lda, g_tau, g_work, &lwork, &info);
    check(info == 0, "reference dgeqrf INFO=%d", info);
    s_setup();
    c_setup();
    z_setup();
    /* hetla opens its devices on its first call. */
    r_dpotrf(0, 0);
    int gpu = cuda_loaded();
    fl_clear();

    for (size_t k = 0; k < NROUTINES; k++) {
        const char *name = ROUTINES[k].name;
        routine_fn run = ROUTINES[k].run;
        unsigned want, got;
        /* Twice: the first call of a routine may set things up that later calls do not. */
        for (int rep = 0; rep < 2; rep++) {
            want = flags_after(run, 1, 0);
            got = flags_after(run, 0, 0);
            check(got == want || (gpu && (got & ~want) == 0), "%s (call %d): flags %s, the reference leaves %s", name, rep + 1,
                  fl_names(got, h), fl_names(want, w));
        }
        want = flags_after(run, 1, 1);
        got = flags_after(run, 0, 1);
        check(gpu ? (got & ~want) == 0 : (got & FL_INVALID) == (want & FL_INVALID) && (got & ~want & FL_DENORM) == 0,
              "%s with a NaN: flags %s, the reference leaves %s", name, fl_names(got, h), fl_names(want, w));

        /* Flags raised before the call stay raised (DIVBYZERO, which none of these inputs
         * raises). */
        g_preraise = 1;
        got = flags_after(run, 0, 0);
        g_preraise = 0;
        check(got & FL_DIVBYZERO, "%s dropped the caller's DIVBYZERO: flags %s", name, fl_names(got, h));

        /* The caller's control settings are untouched. */
        fesetround(FE_TOWARDZERO);
        ftz_daz(1);
        unsigned long before = ctl_get();
        run(0, 0);
        unsigned long after = ctl_get();
        int rounding = fegetround();
        ftz_daz(0);
        fesetround(FE_TONEAREST);
        check(after == before && rounding == FE_TOWARDZERO,
              "%s changed the caller's control settings: %#lx before, %#lx after (rounding %d)", name, before,
              after, rounding);
        fl_clear();
    }


    /* The workers compute under the caller's rounding mode and FTZ. */
    volatile double three = 3.0;
    double rn = 1.0 / three, ru;
    fesetround(FE_UPWARD);
    ru = 1.0 / three;
    fesetround(FE_TONEAREST);
    check(ru != rn, "RU(1/3) and RN(1/3) differ");
    check(diag_solve(0, 3.0, 1.0, rn, "nearest") == 0, "dgetrs under FE_TONEAREST: X is not RN(1/3)");
    fesetround(FE_UPWARD);
    check(diag_solve(1, 3.0, 1.0, ru, "upward") == 0, "OpenBLAS's dgetrs under FE_UPWARD: X is not RU(1/3)");
    /* Three calls each: which thread takes which task varies from call to call. */
    for (int rep = 0; rep < 3; rep++)
        check(diag_solve(0, 3.0, 1.0, ru, "upward") == 0, "dgetrs under FE_UPWARD: X is not RU(1/3) everywhere");
    check(fegetround() == FE_UPWARD, "dgetrs changed the rounding mode");
    fesetround(FE_TONEAREST);
#if defined(__x86_64__)
    ftz_daz(1);
    check(diag_solve(1, 4.0, 0x1p-1022, 0.0, "FTZ") == 0, "OpenBLAS's dgetrs under FTZ: X is not 0");
    for (int rep = 0; rep < 3; rep++)
        check(diag_solve(0, 4.0, 0x1p-1022, 0.0, "FTZ") == 0, "dgetrs under FTZ: X is not 0 everywhere");
    check((mxcsr() & FTZ_DAZ) == FTZ_DAZ, "dgetrs changed FTZ/DAZ");
    ftz_daz(0);
    check(diag_solve(0, 4.0, 0x1p-1022, 0x1p-1024, "no FTZ") == 0, "dgetrs without FTZ: X is not 2^-1024");
#endif
#ifdef FENV_DEVICES
    fesetround(FE_UPWARD);
    check(gemm_sum(1, 1.0 + 0x1p-52) == 0, "OpenBLAS's dgemm under FE_UPWARD: C is not 1 + 2^-52");
    for (int rep = 0; rep < 3; rep++)
        check(gemm_sum(0, 1.0 + 0x1p-52) == 0, "dgemm under FE_UPWARD: C is not 1 + 2^-52 everywhere");
    fesetround(FE_TONEAREST);
    check(gemm_sum(0, 1.0) == 0, "dgemm under FE_TONEAREST: C is not 1");
#endif
    fl_clear();
    return finish(FENV_NAME);
}
