/* tests/repeat/repeat.c: `repeat [CALLS]` calls each LAPACK routine hetla runs CALLS times (10 by
 * default) on one seeded input, each call on a fresh copy of it, and checks that every call
 * returns the same bits as the first (every output array, INFO). The sizes lie in the learner's
 * band, so with an empty learning cache the first call of each routine comes after the
 * learner's trials. Prints one line per routine, `repeat <routine> bits=<hex>` (the FNV-1a
 * checksum of the first call's outputs, for comparing processes), then the common summary.
 * Run by tests/repeat/run.sh with hetla preloaded. */
#include "common.h"
#include <stdint.h>

enum { N = 500, M = 600, NRHS = 40, MAXLEN = M * M };

/* One routine's arrays: inputs (set once) and the copies each call works on. */
typedef struct {
    double a[MAXLEN], b[MAXLEN], tau[M], work[64 * M];
    int32_t ipiv[M], info;
} arrays;

static arrays in, out;

static uint64_t fnv(uint64_t h, const void *p, size_t bytes) {
    const unsigned char *c = p;
    for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 0x100000001b3ULL;
    return h;
}

static const int32_t n = N, m = M, nrhs = NRHS, lwork = 64 * M;

static void run(const char *routine) {
    memcpy(&out, &in, sizeof out);
    int32_t *info = &out.info, k = N, cm = M, cn = N / 2 + 50;
    if (!strcmp(routine, "dpotrf")) dpotrf_("L", &n, out.a, &n, info, 1);
    else if (!strcmp(routine, "dpotrs")) dpotrs_("L", &n, &nrhs, out.a, &n, out.b, &n, info, 1);
    else if (!strcmp(routine, "dposv")) dposv_("U", &n, &nrhs, out.a, &n, out.b, &n, info, 1);
    else if (!strcmp(routine, "dgetrf")) dgetrf_(&n, &n, out.a, &n, out.ipiv, info);
    else if (!strcmp(routine, "dgetrs")) dgetrs_("N", &n, &nrhs, out.a, &n, out.ipiv, out.b, &n, info, 1);
    else if (!strcmp(routine, "dgesv")) dgesv_(&n, &nrhs, out.a, &n, out.ipiv, out.b, &n, info);
    else if (!strcmp(routine, "dgeqrf")) dgeqrf_(&m, &n, out.a, &m, out.tau, out.work, &lwork, info);
    else if (!strcmp(routine, "dgels")) dgels_("N", &m, &n, &nrhs, out.a, &m, out.b, &m, out.work, &lwork, info, 1);
    else if (!strcmp(routine, "dorgqr")) dorgqr_(&m, &n, &k, out.a, &m, out.tau, out.work, &lwork, info);
    else if (!strcmp(routine, "dormqr"))
        dormqr_("L", "T", &cm, &cn, &k, out.a, &m, out.tau, out.b, &m, out.work, &lwork, info, 1, 1);
    else if (!strcmp(routine, "dtrtri")) dtrtri_("U", "N", &n, out.a, &n, info, 1, 1);
    else if (!strcmp(routine, "dpotri")) dpotri_("L", &n, out.a, &n, info, 1);
    else if (!strcmp(routine, "dgetri")) dgetri_(&n, out.a, &n, out.ipiv, out.work, &lwork, info);
    else check(0, "unknown routine %s", routine);
}

/* The input of `routine`: a matrix of its kind, factored first where the routine takes factors. */
static void prepare(const char *routine) {
    rng_t r = {12345};
    memset(&in, 0, sizeof in);
    double *g = mat_random(&r, M, M, M);
    memcpy(in.a, g, sizeof(double) * M * M);
    free(g);
    g = mat_random(&r, M, NRHS > N ? NRHS : N, M);
    memcpy(in.b, g, sizeof(double) * M * NRHS);
    free(g);
    int32_t info = 0, k = N;
    int spd = !strcmp(routine, "dpotrf") || !strcmp(routine, "dpotrs") || !strcmp(routine, "dposv") ||
              !strcmp(routine, "dpotri");
    if (spd) {
        double *s = mat_spd(&r, N, N);
        memcpy(in.a, s, sizeof(double) * N * N);
        free(s);
    }
    if (!strcmp(routine, "dpotrs") || !strcmp(routine, "dpotri")) dpotrf_("L", &n, in.a, &n, &info, 1);
    if (!strcmp(routine, "dgetrs") || !strcmp(routine, "dgetri")) dgetrf_(&n, &n, in.a, &n, in.ipiv, &info);
    if (!strcmp(routine, "dorgqr") || !strcmp(routine, "dormqr"))
        dgeqrf_(&m, &k, in.a, &m, in.tau, in.work, &lwork, &info);
    if (!strcmp(routine, "dtrtri"))
        for (int j = 0; j < N; j++) AT(in.a, N, j, j) += N; /* a well-conditioned upper triangle */
    check(info == 0, "%s: preparing the input: INFO %d", routine, info);
}

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 10;
    const char *routines[] = {"dpotrf", "dpotrs", "dposv",  "dgetrf", "dgetrs", "dgesv", "dgeqrf",
                              "dgels",  "dorgqr", "dormqr", "dtrtri", "dpotri", "dgetri"};
    for (size_t i = 0; i < sizeof routines / sizeof *routines; i++) {
        const char *rt = routines[i];
        prepare(rt);
        uint64_t first = 0;
        int differ = 0;
        for (int c = 0; c < calls; c++) {
            run(rt);
            check(out.info == 0, "%s call %d: INFO %d", rt, c + 1, out.info);
            /* WORK is scratch (its first element excepted): every other array is output. */
            uint64_t h = fnv(0xcbf29ce484222325ULL, out.a, sizeof out.a);
            h = fnv(h, out.b, sizeof out.b);
            h = fnv(h, out.tau, sizeof out.tau);
            h = fnv(h, out.ipiv, sizeof out.ipiv);
            h = fnv(h, out.work, sizeof(double));
            if (c == 0)
                first = h;
            else if (h != first)
                differ++;
        }
        check(differ == 0, "%s: %d of %d calls returned other bits than the first", rt, differ, calls);
        printf("repeat %s bits=%016llx\n", rt, (unsigned long long)first);
    }
    return finish("repeat");
}
