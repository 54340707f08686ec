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
 * this does the same at the call boundary and forwards to the real PDLACON. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*pdlacon_fn)(int *, double *, int *, int *, int *, double *, int *, int *, int *,
                           int *, double *, int *);

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
