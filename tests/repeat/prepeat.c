/* tests/repeat/prepeat.c: `prepeat ROUTINE N NB P Q CALLS` makes CALLS calls of p?potrf_,
 * p?getrf_ or p?geqrf_ (compiled once per type: -DTYPE_S, -DTYPE_C, -DTYPE_Z, double without
 * one; complex inputs Hermitian for p?potrf) on one block-cyclic N×N matrix (seeded; diagonally dominant, so that
 * every routine's INFO is 0) on a P×Q grid with NB×NB blocks, each call on a fresh copy of the
 * input, and checks on every rank that every call returns the same bits as the first (the local
 * factors, and the pivots or tau). Prints, on rank 0, the FNV-1a checksum of rank 0's first
 * result (`bits=<hex>`, for comparing processes) and "prepeat: N calls, F differ"; exit status 1
 * when any call differed. Run by tests/repeat/run.sh under mpirun with hetla preloaded. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
int numroc_(const int *, const int *, const int *, const int *, const int *);
void descinit_(int *, const int *, const int *, const int *, const int *, const int *, const int *, const int *,
               const int *, int *);

/* The type: R its real, W reals per element, P(x) its routine's name. */
#if defined(TYPE_S)
typedef float R;
#define W 1
#define P(x) ps##x##_
#elif defined(TYPE_C)
typedef float R;
#define W 2
#define P(x) pc##x##_
#elif defined(TYPE_Z)
typedef double R;
#define W 2
#define P(x) pz##x##_
#else
typedef double R;
#define W 1
#define P(x) pd##x##_
#endif
void P(potrf)(const char *, const int *, R *, const int *, const int *, const int *, int *, size_t);
void P(getrf)(const int *, const int *, R *, const int *, const int *, const int *, int *, int *);
void P(geqrf)(const int *, const int *, R *, const int *, const int *, const int *, R *, R *, const int *,
              int *);

static uint64_t fnv(uint64_t h, const void *p, size_t bytes) {
    const unsigned char *c = p;
    for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 0x100000001b3ULL;
    return h;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc < 7) {
        fprintf(stderr, "usage: %s p?potrf|p?getrf|p?geqrf N NB P Q CALLS\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *routine = argv[1], *stem = argv[1] + 2;
    int n = atoi(argv[2]), nb = atoi(argv[3]), p = atoi(argv[4]), q = atoi(argv[5]), calls = atoi(argv[6]);
    int rank, ctxt, nprow, npcol, myrow, mycol, zero = 0, one = 1, info;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "R", p, q);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    int mloc = numroc_(&n, &nb, &myrow, &zero, &nprow), nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    int lld = mloc > 1 ? mloc : 1, desc[9];
    descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    size_t len = (size_t)lld * (size_t)(nloc > 0 ? nloc : 1) * W;
    R *a = malloc(sizeof(R) * len), *f = malloc(sizeof(R) * len), *f1 = malloc(sizeof(R) * len);
    /* Entry (gi, gj) from a hash of its global indices: the same matrix on every grid; for
     * p?potrf a hash of the unordered pair (the imaginary part's sign by the triangle: Hermitian),
     * n added to the real diagonal. */
    int herm = strcmp(stem, "potrf") == 0;
    for (int jl = 0; jl < nloc; jl++)
        for (int il = 0; il < mloc; il++) {
            int gi = (il / nb * nprow + myrow) * nb + il % nb, gj = (jl / nb * npcol + mycol) * nb + jl % nb;
            int lo = herm && gj < gi ? gj : gi, hi = herm && gj < gi ? gi : gj;
            uint64_t h = fnv(0xcbf29ce484222325ULL, &lo, sizeof lo);
            h = fnv(h, &hi, sizeof hi);
            double re = (double)(h >> 11) / 9007199254740992.0 - 0.5;
            double im = (double)((h * 0x9E3779B97F4A7C15ULL) >> 11) / 9007199254740992.0 - 0.5;
            if (herm && gi > gj) im = -im;
            if (gi == gj) re += n, im = herm ? 0.0 : im;
            size_t k = ((size_t)il + (size_t)jl * lld) * W;
            a[k] = (R)re;
            if (W == 2) a[k + W - 1] = (R)im;
        }
    size_t aux = (size_t)mloc + (size_t)nb + (size_t)nloc + 1;
    int *ipiv = calloc(aux, sizeof(int)), *ipiv1 = calloc(aux, sizeof(int));
    R *tau = calloc(aux * W, sizeof(R)), *tau1 = calloc(aux * W, sizeof(R));
    R wq[2];
    int lwork = -1;
    if (strcmp(stem, "geqrf") == 0) {
        P(geqrf)(&n, &n, a, &one, &one, desc, tau, wq, &lwork, &info);
        lwork = (int)wq[0];
    }
    R *work = malloc(sizeof(R) * W * (size_t)(lwork > 1 ? lwork : 1));
    int differ = 0;
    for (int c = 0; c < calls; c++) {
        memcpy(f, a, sizeof(R) * len);
        if (strcmp(stem, "potrf") == 0)
            P(potrf)("L", &n, f, &one, &one, desc, &info, 1);
        else if (strcmp(stem, "getrf") == 0)
            P(getrf)(&n, &n, f, &one, &one, desc, ipiv, &info);
        else
            P(geqrf)(&n, &n, f, &one, &one, desc, tau, work, &lwork, &info);
        if (info != 0) {
            fprintf(stderr, "prepeat: %s rank %d call %d: INFO %d\n", routine, rank, c + 1, info);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (c == 0) {
            memcpy(f1, f, sizeof(R) * len);
            memcpy(ipiv1, ipiv, sizeof(int) * aux);
            memcpy(tau1, tau, sizeof(R) * W * aux);
        } else if (memcmp(f, f1, sizeof(R) * len) || memcmp(ipiv, ipiv1, sizeof(int) * aux) ||
                   memcmp(tau, tau1, sizeof(R) * W * aux)) {
            fprintf(stderr, "prepeat: rank %d call %d: other bits than the first call's\n", rank, c + 1);
            differ++;
        }
    }
    int all = 0;
    MPI_Allreduce(&differ, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t h = fnv(0xcbf29ce484222325ULL, f1, sizeof(R) * len);
        h = fnv(h, ipiv1, sizeof(int) * aux);
        h = fnv(h, tau1, sizeof(R) * W * aux);
        printf("bits=%016llx\nprepeat: %d calls, %d differ\n", (unsigned long long)h, calls, all);
    }
    free(a), free(f), free(f1), free(ipiv), free(ipiv1), free(tau), free(tau1), free(work);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return all ? 1 : 0;
}
