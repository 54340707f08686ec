/* tests/repeat/repeat.c: `repeat [CALLS]` calls each LAPACK routine hetla runs CALLS times (10 by
 * default) on one seeded input, each call on a fresh copy of it, and checks that every call
 * returns the same bits as the first (every output array, INFO). The sizes lie in the learner's
 * band, so with an empty learning cache the first call of each routine comes after the
 * learner's trials. Prints one line per routine, `repeat <routine> bits=<hex>` (the FNV-1a
 * checksum of the first call's outputs, for comparing processes), then the common summary.
 * Compiled once per element type (-DTYPE_S, -DTYPE_C, -DTYPE_Z; double without one), through
 * hetla.h's prototypes. Run by tests/repeat/run.sh with hetla preloaded. */
#include "common.h"
#include <stdint.h>

/* The type: its element E (hetla.h's complex structs for C and Z), W reals per element, its
 * routines' prefix, the adjoint's TRANS letter, and the names of Q's routines. */
#if defined(TYPE_S)
typedef float E;
typedef float R;
#define W 1
#define F(x) s##x##_
#define LETTER "s"
#define ADJ "T"
#define ORGQR sorgqr_
#define ORMQR sormqr_
#define Q_STEMS "orgqr", "ormqr"
#elif defined(TYPE_C)
typedef hetla_complex_float E;
typedef float R;
#define W 2
#define F(x) c##x##_
#define LETTER "c"
#define ADJ "C"
#define ORGQR cungqr_
#define ORMQR cunmqr_
#define Q_STEMS "ungqr", "unmqr"
#elif defined(TYPE_Z)
typedef hetla_complex_double E;
typedef double R;
#define W 2
#define F(x) z##x##_
#define LETTER "z"
#define ADJ "C"
#define ORGQR zungqr_
#define ORMQR zunmqr_
#define Q_STEMS "ungqr", "unmqr"
#else
typedef double E;
typedef double R;
#define W 1
#define F(x) d##x##_
#define LETTER "d"
#define ADJ "T"
#define ORGQR dorgqr_
#define ORMQR dormqr_
#define Q_STEMS "orgqr", "ormqr"
#endif

enum { N = 500, M = 600, NRHS = 40, MAXLEN = M * M };

/* One routine's arrays: inputs (set once) and the copies each call works on. */
typedef struct {
    E a[MAXLEN], b[MAXLEN], tau[M], work[64 * M];
    int32_t ipiv[M], info;
} arrays;

static arrays in, out;

static uint64_t fnv(uint64_t h, const void *p, size_t bytes) {
    const unsigned char *c = p;
    for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 0x100000001b3ULL;
    return h;
}

static const int32_t n = N, m = M, nrhs = NRHS, lwork = 64 * M;

static int is(const char *routine, const char *stem) { return !strcmp(routine + 1, stem); }

static void run(const char *routine) {
    memcpy(&out, &in, sizeof out);
    int32_t *info = &out.info, k = N, cm = M, cn = N / 2 + 50;
    if (is(routine, "potrf")) F(potrf)("L", &n, out.a, &n, info, 1);
    else if (is(routine, "potrs")) F(potrs)("L", &n, &nrhs, out.a, &n, out.b, &n, info, 1);
    else if (is(routine, "posv")) F(posv)("U", &n, &nrhs, out.a, &n, out.b, &n, info, 1);
    else if (is(routine, "getrf")) F(getrf)(&n, &n, out.a, &n, out.ipiv, info);
    else if (is(routine, "getrs")) F(getrs)("N", &n, &nrhs, out.a, &n, out.ipiv, out.b, &n, info, 1);
    else if (is(routine, "gesv")) F(gesv)(&n, &nrhs, out.a, &n, out.ipiv, out.b, &n, info);
    else if (is(routine, "geqrf")) F(geqrf)(&m, &n, out.a, &m, out.tau, out.work, &lwork, info);
    else if (is(routine, "gels")) F(gels)("N", &m, &n, &nrhs, out.a, &m, out.b, &m, out.work, &lwork, info, 1);
    else if (is(routine, "orgqr") || is(routine, "ungqr")) ORGQR(&m, &n, &k, out.a, &m, out.tau, out.work, &lwork, info);
    else if (is(routine, "ormqr") || is(routine, "unmqr"))
        ORMQR("L", ADJ, &cm, &cn, &k, out.a, &m, out.tau, out.b, &m, out.work, &lwork, info, 1, 1);
    else if (is(routine, "trtri")) F(trtri)("U", "N", &n, out.a, &n, info, 1, 1);
    else if (is(routine, "potri")) F(potri)("L", &n, out.a, &n, info, 1);
    else if (is(routine, "getri")) F(getri)(&n, out.a, &n, out.ipiv, out.work, &lwork, info);
    else check(0, "unknown routine %s", routine);
}

/* Element i of `x` from the reals of `re` and (complex types) `im`. */
static void fill(E *x, const double *re, const double *im, size_t len) {
    R *r = (R *)x;
    for (size_t i = 0; i < len; i++) {
        r[W * i] = (R)re[i];
        if (W == 2) r[W * i + W - 1] = (R)im[i];
    }
}

/* The input of `routine`: a matrix of its kind (complex: random imaginary parts, a Hermitian
 * positive definite one real symmetric), factored first where the routine takes factors. */
static void prepare(const char *routine) {
    rng_t r = {12345};
    memset(&in, 0, sizeof in);
    double *g = mat_random(&r, M, M, M), *h = mat_random(&r, M, M, M);
    fill(in.a, g, h, (size_t)M * M);
    free(g);
    free(h);
    g = mat_random(&r, M, NRHS > N ? NRHS : N, M);
    h = mat_random(&r, M, NRHS > N ? NRHS : N, M);
    fill(in.b, g, h, (size_t)M * NRHS);
    free(g);
    free(h);
    int32_t info = 0, k = N;
    if (is(routine, "potrf") || is(routine, "potrs") || is(routine, "posv") || is(routine, "potri")) {
        double *sp = mat_spd(&r, N, N), *zero = calloc((size_t)N * N, sizeof(double));
        memset(in.a, 0, sizeof in.a);
        fill(in.a, sp, zero, (size_t)N * N);
        free(sp);
        free(zero);
    }
    if (is(routine, "potrs") || is(routine, "potri")) F(potrf)("L", &n, in.a, &n, &info, 1);
    if (is(routine, "getrs") || is(routine, "getri")) F(getrf)(&n, &n, in.a, &n, in.ipiv, &info);
    if (is(routine, "orgqr") || is(routine, "ormqr") || is(routine, "ungqr") || is(routine, "unmqr"))
        F(geqrf)(&m, &k, in.a, &m, in.tau, in.work, &lwork, &info);
    if (is(routine, "trtri")) /* a well-conditioned upper triangle */
        for (int j = 0; j < N; j++) ((R *)in.a)[W * ((size_t)j + (size_t)j * N)] += N;
    check(info == 0, "%s: preparing the input: INFO %d", routine, info);
}

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 10;
    const char *stems[] = {"potrf", "potrs", "posv", "getrf", "getrs", "gesv",  "geqrf",
                           "gels",  Q_STEMS, "trtri", "potri", "getri"};
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
        char rt[16];
        snprintf(rt, sizeof rt, "%s%s", LETTER, stems[i]);
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
            h = fnv(h, out.work, sizeof(E));
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
