/* ffi-tests/test_nested.c: a call that hetla forwards stays the backend's all the way down.
 *
 * DPOTRI is disabled here (HETLA_DISABLE), so hetla hands it to the backend, whose DPOTRI calls
 * DTRTRI by its exported name and so reaches hetla's dtrtri_ again. That inner call must be
 * forwarded as well (`reason=nested`), although every direct call is forced onto tiles
 * (HETLA_MIN_N=0): the run's verbose lines must show the direct DTRTRI on tiles and the inner
 * one forwarded. Both results are checked: inv(A)·A = I for DPOTRI's inverse (after DPOTRF on
 * tiles) and inv(T)·T = I for the direct DTRTRI. hetla_last_path() must name each outer call's
 * own path after it returns (the inner DTRTRI finishes first and must not leave its path there).
 *
 * hetla-env: HETLA_DISABLE=dpotri
 * hetla-expect: dpotrf=tiles dpotri=forward dtrtri=tiles dtrtri=forward.reason=nested
 */
#include "common.h"

/* Weak, so that the preload build links without -lhetla; run without hetla, there is no path. */
#pragma weak hetla_last_path
static int path_is(const char *want) {
    return !hetla_last_path || !strcmp(hetla_last_path(), want);
}
#define LAST_PATH (hetla_last_path ? hetla_last_path() : "(no hetla)")

/* ‖X·A − I‖₁ / (n·‖A‖₁·‖X‖₁·eps) for the symmetric X and A given by their `uplo` triangles. */
static double inverse_residual(char uplo, int n, const double *a, const double *x, int lda) {
    double worst = 0.0, na = 0.0, nx = 0.0;
#define SYM(m, i, j) ((uplo == 'L') == ((i) >= (j)) ? AT(m, lda, i, j) : AT(m, lda, j, i))
    for (int j = 0; j < n; j++) {
        double sa = 0.0, sx = 0.0, col = 0.0;
        for (int i = 0; i < n; i++) {
            double s = i == j ? -1.0 : 0.0;
            for (int k = 0; k < n; k++) s += SYM(x, i, k) * SYM(a, k, j);
            col += fabs(s);
            sa += fabs(SYM(a, i, j));
            sx += fabs(SYM(x, i, j));
        }
        worst = MAX(worst, col);
        na = MAX(na, sa);
        nx = MAX(nx, sx);
    }
#undef SYM
    return worst / ((double)n * na * nx * EPS);
}

int main(void) {
    rng_t r = {42};
    const int n = 45, lda = 47;
    const char uplo = 'L', diag = 'N';
    int info;

    check(path_is("none"), "hetla_last_path before any call: %s", LAST_PATH);
    double *a = mat_spd(&r, n, lda);
    double *f = mat_copy(a, lda, n);
    dpotrf_(&uplo, &n, f, &lda, &info, 1);
    check(info == 0, "dpotrf info %d", info);
    check(path_is("tiles"), "after dpotrf: %s", LAST_PATH);
    dpotri_(&uplo, &n, f, &lda, &info, 1);
    check(info == 0, "dpotri info %d", info);
    check(path_is("forward:disabled"), "after dpotri: %s", LAST_PATH);
    check_ratio(inverse_residual(uplo, n, a, f, lda), "dpotri inverse", n, n);
    check(padding_untouched(f, n, n, lda), "dpotri wrote outside A");

    /* A well-conditioned lower triangle: the direct DTRTRI, on tiles. */
    double *t = mat_random(&r, n, n, lda);
    for (int j = 0; j < n; j++) AT(t, lda, j, j) = 4.0 + fabs(AT(t, lda, j, j));
    double *ti = mat_copy(t, lda, n);
    dtrtri_(&uplo, &diag, &n, ti, &lda, &info, 1, 1);
    check(info == 0, "dtrtri info %d", info);
    check(path_is("tiles"), "after dtrtri: %s", LAST_PATH);
    double worst = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double s = i == j ? -1.0 : 0.0;
            for (int k = j; k <= i; k++) s += AT(ti, lda, i, k) * AT(t, lda, k, j);
            worst = MAX(worst, fabs(s));
        }
    check(worst < 1e-13, "dtrtri: |inv(T)·T − I| = %.3g", worst);
    check(padding_untouched(ti, n, n, lda), "dtrtri wrote outside A");
    free(a);
    free(f);
    free(t);
    free(ti);
    return finish("test_nested");
}
