/* pdgetrs and pdgesv against the reference ScaLAPACK in the same program.
 *
 * Usage: mpirun -np P*Q' pdgetrs_test ORDER P Q [SUBGRID]   (as pdpotrf_test)
 *
 * The matrix: 2 on the cyclic subdiagonal of sub(A) (element (j+1 mod N, j)) plus 0.1·noise, so
 * partial pivoting swaps rows at every step and the condition number stays below 2; for the
 * singular cases one column of sub(A) is zero.
 *
 * PDGETRS cases (TRANS N, T, C; N, NRHS, MB, sub(A) and sub(B) offsets, B's NB equal to or unlike
 * MB, sub(B) starting at column JB > 1): sub(A) is factored once by the reference `pdgetrf_`
 * (dlsym from libscalapack-openmpi.so), then `pdgetrs_` as the program resolves it (hetla when
 * preloaded or linked first) and the reference `pdgetrs_` solve with copies of the factors and
 * pivots. Checks: equal INFO; sub(B) equal to the reference's to 1e-13·N; every other element of
 * B's local array (outside sub(B), the LLD padding) unchanged; A entirely unchanged, IPIV's
 * LOCr(M_A) entries too (the MB after them are the reference's workspace).
 * Pivots that point outside sub(A) (the reference then swaps rows of B outside sub(B)): all of B
 * equal to the reference's.
 *
 * PDGESV cases (regular or singular): `pdgesv_` against the reference PDGETRF then PDGETRS (what
 * the reference PDGESV calls: calling it would reach hetla's exports again). Checks: equal INFO;
 * on success the factors, IPIV and sub(B) equal to the reference's, on failure B entirely
 * unchanged; everything outside sub(A) and sub(B) unchanged.
 *
 * One error exit is checked too. Prints one line per failure and
 * "pdgetrs_test: N cases, F failures"; exit status 1 on failure.
 */
#include "solve_util.h"

void pdgetrs_(const char *, const int *, const int *, const double *, const int *, const int *, const int *,
              const int *, double *, const int *, const int *, const int *, int *, size_t);
void pdgesv_(const int *, const int *, double *, const int *, const int *, const int *, int *, double *,
             const int *, const int *, const int *, int *);

typedef void (*getrf_fn)(const int *, const int *, double *, const int *, const int *, const int *, int *, int *);
typedef void (*getrs_fn)(const char *, const int *, const int *, const double *, const int *, const int *,
                         const int *, const int *, double *, const int *, const int *, const int *, int *, size_t);
static getrf_fn ref_getrf;
static getrs_fn ref_getrs;

typedef struct {
    int n, off, zcol; /* zcol: a zero column of sub(A), -1 for none */
} Gen;

static double gen(int gi, int gj, const void *c) {
    const Gen *g = c;
    int si = gi - g->off, sj = gj - g->off;
    int in = si >= 0 && si < g->n && sj >= 0 && sj < g->n;
    if (in && sj == g->zcol) return 0.0;
    double v = 0.1 * rnd(gi, gj, 3);
    if (in && si == (sj + 1) % g->n) v += 2.0;
    return v;
}

static double rhs(int gi, int gj, const void *c) {
    (void)c;
    return rnd(gi, gj, 11);
}

/* mode 0: PDGETRS with reference factors; 1: PDGESV; 2: PDGETRS with a pivot outside sub(A). */
static void run_case(int ctxt, int mode, char trans, int n, int nrhs, int mb, int o, int zcol) {
    int off = o * 2 * mb, rsrc = (o + 1) % nprow, csrc = o % npcol;
    Gen g = {n, off, zcol};
    Mat a = mat_new(ctxt, n + off + 2, n + off + 3, mb, mb, rsrc, csrc, gen, &g);
    int offb = (1 - o) * mb, jo = o ? 2 : 0, nbb = o ? mb + 1 : mb;
    int arow = (rsrc + off / mb) % nprow, rsrcb = ((arow - offb / mb) % nprow + nprow) % nprow;
    int mgb = n + offb + 3, ngb = nrhs + jo + 1;
    Mat b = mat_new(ctxt, mgb, ngb, mb, nbb, rsrcb, (csrc + 1) % npcol, rhs, NULL);
    int ia = off + 1, ja = off + 1, ib = offb + 1, jb = jo + 1, info1 = -99, info2 = -99;
    int np = a.mloc + mb;
    int *p0 = malloc(np * sizeof(int)), *p1 = malloc(np * sizeof(int)), *p2 = malloc(np * sizeof(int));
    for (int i = 0; i < np; i++) p0[i] = -5;
    double tol = 1e-13 * n;
    char why[300] = "", desc[160];
    const char *names[] = {"pdgetrs", "pdgesv", "pdgetrs pivot-outside"};
    snprintf(desc, sizeof desc, "%s trans=%c n=%d nrhs=%d mb=%d nbb=%d ia=%d ib=%d jb=%d zcol=%d", names[mode], trans,
             n, nrhs, mb, nbb, ia, ib, jb, zcol);
    double *a1 = mat_copy(&a), *a2 = mat_copy(&a), *b1 = mat_copy(&b), *b2 = mat_copy(&b);
    int badh = 0;
    if (mode != 1) {
        int finfo = 0;
        ref_getrf(&n, &n, a.v, &ia, &ja, a.desc, p0, &finfo); /* a.v, p0: the factors from here on */
        if (mode == 2)
            for (int li = 0; li < a.mloc; li++)
                if (gidx(li, mb, myrow, rsrc, nprow) == off) p0[li] = ia + n; /* row IA swaps with IA+N */
        memcpy(a1, a.v, a.sz * sizeof(double));
        memcpy(a2, a.v, a.sz * sizeof(double));
        memcpy(p1, p0, np * sizeof(int));
        memcpy(p2, p0, np * sizeof(int));
        pdgetrs_(&trans, &n, &nrhs, a1, &ia, &ja, a.desc, p1, b1, &ib, &jb, b.desc, &info1, 1);
        ref_getrs(&trans, &n, &nrhs, a2, &ia, &ja, a.desc, p2, b2, &ib, &jb, b.desc, &info2, 1);
        if (finfo != 0 || info1 != info2) {
            badh = 1;
            snprintf(why, sizeof why, "info %d, reference %d (factor info %d)", info1, info2, finfo);
        }
        /* IPIV's last MB entries are the reference's workspace (PDLAPIV): only LOCr(M_A) count. */
        for (int i = 0; i < a.mloc && !badh; i++)
            if (p1[i] != p0[i]) {
                badh = 1;
                snprintf(why, sizeof why, "IPIV(%d) changed", i + 1);
            }
        if (!badh) badh = check_region(&a, a.v, a1, NULL, 0, 0, 0, 0, 'F', 0, "A", why, sizeof why);
        if (!badh && mode == 0)
            badh = check_region(&b, b.v, b1, b2, offb, jo, n, nrhs, 'F', tol, "B", why, sizeof why);
        if (!badh && mode == 2) badh = check_region(&b, b.v, b1, b2, 0, 0, mgb, ngb, 'F', tol, "B", why, sizeof why);
    } else {
        for (int i = 0; i < np; i++) p1[i] = p2[i] = -5;
        pdgesv_(&n, &nrhs, a1, &ia, &ja, a.desc, p1, b1, &ib, &jb, b.desc, &info1);
        ref_getrf(&n, &n, a2, &ia, &ja, a.desc, p2, &info2);
        if (info2 == 0) ref_getrs("N", &n, &nrhs, a2, &ia, &ja, a.desc, p2, b2, &ib, &jb, b.desc, &info2, 1);
        if (info1 != info2 || (zcol >= 0) != (info2 > 0)) {
            badh = 1;
            snprintf(why, sizeof why, "info %d, reference %d", info1, info2);
        }
        for (int li = 0; li < a.mloc && !badh; li++) {
            int s = gidx(li, mb, myrow, rsrc, nprow) - off;
            if (s >= 0 && s < n && p1[li] != p2[li]) {
                badh = 1;
                snprintf(why, sizeof why, "IPIV of row %d = %d, reference %d", s, p1[li], p2[li]);
            }
        }
        if (!badh) badh = check_region(&a, a.v, a1, a2, off, off, n, n, 'F', tol, "A", why, sizeof why);
        if (!badh)
            badh = check_region(&b, b.v, b1, info2 == 0 ? b2 : NULL, offb, jo, n, nrhs, 'F', tol, "B", why,
                                sizeof why);
    }
    record(badh, desc, why);
    free(a.v), free(b.v), free(a1), free(a2), free(b1), free(b2), free(p0), free(p1), free(p2);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int ctxt;
    int in_grid = setup_grid(argc, argv, &ctxt);
    ref_getrf = (getrf_fn)reference("pdgetrf_");
    ref_getrs = (getrs_fn)reference("pdgetrs_");
    if (in_grid) {
        const int ns[] = {1, 7, 33}, nrhss[] = {1, 3, 11}, mbs[] = {1, 4, 8};
        for (int t = 0; t < 2; t++)
            for (int i = 0; i < 3; i++)
                for (int r = 0; r < 3; r++)
                    for (int m = 0; m < 3; m++)
                        for (int o = 0; o < 2; o++) {
                            char tr = t == 0 ? 'N' : o ? 'C' : 'T';
                            run_case(ctxt, 0, tr, ns[i], nrhss[r], mbs[m], o, -1);
                        }
        for (int i = 1; i < 3; i++)
            for (int m = 0; m < 3; m++)
                for (int z = 0; z < 2; z++) {
                    int n = ns[i];
                    run_case(ctxt, 1, 'N', n, z ? 2 : 5, mbs[m], (m + z) % 2, z ? (n * 2) / 3 : -1);
                }
        for (int t = 0; t < 2; t++)
            for (int m = 0; m < 3; m++) run_case(ctxt, 2, t ? 'T' : 'N', 7, 3, mbs[m], m % 2, -1);
        /* An error exit: IB not aligned to MB gives INFO = -10 from both. */
        {
            Gen g = {8, 0, -1};
            Mat a = mat_new(ctxt, 20, 20, 4, 4, 0, 0, gen, &g);
            Mat b = mat_new(ctxt, 20, 2, 4, 4, 0, 0, rhs, NULL);
            int *piv = calloc(a.mloc + 4, sizeof(int));
            int n = 8, nrhs = 2, one = 1, ib = 2, i1 = 0, i2 = 0;
            pdgetrs_("N", &n, &nrhs, a.v, &one, &one, a.desc, piv, b.v, &ib, &one, b.desc, &i1, 1);
            ref_getrs("N", &n, &nrhs, a.v, &one, &one, a.desc, piv, b.v, &ib, &one, b.desc, &i2, 1);
            char why[100];
            snprintf(why, sizeof why, "info %d, reference %d (want -10)", i1, i2);
            record(i1 != -10 || i2 != -10, "error exit", why);
            free(a.v), free(b.v), free(piv);
        }
        Cblacs_gridexit(ctxt);
    }
    return finish("pdgetrs_test");
}
