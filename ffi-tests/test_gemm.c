/* ffi-tests/test_gemm.c: dgemm_ through hetla.h against OpenBLAS's DGEMM.
 *
 * Every TRANSA/TRANSB (N, T, C in both cases), ALPHA in {0, 1, -2.5}, BETA in {0, 1, 0.5}, odd
 * shapes with padded leading dimensions: C equal to the reference's within 1e-13 relative (max
 * norm), the padding rows untouched; BETA = 0 with NaN in C gives no NaN; each bad argument
 * reaches xerbla_ as "DGEMM" with the reference BLAS's position, C untouched. The hetla runs put
 * the products on 3 emulated accelerators of 256K (declared speeds 1, 2, 4), forced, with tiles
 * of 16, so every product of more than one tile runs on the tile path with evictions.
 *
 * hetla-expect: dgemm=tiles
 * hetla-env: HETLA_EMULATE_GPUS=3 HETLA_EMULATE_GPU_MEM=256K HETLA_DEVICE_FORCE=1 HETLA_EMULATE_GPU_SPEED=1,2,4 HETLA_DEVICE_NB=16
 */
#include "common.h"

typedef void (*dgemm_fn)(const char *, const char *, const int32_t *, const int32_t *, const int32_t *,
                         const double *, const double *, const int32_t *, const double *, const int32_t *,
                         const double *, double *, const int32_t *, size_t, size_t);

static void one(rng_t *r, char ta, char tb, int m, int n, int k, double alpha, double beta, int pad, int nan_c) {
    int nota = ta == 'N' || ta == 'n', notb = tb == 'N' || tb == 'n';
    int ar = nota ? m : k, ac = nota ? k : m, br = notb ? k : n, bc = notb ? n : k;
    int lda = MAX(ar, 1) + pad, ldb = MAX(br, 1) + pad, ldc = MAX(m, 1) + pad;
    double *a = mat_random(r, lda, ac, lda), *b = mat_random(r, ldb, bc, ldb);
    double *c = mat_random(r, ldc, n, ldc);
    if (nan_c)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) AT(c, ldc, i, j) = NAN;
    double *want = mat_copy(c, ldc, n), *got = mat_copy(c, ldc, n);
    int32_t M = m, N = n, K = k, LDA = lda, LDB = ldb, LDC = ldc;
    REF(dgemm)(&ta, &tb, &M, &N, &K, &alpha, a, &LDA, b, &LDB, &beta, want, &LDC, 1, 1);
    dgemm_(&ta, &tb, &M, &N, &K, &alpha, a, &LDA, b, &LDB, &beta, got, &LDC, 1, 1);
    double norm = 0, diff = 0;
    int nans = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            norm = MAX(norm, fabs(AT(want, ldc, i, j)));
            if (isnan(AT(got, ldc, i, j))) nans++;
            diff = MAX(diff, fabs(AT(got, ldc, i, j) - AT(want, ldc, i, j)));
        }
    check(nans == 0, "dgemm %c%c %dx%dx%d: %d NaN in C", ta, tb, m, n, k, nans);
    check(diff <= 1e-13 * norm || (norm == 0 && diff == 0),
          "dgemm %c%c m=%d n=%d k=%d alpha=%g beta=%g: max diff %.3g, max |C| %.3g", ta, tb, m, n, k, alpha,
          beta, diff, norm);
    int pad_ok = 1;
    for (int j = 0; j < n; j++)
        for (int i = m; i < ldc; i++) pad_ok &= AT(got, ldc, i, j) == AT(c, ldc, i, j) || (isnan(AT(got, ldc, i, j)) && isnan(AT(c, ldc, i, j)));
    check(pad_ok, "dgemm %c%c %dx%dx%d wrote outside C", ta, tb, m, n, k);
    free(a);
    free(b);
    free(c);
    free(want);
    free(got);
}

/* Whether xerbla_ received "DGEMM" (OpenBLAS passes the name's length with its NUL). */
static int named_dgemm(void) {
    if (strncmp(g_xerbla_name, "DGEMM", 5) != 0) return 0;
    for (const char *p = g_xerbla_name + 5; *p; p++)
        if (*p != ' ') return 0;
    return 1;
}

/* A call with one bad argument: xerbla_("DGEMM", pos), C unchanged. */
static void bad(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc, int pos) {
    double a[64] = {0}, b[64] = {0}, c[64];
    for (int i = 0; i < 64; i++) c[i] = i;
    double one_ = 1.0, half = 0.5;
    int32_t M = m, N = n, K = k, LDA = lda, LDB = ldb, LDC = ldc;
    xerbla_reset();
    dgemm_(&ta, &tb, &M, &N, &K, &one_, a, &LDA, b, &LDB, &half, c, &LDC, 1, 1);
    check(g_xerbla_calls == 1 && named_dgemm() && g_xerbla_info == pos,
          "dgemm bad argument %d: xerbla_ called %d times, last (%s, %d)", pos, g_xerbla_calls, g_xerbla_name,
          g_xerbla_info);
    int same = 1;
    for (int i = 0; i < 64; i++) same &= c[i] == i;
    check(same, "dgemm bad argument %d: C changed", pos);
    xerbla_reset();
}

int main(void) {
    rng_t r = {2024};
    const char trans[] = "NTCntc";
    const int shapes[][3] = {{1, 1, 1}, {37, 53, 29}, {61, 17, 100}, {5, 90, 3}, {130, 70, 41}};
    const double alphas[] = {0.0, 1.0, -2.5}, betas[] = {0.0, 1.0, 0.5};
    int s = 0;
    for (int x = 0; x < 6; x++)
        for (int y = 0; y < 6; y++)
            for (int q = 0; q < 5; q++, s++)
                one(&r, trans[x], trans[y], shapes[q][0], shapes[q][1], shapes[q][2], alphas[s % 3],
                    betas[(s / 3) % 3], s % 3, 0);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) one(&r, 'N', 'N', 97, 66, 150, alphas[i], betas[j], 1, 0);
    one(&r, 'N', 'N', 45, 38, 21, -2.5, 0.0, 1, 1);
    one(&r, 'T', 'T', 45, 38, 21, 0.0, 0.0, 2, 1);
    /* Quick returns: M = 0, N = 0, K = 0 with BETA = 1. */
    one(&r, 'N', 'N', 0, 5, 5, 1.0, 0.5, 1, 0);
    one(&r, 'N', 'N', 5, 0, 5, 1.0, 0.5, 1, 0);
    one(&r, 'N', 'N', 5, 5, 0, 1.0, 1.0, 1, 0);
    one(&r, 'N', 'N', 5, 5, 0, 1.0, 0.5, 1, 0);
    bad('X', 'N', 2, 2, 2, 2, 2, 2, 1);
    bad('N', '?', 2, 2, 2, 2, 2, 2, 2);
    bad('N', 'N', -1, 2, 2, 2, 2, 2, 3);
    bad('N', 'N', 2, -1, 2, 2, 2, 2, 4);
    bad('N', 'N', 2, 2, -1, 2, 2, 2, 5);
    bad('N', 'N', 3, 2, 2, 2, 2, 3, 8);
    bad('T', 'N', 3, 2, 4, 3, 4, 3, 8);
    bad('N', 'N', 2, 2, 3, 2, 2, 2, 10);
    bad('N', 'T', 2, 3, 2, 2, 2, 2, 10);
    bad('N', 'N', 3, 2, 2, 3, 2, 2, 13);
    return finish("test_gemm");
}
