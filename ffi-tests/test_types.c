/* ffi-tests/test_types.c: the single and complex routines hetla runs, called from C through
 * hetla.h's prototypes (complex arguments as hetla_complex_float / hetla_complex_double).
 *
 * For S, C and Z on well-conditioned inputs (sizes not multiples of the tile size, LDA > M):
 * ?POTRF (U and L), ?POSV, ?POTRI, ?GETRF, ?GETRS (N and the type's adjoint, T or C), ?GESV,
 * ?GETRI, ?TRTRI, ?GEQRF, ?ORGQR/?UNGQR, ?ORMQR/?UNMQR, ?GELS each compared with OpenBLAS's own
 * routine on a copy of the same input: INFO and IPIV equal, every output within
 * 200·n·eps·max|reference| of the reference's, the padding rows past M untouched.
 *
 * hetla-expect: spotrf cpotrf zpotrf sgetrf cgetrf zgetrf sgetrs zgetrs sgesv cgesv sgeqrf cgeqrf zgeqrf sgels zgels strtri ctrtri zpotri sgetri zgetri sorgqr cungqr zunmqr
 */
#include "common.h"

#define REFT(name) ((__typeof__(&name##_))ref_sym(#name "_"))

/* A float's or a double's worth of sentinel in the padding. */
#define PAD (-7777.25)

/* max |x - y| over `len` reals of a column-major array of `w` reals per element (only rows
 * 0..m of each of the n columns), and max |y|. */
#define DEFINE_DIFF(R)                                                                              \
    static double diff_##R(const R *x, const R *y, int m, int n, int lda, int w, double *ymax) {    \
        double d = 0, mx = 0;                                                                       \
        for (int j = 0; j < n; j++)                                                                 \
            for (int i = 0; i < w * m; i++) {                                                       \
                size_t k = (size_t)j * (size_t)lda * (size_t)w + (size_t)i;                         \
                double a = (double)x[k], b = (double)y[k];                                          \
                d = fmax(d, isnan(a) ? INFINITY : fabs(a - b));                                     \
                mx = fmax(mx, fabs(b));                                                             \
            }                                                                                       \
        *ymax = mx;                                                                                 \
        return d;                                                                                   \
    }                                                                                               \
    static int pad_ok_##R(const R *x, int m, int n, int lda, int w) {                               \
        for (int j = 0; j < n; j++)                                                                 \
            for (int i = w * m; i < w * lda; i++)                                                   \
                if (x[(size_t)j * (size_t)lda * (size_t)w + (size_t)i] != (R)PAD) return 0;         \
        return 1;                                                                                   \
    }
DEFINE_DIFF(float)
DEFINE_DIFF(double)

/* The tests of one type: prefix P, element E, real R, W reals per element, the adjoint letter
 * ADJ, unit roundoff EPSV. Each array is lda×cols elements, the rows past m set to PAD. */
#define DEFINE_TYPE(P, E, R, W, ADJ, EPSV)                                                          \
    static E *P##_new(rng_t *r, int m, int n, int lda) {                                            \
        E *a = malloc(sizeof(E) * (size_t)lda * (size_t)n);                                         \
        R *x = (R *)a;                                                                              \
        for (int j = 0; j < n; j++)                                                                 \
            for (int i = 0; i < W * lda; i++)                                                       \
                x[(size_t)j * lda * W + i] = i < W * m ? (R)rng_unif(r) : (R)PAD;                   \
        return a;                                                                                   \
    }                                                                                               \
    static E *P##_copy(const E *a, int lda, int n) {                                                \
        E *b = malloc(sizeof(E) * (size_t)lda * (size_t)n);                                         \
        memcpy(b, a, sizeof(E) * (size_t)lda * (size_t)n);                                          \
        return b;                                                                                   \
    }                                                                                               \
    /* Hermitian (symmetric) positive definite: (A + Aᴴ)/2 + n·I. */                              \
    static E *P##_hpd(rng_t *r, int n, int lda) {                                                   \
        E *a = P##_new(r, n, n, lda);                                                               \
        R *x = (R *)a;                                                                              \
        for (int j = 0; j < n; j++)                                                                 \
            for (int i = 0; i <= j; i++) {                                                          \
                size_t ij = ((size_t)i + (size_t)j * lda) * W, ji = ((size_t)j + (size_t)i * lda) * W; \
                for (int c = 0; c < W; c++) {                                                       \
                    R v = (R)(0.5 * (x[ij + c] + (c ? -1 : 1) * x[ji + c]));                        \
                    x[ij + c] = v;                                                                  \
                    x[ji + c] = (R)((c ? -1 : 1) * v);                                              \
                }                                                                                   \
                if (i == j) {                                                                       \
                    x[ij] += (R)n;                                                                  \
                    if (W == 2) x[ij + W - 1] = 0;                                                  \
                }                                                                                   \
            }                                                                                       \
        return a;                                                                                   \
    }                                                                                               \
    static void P##_same(const char *what, const E *h, const E *ref, int m, int n, int lda) {       \
        double ymax, d = diff_##R((const R *)h, (const R *)ref, m, n, lda, W, &ymax);               \
        double tol = 200.0 * (m > n ? m : n) * (EPSV) * (ymax > 0 ? ymax : 1);                      \
        check(d <= tol, "%s: differs from the reference by %.3g (tolerance %.3g)", what, d, tol);  \
        check(pad_ok_##R((const R *)h, m, n, lda, W), "%s: wrote rows past M", what);               \
    }                                                                                               \
    static void P##_tests(rng_t *r) {                                                               \
        const char *t = #P;                                                                         \
        char what[96];                                                                              \
        int n = 37, lda = 48, ldb = 47, nrhs = 3, info = -99, rinfo = -98;                          \
        /* Cholesky, both triangles; POSV; POTRI; TRTRI on the factor. */                           \
        for (int u = 0; u < 2; u++) {                                                               \
            char uplo = "UL"[u], nd = 'N';                                                           \
            E *a = P##_hpd(r, n, lda), *b = P##_new(r, n, nrhs, ldb);                               \
            E *h = P##_copy(a, lda, n), *g = P##_copy(a, lda, n);                                   \
            P##potrf_(&uplo, &n, h, &lda, &info, 1);                                                \
            REFT(P##potrf)(&uplo, &n, g, &lda, &rinfo, 1);                                          \
            snprintf(what, sizeof what, "%spotrf %c", t, uplo);                                     \
            check(info == 0 && rinfo == 0, "%s: INFO %d, reference %d", what, info, rinfo);         \
            P##_same(what, h, g, n, n, lda);                                                        \
            E *hi = P##_copy(h, lda, n), *gi = P##_copy(h, lda, n);                                 \
            P##potri_(&uplo, &n, hi, &lda, &info, 1);                                               \
            REFT(P##potri)(&uplo, &n, gi, &lda, &rinfo, 1);                                         \
            snprintf(what, sizeof what, "%spotri %c", t, uplo);                                     \
            check(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);                   \
            P##_same(what, hi, gi, n, n, lda);                                                      \
            memcpy(hi, h, sizeof(E) * (size_t)lda * n);                                             \
            memcpy(gi, h, sizeof(E) * (size_t)lda * n);                                             \
            P##trtri_(&uplo, &nd, &n, hi, &lda, &info, 1, 1);                                       \
            REFT(P##trtri)(&uplo, &nd, &n, gi, &lda, &rinfo, 1, 1);                                 \
            snprintf(what, sizeof what, "%strtri %c N", t, uplo);                                   \
            check(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);                   \
            P##_same(what, hi, gi, n, n, lda);                                                      \
            E *hb = P##_copy(b, ldb, nrhs), *gb = P##_copy(b, ldb, nrhs);                           \
            memcpy(h, a, sizeof(E) * (size_t)lda * n);                                              \
            memcpy(g, a, sizeof(E) * (size_t)lda * n);                                              \
            P##posv_(&uplo, &n, &nrhs, h, &lda, hb, &ldb, &info, 1);                                \
            REFT(P##posv)(&uplo, &n, &nrhs, g, &lda, gb, &ldb, &rinfo, 1);                          \
            snprintf(what, sizeof what, "%sposv %c", t, uplo);                                      \
            check(info == 0 && rinfo == 0, "%s: INFO %d, reference %d", what, info, rinfo);         \
            P##_same(what, hb, gb, n, nrhs, ldb);                                                   \
            free(a); free(b); free(h); free(g); free(hi); free(gi); free(hb); free(gb);             \
        }                                                                                           \
        /* LU: GETRF, GETRS (N and the adjoint), GESV, GETRI. */                                    \
        {                                                                                           \
            E *a = P##_new(r, n, n, lda), *b = P##_new(r, n, nrhs, ldb);                            \
            E *h = P##_copy(a, lda, n), *g = P##_copy(a, lda, n);                                   \
            int32_t hp[64], gp[64];                                                                 \
            P##getrf_(&n, &n, h, &lda, hp, &info);                                                  \
            REFT(P##getrf)(&n, &n, g, &lda, gp, &rinfo);                                            \
            snprintf(what, sizeof what, "%sgetrf", t);                                              \
            check(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);                   \
            check(memcmp(hp, gp, sizeof(int32_t) * n) == 0, "%s: IPIV differs", what);             \
            P##_same(what, h, g, n, n, lda);                                                        \
            for (int k = 0; k < 2; k++) {                                                           \
                char tr = k ? (ADJ) : 'N';                                                          \
                E *hb = P##_copy(b, ldb, nrhs), *gb = P##_copy(b, ldb, nrhs);                       \
                P##getrs_(&tr, &n, &nrhs, g, &lda, gp, hb, &ldb, &info, 1);                         \
                REFT(P##getrs)(&tr, &n, &nrhs, g, &lda, gp, gb, &ldb, &rinfo, 1);                   \
                snprintf(what, sizeof what, "%sgetrs %c", t, tr);                                   \
                check(info == 0 && rinfo == 0, "%s: INFO %d, reference %d", what, info, rinfo);     \
                P##_same(what, hb, gb, n, nrhs, ldb);                                               \
                free(hb); free(gb);                                                                 \
            }                                                                                       \
            E *work = malloc(sizeof(E) * 64 * (size_t)n);                                          \
            int lwork = 64 * n;                                                                     \
            E *hi = P##_copy(g, lda, n), *gi = P##_copy(g, lda, n);                                 \
            P##getri_(&n, hi, &lda, gp, work, &lwork, &info);                                       \
            REFT(P##getri)(&n, gi, &lda, gp, work, &lwork, &rinfo);                                 \
            snprintf(what, sizeof what, "%sgetri", t);                                              \
            check(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);                   \
            P##_same(what, hi, gi, n, n, lda);                                                      \
            E *hb = P##_copy(b, ldb, nrhs), *gb = P##_copy(b, ldb, nrhs);                           \
            memcpy(h, a, sizeof(E) * (size_t)lda * n);                                              \
            memcpy(g, a, sizeof(E) * (size_t)lda * n);                                              \
            P##gesv_(&n, &nrhs, h, &lda, hp, hb, &ldb, &info);                                      \
            REFT(P##gesv)(&n, &nrhs, g, &lda, gp, gb, &ldb, &rinfo);                                \
            snprintf(what, sizeof what, "%sgesv", t);                                               \
            check(info == rinfo, "%s: INFO %d, reference %d", what, info, rinfo);                   \
            P##_same(what, hb, gb, n, nrhs, ldb);                                                   \
            free(a); free(b); free(h); free(g); free(hi); free(gi); free(hb); free(gb); free(work);  \
        }                                                                                           \
    }
DEFINE_TYPE(s, float, float, 1, 'T', FLT_EPSILON / 2)
DEFINE_TYPE(c, hetla_complex_float, float, 2, 'C', FLT_EPSILON / 2)
DEFINE_TYPE(z, hetla_complex_double, double, 2, 'C', DBL_EPSILON / 2)

/* QR: GEQRF on an m×n matrix, Q from ORGQR/UNGQR, op(Q)·C by ORMQR/UNMQR, GELS (N). Q's
 * routines are named apart by type (ORGQR real, UNGQR complex), hence one macro per name. */
#define DEFINE_QR(P, E, R, W, ADJ, EPSV, ORG, ORM)                                                  \
    static void P##_qr(rng_t *r) {                                                                  \
        const char *t = #P;                                                                         \
        char what[96];                                                                              \
        int n = 37, m = 45, lda = 48, ldb = 47, nrhs = 3, info = -99, rinfo = -98;                  \
        int lwork = 64 * m;                                                                         \
        E *work = malloc(sizeof(E) * (size_t)lwork), *tau = malloc(sizeof(E) * n);                 \
        E *gtau = malloc(sizeof(E) * n);                                                            \
        E *a = P##_new(r, m, n, lda), *h = P##_copy(a, lda, n), *g = P##_copy(a, lda, n);           \
        P##geqrf_(&m, &n, h, &lda, tau, work, &lwork, &info);                                       \
        REFT(P##geqrf)(&m, &n, g, &lda, gtau, work, &lwork, &rinfo);                                \
        snprintf(what, sizeof what, "%sgeqrf", t);                                                  \
        check(info == 0 && rinfo == 0, "%s: INFO %d, reference %d", what, info, rinfo);             \
        P##_same(what, h, g, m, n, lda);                                                            \
        P##_same("tau", tau, gtau, n, 1, n);                                                        \
        /* Q (m×n) from the reference's reflectors, by each library. */                            \
        E *hq = P##_copy(g, lda, n), *gq = P##_copy(g, lda, n);                                     \
        ORG##_(&m, &n, &n, hq, &lda, gtau, work, &lwork, &info);                                    \
        REFT(ORG)(&m, &n, &n, gq, &lda, gtau, work, &lwork, &rinfo);                                \
        snprintf(what, sizeof what, "%s", #ORG);                                                    \
        check(info == 0 && rinfo == 0, "%s: INFO %d, reference %d", what, info, rinfo);             \
        P##_same(what, hq, gq, m, n, lda);                                                          \
        /* op(Q)·C, C m×nrhs, left side, N and the adjoint. */                                     \
        E *c0 = P##_new(r, m, nrhs, ldb);                                                           \
        for (int k = 0; k < 2; k++) {                                                               \
            char side = 'L', tr = k ? (ADJ) : 'N';                                                  \
            E *hc = P##_copy(c0, ldb, nrhs), *gc = P##_copy(c0, ldb, nrhs);                         \
            ORM##_(&side, &tr, &m, &nrhs, &n, g, &lda, gtau, hc, &ldb, work, &lwork, &info, 1, 1);  \
            REFT(ORM)(&side, &tr, &m, &nrhs, &n, g, &lda, gtau, gc, &ldb, work, &lwork, &rinfo, 1, 1); \
            snprintf(what, sizeof what, "%s L %c", #ORM, tr);                                       \
            check(info == 0 && rinfo == 0, "%s: INFO %d, reference %d", what, info, rinfo);         \
            P##_same(what, hc, gc, m, nrhs, ldb);                                                   \
            free(hc); free(gc);                                                                     \
        }                                                                                           \
        /* GELS N: the least-squares solution in B's first n rows. */                              \
        {                                                                                           \
            char tr = 'N';                                                                          \
            E *hb = P##_copy(c0, ldb, nrhs), *gb = P##_copy(c0, ldb, nrhs);                         \
            memcpy(h, a, sizeof(E) * (size_t)lda * n);                                              \
            memcpy(g, a, sizeof(E) * (size_t)lda * n);                                              \
            P##gels_(&tr, &m, &n, &nrhs, h, &lda, hb, &ldb, work, &lwork, &info, 1);                \
            REFT(P##gels)(&tr, &m, &n, &nrhs, g, &lda, gb, &ldb, work, &lwork, &rinfo, 1);          \
            snprintf(what, sizeof what, "%sgels N", t);                                             \
            check(info == 0 && rinfo == 0, "%s: INFO %d, reference %d", what, info, rinfo);         \
            double ymax, d = diff_##R((const R *)hb, (const R *)gb, n, nrhs, ldb, W, &ymax);        \
            check(d <= 200.0 * m * (EPSV) * (ymax > 0 ? ymax : 1), "%s: X differs by %.3g", what, d); \
            check(pad_ok_##R((const R *)hb, m, nrhs, ldb, W), "%s: wrote rows past M", what);       \
            free(hb); free(gb);                                                                     \
        }                                                                                           \
        free(work); free(tau); free(gtau); free(a); free(h); free(g); free(hq); free(gq); free(c0); \
    }
DEFINE_QR(s, float, float, 1, 'T', FLT_EPSILON / 2, sorgqr, sormqr)
DEFINE_QR(c, hetla_complex_float, float, 2, 'C', FLT_EPSILON / 2, cungqr, cunmqr)
DEFINE_QR(z, hetla_complex_double, double, 2, 'C', DBL_EPSILON / 2, zungqr, zunmqr)

int main(void) {
    rng_t r = {0x5EED5};
    s_tests(&r);
    c_tests(&r);
    z_tests(&r);
    s_qr(&r);
    c_qr(&r);
    z_qr(&r);
    return finish("test_types");
}
