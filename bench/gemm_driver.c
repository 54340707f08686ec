/* bench/gemm_driver.c: the DGEMM benchmark's program (run by bench/gemm.sh).
 *
 *   gemm_driver overhead N SAMPLES [T]  per-call time of OpenBLAS's ?gemm_ of type T (s, d, c
 *                                    or z; d by default; dlsym in a dlopen'd libopenblas.so.0)
 *                                    and of the process's (hetla's when preloaded), interleaved;
 *                                    prints the medians and their ratio
 *   gemm_driver product N CALLS      C = A·B (BETA = 0) of order N, CALLS times through the
 *                                    process's dgemm_; prints each call's seconds (hetla's
 *                                    HETLA_VERBOSE line says what moved)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ?gemm_ of any type: the four take the same arguments, matrices and scalars by address. */
typedef void (*gemm_fn)(const char *, const char *, const int32_t *, const int32_t *, const int32_t *,
                        const void *, const void *, const int32_t *, const void *, const int32_t *, const void *,
                        void *, const int32_t *, size_t, size_t);
void dgemm_(const char *, const char *, const int32_t *, const int32_t *, const int32_t *, const double *,
            const double *, const int32_t *, const double *, const int32_t *, const double *, double *,
            const int32_t *, size_t, size_t);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *random_matrix(size_t n) {
    double *a = malloc(n * sizeof *a);
    uint64_t s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        a[i] = (double)(s >> 11) * 0x1.0p-53 - 0.5;
    }
    return a;
}

/* ALPHA = 1 and BETA = 0 in the type timed (set in main): floats for s and c, doubles for d and z. */
static union {
    double d[2];
    float f[4];
} g_one, g_zero;

/* Seconds per call of `f` on order-n matrices, over a batch long enough to time (~30 ms). */
static double per_call(gemm_fn f, int32_t n, const void *a, const void *b, void *c, long reps) {
    double t0 = now();
    for (long r = 0; r < reps; r++) f("N", "N", &n, &n, &n, &g_one, a, &n, b, &n, &g_zero, c, &n, 1, 1);
    return (now() - t0) / reps;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s overhead|product N COUNT [s|d|c|z]\n", argv[0]);
        return 2;
    }
    int32_t n = atoi(argv[2]);
    int count = atoi(argv[3]);
    /* Two doubles per element: room for every type. */
    double *a = random_matrix(2 * (size_t)n * n), *b = random_matrix(2 * (size_t)n * n);
    double *c = calloc(2 * (size_t)n * n, sizeof *c);
    if (strcmp(argv[1], "overhead") == 0) {
        char name[] = "dgemm_";
        if (argc > 4) name[0] = argv[4][0];
        if (name[0] == 's' || name[0] == 'c') {
            g_one.f[0] = 1.0f;
            /* The same values as floats, in place (float i lies at or below double i). */
            for (size_t i = 0; i < 2 * (size_t)n * n; i++) {
                ((float *)a)[i] = (float)a[i];
                ((float *)b)[i] = (float)b[i];
            }
        } else {
            g_one.d[0] = 1.0;
        }
        void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        gemm_fn ref = h ? (gemm_fn)dlsym(h, name) : NULL;
        gemm_fn own = (gemm_fn)dlsym(RTLD_DEFAULT, name);
        if (!ref || !own || !strchr("sdcz", name[0])) {
            fprintf(stderr, "cannot find OpenBLAS's and the process's %s\n", name);
            return 1;
        }
        /* Batch size: about 30 ms of calls. */
        long reps = 1;
        while (per_call(ref, n, a, b, c, reps) * reps < 0.03) reps *= 2;
        double *tr = malloc(count * sizeof *tr), *th = malloc(count * sizeof *th), *rat = malloc(count * sizeof *rat);
        for (int s = 0; s < count; s++) {
            if (s % 2 == 0) {
                tr[s] = per_call(ref, n, a, b, c, reps);
                th[s] = per_call(own, n, a, b, c, reps);
            } else {
                th[s] = per_call(own, n, a, b, c, reps);
                tr[s] = per_call(ref, n, a, b, c, reps);
            }
            rat[s] = th[s] / tr[s];
        }
        qsort(tr, count, sizeof *tr, cmp);
        qsort(th, count, sizeof *th, cmp);
        qsort(rat, count, sizeof *rat, cmp);
        printf("overhead %s n=%d calls_per_sample=%ld openblas_s=%.4e hetla_s=%.4e ratio=%.4f\n", name, n, reps,
               tr[count / 2], th[count / 2], rat[count / 2]);
    } else {
        const double one = 1.0, zero = 0.0;
        for (int r = 0; r < count; r++) {
            double t0 = now();
            dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
            printf("product n=%d call=%d seconds=%.4f\n", n, r, now() - t0);
            fflush(stdout);
        }
    }
    return 0;
}
