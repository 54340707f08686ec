/* The other element types' ScaLAPACK routines against the reference ScaLAPACK in the same
 * program: compiled once per type (-DTYPE_S, -DTYPE_C or -DTYPE_Z; PDxxx are pd*_test.c's).
 *
 * Usage: mpirun -np P*Q' p?typed_test ORDER P Q [SUBGRID]   (as pdpotrf_test)
 *
 * Each case calls the routine as the program resolves it (hetla when preloaded or linked first)
 * and the reference's (dlsym from libscalapack-openmpi.so) on copies of the same local arrays,
 * with sub-matrices at offsets and padded local arrays, and checks: equal INFO; the results
 * (factors, pivots, TAU, solutions, Q, inverses) equal to the reference's to a tolerance of the
 * type's precision; every element outside what the routine may write unchanged, bit for bit.
 *   p?potrf (both triangles; Hermitian for complex; and a matrix that is not positive definite:
 *     the same INFO), p?potrs with the reference's factor, p?posv;
 *   p?getrf (pivots equal), p?getrs with TRANS = N, T and C, p?gesv;
 *   p?geqrf (and its workspace query: WORK(1) the reference's, as the real part for complex),
 *     p?orgqr / p?ungqr and p?ormqr / p?unmqr (SIDE L and R, TRANS N and T / C) from the
 *     reference's reflectors;
 *   p?trtri (both triangles, unit and non-unit), p?potri, p?getri (and its workspace query).
 * An error exit (P?UNMQR / P?ORMQR with the other type's TRANS letter: INFO = -2 from both).
 * Prints one line per failure and "p?typed_test: N cases, F failures"; exit status 1 on failure.
 */
#include <complex.h>

#include "solve_util.h"

#if defined(TYPE_S)
typedef float T;
#define CPLX 0
#define EPS 5.96e-8
#define TL "s"
#define ADJ 'T'
#define NOTADJ 'C'
#define Q_G "orgqr"
#define Q_M "ormqr"
#define SYM(x) ps##x
#define SYM_G psorgqr_
#define SYM_M psormqr_
#elif defined(TYPE_C)
typedef float _Complex T;
#define CPLX 1
#define EPS 5.96e-8
#define TL "c"
#define ADJ 'C'
#define NOTADJ 'T'
#define Q_G "ungqr"
#define Q_M "unmqr"
#define SYM(x) pc##x
#define SYM_G pcungqr_
#define SYM_M pcunmqr_
#elif defined(TYPE_Z)
typedef double _Complex T;
#define CPLX 1
#define EPS 1.11e-16
#define TL "z"
#define ADJ 'C'
#define NOTADJ 'T'
#define Q_G "ungqr"
#define Q_M "unmqr"
#define SYM(x) pz##x
#define SYM_G pzungqr_
#define SYM_M pzunmqr_
#else
#error "compile with -DTYPE_S, -DTYPE_C or -DTYPE_Z"
#endif

typedef const int *IP;
typedef void (*potrf_fn)(const char *, IP, T *, IP, IP, IP, int *, size_t);
typedef void (*potrs_fn)(const char *, IP, IP, T *, IP, IP, IP, T *, IP, IP, IP, int *, size_t);
typedef void (*posv_fn)(const char *, IP, IP, T *, IP, IP, IP, T *, IP, IP, IP, int *, size_t);
typedef void (*getrf_fn)(IP, IP, T *, IP, IP, IP, int *, int *);
typedef void (*getrs_fn)(const char *, IP, IP, T *, IP, IP, IP, int *, T *, IP, IP, IP, int *, size_t);
typedef void (*gesv_fn)(IP, IP, T *, IP, IP, IP, int *, T *, IP, IP, IP, int *);
typedef void (*geqrf_fn)(IP, IP, T *, IP, IP, IP, T *, T *, IP, int *);
typedef void (*orgqr_fn)(IP, IP, IP, T *, IP, IP, IP, T *, T *, IP, int *);
typedef void (*ormqr_fn)(const char *, const char *, IP, IP, IP, T *, IP, IP, IP, T *, T *, IP, IP, IP, T *, IP, int *,
                         size_t, size_t);
typedef void (*trtri_fn)(const char *, const char *, IP, T *, IP, IP, IP, int *, size_t, size_t);
typedef void (*potri_fn)(const char *, IP, T *, IP, IP, IP, int *, size_t);
typedef void (*getri_fn)(IP, T *, IP, IP, IP, int *, T *, IP, int *, IP, int *);

/* Each routine twice: as the program links it (`mine`: hetla when preloaded or linked ahead of
 * ScaLAPACK; named here so that the linker keeps -lhetla) and the reference's. The declarations
 * only name the symbols; each is called through the pointer type of its Fortran signature. */
extern void SYM(potrf_)(void), SYM(potrs_)(void), SYM(posv_)(void), SYM(getrf_)(void), SYM(getrs_)(void),
    SYM(gesv_)(void), SYM(geqrf_)(void), SYM_G(void), SYM_M(void), SYM(trtri_)(void), SYM(potri_)(void),
    SYM(getri_)(void);
#define BOTH(type, name) type mine_##name, ref_##name
static BOTH(potrf_fn, potrf);
static BOTH(potrs_fn, potrs);
static BOTH(posv_fn, posv);
static BOTH(getrf_fn, getrf);
static BOTH(getrs_fn, getrs);
static BOTH(gesv_fn, gesv);
static BOTH(geqrf_fn, geqrf);
static BOTH(orgqr_fn, orgqr);
static BOTH(ormqr_fn, ormqr);
static BOTH(trtri_fn, trtri);
static BOTH(potri_fn, potri);
static BOTH(getri_fn, getri);

#define RESOLVE(name, stem, sym)                            \
    do {                                                    \
        mine_##name = (name##_fn)sym;                       \
        ref_##name = (name##_fn)reference("p" TL stem "_"); \
    } while (0)

static const T GUARD = (T)-777.0;

static double mag(T x) {
#if CPLX
    return cabs((double _Complex)x);
#else
    return fabs((double)x);
#endif
}

/* A block-cyclic mg×ng matrix of T: this process's local array, 3 padding rows of GUARD. */
DEFINE_MAT(TMat, tmat, tentry_fn, T, GUARD)

static T *tcopy(const T *v, size_t n) {
    T *c = malloc((n ? n : 1) * sizeof(T));
    memcpy(c, v, n * sizeof(T));
    return c;
}

/* A random entry: parts in [-0.5, 0.5) (the imaginary part for complex types). */
static T ent(int gi, int gj, unsigned seed) {
#if CPLX
    return (T)(rnd(gi, gj, seed) + I * rnd(gi, gj, seed + 101));
#else
    return (T)rnd(gi, gj, seed);
#endif
}

typedef struct {
    int n, off, bad;
} Gen;

/* Hermitian (symmetric for real types) and diagonally dominant, so positive definite, unless
 * `bad` > 0: then diagonal element bad-1 of sub(A) is negative. */
static T hpd(int gi, int gj, const void *c) {
    const Gen *s = c;
    if (gi == gj) {
        if (s->bad > 0 && gi == s->off + s->bad - 1) return (T)-1.0;
        return (T)(2.0 * s->n + 1.0 + 0.01 * gi);
    }
    T v = ent(gi < gj ? gi : gj, gi < gj ? gj : gi, 3);
#if CPLX
    return gi < gj ? v : conj(v);
#else
    return v;
#endif
}

/* General, diagonal n added (well conditioned); `bad` > 0 zeroes column bad-1 of sub(A). */
static T gen(int gi, int gj, const void *c) {
    const Gen *s = c;
    if (s->bad > 0 && gj == s->off + s->bad - 1) return (T)0.0;
    return ent(gi, gj, 5) + (gi == gj ? (T)s->n : (T)0.0);
}

static T rhs(int gi, int gj, const void *c) {
    (void)c;
    return ent(gi, gj, 7);
}

/* Inside the region (global rows i0.., columns j0..; `tri` 'L'/'U' keeps that triangle, else
 * all): |got - want| <= tol·(1 + max|want|), or got == orig bitwise when want is NULL; outside it
 * and in the padding got == orig bitwise. Collective over gcomm. */
static int check(const TMat *m, const T *orig, const T *got, const T *want, int i0, int j0, int rows, int cols,
                 char tri, double tol, const char *what, char *why, size_t wn) {
    double amax = 0, g;
    if (want)
        for (size_t k = 0; k < m->sz; k++)
            if (want[k] != GUARD && mag(want[k]) > amax) amax = mag(want[k]);
    MPI_Allreduce(&amax, &g, 1, MPI_DOUBLE, MPI_MAX, gcomm);
    double bound = tol * (1.0 + g);
    for (int lj = 0; lj < m->nloc; lj++) {
        int gj = gidx(lj, m->nb, mycol, m->csrc, npcol);
        for (int li = 0; li < m->lld; li++) {
            size_t k = li + (size_t)lj * m->lld;
            int inside = 0, gi = -1;
            if (li < m->mloc) {
                gi = gidx(li, m->mb, myrow, m->rsrc, nprow);
                int si = gi - i0, sj = gj - j0;
                inside = si >= 0 && si < rows && sj >= 0 && sj < cols;
                if (tri == 'L') inside = inside && si >= sj;
                if (tri == 'U') inside = inside && si <= sj;
            }
            if (inside && want) {
                if (!(mag(got[k] - want[k]) <= bound)) {
                    snprintf(why, wn, "%s(%d,%d) off by %.3g (bound %.3g)", what, gi - i0, gj - j0,
                             mag(got[k] - want[k]), bound);
                    return 1;
                }
            } else if (memcmp(&got[k], &orig[k], sizeof(T)) != 0) {
                snprintf(why, wn, "%s(%d,%d) (%s) changed", what, gi, gj,
                         li >= m->mloc ? "padding" : (inside ? "inside" : "outside"));
                return 1;
            }
        }
    }
    return 0;
}

static int check_info(int i1, int i2, const char *what, char *why, size_t wn) {
    if (i1 == i2) return 0;
    snprintf(why, wn, "%s INFO %d, reference %d", what, i1, i2);
    return 1;
}

/* The local pivot vector of a matrix like `m` (LOCr(M_A) + MB_A entries), filled with -5. */
static int *piv_new(const TMat *m) {
    size_t n = (size_t)m->mloc + m->mb;
    int *p = malloc(n * sizeof(int));
    for (size_t k = 0; k < n; k++) p[k] = -5;
    return p;
}

/* The local TAU of a matrix like `m`: LOCc(N_A) entries, GUARD-filled. */
static T *tau_new(const TMat *m) {
    T *t = malloc((size_t)(m->nloc + 1) * sizeof(T));
    for (int k = 0; k <= m->nloc; k++) t[k] = GUARD;
    return t;
}

static double tol_for(int n) { return 200.0 * n * EPS; }

/* Cholesky: p?potrf (and a matrix that is not positive definite), p?potrs, p?posv. */
static void chol_case(int ctxt, char uplo, int n, int mb, int o, int bad) {
    int off = o * mb, rsrc = o % nprow, csrc = o % npcol, ia = off + 1, nrhs = 3;
    Gen s = {n, off, bad};
    TMat a = tmat(ctxt, n + off + 2, n + off + 2, mb, mb, rsrc, csrc, hpd, &s);
    char why[300] = "", desc[200];
    snprintf(desc, sizeof desc, "p%spotrf/potrs/posv uplo=%c n=%d mb=%d ia=%d bad=%d", TL, uplo, n, mb, ia, bad);
    T *a1 = tcopy(a.v, a.sz), *a2 = tcopy(a.v, a.sz);
    int i1 = -99, i2 = -99, e = 0;
    mine_potrf(&uplo, &n, a1, &ia, &ia, a.desc, &i1, 1);
    ref_potrf(&uplo, &n, a2, &ia, &ia, a.desc, &i2, 1);
    e = check_info(i1, i2, "potrf", why, sizeof why) || (bad > 0) != (i2 > 0);
    /* After a failure the reference stops at a block boundary and hetla at the column: only what
     * lies outside the triangle is compared then. */
    if (!e) e = check(&a, a.v, a1, i2 == 0 ? a2 : a1, off, off, n, n, uplo, tol_for(n), "L/U", why, sizeof why);
    if (!e && i2 == 0) {
        /* The solve with the reference's factor, and the driver. */
        TMat b = tmat(ctxt, n + off + 2, nrhs + 1, mb, mb, rsrc, (csrc + 1) % npcol, rhs, NULL);
        T *b1 = tcopy(b.v, b.sz), *b2 = tcopy(b.v, b.sz), *f1 = tcopy(a2, a.sz), *f2 = tcopy(a2, a.sz);
        int one = 1;
        mine_potrs(&uplo, &n, &nrhs, f1, &ia, &ia, a.desc, b1, &ia, &one, b.desc, &i1, 1);
        ref_potrs(&uplo, &n, &nrhs, f2, &ia, &ia, a.desc, b2, &ia, &one, b.desc, &i2, 1);
        e = check_info(i1, i2, "potrs", why, sizeof why);
        if (!e) e = check(&a, a2, f1, NULL, 0, 0, 0, 0, 'F', 0, "potrs A", why, sizeof why);
        if (!e) e = check(&b, b.v, b1, b2, off, 0, n, nrhs, 'F', tol_for(n), "potrs X", why, sizeof why);
        memcpy(b1, b.v, b.sz * sizeof(T));
        memcpy(a1, a.v, a.sz * sizeof(T));
        if (!e) {
            mine_posv(&uplo, &n, &nrhs, a1, &ia, &ia, a.desc, b1, &ia, &one, b.desc, &i1, 1);
            e = check_info(i1, 0, "posv", why, sizeof why);
        }
        if (!e) e = check(&a, a.v, a1, a2, off, off, n, n, uplo, tol_for(n), "posv L/U", why, sizeof why);
        if (!e) e = check(&b, b.v, b1, b2, off, 0, n, nrhs, 'F', tol_for(n), "posv X", why, sizeof why);
        free(b.v), free(b1), free(b2), free(f1), free(f2);
    }
    record(e, desc, why);
    free(a.v), free(a1), free(a2);
}

/* LU: p?getrf (pivots equal), p?getrs with TRANS = N, T, C, p?gesv. */
static void lu_case(int ctxt, int m, int n, int mb, int o, int bad) {
    int off = o * mb, rsrc = o % nprow, csrc = o % npcol, ia = off + 1, nrhs = 4, one = 1;
    Gen s = {n, off, bad};
    TMat a = tmat(ctxt, m + off + 2, n + off + 2, mb, mb, rsrc, csrc, gen, &s);
    char why[300] = "", desc[200];
    snprintf(desc, sizeof desc, "p%sgetrf/getrs/gesv m=%d n=%d mb=%d ia=%d bad=%d", TL, m, n, mb, ia, bad);
    T *a1 = tcopy(a.v, a.sz), *a2 = tcopy(a.v, a.sz);
    int *p1 = piv_new(&a), *p2 = piv_new(&a);
    int i1 = -99, i2 = -99, e;
    mine_getrf(&m, &n, a1, &ia, &ia, a.desc, p1, &i1);
    ref_getrf(&m, &n, a2, &ia, &ia, a.desc, p2, &i2);
    e = check_info(i1, i2, "getrf", why, sizeof why);
    if (!e) e = check(&a, a.v, a1, a2, off, off, m, n, 'F', tol_for(n), "LU", why, sizeof why);
    if (!e)
        for (int k = 0; k < a.mloc + a.mb && !e; k++) {
            int gi = gidx(k, a.mb, myrow, a.rsrc, nprow);
            int in = k < a.mloc && gi >= off && gi < off + (m < n ? m : n);
            /* Outside sub(A)'s first min(M, N) rows: unwritten, or (the reference itself, in a
             * run without hetla) what the reference writes there for the rest of the block. */
            if (in ? p1[k] != p2[k] : (p1[k] != -5 && p1[k] != p2[k])) {
                e = 1;
                snprintf(why, sizeof why, "IPIV(%d) local %d = %d, reference %d", gi, k, p1[k], p2[k]);
            }
        }
    if (!e && m == n && i2 == 0) {
        TMat b = tmat(ctxt, n + off + 2, nrhs + 1, mb, mb, rsrc, (csrc + 1) % npcol, rhs, NULL);
        T *b1 = tcopy(b.v, b.sz), *b2 = tcopy(b.v, b.sz);
        const char trans[3] = {'N', 'T', 'C'};
        for (int t = 0; t < 3 && !e; t++) {
            memcpy(b1, b.v, b.sz * sizeof(T));
            memcpy(b2, b.v, b.sz * sizeof(T));
            T *f1 = tcopy(a2, a.sz);
            mine_getrs(&trans[t], &n, &nrhs, f1, &ia, &ia, a.desc, p2, b1, &ia, &one, b.desc, &i1, 1);
            ref_getrs(&trans[t], &n, &nrhs, a2, &ia, &ia, a.desc, p2, b2, &ia, &one, b.desc, &i2, 1);
            char w[40];
            snprintf(w, sizeof w, "getrs %c", trans[t]);
            e = check_info(i1, i2, w, why, sizeof why);
            if (!e) e = check(&a, a2, f1, NULL, 0, 0, 0, 0, 'F', 0, w, why, sizeof why);
            if (!e) e = check(&b, b.v, b1, b2, off, 0, n, nrhs, 'F', tol_for(n), w, why, sizeof why);
            free(f1);
        }
        if (!e) {
            memcpy(b1, b.v, b.sz * sizeof(T));
            memcpy(b2, b.v, b.sz * sizeof(T));
            memcpy(a1, a.v, a.sz * sizeof(T));
            int *p3 = piv_new(&a);
            mine_gesv(&n, &nrhs, a1, &ia, &ia, a.desc, p3, b1, &ia, &one, b.desc, &i1);
            ref_getrs("N", &n, &nrhs, a2, &ia, &ia, a.desc, p2, b2, &ia, &one, b.desc, &i2, 1);
            e = check_info(i1, i2, "gesv", why, sizeof why);
            if (!e) e = check(&a, a.v, a1, a2, off, off, n, n, 'F', tol_for(n), "gesv LU", why, sizeof why);
            if (!e) e = check(&b, b.v, b1, b2, off, 0, n, nrhs, 'F', tol_for(n), "gesv X", why, sizeof why);
            free(p3);
        }
        free(b.v), free(b1), free(b2);
    }
    record(e, desc, why);
    free(a.v), free(a1), free(a2), free(p1), free(p2);
}

/* The reference's workspace size for a query that wrote `w`. */
static int lwork_of(T w) { return (int)creal((double _Complex)w) + 1; }

/* QR: p?geqrf (and its query), Q formed and applied from the reference's reflectors. */
static void qr_case(int ctxt, int m, int n, int mb, int o) {
    int off = o * mb, rsrc = o % nprow, csrc = o % npcol, ia = off + 1, mone = -1;
    Gen s = {n, off, 0};
    TMat a = tmat(ctxt, m + off + 2, n + off + 2, mb, mb, rsrc, csrc, gen, &s);
    char why[300] = "", desc[200];
    snprintf(desc, sizeof desc, "p%sgeqrf/%s/%s m=%d n=%d mb=%d ia=%d", TL, Q_G, Q_M, m, n, mb, ia);
    T *a1 = tcopy(a.v, a.sz), *a2 = tcopy(a.v, a.sz), *t1 = tau_new(&a), *t2 = tau_new(&a);
    T q1 = GUARD, q2 = GUARD;
    int i1 = -99, i2 = -99, e;
    mine_geqrf(&m, &n, a1, &ia, &ia, a.desc, t1, &q1, &mone, &i1);
    ref_geqrf(&m, &n, a2, &ia, &ia, a.desc, t2, &q2, &mone, &i2);
    e = check_info(i1, i2, "geqrf query", why, sizeof why);
    if (!e && memcmp(&q1, &q2, sizeof(T)) != 0) {
        e = 1;
        snprintf(why, sizeof why, "geqrf query WORK(1) %g, reference %g", creal((double _Complex)q1),
                 creal((double _Complex)q2));
    }
    int lwork = lwork_of(q2);
    T *w = malloc((size_t)lwork * sizeof(T));
    if (!e) {
        mine_geqrf(&m, &n, a1, &ia, &ia, a.desc, t1, w, &lwork, &i1);
        ref_geqrf(&m, &n, a2, &ia, &ia, a.desc, t2, w, &lwork, &i2);
        e = check_info(i1, i2, "geqrf", why, sizeof why);
    }
    if (!e) e = check(&a, a.v, a1, a2, off, off, m, n, 'F', tol_for(m), "QR", why, sizeof why);
    int k = m < n ? m : n;
    if (!e)
        for (int lj = 0; lj < a.nloc && !e; lj++) {
            int gj = gidx(lj, a.nb, mycol, a.csrc, npcol);
            if (gj >= off && gj < off + k && mag(t1[lj] - t2[lj]) > tol_for(m)) {
                e = 1;
                snprintf(why, sizeof why, "TAU(%d) off by %.3g", gj - off, mag(t1[lj] - t2[lj]));
            }
        }
    if (!e && m >= n) {
        /* Q's first n columns from the reference's reflectors. */
        T *g1 = tcopy(a2, a.sz), *g2 = tcopy(a2, a.sz);
        mine_orgqr(&m, &n, &k, g1, &ia, &ia, a.desc, t2, &q1, &mone, &i1);
        ref_orgqr(&m, &n, &k, g2, &ia, &ia, a.desc, t2, &q2, &mone, &i2);
        int lw = lwork_of(q2);
        T *w2 = malloc((size_t)lw * sizeof(T));
        mine_orgqr(&m, &n, &k, g1, &ia, &ia, a.desc, t2, w2, &lw, &i1);
        ref_orgqr(&m, &n, &k, g2, &ia, &ia, a.desc, t2, w2, &lw, &i2);
        e = check_info(i1, i2, Q_G, why, sizeof why);
        if (!e) e = check(&a, a2, g1, g2, off, off, m, n, 'F', tol_for(m), Q_G, why, sizeof why);
        free(g1), free(g2), free(w2);
        /* op(Q)·C and C·op(Q) with C of m rows (left) or m columns (right). */
        const char sides[2] = {'L', 'R'}, transs[2] = {'N', ADJ};
        for (int si = 0; si < 2 && !e; si++)
            for (int ti = 0; ti < 2 && !e; ti++) {
                int cm = si ? 5 : m, cn = si ? m : 6;
                TMat c = tmat(ctxt, cm + off + 1, cn + off + 1, mb, mb, rsrc, csrc, rhs, NULL);
                T *c1 = tcopy(c.v, c.sz), *c2 = tcopy(c.v, c.sz), *f1 = tcopy(a2, a.sz);
                ref_ormqr(&sides[si], &transs[ti], &cm, &cn, &k, a2, &ia, &ia, a.desc, t2, c2, &ia, &ia, c.desc,
                          &q2, &mone, &i2, 1, 1);
                int lw = lwork_of(q2);
                T *w3 = malloc((size_t)lw * sizeof(T));
                mine_ormqr(&sides[si], &transs[ti], &cm, &cn, &k, f1, &ia, &ia, a.desc, t2, c1, &ia, &ia, c.desc, w3,
                           &lw, &i1, 1, 1);
                ref_ormqr(&sides[si], &transs[ti], &cm, &cn, &k, a2, &ia, &ia, a.desc, t2, c2, &ia, &ia, c.desc, w3,
                          &lw, &i2, 1, 1);
                char wh[40];
                snprintf(wh, sizeof wh, "%s %c %c", Q_M, sides[si], transs[ti]);
                e = check_info(i1, i2, wh, why, sizeof why);
                if (!e) e = check(&a, a2, f1, NULL, 0, 0, 0, 0, 'F', 0, wh, why, sizeof why);
                if (!e) e = check(&c, c.v, c1, c2, off, off, cm, cn, 'F', tol_for(m), wh, why, sizeof why);
                free(c.v), free(c1), free(c2), free(f1), free(w3);
            }
    }
    record(e, desc, why);
    free(a.v), free(a1), free(a2), free(t1), free(t2), free(w);
}

/* Inverses: p?trtri, p?potri from the reference's factor, p?getri from the reference's LU. */
static void inv_case(int ctxt, int n, int mb, int o) {
    int off = o * mb, rsrc = o % nprow, csrc = o % npcol, ia = off + 1, mone = -1;
    char why[300] = "", desc[200];
    snprintf(desc, sizeof desc, "p%strtri/potri/getri n=%d mb=%d ia=%d", TL, n, mb, ia);
    int e = 0, i1 = -99, i2 = -99;
    Gen s = {n, off, 0};
    TMat g = tmat(ctxt, n + off + 2, n + off + 2, mb, mb, rsrc, csrc, gen, &s);
    const char uplos[2] = {'L', 'U'}, diags[2] = {'N', 'U'};
    for (int u = 0; u < 2 && !e; u++)
        for (int d = 0; d < 2 && !e; d++) {
            T *a1 = tcopy(g.v, g.sz), *a2 = tcopy(g.v, g.sz);
            mine_trtri(&uplos[u], &diags[d], &n, a1, &ia, &ia, g.desc, &i1, 1, 1);
            ref_trtri(&uplos[u], &diags[d], &n, a2, &ia, &ia, g.desc, &i2, 1, 1);
            char wh[40];
            snprintf(wh, sizeof wh, "trtri %c %c", uplos[u], diags[d]);
            e = check_info(i1, i2, wh, why, sizeof why);
            if (!e) e = check(&g, g.v, a1, a2, off, off, n, n, uplos[u], tol_for(n), wh, why, sizeof why);
            free(a1), free(a2);
        }
    TMat h = tmat(ctxt, n + off + 2, n + off + 2, mb, mb, rsrc, csrc, hpd, &s);
    for (int u = 0; u < 2 && !e; u++) {
        T *f = tcopy(h.v, h.sz);
        ref_potrf(&uplos[u], &n, f, &ia, &ia, h.desc, &i2, 1);
        T *a1 = tcopy(f, h.sz), *a2 = tcopy(f, h.sz);
        mine_potri(&uplos[u], &n, a1, &ia, &ia, h.desc, &i1, 1);
        ref_potri(&uplos[u], &n, a2, &ia, &ia, h.desc, &i2, 1);
        char wh[40];
        snprintf(wh, sizeof wh, "potri %c", uplos[u]);
        e = check_info(i1, i2, wh, why, sizeof why);
        if (!e) e = check(&h, f, a1, a2, off, off, n, n, uplos[u], tol_for(n), wh, why, sizeof why);
        free(f), free(a1), free(a2);
    }
    if (!e) {
        T *f = tcopy(g.v, g.sz);
        int *p = piv_new(&g);
        ref_getrf(&n, &n, f, &ia, &ia, g.desc, p, &i2);
        T *a1 = tcopy(f, g.sz), *a2 = tcopy(f, g.sz), q1 = GUARD, q2 = GUARD;
        int iq1 = -3, iq2 = -3;
        mine_getri(&n, a1, &ia, &ia, g.desc, p, &q1, &mone, &iq1, &mone, &i1);
        ref_getri(&n, a2, &ia, &ia, g.desc, p, &q2, &mone, &iq2, &mone, &i2);
        e = check_info(i1, i2, "getri query", why, sizeof why);
        if (!e && (memcmp(&q1, &q2, sizeof(T)) != 0 || iq1 != iq2)) {
            e = 1;
            snprintf(why, sizeof why, "getri query WORK(1) %g IWORK(1) %d, reference %g %d",
                     creal((double _Complex)q1), iq1, creal((double _Complex)q2), iq2);
        }
        int lw = lwork_of(q2), liw = iq2 + 1;
        T *w = malloc((size_t)lw * sizeof(T));
        int *iw = malloc((size_t)liw * sizeof(int));
        if (!e) {
            mine_getri(&n, a1, &ia, &ia, g.desc, p, w, &lw, iw, &liw, &i1);
            ref_getri(&n, a2, &ia, &ia, g.desc, p, w, &lw, iw, &liw, &i2);
            e = check_info(i1, i2, "getri", why, sizeof why);
        }
        if (!e) e = check(&g, f, a1, a2, off, off, n, n, 'F', tol_for(n), "getri", why, sizeof why);
        free(f), free(p), free(a1), free(a2), free(w), free(iw);
    }
    record(e, desc, why);
    free(g.v), free(h.v);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int ctxt;
    int in_grid = setup_grid(argc, argv, &ctxt);
    RESOLVE(potrf, "potrf", SYM(potrf_));
    RESOLVE(potrs, "potrs", SYM(potrs_));
    RESOLVE(posv, "posv", SYM(posv_));
    RESOLVE(getrf, "getrf", SYM(getrf_));
    RESOLVE(getrs, "getrs", SYM(getrs_));
    RESOLVE(gesv, "gesv", SYM(gesv_));
    RESOLVE(geqrf, "geqrf", SYM(geqrf_));
    RESOLVE(orgqr, Q_G, SYM_G);
    RESOLVE(ormqr, Q_M, SYM_M);
    RESOLVE(trtri, "trtri", SYM(trtri_));
    RESOLVE(potri, "potri", SYM(potri_));
    RESOLVE(getri, "getri", SYM(getri_));
    if (in_grid) {
        for (int o = 0; o < 2; o++)
            for (int mb = 4; mb <= 8; mb += 4) {
                for (int u = 0; u < 2; u++) {
                    chol_case(ctxt, u ? 'U' : 'L', 30, mb, o, 0);
                    chol_case(ctxt, u ? 'U' : 'L', 30, mb, o, 17);
                }
                lu_case(ctxt, 30, 30, mb, o, 0);
                lu_case(ctxt, 37, 23, mb, o, 0);
                lu_case(ctxt, 23, 37, mb, o, 0);
                lu_case(ctxt, 30, 30, mb, o, 12);
                qr_case(ctxt, 37, 23, mb, o);
                qr_case(ctxt, 30, 30, mb, o);
                qr_case(ctxt, 23, 37, mb, o);
                inv_case(ctxt, 30, mb, o);
            }
        /* The other type's TRANS letter: INFO = -2 from both (PXERBLA prints its line). */
        {
            Gen s = {8, 0, 0};
            TMat a = tmat(ctxt, 12, 12, 4, 4, 0, 0, gen, &s);
            TMat c = tmat(ctxt, 12, 3, 4, 4, 0, 0, rhs, NULL);
            T tau[16], w[4096];
            for (int t = 0; t < 16; t++) tau[t] = (T)0.5;
            int m = 8, n = 3, k = 4, one = 1, lw = 4096, i1 = 0, i2 = 0;
            mine_ormqr("L", (char[]){NOTADJ}, &m, &n, &k, a.v, &one, &one, a.desc, tau, c.v, &one, &one, c.desc, w,
                       &lw, &i1, 1, 1);
            ref_ormqr("L", (char[]){NOTADJ}, &m, &n, &k, a.v, &one, &one, a.desc, tau, c.v, &one, &one, c.desc, w,
                      &lw, &i2, 1, 1);
            char why[100];
            snprintf(why, sizeof why, "info %d, reference %d (want -2)", i1, i2);
            record(i1 != -2 || i2 != -2, "error exit: TRANS", why);
            free(a.v), free(c.v);
        }
        Cblacs_gridexit(ctxt);
    }
    return finish("p" TL "typed_test");
}
