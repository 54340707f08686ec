/* tests/backends/threads.c: hetla preloaded into a program linked with one BLAS backend (built by
 * tests/backends/run.sh with -DBACKEND_OPENBLAS, -DBACKEND_MKL or -DBACKEND_BLIS). The program
 * sets the backend's thread count to 2 (MKL caps it at the core count), makes tiled LAPACK calls (HETLA_MIN_N=0) and a forwarded
 * one, and checks after each that the count is still its 2 (hetla sets 1 while its workers run
 * and must give the program its own setting back) and that each result is right (a randomized
 * residual). run.sh checks hetla's verbose output for the backend it found and its thread control.
 * Usage: threads [N] (default 301).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t fint;
void dpotrf_(const char *, const fint *, double *, const fint *, fint *, size_t);
void dgetrf_(const fint *, const fint *, double *, const fint *, fint *, fint *);
void dsyev_(const char *, const char *, const fint *, double *, const fint *, double *, double *, const fint *,
            fint *, size_t, size_t);

#if defined(BACKEND_OPENBLAS)
int openblas_get_num_threads(void);
void openblas_set_num_threads(int);
#define GET() openblas_get_num_threads()
#define SET(n) openblas_set_num_threads(n)
#elif defined(BACKEND_MKL)
int MKL_Get_Max_Threads(void);
void MKL_Set_Num_Threads(int);
#define GET() MKL_Get_Max_Threads()
#define SET(n) MKL_Set_Num_Threads(n)
#elif defined(BACKEND_BLIS)
int64_t bli_thread_get_num_threads(void);
void bli_thread_set_num_threads(int64_t);
#define GET() ((int)bli_thread_get_num_threads())
#define SET(n) bli_thread_set_num_threads(n)
#else
#error "build with -DBACKEND_OPENBLAS, -DBACKEND_MKL or -DBACKEND_BLIS"
#endif

static int failed;
static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok" : "FAILED", what);
    failed += !ok;
}

/* The spy's record (tests/backends/spy.c), when it is preloaded. */
static void (*spy_reset)(void);
static int (*spy_most)(void), (*spy_calls)(void);
static void spy_check(const char *what) {
    char msg[160];
    if (!spy_most)
        return;
    snprintf(msg, sizeof msg, "%s: the backend ran hetla's %d kernel calls on 1 thread (most seen %d)", what,
             spy_calls(), spy_most());
    check(spy_calls() > 0 && spy_most() == 1, msg);
}

static uint64_t state = 20261128;
static double uniform(void) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(state >> 11) * 0x1p-53 * 2.0 - 1.0;
}

int main(int argc, char **argv) {
    fint n = argc > 1 ? atoi(argv[1]) : 301, info = -1, lwork = 64 * n;
    double *a = malloc(sizeof(double) * n * n), *a0 = malloc(sizeof(double) * n * n), *v = malloc(sizeof(double) * n),
           *w = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *work = malloc(sizeof(double) * lwork);
    fint *ipiv = malloc(sizeof(fint) * n);
    spy_reset = (void (*)(void))dlsym(RTLD_DEFAULT, "spy_reset");
    spy_most = (int (*)(void))dlsym(RTLD_DEFAULT, "spy_most");
    spy_calls = (int (*)(void))dlsym(RTLD_DEFAULT, "spy_calls");
    SET(2);
    check(GET() == 2, "the backend takes a thread count of 2");

    /* DPOTRF on tiles: L*L^T*v against A*v. */
    for (fint j = 0; j < n; j++)
        for (fint i = 0; i <= j; i++) a[i + j * n] = a[j + i * n] = uniform() + (i == j ? n : 0);
    memcpy(a0, a, sizeof(double) * n * n);
    if (spy_reset)
        spy_reset();
    dpotrf_("L", &n, a, &n, &info, 1);
    spy_check("dpotrf");
    check(info == 0 && GET() == 2, "dpotrf: INFO 0, the program's thread count after the call");
    double num = 0, den = 0;
    for (fint i = 0; i < n; i++) v[i] = uniform();
    for (fint i = 0; i < n; i++) {
        w[i] = 0;
        for (fint k = i; k < n; k++) w[i] += a[k + i * n] * v[k];
    }
    for (fint i = 0; i < n; i++) {
        double s = 0, t = 0;
        for (fint k = 0; k <= i; k++) s += a[i + k * n] * w[k];
        for (fint k = 0; k < n; k++) t += a0[i + k * n] * v[k];
        num += (s - t) * (s - t), den += t * t;
    }
    check(sqrt(num / den) < 1e-13, "dpotrf: L*L^T = A");

    /* DGETRF on tiles. */
    for (fint k = 0; k < n * n; k++) a[k] = a0[k] = uniform();
    if (spy_reset)
        spy_reset();
    dgetrf_(&n, &n, a, &n, ipiv, &info);
    spy_check("dgetrf");
    check(info == 0 && GET() == 2, "dgetrf: INFO 0, the program's thread count after the call");
    num = den = 0;
    for (fint i = 0; i < n; i++) {
        w[i] = 0;
        for (fint k = i; k < n; k++) w[i] += a[i + k * n] * v[k];
    }
    for (fint i = 0; i < n; i++) {
        y[i] = w[i];
        for (fint k = 0; k < i; k++) y[i] += a[i + k * n] * w[k];
    }
    for (fint i = n - 1; i >= 0; i--) {
        double s = y[i];
        y[i] = y[ipiv[i] - 1], y[ipiv[i] - 1] = s;
    }
    for (fint i = 0; i < n; i++) {
        double t = 0;
        for (fint k = 0; k < n; k++) t += a0[i + k * n] * v[k];
        num += (y[i] - t) * (y[i] - t), den += t * t;
    }
    check(sqrt(num / den) < 1e-12, "dgetrf: P^T*L*U = A");

    /* DSYEV, which hetla forwards: the backend's own threads, the count untouched. */
    for (fint j = 0; j < n; j++)
        for (fint i = 0; i <= j; i++) a[i + j * n] = a[j + i * n] = uniform();
    dsyev_("N", "L", &n, a, &n, w, work, &lwork, &info, 1, 1);
    check(info == 0 && GET() == 2, "dsyev (forwarded): INFO 0, the thread count after the call");
    printf("%s\n", failed ? "FAIL" : "PASS");
    return failed != 0;
}
