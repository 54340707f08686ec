/* ffi-tests/test_gemm_types.c: sgemm_, cgemm_ and zgemm_ through hetla.h against OpenBLAS's own.
 *
 * For each type: every TRANSA/TRANSB pair of N, T and C in both cases (the complex types tell the
 * transpose 'T' from the adjoint 'C'), ALPHA and BETA complex for C and Z (with ALPHA = 0, BETA
 * = 0 and BETA = 1 among them), odd shapes with padded leading dimensions: C equal to the
 * reference's within 1000·eps relative (max norm), the padding rows untouched; BETA = 0 with NaN
 * in C gives no NaN; quick returns; each bad argument reaches xerbla_ as "SGEMM", "CGEMM" or
 * "ZGEMM" with the reference BLAS's position, C untouched. The hetla runs put the products on 3
 * emulated accelerators of 256K, forced, with tiles of 16, so every product of more than one tile
 * runs on the tile path with evictions.
 *
 * hetla-expect: sgemm=tiles cgemm=tiles zgemm=tiles
 * hetla-env: HETLA_EMULATE_GPUS=3 HETLA_EMULATE_GPU_MEM=256K HETLA_DEVICE_FORCE=1 HETLA_EMULATE_GPU_SPEED=1,2,4 HETLA_DEVICE_NB=16
 */
#include "common.h"

#define REFT(name) ((__typeof__(&name##_))ref_sym(#name "_"))

/* Whether xerbla_ received `want` (OpenBLAS passes the name's length with its NUL, the
 * reference BLAS with a trailing blank). */
static int named(const char *want) {
    size_t n = strlen(want);
    if (strncmp(g_xerbla_name, want, n) != 0) return 0;
    for (const char *p = g_xerbla_name + n; *p; p++)
        if (*p != ' ') return 0;
    return 1;
}

/* The padding rows' value, in every real part. */
#define PAD (-7777.25)

/* One type's tests: prefix P (the routine is P##gemm_), element E, real R, W reals per element,
 * upper-case name NAME, unit roundoff EPSV. */
#define DEFINE_GEMM(P, E, R, W, NAME, EPSV)                                                           \
    static E *P##_new(rng_t *r, int m, int n, int ld) {                                               \
        E *a = malloc(sizeof(E) * (size_t)ld * (size_t)(n > 0 ? n : 1));                             \
        R *x = (R *)a;                                                                                \
        for (int j = 0; j < n; j++)                                                                   \
            for (int i = 0; i < W * ld; i++) x[(size_t)j * ld * W + i] = i < W * m ? (R)rng_unif(r) : (R)PAD; \
        return a;                                                                                     \
    }                                                                                                 \
    static void P##_one(rng_t *r, char ta, char tb, int m, int n, int k, const R *alpha, const R *beta, \
                        int pad, int nan_c) {                                                         \
        int nota = ta == 'N' || ta == 'n', notb = tb == 'N' || tb == 'n';                             \
        int ar = nota ? m : k, ac = nota ? k : m, br = notb ? k : n, bc = notb ? n : k;               \
        int lda = MAX(ar, 1) + pad, ldb = MAX(br, 1) + pad, ldc = MAX(m, 1) + pad;                    \
        E *a = P##_new(r, ar, ac, lda), *b = P##_new(r, br, bc, ldb), *c = P##_new(r, m, n, ldc);     \
        if (nan_c)                                                                                    \
            for (int j = 0; j < n; j++)                                                               \
                for (int i = 0; i < W * m; i++) ((R *)c)[(size_t)j * ldc * W + i] = (R)NAN;           \
        size_t bytes = sizeof(E) * (size_t)ldc * (size_t)(n > 0 ? n : 1);                            \
        E *want = malloc(bytes), *got = malloc(bytes);                                                \
        memcpy(want, c, bytes);                                                                       \
        memcpy(got, c, bytes);                                                                        \
        int32_t M = m, N = n, K = k, LDA = lda, LDB = ldb, LDC = ldc;                                 \
        REFT(P##gemm)(&ta, &tb, &M, &N, &K, (const E *)alpha, a, &LDA, b, &LDB, (const E *)beta, want, &LDC, 1, 1); \
        P##gemm_(&ta, &tb, &M, &N, &K, (const E *)alpha, a, &LDA, b, &LDB, (const E *)beta, got, &LDC, 1, 1); \
        double norm = 0, diff = 0;                                                                    \
        int nans = 0, pad_ok = 1;                                                                     \
        for (int j = 0; j < n; j++)                                                                   \
            for (int i = 0; i < W * ldc; i++) {                                                       \
                size_t x = (size_t)j * ldc * W + i;                                                   \
                double g = ((R *)got)[x], w = ((R *)want)[x];                                         \
                if (i < W * m) {                                                                      \
                    nans += isnan(g);                                                                 \
                    norm = fmax(norm, fabs(w));                                                       \
                    diff = fmax(diff, fabs(g - w));                                                   \
                } else {                                                                              \
                    pad_ok &= g == (R)PAD;                                                            \
                }                                                                                     \
            }                                                                                         \
        check(nans == 0, #P "gemm %c%c %dx%dx%d: %d NaN in C", ta, tb, m, n, k, nans);                \
        check(diff <= 1000.0 * (EPSV) * norm || (norm == 0 && diff == 0),                             \
              #P "gemm %c%c m=%d n=%d k=%d alpha=(%g,%g) beta=(%g,%g): max diff %.3g, max |C| %.3g", ta, tb, \
              m, n, k, (double)alpha[0], W == 2 ? (double)alpha[W - 1] : 0.0, (double)beta[0],          \
              W == 2 ? (double)beta[W - 1] : 0.0, diff, norm);                                        \
        check(pad_ok, #P "gemm %c%c %dx%dx%d wrote outside C", ta, tb, m, n, k);                      \
        free(a);                                                                                      \
        free(b);                                                                                      \
        free(c);                                                                                      \
        free(want);                                                                                   \
        free(got);                                                                                    \
    }                                                                                                 \
    /* A call with one bad argument: xerbla_(NAME, pos), C unchanged. */                              \
    static void P##_bad(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc, int pos) {  \
        E a[64], b[64], c[64];                                                                        \
        R one_[2] = {1, 0}, half[2] = {0.5, 0};                                                       \
        memset(a, 0, sizeof a);                                                                       \
        memset(b, 0, sizeof b);                                                                       \
        for (int i = 0; i < W * 64; i++) ((R *)c)[i] = (R)i;                                          \
        int32_t M = m, N = n, K = k, LDA = lda, LDB = ldb, LDC = ldc;                                 \
        xerbla_reset();                                                                               \
        P##gemm_(&ta, &tb, &M, &N, &K, (const E *)one_, a, &LDA, b, &LDB, (const E *)half, c, &LDC, 1, 1); \
        check(g_xerbla_calls == 1 && named(NAME) && g_xerbla_info == pos,        \
              #P "gemm bad argument %d: xerbla_ called %d times, last (%s, %d)", pos, g_xerbla_calls,   \
              g_xerbla_name, g_xerbla_info);                                                          \
        int same = 1;                                                                                 \
        for (int i = 0; i < W * 64; i++) same &= ((R *)c)[i] == (R)i;                                 \
        check(same, #P "gemm bad argument %d: C changed", pos);                                       \
        xerbla_reset();                                                                               \
    }                                                                                                 \
    static void P##_tests(rng_t *r) {                                                                 \
        const char trans[] = "NTCntc";                                                                \
        const int shapes[][3] = {{1, 1, 1}, {37, 53, 29}, {61, 17, 100}, {130, 70, 41}};              \
        /* (re, im) pairs; the real type reads the first of each. */                                  \
        const R alphas[][2] = {{-2.5, 0.75}, {0, 0}, {1, 0}, {0, 1}};                                 \
        const R betas[][2] = {{0.5, -0.25}, {0, 0}, {1, 0}, {0, -1}, {0, 0}};                         \
        int s = 0;                                                                                    \
        for (int x = 0; x < 6; x++)                                                                   \
            for (int y = 0; y < 6; y++)                                                               \
                for (int q = 0; q < 4; q++, s++)                                                      \
                    P##_one(r, trans[x], trans[y], shapes[q][0], shapes[q][1], shapes[q][2], alphas[(s + x) % 4], \
                            betas[(s / 4) % 5], s % 3, 0);                                            \
        P##_one(r, 'N', 'C', 45, 38, 21, alphas[0], betas[1], 1, 1);                                  \
        P##_one(r, 'T', 'T', 45, 38, 21, alphas[1], betas[1], 2, 1);                                  \
        /* Quick returns: M = 0, N = 0, K = 0 with BETA = 1. */                                      \
        P##_one(r, 'N', 'N', 0, 5, 5, alphas[2], betas[0], 1, 0);                                     \
        P##_one(r, 'N', 'N', 5, 0, 5, alphas[2], betas[0], 1, 0);                                     \
        P##_one(r, 'N', 'N', 5, 5, 0, alphas[2], betas[2], 1, 0);                                     \
        P##_bad('X', 'N', 2, 2, 2, 2, 2, 2, 1);                                                       \
        P##_bad('N', 'H', 2, 2, 2, 2, 2, 2, 2);                                                       \
        P##_bad('N', 'N', -1, 2, 2, 2, 2, 2, 3);                                                      \
        P##_bad('N', 'N', 2, -1, 2, 2, 2, 2, 4);                                                      \
        P##_bad('N', 'N', 2, 2, -1, 2, 2, 2, 5);                                                      \
        P##_bad('C', 'N', 3, 2, 4, 3, 4, 3, 8);                                                       \
        P##_bad('N', 'T', 2, 3, 2, 2, 2, 2, 10);                                                      \
        P##_bad('N', 'N', 3, 2, 2, 3, 2, 2, 13);                                                      \
    }

DEFINE_GEMM(s, float, float, 1, "SGEMM", FLT_EPSILON / 2)
DEFINE_GEMM(c, struct hetla_complex_float, float, 2, "CGEMM", FLT_EPSILON / 2)
DEFINE_GEMM(z, struct hetla_complex_double, double, 2, "ZGEMM", DBL_EPSILON / 2)

int main(void) {
    rng_t r = {0x6E77};
    s_tests(&r);
    c_tests(&r);
    z_tests(&r);
    return finish("test_gemm_types");
}
