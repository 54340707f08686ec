/* pdpotrs and pdposv against the reference ScaLAPACK in the same program.
 *
 * Usage: mpirun -np P*Q' pdpotrs_test ORDER P Q [SUBGRID]   (as pdpotrf_test)
 *
 * PDPOTRS cases (uplo, N, NRHS, MB, sub(A) and sub(B) offsets, B's NB equal to or unlike MB,
 * sub(B) starting at column JB > 1): sub(A) is factored once by the reference `pdpotrf_` (taken
 * with dlsym from libscalapack-openmpi.so), then `pdpotrs_` as the program resolves it (hetla
 * when preloaded or linked first) and the reference `pdpotrs_` solve with copies of that factor.
 * Checks: equal INFO; sub(B) equal to the reference's to 1e-13·N (the matrix is diagonally
 * dominant, condition number below 3); every other element of B's local array (rows and columns
 * outside sub(B), the LLD padding) unchanged; A's local array entirely unchanged.
 *
 * PDPOSV cases (SPD or with a negative diagonal element): `pdposv_` against the reference
 * PDPOTRF then PDPOTRS (what the reference PDPOSV calls: calling it would reach hetla's exports
 * again). Checks: equal INFO; on success sub(B) and the factor equal to rounding, on failure B
 * entirely unchanged; everything outside sub(A)'s triangle and sub(B) unchanged.
 *
 * One error exit is checked too. Prints one line per failure and
 * "pdpotrs_test: N cases, F failures"; exit status 1 on failure.
 */
#include "solve_util.h"

void pdpotrs_(const char *, const int *, const int *, const double *, const int *, const int *, const int *,
              double *, const int *, const int *, const int *, int *, size_t);
void pdposv_(const char *, const int *, const int *, double *, const int *, const int *, const int *, double *,
             const int *, const int *, const int *, int *, size_t);

typedef void (*potrf_fn)(const char *, const int *, double *, const int *, const int *, const int *, int *,
                         size_t);
typedef void (*potrs_fn)(const char *, const int *, const int *, const double *, const int *, const int *,
                         const int *, double *, const int *, const int *, const int *, int *, size_t);
static potrf_fn ref_potrf;
static potrs_fn ref_potrs;

typedef struct {
    int n, off, bad;
} Spd;

/* Symmetric, diagonally dominant (so SPD) unless `bad` > 0: then diagonal element bad-1 of
 * sub(A) is negative. */
static double spd(int gi, int gj, const void *c) {
    const Spd *s = c;
    if (gi == gj) {
        if (s->bad > 0 && gi == s->off + s->bad - 1) return -1.0;
        return 2.0 * s->n + 1.0 + 0.01 * gi;
    }
    int lo = gi < gj ? gi : gj, hi = gi < gj ? gj : gi;
    return 1.0 / (1.0 + hi - lo) + 0.001 * ((lo * 7 + hi * 3) % 11);
}

static double rhs(int gi, int gj, const void *c) {
    (void)c;
    return rnd(gi, gj, 7);
}

/* One case; posv = 0: PDPOTRS with a reference factor, 1: PDPOSV. */
static void run_case(int ctxt, int posv, char uplo, int n, int nrhs, int mb, int o, int bad) {
    int off = o * 2 * mb, rsrc = o % nprow, csrc = o % npcol;
    Spd s = {n, off, bad};
    Mat a = mat_new(ctxt, n + off + 2, n + off + 2, mb, mb, rsrc, csrc, spd, &s);
    /* sub(B): rows aligned to MB on sub(A)'s process row (the routines require it), any column. */
    int offb = (1 - o) * mb, jo = o ? 2 : 0, nbb = o ? mb + 1 : mb;
    int arow = (rsrc + off / mb) % nprow, rsrcb = ((arow - offb / mb) % nprow + nprow) % nprow;
    Mat b = mat_new(ctxt, n + offb + 3, nrhs + jo + 1, mb, nbb, rsrcb, (csrc + 1) % npcol, rhs, NULL);
    int ia = off + 1, ja = off + 1, ib = offb + 1, jb = jo + 1, info1 = -99, info2 = -99;
    double tol = 1e-13 * n;
    char why[300] = "", desc[160];
    snprintf(desc, sizeof desc, "%s uplo=%c n=%d nrhs=%d mb=%d nbb=%d ia=%d ib=%d jb=%d bad=%d",
             posv ? "pdposv" : "pdpotrs", uplo, n, nrhs, mb, nbb, ia, ib, jb, bad);
    double *a1 = mat_copy(&a), *a2 = mat_copy(&a), *b1 = mat_copy(&b), *b2 = mat_copy(&b);
    int badh = 0;
    if (!posv) {
        int finfo = 0;
        ref_potrf(&uplo, &n, a.v, &ia, &ja, a.desc, &finfo, 1); /* a.v: the factor from here on */
        memcpy(a1, a.v, a.sz * sizeof(double));
        memcpy(a2, a.v, a.sz * sizeof(double));
        pdpotrs_(&uplo, &n, &nrhs, a1, &ia, &ja, a.desc, b1, &ib, &jb, b.desc, &info1, 1);
        ref_potrs(&uplo, &n, &nrhs, a2, &ia, &ja, a.desc, b2, &ib, &jb, b.desc, &info2, 1);
        if (finfo != 0 || info1 != info2) {
            badh = 1;
            snprintf(why, sizeof why, "info %d, reference %d (factor info %d)", info1, info2, finfo);
        }
        if (!badh) badh = check_region(&a, a.v, a1, NULL, 0, 0, 0, 0, 'F', 0, "A", why, sizeof why);
        if (!badh) badh = check_region(&b, b.v, b1, b2, offb, jo, n, nrhs, 'F', tol, "B", why, sizeof why);
    } else {
        pdposv_(&uplo, &n, &nrhs, a1, &ia, &ja, a.desc, b1, &ib, &jb, b.desc, &info1, 1);
        ref_potrf(&uplo, &n, a2, &ia, &ja, a.desc, &info2, 1);
        if (info2 == 0) ref_potrs(&uplo, &n, &nrhs, a2, &ia, &ja, a.desc, b2, &ib, &jb, b.desc, &info2, 1);
        if (info1 != info2 || (bad > 0) != (info2 > 0)) {
            badh = 1;
            snprintf(why, sizeof why, "info %d, reference %d", info1, info2);
        }
        /* The factor: equal to rounding on success; after a failure only what lies outside the
         * triangle is checked (pdpotrf_test compares the finished columns). */
        if (!badh)
            badh = check_region(&a, a.v, a1, info2 == 0 ? a2 : a1, off, off, n, n, uplo, tol, "A", why, sizeof why);
        if (!badh)
            badh = check_region(&b, b.v, b1, info2 == 0 ? b2 : NULL, offb, jo, n, nrhs, 'F', tol, "B", why,
                                sizeof why);
    }
    record(badh, desc, why);
    free(a.v), free(b.v), free(a1), free(a2), free(b1), free(b2);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int ctxt;
    int in_grid = setup_grid(argc, argv, &ctxt);
    ref_potrf = (potrf_fn)reference("pdpotrf_");
    ref_potrs = (potrs_fn)reference("pdpotrs_");
    if (in_grid) {
        const int ns[] = {1, 7, 33}, nrhss[] = {1, 3, 11}, mbs[] = {1, 4, 8};
        for (int u = 0; u < 2; u++)
            for (int i = 0; i < 3; i++)
                for (int r = 0; r < 3; r++)
                    for (int m = 0; m < 3; m++)
                        for (int o = 0; o < 2; o++) run_case(ctxt, 0, u ? 'U' : 'L', ns[i], nrhss[r], mbs[m], o, 0);
        for (int u = 0; u < 2; u++)
            for (int i = 1; i < 3; i++)
                for (int m = 0; m < 3; m++)
                    for (int bad = 0; bad < 2; bad++) {
                        int n = ns[i];
                        run_case(ctxt, 1, u ? 'U' : 'L', n, bad ? 2 : 5, mbs[m], (m + bad) % 2, bad ? (n * 2) / 3 + 1 : 0);
                    }
        /* An error exit: IB not aligned to MB gives INFO = -9 from both. */
        {
            Spd s = {8, 0, 0};
            Mat a = mat_new(ctxt, 20, 20, 4, 4, 0, 0, spd, &s);
            Mat b = mat_new(ctxt, 20, 2, 4, 4, 0, 0, rhs, NULL);
            int n = 8, nrhs = 2, one = 1, ib = 2, i1 = 0, i2 = 0;
            pdpotrs_("L", &n, &nrhs, a.v, &one, &one, a.desc, b.v, &ib, &one, b.desc, &i1, 1);
            ref_potrs("L", &n, &nrhs, a.v, &one, &one, a.desc, b.v, &ib, &one, b.desc, &i2, 1);
            char why[100];
            snprintf(why, sizeof why, "info %d, reference %d (want -9)", i1, i2);
            record(i1 != -9 || i2 != -9, "error exit", why);
            free(a.v), free(b.v);
        }
        Cblacs_gridexit(ctxt);
    }
    return finish("pdpotrs_test");
}
