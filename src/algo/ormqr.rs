//! Q of a QR factorization on tiles, from the reflectors and tau any DGEQRF wrote (ARCHITECTURE.md,
//! decision 4): DORMQR (apply Q or Qᵀ to C from either side) and DORGQR (form Q's first columns
//! in place). One task generator each, for every runtime.
//!
//! Q = H_1·…·H_K. The reflectors are grouped by tile column of A (any grouping gives the same
//! Q): panel p holds kb_p = min(w_p, K − o_p) of them, o_p its column offset, V_p the tile rows
//! p.. of tile column p (unit lower trapezoidal). Each panel's T_p (H_1..·H_kb = I − V·T·Vᵀ,
//! Schreiber and Van Loan's compact WY form) is formed by one task from V_p and tau (DLARFT); it
//! reads only the reflectors, so every T can be formed at once.
//!
//! DORMQR, SIDE = L: C(o_p.., j) ← op(H_p)·C(o_p.., j) for every tile column j of C, panels in
//! order for Qᵀ and in reverse for Q; SIDE = R: C(i, o_p..) ← C(i, o_p..)·op(H_p) for every tile
//! row i, panels in order for Q and in reverse for Qᵀ. The 'L','T' update is the QR's own
//! trailing update (`Op::Larfb`, which devices run); the others are `Op::QrApply`.
//!
//! DORGQR (LAPACK's method, per tile column): each panel's V is first copied into a buffer (so
//! that the panel can be overwritten while updates still read V), its T formed from the copy;
//! the tile columns without reflectors start as the identity's columns; then for the panels from
//! the last to the first, H_p is applied to the tile columns right of it (rows o_p..) and the
//! panel's own columns become the first columns of H_p (the identity's columns, then the same
//! block-reflector update: LAPACK's DORG2R would do this column by column, at BLAS-2 speed).

use crate::graph::op::{tau_parts, OpElem};
use crate::graph::{prio, Graph, Op, Spec, TileId, Tiles, Tiling};
use crate::kernels::{Side, Trans};
use crate::runtime::shared::{Buffers, SharedGraph};
use crate::runtime::Seq;
use crate::scalar::Scalar;
use crate::tile::TiledMatrix;

/// Panel p's reflectors: (offset, count) for the tile columns of `t` that start before `k`.
fn panels(t: &Tiling, k: usize) -> Vec<(usize, usize)> {
    (0..t.nt())
        .take_while(|&p| t.col_offset(p) < k)
        .map(|p| (t.col_offset(p), t.cols(p).min(k - t.col_offset(p))))
        .collect()
}

/// Forms T_p of every panel in a buffer kept with tile (p, p); returns the buffers and where
/// each panel's V is read from: its tiles, or (`gathered`) a copy of them in a buffer P_p, so
/// that DORGQR may overwrite the panel while updates still read V.
fn form_ts<T: Scalar>(
    g: &mut impl Graph,
    t: &Tiling,
    pans: &[(usize, usize)],
    tau: &[T],
    gathered: bool,
) -> (Vec<TileId>, Vec<Vec<TileId>>) {
    let (mt, nt) = (t.mt(), t.nt());
    let (mut ts, mut vs) = (Vec::with_capacity(pans.len()), Vec::with_capacity(pans.len()));
    for (p, &(off, kb)) in pans.iter().enumerate() {
        let mut v: Vec<TileId> = (p..mt).map(|i| t.id(i, p)).collect();
        let dims = [t.m() - off, kb, 0];
        if gathered {
            let pb = g.buffer(t.m() - off, t.cols(p), t.id(p, p));
            let op = Op::Gather { p: Tiles::one(0), col: Tiles::stack(1, v.len()) };
            g.submit(Spec { op, prio: prio(nt, p, 3), step: p, dims, writes: &[pb], reads: &v });
            v = vec![pb];
        }
        let buf = g.buffer(kb, kb, t.id(p, p));
        let op =
            Op::QrT { t: Tiles::one(0), v: Tiles::stack(1, v.len()), tau: tau_parts(&tau[off..off + kb]) };
        g.submit(Spec { op, prio: prio(nt, p, 3), step: p, dims, writes: &[buf], reads: &v });
        ts.push(buf);
        vs.push(v);
    }
    (ts, vs)
}

/// DORMQR's tasks: the graph's matrix is A (the reflectors, nq×K, rows and columns cut alike),
/// C's tiles are `c` (tile (i, j) at `c[i + j·cmt]`, `cmt`×`cnt` tiles of `crows`×`ccols`
/// elements), cut like A's rows along Q's side (C's rows for SIDE = L, its columns for R).
#[allow(clippy::too_many_arguments)]
pub fn generate_ormqr<T: Scalar>(
    g: &mut impl Graph,
    side: Side,
    trans: Trans,
    tau: &[T],
    c: &[TileId],
    cmt: usize,
    crows: &[usize],
    ccols: &[usize],
) {
    let t = g.tiling().clone();
    let k = tau.len();
    assert!(k <= t.n() && k <= t.m(), "K reflectors in an nq×K matrix");
    let (ts, _) = form_ts(g, &t, &panels(&t, k), tau, false);
    generate_ormqr_with_t(g, side, trans, k, &ts, c, cmt, crows, ccols);
}

/// [`generate_ormqr`] for the K = `k` reflectors of a QR that is still in this graph, whose
/// panels already formed their T (`ts[p]`: T_p in its leading kb_p×kb_p, such as the TT
/// buffers [`super::geqrf::generate`] returns): DGELS applies Q without forming T twice, and
/// without knowing tau when it builds the graph.
#[allow(clippy::too_many_arguments)]
pub fn generate_ormqr_with_t(
    g: &mut impl Graph,
    side: Side,
    trans: Trans,
    k: usize,
    ts: &[TileId],
    c: &[TileId],
    cmt: usize,
    crows: &[usize],
    ccols: &[usize],
) {
    let t = g.tiling().clone();
    assert!(k <= t.n() && k <= t.m(), "K reflectors in an nq×K matrix");
    let pans = panels(&t, k);
    assert_eq!(ts.len(), pans.len(), "one T per panel");
    let mt = t.mt();
    let cnt = ccols.len();
    assert_eq!(c.len(), cmt * cnt);
    let np = pans.len();
    // Qᵀ from the left and Q from the right take the panels in order.
    let forward = (side == Side::Left) == (trans == Trans::Yes);
    let order: Vec<usize> = if forward { (0..np).collect() } else { (0..np).rev().collect() };
    for (s, &p) in order.iter().enumerate() {
        let (off, kb) = pans[p];
        let v: Vec<TileId> = (p..mt).map(|i| t.id(i, p)).collect();
        let h = v.len();
        let blocks: Vec<Vec<TileId>> = match side {
            Side::Left => (0..cnt).map(|j| (p..mt).map(|i| c[i + j * cmt]).collect()).collect(),
            Side::Right => (0..cmt).map(|i| (p..mt).map(|j| c[i + j * cmt]).collect()).collect(),
        };
        for (b, blk) in blocks.iter().enumerate() {
            let reads: Vec<TileId> = v.iter().copied().chain([ts[p]]).collect();
            let (vt, tt, ct) = (Tiles::stack(h, h), Tiles::one(2 * h), Tiles::stack(0, h));
            let op = if side == Side::Left && trans == Trans::Yes {
                Op::Larfb { v: vt, k: kb, t: tt, c: ct }
            } else {
                Op::QrApply { side, trans, v: vt, k: kb, t: tt, c: ct }
            };
            let dims = match side {
                Side::Left => [t.m() - off, ccols[b], kb],
                Side::Right => [crows[b], t.m() - off, kb],
            };
            g.submit(Spec { op, prio: prio(np, s, 1), step: s, dims, writes: blk, reads: &reads });
        }
    }
}

/// DORGQR's tasks: the graph's matrix is A (m×n, rows and columns cut alike), its first K =
/// tau.len() columns the reflectors; on return A holds Q's first n columns.
pub fn generate_orgqr<T: Scalar>(g: &mut impl Graph, tau: &[T]) {
    let t = g.tiling().clone();
    let (mt, nt, k) = (t.mt(), t.nt(), tau.len());
    assert!(t.n() <= t.m() && k <= t.n(), "DORGQR needs m ≥ n ≥ K");
    let pans = panels(&t, k);
    let np = pans.len();
    let (ts, vs) = form_ts(g, &t, &pans, tau, true);
    let column = |j: usize| -> Vec<TileId> { (0..mt).map(|i| t.id(i, j)).collect() };
    // Tile columns without reflectors: the identity's columns.
    for j in np..nt {
        let col = column(j);
        let op = Op::QrOrg { a: Tiles::stack(0, mt), row: t.col_offset(j), k: 0, vt: None };
        let dims = [t.m(), t.cols(j), 0];
        g.submit(Spec { op, prio: prio(nt, 0, 0), step: 0, dims, writes: &col, reads: &[] });
    }
    for p in (0..np).rev() {
        let (off, kb) = pans[p];
        let step = np - 1 - p;
        let h = mt - p;
        let reads = [vs[p][0], ts[p]];
        for j in p + 1..nt {
            let blk: Vec<TileId> = (p..mt).map(|i| t.id(i, j)).collect();
            let op = Op::QrApply {
                side: Side::Left,
                trans: Trans::No,
                v: Tiles::one(h),
                k: kb,
                t: Tiles::one(h + 1),
                c: Tiles::stack(0, h),
            };
            let dims = [t.m() - off, t.cols(j), kb];
            g.submit(Spec { op, prio: prio(np, step, 1), step, dims, writes: &blk, reads: &reads });
        }
        let col = column(p);
        let vt = Some((Tiles::one(mt), Tiles::one(mt + 1)));
        let op = Op::QrOrg { a: Tiles::stack(0, mt), row: off, k: kb, vt };
        let dims = [t.m() - off, t.cols(p), kb];
        g.submit(Spec { op, prio: prio(np, step, 2), step, dims, writes: &col, reads: &reads });
    }
}

/// The shared-memory DORMQR: C ← op(Q)·C or C·op(Q), Q from the reflectors in `a` (nq×K, rows
/// and columns cut alike) and `tau`; C's tiles along Q's side cut like A's rows. The T buffers
/// are kept in `store`.
pub fn ormqr<T: OpElem>(
    seq: &Seq,
    side: Side,
    trans: Trans,
    a: &TiledMatrix<T>,
    tau: &[T],
    c: &TiledMatrix<T>,
    store: &Buffers<T>,
) {
    let mut g = SharedGraph::with_buffers(seq, a, store);
    let ids = g.attach(c);
    let crows: Vec<usize> = (0..c.mt()).map(|i| c.tile_rows(i)).collect();
    let ccols: Vec<usize> = (0..c.nt()).map(|j| c.tile_cols(j)).collect();
    generate_ormqr(&mut g, side, trans, tau, &ids, c.mt(), &crows, &ccols);
}

/// The shared-memory DORGQR of `a` (m×n, rows and columns cut alike) with the scalars `tau`.
pub fn orgqr<T: OpElem>(seq: &Seq, a: &TiledMatrix<T>, tau: &[T], store: &Buffers<T>) {
    generate_orgqr(&mut SharedGraph::with_buffers(seq, a, store), tau);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::tile::Part;

    /// (reflectors of a random m×k matrix by the backend's DGEQRF, tau).
    fn reflectors(m: usize, k: usize, ld: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut a = Rng::new(seed).matrix(m, k, ld);
        let mut tau = vec![0.0; k];
        reference_geqrf(m, k, &mut a, ld, &mut tau);
        (a, tau)
    }

    fn max_rel(x: &[f64], y: &[f64], m: usize, n: usize, ld: usize) -> f64 {
        let (mut d, mut s): (f64, f64) = (0.0, 0.0);
        for j in 0..n {
            for i in 0..m {
                d = d.max((x[i + j * ld] - y[i + j * ld]).abs());
                s = s.max(y[i + j * ld].abs());
            }
        }
        d / s.max(f64::MIN_POSITIVE)
    }

    fn check_ormqr(side: Side, trans: Trans, m: usize, n: usize, k: usize, part: Part) {
        let nq = if side == Side::Left { m } else { n };
        let (lda, ldc) = (nq + 2, m + 3);
        let (a, tau) = reflectors(nq, k, lda, (m * 7 + n * 3 + k) as u64);
        let c0 = Rng::new(99 + k as u64).matrix(m, n, ldc);
        let mut want = c0.clone();
        let (sc, tc) = (if side == Side::Left { b'L' } else { b'R' }, trans.ch());
        reference_ormqr(sc, tc, m, n, k, &a, lda, &tau, &mut want, ldc);
        let mut a2 = a.clone();
        let mut c = c0.clone();
        let ta = unsafe { TiledMatrix::from_raw_parts(a2.as_mut_ptr(), nq, k, lda, part, part) };
        let (rp, cp) = if side == Side::Left { (part, Part::uniform(5)) } else { (Part::uniform(5), part) };
        let tc_ = unsafe { TiledMatrix::from_raw_parts(c.as_mut_ptr(), m, n, ldc, rp, cp) };
        let store = Buffers::default();
        let seq = Seq::new(&cfg(3));
        ormqr(&seq, side, trans, &ta, &tau, &tc_, &store);
        seq.wait().unwrap();
        let e = max_rel(&c, &want, m, n, ldc);
        assert!(e < 1e-12, "{side:?} {trans:?} m {m} n {n} k {k} {part:?}: relative difference {e}");
        assert_eq!(a2, a, "the reflectors are read only");
        assert_untouched_outside(&c0, &c, m, n, ldc, None);
    }

    fn check_orgqr(m: usize, n: usize, k: usize, part: Part) {
        let ld = m + 1;
        let (mut a, tau) = reflectors(m, k, ld, (m + n * 5 + k) as u64);
        // Columns k..n arbitrary on entry (LAPACK overwrites them).
        a.resize(ld * n.max(1), 0.5);
        let mut want = a.clone();
        let mut info = 0;
        let mut work = vec![0.0; 64 * n.max(1)];
        // SAFETY: `want` is m×n (leading dimension ld), tau k scalars, work 64·n.
        unsafe {
            crate::backend::lapack::dorgqr(
                &(m as i32),
                &(n as i32),
                &(k as i32),
                want.as_mut_ptr(),
                &(ld as i32),
                tau.as_ptr(),
                work.as_mut_ptr(),
                &(work.len() as i32),
                &mut info,
            )
        };
        assert_eq!(info, 0);
        let before = a.clone();
        let ta = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), m, n, ld, part, part) };
        let store = Buffers::default();
        let seq = Seq::new(&cfg(3));
        orgqr(&seq, &ta, &tau, &store);
        seq.wait().unwrap();
        let e = max_rel(&a, &want, m, n, ld);
        assert!(e < 1e-12, "m {m} n {n} k {k} {part:?}: relative difference {e}");
        assert_untouched_outside(&before, &a, m, n, ld, None);
    }

    fn all_cases(part: Part) {
        for (m, n, k) in [(1, 1, 1), (9, 7, 7), (37, 23, 11), (40, 40, 40), (61, 33, 0)] {
            for side in [Side::Left, Side::Right] {
                for trans in [Trans::No, Trans::Yes] {
                    let (mm, nn) = if side == Side::Left { (m, n) } else { (n, m) };
                    check_ormqr(side, trans, mm, nn, k, part);
                }
            }
        }
        for (m, n, k) in
            [(1, 1, 1), (1, 1, 0), (9, 7, 7), (37, 23, 11), (40, 40, 40), (61, 33, 20), (50, 50, 3)]
        {
            check_orgqr(m, n, k, part);
        }
    }

    #[test]
    fn ormqr_and_orgqr_match_the_backend_tiny_tiles() {
        for nb in [1, 4, 8, 16] {
            all_cases(Part::uniform(nb));
        }
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(|| all_cases(Part::uniform(8)));
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(all_cases);
    }
}
