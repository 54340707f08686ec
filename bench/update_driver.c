/* bench/update_driver.c: the update-placement benchmark's program (run by bench/update.sh).
 *
 *   update_driver ROUTINE N CALLS   ROUTINE = dpotrf | dgetrf | dgeqrf on a seeded N×N matrix
 *                                   (symmetric positive definite for dpotrf), CALLS times through
 *                                   the process's LAPACK symbol (hetla's when preloaded), each on
 *                                   a fresh copy; prints each call's seconds and INFO (hetla's
 *                                   HETLA_VERBOSE line says what moved to and from the devices)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dpotrf_(const char *, const int32_t *, double *, const int32_t *, int32_t *, size_t);
void dgetrf_(const int32_t *, const int32_t *, double *, const int32_t *, int32_t *, int32_t *);
void dgeqrf_(const int32_t *, const int32_t *, double *, const int32_t *, double *, double *, const int32_t *,
             int32_t *);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s dpotrf|dgetrf|dgeqrf N CALLS\n", argv[0]);
        return 2;
    }
    const char *routine = argv[1];
    int32_t n = atoi(argv[2]);
    int calls = atoi(argv[3]);
    size_t nn = (size_t)n * n;
    double *a0 = malloc(nn * sizeof *a0), *a = malloc(nn * sizeof *a);
    uint64_t s = 12345;
    for (size_t j = 0; j < (size_t)n; j++)
        for (size_t i = 0; i <= j; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            double v = (double)(s >> 11) * 0x1.0p-53 - 0.5;
            a0[i + j * n] = v;
            a0[j + i * n] = v;
        }
    if (strcmp(routine, "dpotrf") == 0)
        for (size_t i = 0; i < (size_t)n; i++) a0[i + i * n] += n;
    int32_t *ipiv = malloc((size_t)n * sizeof *ipiv);
    double *tau = malloc((size_t)n * sizeof *tau);
    int32_t lwork = 64 * n;
    double *work = malloc((size_t)lwork * sizeof *work);
    for (int c = 0; c < calls; c++) {
        memcpy(a, a0, nn * sizeof *a);
        int32_t info = 0;
        double t0 = now();
        if (strcmp(routine, "dpotrf") == 0)
            dpotrf_("L", &n, a, &n, &info, 1);
        else if (strcmp(routine, "dgetrf") == 0)
            dgetrf_(&n, &n, a, &n, ipiv, &info);
        else if (strcmp(routine, "dgeqrf") == 0)
            dgeqrf_(&n, &n, a, &n, tau, work, &lwork, &info);
        else {
            fprintf(stderr, "unknown routine %s\n", routine);
            return 2;
        }
        printf("%s n=%d call=%d seconds=%.4f info=%d\n", routine, n, c, now() - t0, info);
        fflush(stdout);
    }
    free(a0);
    free(a);
    free(ipiv);
    free(tau);
    free(work);
    return 0;
}
