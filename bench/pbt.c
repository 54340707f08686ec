/* bench/pbt.c: hetla's distributed block tridiagonal solver (pdbtsv_, pdbttrf_, pdbttrs_) under
 * mpirun against OpenBLAS's banded LU on one process.
 *
 * Run under `mpirun -np P` with one thread per rank (OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=
 * HETLA_NUM_THREADS=1, as bench/bt.sh does). For each N x M (block diagonally dominant, seeded)
 * it times, interleaved: OpenBLAS's DGBSV on rank 0 alone at BENCH_BLAS_THREADS threads (default
 * 2; loaded with dlmopen into a namespace of its own, so that neither it
 * nor the DGEMM/DTRSM it calls by name reach hetla) on the matrix as a band (kl = ku =
 * 2M - 1) while the other ranks wait without spinning (a non-blocking barrier polled every
 * 200 us), then hetla's pdbtsv_ on a 1 x P grid (rank r holds block rows [r*K, (r+1)*K),
 * K = ceil(N/P)), then pdbttrf_ and pdbttrs_ with those factors. A distributed call's time is
 * the slowest rank's, from a common barrier. Every result is checked (scaled residual of X
 * gathered on rank 0). Rank 0 prints one CSV line per size with medians:
 * n,m,nrhs,np,dgbsv_s,pdbtsv_s,pdbttrf_s,pdbttrs_s,speedup,residual.
 *
 * Usage: pbt [--sizes 512x64] [--reps 5] [--nrhs 1]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetla.h"

void Cblacs_pinfo(int *, int *);
void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridexit(int);

typedef void (*dgbsv_fn)(const int32_t *, const int32_t *, const int32_t *, const int32_t *, double *,
                         const int32_t *, int32_t *, double *, const int32_t *, int32_t *);
typedef void (*setthreads_fn)(int);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* A barrier that sleeps while it waits (MPI_Barrier polls a core at full speed, which would
 * take it from DGBSV's second thread). */
static void quiet_barrier(void) {
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (int done = 0;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return;
        struct timespec t = {0, 200 * 1000};
        nanosleep(&t, NULL);
    }
}

/* A short idle gap (OpenBLAS's pool threads spin for a while after a threaded call). */
static void idle_gap(void) {
    struct timespec t = {0, 250 * 1000 * 1000};
    nanosleep(&t, NULL);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int k) {
    qsort(v, k, sizeof *v, cmp);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

static uint64_t g_s = 12345;
static double unif(void) {
    uint64_t z = (g_s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

typedef struct {
    int n, m;
    double *dl, *d, *du;
} bt_t;

static double get(const bt_t *a, int i, int j) {
    int m = a->m, x = i / m, y = j / m, r = i % m, c = j % m;
    size_t mm = (size_t)m * m;
    if (x == y) return a->d[x * mm + r + (size_t)c * m];
    if (x == y + 1) return a->dl[y * mm + r + (size_t)c * m];
    if (y == x + 1) return a->du[x * mm + r + (size_t)c * m];
    return 0.0;
}

/* ||A x - b||_inf / (||A||_inf ||x||_inf n eps), first column. */
static double residual(const bt_t *a, const double *x, const double *b) {
    int nn = a->n * a->m, m = a->m;
    double rmax = 0, anorm = 0, xmax = 0;
    for (int i = 0; i < nn; i++) {
        int lo = (i / m > 0 ? i / m - 1 : 0) * m, hi = (i / m + 2) * m;
        if (hi > nn) hi = nn;
        double s = -b[i], ar = 0;
        for (int j = lo; j < hi; j++) {
            double v = get(a, i, j);
            s += v * x[j];
            ar += fabs(v);
        }
        rmax = fmax(rmax, fabs(s));
        anorm = fmax(anorm, ar);
        xmax = fmax(xmax, fabs(x[i]));
    }
    return rmax / (anorm * xmax * nn * 2.2e-16);
}

/* Seconds of the slowest rank. */
static double slowest(double t) {
    double w;
    MPI_Allreduce(&t, &w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return w;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const char *sizes = "512x64";
    int reps = 5, nrhs = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--nrhs")) nrhs = atoi(argv[i + 1]);
    }
    int me, np, ctxt;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "R", 1, np);
    void *h = dlmopen(LM_ID_NEWLM, "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "pbt: cannot dlmopen libopenblas.so.0\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    dgbsv_fn dgbsv = (dgbsv_fn)dlsym(h, "dgbsv_");
    setthreads_fn setthreads = (setthreads_fn)dlsym(h, "openblas_set_num_threads");
    const char *bt_env = getenv("BENCH_BLAS_THREADS");
    int blas_threads = bt_env ? atoi(bt_env) : 2;
    if (me == 0) printf("n,m,nrhs,np,dgbsv_s,pdbtsv_s,pdbttrf_s,pdbttrs_s,speedup,residual\n");
    char *list = strdup(sizes);
    int status = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int n, m;
        if (sscanf(tok, "%dx%d", &n, &m) != 2) continue;
        int nn = n * m, k = 2 * m - 1, ldab = 3 * k + 1;
        size_t mm = (size_t)m * m;
        g_s = 12345;
        bt_t a = {n, m, malloc(sizeof(double) * (n - 1) * mm + 8), malloc(sizeof(double) * n * mm),
                  malloc(sizeof(double) * (n - 1) * mm + 8)};
        for (size_t t = 0; t < (size_t)(n - 1) * mm; t++) a.dl[t] = unif(), a.du[t] = unif();
        for (size_t t = 0; t < n * mm; t++) a.d[t] = unif();
        for (int x = 0; x < n; x++)
            for (int j = 0; j < m; j++) a.d[x * mm + j + (size_t)j * m] += 3.0 * m;
        double *b = malloc(sizeof(double) * nn * nrhs);
        for (int i = 0; i < nn * nrhs; i++) b[i] = unif();
        /* This rank's rows. */
        int kk = (n + np - 1) / np, s = me * kk < n ? me * kk : n, e = (me + 1) * kk < n ? (me + 1) * kk : n;
        int nr = e - s, ldb = nr * m > 1 ? nr * m : 1;
        size_t loc = (size_t)nr * mm;
        double *dl = malloc(sizeof(double) * (loc + 1)), *d = malloc(sizeof(double) * (loc + 1)),
               *du = malloc(sizeof(double) * (loc + 1)), *lb = malloc(sizeof(double) * ldb * nrhs);
        int32_t laf = (int32_t)(2 * loc + 2), *ipiv = malloc(sizeof(int32_t) * (nr * m + 1)), info = 0;
        double *af = malloc(sizeof(double) * laf);
#define LOCAL()                                                                              \
    do {                                                                                     \
        for (int t = 0; t < nr; t++)                                                         \
            for (size_t q = 0; q < mm; q++) {                                                \
                int x = s + t;                                                               \
                d[t * mm + q] = a.d[x * mm + q];                                             \
                dl[t * mm + q] = x > 0 ? a.dl[(x - 1) * mm + q] : 0.0;                       \
                du[t * mm + q] = x < n - 1 ? a.du[x * mm + q] : 0.0;                         \
            }                                                                                \
        for (int c = 0; c < nrhs; c++)                                                       \
            for (int i = 0; i < nr * m; i++) lb[(size_t)c * ldb + i] = b[(size_t)c * nn + s * m + i]; \
    } while (0)
        double *ab0 = NULL, *ab = NULL, *x = NULL;
        int32_t *gpiv = NULL;
        if (me == 0) {
            ab0 = calloc((size_t)ldab * nn, sizeof(double));
            for (int j = 0; j < nn; j++)
                for (int i = j - k < 0 ? 0 : j - k; i < (j + k + 1 < nn ? j + k + 1 : nn); i++)
                    ab0[2 * k + i - j + (size_t)j * ldab] = get(&a, i, j);
            ab = malloc(sizeof(double) * ldab * nn);
            x = malloc(sizeof(double) * nn * nrhs);
            gpiv = malloc(sizeof(int32_t) * nn);
        }
        int *counts = malloc(sizeof(int) * np), *displs = malloc(sizeof(int) * np);
        for (int r = 0; r < np; r++) {
            int rs = r * kk < n ? r * kk : n, re = (r + 1) * kk < n ? (r + 1) * kk : n;
            counts[r] = (re - rs) * m;
            displs[r] = rs * m;
        }
        double *tg = malloc(sizeof(double) * reps), *tb = malloc(sizeof(double) * reps),
               *tf = malloc(sizeof(double) * reps), *ts = malloc(sizeof(double) * reps);
        double worst = 0;
        for (int r = -1; r < reps; r++) { /* r = -1: untimed warm-up */
            double tgr = 0;
            if (me == 0) {
                memcpy(ab, ab0, sizeof(double) * ldab * nn);
                memcpy(x, b, sizeof(double) * nn * nrhs);
                idle_gap();
                if (setthreads) setthreads(blas_threads);
                double t0 = now();
                dgbsv(&nn, &k, &k, &nrhs, ab, &ldab, gpiv, x, &nn, &info);
                tgr = now() - t0;
                if (setthreads) setthreads(1);
                double rg = residual(&a, x, b);
                if (info != 0 || !(rg < 30)) status = 1, fprintf(stderr, "dgbsv check failed: %g\n", rg);
            }
            quiet_barrier();
            LOCAL();
            idle_gap();
            quiet_barrier();
            double t0 = now();
            pdbtsv_(&n, &m, &nrhs, dl, d, du, lb, &ldb, &ctxt, &info);
            double tbr = slowest(now() - t0);
            if (info != 0) status = 1, fprintf(stderr, "pdbtsv info %d\n", info);
            MPI_Gatherv(lb, nr * m, MPI_DOUBLE, x, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (me == 0) {
                double rb = residual(&a, x, b);
                if (!(rb < 30)) status = 1, fprintf(stderr, "pdbtsv check failed: %g\n", rb);
                worst = fmax(worst, rb);
            }
            LOCAL();
            idle_gap();
            quiet_barrier();
            t0 = now();
            pdbttrf_(&n, &m, dl, d, du, af, &laf, ipiv, &ctxt, &info);
            double tfr = slowest(now() - t0);
            if (info != 0) status = 1, fprintf(stderr, "pdbttrf info %d\n", info);
            idle_gap();
            quiet_barrier();
            t0 = now();
            pdbttrs_("N", &n, &m, &nrhs, dl, d, du, af, &laf, ipiv, lb, &ldb, &ctxt, &info, 1);
            double tsr = slowest(now() - t0);
            MPI_Gatherv(lb, nr * m, MPI_DOUBLE, x, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (me == 0) {
                double rs = residual(&a, x, b);
                if (info != 0 || !(rs < 30)) status = 1, fprintf(stderr, "pdbttrs check failed: %g\n", rs);
            }
            if (r >= 0) tg[r] = tgr, tb[r] = tbr, tf[r] = tfr, ts[r] = tsr;
        }
        if (me == 0) {
            double mg = median(tg, reps), mb = median(tb, reps), mf = median(tf, reps), ms = median(ts, reps);
            printf("%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.2f,%.2g\n", n, m, nrhs, np, mg, mb, mf, ms, mg / mb, worst);
            fflush(stdout);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return status;
}
