/* A test-harness shim for ScaLAPACK's own testers (tests/scalapack_suite.sh), preloaded in the
 * baseline and the hetla runs alike.
 *
 * Debian's ScaLAPACK 2.2.1 PDLACON reads its EST argument before it has written it: when an
 * estimate starts (KASE = 0) EST still holds whatever the caller's variable held, and PDPORFS
 * and PDGERFS pass a local they never set. The ranks of one process column then compare
 * against different garbage, take different branches and wait in different collectives: the
 * testers deadlock (or die with MPI_ERR_TRUNCATE or SIGSEGV) on their first problem on a grid
 * with more than one process row, in about half the runs, with or without hetla (valgrind:
 * "conditional jump depends on uninitialised value ... stack allocation in pdporfs_").
 * The current upstream source (Reference-ScaLAPACK/scalapack, issue #121) zeroes EST first;
 * this does the same at the call boundary and forwards to the real PDLACON. The other types'
 * estimators have the same defect (PSPORFS, PCPORFS, PZPORFS, ... hung xsllt on a 2x2 grid in
 * PSLACON's PSAMAX on one rank and PSASUM on another), so PSLACON (same arguments, REAL EST),
 * PCLACON and PZLACON (no ISGN; EST REAL and DOUBLE PRECISION) get the same treatment. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*pdlacon_fn)(int *, double *, int *, int *, int *, double *, int *, int *, int *,
                           int *, double *, int *);
typedef void (*pslacon_fn)(int *, void *, int *, int *, int *, void *, int *, int *, int *, int *,
                           float *, int *);
typedef void (*pclacon_fn)(int *, void *, int *, int *, int *, void *, int *, int *, int *, float *,
                           int *);
typedef void (*pzlacon_fn)(int *, void *, int *, int *, int *, void *, int *, int *, int *,
                           double *, int *);

/* The definition of `name` after this library; aborts when there is none. */
static void *next_of(const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        fprintf(stderr, "pdlacon_est0: no %s after this library\n", name);
        abort();
    }
    return p;
}

void pdlacon_(int *n, double *v, int *iv, int *jv, int *descv, double *x, int *ix, int *jx,
              int *descx, int *isgn, double *est, int *kase) {
    static pdlacon_fn next;
    if (!next) {
        next = (pdlacon_fn)dlsym(RTLD_NEXT, "pdlacon_");
        if (!next) {
            fprintf(stderr, "pdlacon_est0: no pdlacon_ after this library\n");
            abort();
        }
    }
    if (*kase == 0)
        *est = 0.0;
    next(n, v, iv, jv, descv, x, ix, jx, descx, isgn, est, kase);
}

void pslacon_(int *n, void *v, int *iv, int *jv, int *descv, void *x, int *ix, int *jx, int *descx,
              int *isgn, float *est, int *kase) {
    static pslacon_fn next;
    if (!next)
        next = (pslacon_fn)next_of("pslacon_");
    if (*kase == 0)
        *est = 0.0f;
    next(n, v, iv, jv, descv, x, ix, jx, descx, isgn, est, kase);
}

void pclacon_(int *n, void *v, int *iv, int *jv, int *descv, void *x, int *ix, int *jx, int *descx,
              float *est, int *kase) {
    static pclacon_fn next;
    if (!next)
        next = (pclacon_fn)next_of("pclacon_");
    if (*kase == 0)
        *est = 0.0f;
    next(n, v, iv, jv, descv, x, ix, jx, descx, est, kase);
}

void pzlacon_(int *n, void *v, int *iv, int *jv, int *descv, void *x, int *ix, int *jx, int *descx,
              double *est, int *kase) {
    static pzlacon_fn next;
    if (!next)
        next = (pzlacon_fn)next_of("pzlacon_");
    if (*kase == 0)
        *est = 0.0;
    next(n, v, iv, jv, descv, x, ix, jx, descx, est, kase);
}
