/* ffi-tests/test_xerbla.c: argument errors reach the system's xerbla_ as the reference's do.
 *
 * An application that does not replace xerbla_ gets the handler of its LAPACK (OpenBLAS's here,
 * which prints the routine name with %s and so relies on it being NUL-terminated). For one bad
 * argument of each of the eight routines the program captures what that handler prints when
 * hetla rejects the call and when the reference rejects it, and requires the same words (the
 * routine's name, the argument's position, nothing read past the name) and the same INFO.
 *
 * hetla-expect:
 */
#define FFI_SYSTEM_XERBLA
#include "common.h"

#include <unistd.h>

typedef void (*dpotrs_fn)(const char *, const int32_t *, const int32_t *, const double *, const int32_t *,
                          double *, const int32_t *, int32_t *, size_t);
typedef void (*dgetrs_fn)(const char *, const int32_t *, const int32_t *, const double *, const int32_t *,
                          const int32_t *, double *, const int32_t *, int32_t *, size_t);

static char g_out[2][512];

/* Runs call(which) with stdout and stderr sent to a temporary file; keeps what was printed. */
static void capture(int which, void (*call)(int), int arg) {
    FILE *tmp = tmpfile();
    fflush(stdout);
    fflush(stderr);
    int o = dup(1), e = dup(2);
    dup2(fileno(tmp), 1);
    dup2(fileno(tmp), 2);
    call(arg);
    fflush(stdout);
    fflush(stderr);
    dup2(o, 1);
    dup2(e, 2);
    close(o);
    close(e);
    rewind(tmp);
    size_t n = fread(g_out[which], 1, sizeof g_out[which] - 1, tmp);
    g_out[which][n] = 0;
    fclose(tmp);
}

/* Collapses runs of white space to one space and trims both ends, in place. */
static void squeeze(char *s) {
    char *w = s;
    for (const char *r = s; *r; r++) {
        int space = *r == ' ' || *r == '\n' || *r == '\t';
        if (space && (w == s || w[-1] == ' ')) continue;
        *w++ = space ? ' ' : *r;
    }
    if (w > s && w[-1] == ' ') w--;
    *w = 0;
}

static double a[64], b[64], work[64], tau[8];
static int32_t ipiv[8], info[2];
static const int32_t zero = 0, one = 1, two = 2, four = 4, five = 5, minus = -1;

/* Case k, by hetla (which = 0) or by the reference (which = 1). */
static void call_case(int k_which) {
    int k = k_which / 2, w = k_which % 2;
    int32_t *inf = &info[w];
    switch (k) {
    case 0: (w ? REF(dpotrf) : dpotrf_)("X", &one, a, &one, inf, 1); break;
    case 1: (w ? (dpotrs_fn)ref_sym("dpotrs_") : dpotrs_)("L", &five, &one, a, &five, b, &four, inf, 1); break;
    case 2: (w ? REF(dposv) : dposv_)("U", &two, &minus, a, &two, b, &two, inf, 1); break;
    case 3: (w ? REF(dgetrf) : dgetrf_)(&five, &five, a, &four, ipiv, inf); break;
    case 4: (w ? (dgetrs_fn)ref_sym("dgetrs_") : dgetrs_)("N", &two, &one, a, &one, ipiv, b, &two, inf, 1); break;
    case 5: (w ? REF(dgesv) : dgesv_)(&minus, &one, a, &one, ipiv, b, &one, inf); break;
    case 6: (w ? REF(dgeqrf) : dgeqrf_)(&four, &four, a, &four, tau, work, &two, inf); break;
    default: (w ? REF(dgels) : dgels_)("N", &five, &two, &one, a, &five, b, &four, work, &four, inf, 1); break;
    }
}

int main(void) {
    static const char *NAMES[] = {"dpotrf", "dpotrs", "dposv", "dgetrf", "dgetrs", "dgesv", "dgeqrf", "dgels"};
    (void)zero;
    for (int k = 0; k < 8; k++) {
        info[0] = info[1] = 12345;
        capture(0, call_case, 2 * k);
        capture(1, call_case, 2 * k + 1);
        /* OpenBLAS's own DGETRS leaves INFO unwritten (see common.h); in the reference mode the
         * "hetla" call is OpenBLAS's too. Its message is right all the same. */
        int ref_quirk = k == 4 && info[1] == 12345, ours_quirk = ref_quirk && getenv("FFI_REFERENCE");
        check((info[0] < 0 || ours_quirk) && (info[0] == info[1] || ref_quirk), "%s: INFO %d, reference %d", NAMES[k],
              info[0], info[1]);
        /* Same words; the spacing may differ (OpenBLAS pads "DGESV" where LAPACK passes "DGESV "). */
        squeeze(g_out[0]);
        squeeze(g_out[1]);
        check(strcmp(g_out[0], g_out[1]) == 0 && strstr(g_out[1], "parameter number") != NULL,
              "%s: hetla printed \"%s\", the reference \"%s\"", NAMES[k], g_out[0], g_out[1]);
    }
    return finish("test_xerbla");
}
