//! Householder QR on tiles, leaving exactly LAPACK's DGEQRF output (ARCHITECTURE.md, decision 4):
//! one task generator for every runtime (`dgeqrf` and `dgels` in shared memory, `pdgeqrf` on
//! every rank).
//!
//! A = Q·R with Q = H_1·H_2·…·H_K, K = min(M, N), H_i = I − tau_i·v_i·v_iᵀ. This is the blocked
//! right-looking algorithm of LAPACK's DGEQRF (Householder panels, block reflectors in the
//! compact WY form I − V·T·Vᵀ of Schreiber and Van Loan), with the blocks cut along tile columns
//! so that each trailing update splits into independent tasks (seeds 000 §4–6). The seeds' own
//! tile QR (000 §3 and §7: GEQRT, TSQRT and the DSSRFB update) is not used here because it
//! stores Q in a different form, which DORMQR and DORGQR could not read.
//!
//! With o = `col_offset(k)`, w the width of tile column k and kb = min(w, M − o) its reflectors,
//! for each panel k (tile columns starting before K):
//!
//! ```text
//!   PANEL k    tile column k, tile rows k..mt: A[o.., panel] = V·R     (DGEQRT3 on the panel)
//!              T_k (H = I − V·T_k·Vᵀ) and tau into buffer TT_k (T in rows 0..kb, tau in
//!              column 0 of rows kb..2kb); when w > kb (M < N, last panel) the task also
//!              applies Hᵀ to the rest of the tile column
//!   UPDATE k,j for every tile column j > k, tile rows k..mt:
//!              A[.., j] ← (I − V·T_kᵀ·Vᵀ)·A[.., j]                      (DLARFB 'L','T','F','C')
//! ```
//!
//! [`Panel::Gathered`] (for runtimes where a tile column's tiles are in several places) first
//! gathers the panel's tiles into a buffer P, factors P, and scatters its rows back into the
//! tiles; the updates then read V from P, which moves as one block. An update whose tiles (k.., j)
//! are all in one place ([`Graph::place`]) is one DLARFB on the whole block; otherwise it is split
//! by place (the diagonal's first): each place forms S = Σ V_iᵀ·C_ij over its tiles (QR-VTC, in
//! a buffer per place and tile column reused from step to step), the place of tile (k, j) forms
//! W = Tᵀ·Σ S (QR-TW), and every tile gets C_ij −= V_i·W (QR-VW).
//!
//! Rows and columns must be cut alike up to K (tile (k, k) starts on the diagonal). Priorities
//! give lookahead: the next panel's column first, then the panel, then later columns.
//!
//! Householder QR never fails (DGEQRF has no INFO > 0); NaN or Inf input flows through the
//! arithmetic like in LAPACK. With DLARFG's sign convention it is blocking-independent, so V, R
//! and tau equal the reference's to rounding.

use crate::graph::op::OpElem;
use crate::graph::{prio, Graph, Op, Spec, TileId, Tiles, Tiling};
use crate::runtime::shared::{Buffers, SharedGraph};
use crate::runtime::{Seq, Task};
use crate::tile::TiledMatrix;
use std::collections::HashMap;

pub use super::{Fuse, Panel};

/// The QR's tasks, submitted to `g` in program order; returns each panel's TT buffer (T in its
/// leading kb×kb, tau in column 0 of rows kb..2·kb). Trailing tile columns whose rows are in one
/// place are updated in the blocks `fuse` cuts them into.
pub fn generate(g: &mut impl Graph, panel: Panel, fuse: Fuse) -> Vec<TileId> {
    let t = g.tiling().clone();
    let (m, mt, nt) = (t.m(), t.mt(), t.nt());
    let kmin = m.min(t.n());
    let panels = (0..nt).take_while(|&k| t.col_offset(k) < kmin).count();
    // The S buffers of split updates: one per place and tile column, rows for the widest panel.
    let srows = (0..panels).map(|k| t.cols(k)).max().unwrap_or(0).min(m);
    let mut sums: HashMap<(usize, usize), TileId> = HashMap::new();
    let mut tts = Vec::with_capacity(panels);
    for k in 0..panels {
        if g.stopped() {
            break;
        }
        let off = t.col_offset(k);
        assert_eq!(t.row_offset(k), off, "Householder panels need rows and columns cut alike");
        let (w, mk) = (t.cols(k), m - off);
        let kb = w.min(mk);
        let diag = t.id(k, k);
        let tt = g.buffer(2 * kb, w, diag);
        tts.push(tt);
        // Where the updates read V from.
        let factor = |a, tt| Op::QrPanel { a, kb, tt };
        let v = super::factor_panel(g, &t, k, panel, tt, factor, (prio(nt, k, 3), prio(nt, k, 1)));
        // Columns right of k + 1 whose rows are in one place, fused below.
        let mut whole = Vec::new();
        for j in k + 1..nt {
            let jb = t.cols(j);
            let pri = if j == k + 1 { prio(nt, k, 2) } else { prio(nt, j, 0) };
            // Tile rows k.. of column j by place, the diagonal's place first.
            let groups = super::rows_by_place(g, &t, k, j);
            if groups.len() == 1 {
                if j == k + 1 {
                    larfb(g, &t, k, &v, tt, &[j], pri);
                } else {
                    whole.push(j);
                }
                continue;
            }
            assert_eq!(panel, Panel::Gathered, "tiles in several places need the gathered panel");
            let p = v[0];
            // a. S_place = Σ V_iᵀ·C_ij.
            let mut ids = Vec::with_capacity(groups.len());
            for (pl, rows) in &groups {
                let s = *sums.entry((*pl, j)).or_insert_with(|| g.buffer(srows, jb, t.id(rows[0], j)));
                ids.push(s);
                let reads: Vec<TileId> = std::iter::once(p).chain(rows.iter().map(|&i| t.id(i, j))).collect();
                let offs: Vec<usize> = rows.iter().map(|&i| t.row_offset(i) - off).collect();
                let height: usize = rows.iter().map(|&i| t.rows(i)).sum();
                let op = Op::QrVtc {
                    s: Tiles::one(0),
                    v: Tiles::one(1),
                    k: kb,
                    c: Tiles::stack(2, rows.len()),
                    offs,
                };
                g.submit(Spec {
                    op,
                    prio: pri,
                    step: k,
                    dims: [kb, jb, height],
                    writes: &[s],
                    reads: &reads,
                });
            }
            // b. W = Tᵀ·Σ S, in the diagonal's place's S.
            let reads: Vec<TileId> = std::iter::once(tt).chain(ids[1..].iter().copied()).collect();
            let op = Op::QrTw {
                w: Tiles::one(0),
                t: Tiles::one(1),
                k: kb,
                others: Tiles::stack(2, ids.len() - 1),
            };
            g.submit(Spec { op, prio: pri, step: k, dims: [kb, jb, kb], writes: &[ids[0]], reads: &reads });
            // c. C_ij −= V_i·W.
            for i in k..mt {
                let op = Op::QrVw {
                    c: Tiles::one(0),
                    v: Tiles::one(1),
                    k: kb,
                    w: Tiles::one(2),
                    off: t.row_offset(i) - off,
                };
                let (writes, dims) = ([t.id(i, j)], [t.rows(i), jb, kb]);
                g.submit(Spec { op, prio: pri, step: k, dims, writes: &writes, reads: &[p, ids[0]] });
            }
        }
        // A place's columns in order are adjacent in its memory (as for the LU's column blocks).
        for (_, cols) in super::by_place(g, whole.iter().map(|&j| (j, t.id(k, j)))) {
            for block in fuse.blocks(&cols) {
                larfb(g, &t, k, &v, tt, block, prio(nt, block[0], 0));
            }
        }
    }
    tts
}

/// One DLARFB of panel k (V read from `v`, T from `tt`) on tile rows k.. of the tile columns
/// `cols` (adjacent, in one place).
fn larfb(g: &mut impl Graph, t: &Tiling, k: usize, v: &[TileId], tt: TileId, cols: &[usize], pri: i64) {
    let (mt, off) = (t.mt(), t.col_offset(k));
    let mk = t.m() - off;
    let kb = t.cols(k).min(mk);
    let cj: Vec<TileId> = cols.iter().flat_map(|&j| (k..mt).map(move |i| t.id(i, j))).collect();
    let reads: Vec<TileId> = v.iter().copied().chain([tt]).collect();
    let op = Op::Larfb {
        v: Tiles::stack(cj.len(), v.len()),
        k: kb,
        t: Tiles::one(cj.len() + v.len()),
        c: Tiles::stack(0, cj.len()),
    };
    let width = cols.iter().map(|&j| t.cols(j)).sum();
    g.submit(Spec { op, prio: pri, step: k, dims: [mk, width, kb], writes: &cj, reads: &reads });
}

/// The update cut of the shared-memory runtime for `a` on `seq` ([`host_cut`]).
pub fn shared_fuse<T: OpElem>(seq: &Seq, a: &TiledMatrix<T>) -> Fuse {
    host_cut(a.tile_cols(0), seq.workers(), seq.has_devices())
}

/// The update cut of one node's runtime on tiles of `nb` columns: fused blocks on the host's
/// `threads`, one task per tile column when `devices` take part (their kernels take one tile
/// column each). `hetla-sim` cuts a simulated `dgeqrf` by it too.
pub fn host_cut(nb: usize, threads: usize, devices: bool) -> Fuse {
    if devices {
        Fuse::ONE
    } else {
        Fuse::qr(nb, threads)
    }
}

/// The shared-memory QR of the M×N matrix `a`, in place; with `tau` (K×1, A's column tiles as
/// rows) tau is written there too. Returns each panel's T (its leading kb×kb) as a one-tile
/// matrix in `store`, which must outlive the sequence.
pub fn geqrf<T: OpElem>(
    seq: &Seq,
    a: &TiledMatrix<T>,
    tau: Option<&TiledMatrix<T>>,
    store: &Buffers<T>,
) -> Vec<TiledMatrix<T>> {
    geqrf_cut(seq, a, tau, store, shared_fuse(seq, a))
}

/// [`geqrf`] with the trailing updates cut as `fuse` says.
fn geqrf_cut<T: OpElem>(
    seq: &Seq,
    a: &TiledMatrix<T>,
    tau: Option<&TiledMatrix<T>>,
    store: &Buffers<T>,
    fuse: Fuse,
) -> Vec<TiledMatrix<T>> {
    assert!(a.square_tiles(), "Householder panels need rows and columns cut alike");
    let mut g = SharedGraph::with_buffers(seq, a, store);
    let tts: Vec<TiledMatrix<T>> =
        generate(&mut g, Panel::InPlace, fuse).into_iter().map(|id| g.buffer_matrix(id)).collect();
    if let Some(&tau) = tau {
        assert!(tau.m == a.m.min(a.n) && tau.n == 1 && tau.rows == a.cols, "tau must be K×1 with A's tiles");
        for (k, &tt) in tts.iter().enumerate() {
            let kb = tau.tile_rows(k);
            let task = Task::new("tau").prio(0).dims(kb, 1, 0).read(&tt, 0, 0).write(&tau, k, 0);
            seq.submit(task, move |c| {
                crate::kernels::copy(c.tile(&tt, 0, 0).sub(kb, 0, kb, 1), c.tile_mut(&tau, k, 0));
                Ok(())
            });
        }
    }
    tts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::tile::Part;

    /// Runs the tile QR on `a` (m×n, leading dimension ld) with nb×nb tiles; `tau` must hold at
    /// least min(m, n) entries (more are guard values).
    fn tile_qr(m: usize, n: usize, ld: usize, nb: usize, threads: usize, a: &mut [f64], tau: &mut [f64]) {
        tile_qr_part(m, n, ld, Part::uniform(nb), threads, a, tau)
    }

    fn tile_qr_part(
        m: usize,
        n: usize,
        ld: usize,
        part: Part,
        threads: usize,
        a: &mut [f64],
        tau: &mut [f64],
    ) {
        tile_qr_cut(m, n, ld, part, threads, None, a, tau)
    }

    /// The tile QR with the updates cut by `fuse`, or as [`geqrf`] cuts them for the threads.
    #[allow(clippy::too_many_arguments)]
    fn tile_qr_cut(
        m: usize,
        n: usize,
        ld: usize,
        part: Part,
        threads: usize,
        fuse: Option<Fuse>,
        a: &mut [f64],
        tau: &mut [f64],
    ) {
        let k = m.min(n);
        // SAFETY: `a` holds the m×n matrix with leading dimension ld ≥ m and `tau` at least K
        // entries (the callers' arrays), borrowed mutably for the whole run.
        let ta = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), m, n, ld, part, part) };
        let tt =
            unsafe { TiledMatrix::from_raw_parts(tau.as_mut_ptr(), k, 1, k.max(1), part, Part::uniform(1)) };
        let store = Buffers::default();
        let seq = Seq::new(&cfg(threads));
        match fuse {
            Some(f) => geqrf_cut(&seq, &ta, Some(&tt), &store, f),
            None => geqrf(&seq, &ta, Some(&tt), &store),
        };
        seq.wait().unwrap();
    }

    /// Largest |x − y| over the m×n parts of two ld arrays.
    fn max_diff(x: &[f64], y: &[f64], m: usize, n: usize, ld: usize) -> f64 {
        let mut d: f64 = 0.0;
        for j in 0..n {
            for i in 0..m {
                d = d.max((x[i + j * ld] - y[i + j * ld]).abs());
            }
        }
        d
    }

    fn check(m: usize, n: usize, nb: usize, threads: usize) {
        check_part(m, n, Part::uniform(nb), threads)
    }

    fn check_part(m: usize, n: usize, part: Part, threads: usize) {
        let nb = part.big();
        let ld = m + 3;
        let k = m.min(n);
        let mut rng = Rng::new((m * 1000 + n) as u64 ^ nb as u64);
        let a0 = rng.matrix(m, n, ld);
        let mut a = a0.clone();
        let mut tau = vec![GUARD; k + 3];
        tile_qr_part(m, n, ld, part, threads, &mut a, &mut tau);
        assert_untouched_outside(&a0, &a, m, n, ld, None);
        assert!(tau[k..].iter().all(|&x| x == GUARD), "tau written beyond its K entries");

        // A = Q·R and QᵀQ = I, with Q formed by the backend's DORGQR from our V and tau.
        let (res, orth) = qr_residuals(m, n, &a0, &a, ld, &tau[..k]);
        assert!(res < 10.0, "m {m} n {n} nb {nb}: ‖A − QR‖ scaled {res}");
        assert!(orth < 10.0, "m {m} n {n} nb {nb}: ‖I − QᵀQ‖ scaled {orth}");

        // Householder QR is unique given LAPACK's sign convention: V, R and tau agree with the
        // backend's DGEQRF to rounding (elements are O(1) for these inputs; errors grow like
        // cond(A)·eps, and random matrices of these sizes are well conditioned).
        let mut r = a0.clone();
        let mut rtau = vec![0.0; k.max(1)];
        reference_geqrf(m, n, &mut r, ld, &mut rtau);
        let tol = 10.0 * (m.max(n) as f64) * eps();
        let d = max_diff(&a, &r, m, n, ld);
        assert!(d < tol, "m {m} n {n} nb {nb}: V/R differ from the backend's by {d} (tol {tol})");
        let dt = max_diff(&tau, &rtau, k, 1, k.max(1));
        assert!(dt < tol, "m {m} n {n} nb {nb}: tau differs from the backend's by {dt}");

        // DORMQR, the consumer of this format, gives the same Qᵀ·C with either factorization.
        let p = 4;
        let cm = rng.matrix(m, p, m.max(1));
        let mut c1 = cm.clone();
        let mut c2 = cm.clone();
        reference_ormqr(b'L', b'T', m, p, k, &a, ld, &tau, &mut c1, m.max(1));
        reference_ormqr(b'L', b'T', m, p, k, &r, ld, &rtau, &mut c2, m.max(1));
        let dc = max_diff(&c1, &c2, m, p, m.max(1)) / fnorm(&cm, m, p, m.max(1)).max(1.0);
        assert!(dc < tol, "m {m} n {n} nb {nb}: DORMQR results differ by {dc}");
    }

    #[test]
    fn square_odd_sizes_tiny_tiles() {
        for &(n, nb) in &[(1, 1), (1, 3), (7, 3), (37, 5), (50, 8), (129, 16)] {
            check(n, n, nb, 3);
        }
    }

    #[test]
    fn tall_matrices() {
        for &(m, n, nb) in &[(9, 1, 3), (37, 23, 5), (64, 17, 8), (100, 33, 16), (41, 40, 3)] {
            check(m, n, nb, 3);
        }
    }

    #[test]
    fn wide_matrices_including_a_partial_last_panel() {
        // (13, 40, 5) and (1, 9, 3): the last panel is narrower than its tile column, so the
        // panel task also updates the rest of that column. (10, 23, 5): it is not.
        for &(m, n, nb) in &[(1, 9, 3), (13, 40, 5), (10, 23, 5), (23, 37, 8), (17, 64, 8)] {
            check(m, n, nb, 3);
        }
    }

    #[test]
    fn one_thread_gives_the_same_factorization_as_three() {
        let (m, n, nb, ld) = (45, 38, 7, 47);
        let a0 = Rng::new(3).matrix(m, n, ld);
        for fuse in [Fuse::ONE, Fuse { width: 3, tasks: 2 }] {
            let (mut a1, mut a3) = (a0.clone(), a0.clone());
            let (mut t1, mut t3) = (vec![0.0; n], vec![0.0; n]);
            tile_qr_cut(m, n, ld, Part::uniform(nb), 1, Some(fuse), &mut a1, &mut t1);
            tile_qr_cut(m, n, ld, Part::uniform(nb), 3, Some(fuse), &mut a3, &mut t3);
            // With one cut, every tile is computed by the same kernel calls in the same order
            // whatever the schedule, so the results are bitwise identical.
            assert_eq!(a1, a3, "{fuse:?}");
            assert_eq!(t1, t3, "{fuse:?}");
        }
    }

    #[test]
    fn fused_blocks_cover_every_column_once_in_order() {
        let cols: Vec<usize> = (3..17).collect();
        for (fuse, sizes) in [
            (Fuse::ONE, vec![1; 14]),
            (Fuse { width: 4, tasks: 2 }, vec![4, 4, 3, 3]),
            (Fuse { width: 8, tasks: 2 }, vec![7, 7]),
            (Fuse { width: 100, tasks: 3 }, vec![5, 5, 4]),
            (Fuse { width: 100, tasks: 40 }, vec![1; 14]),
        ] {
            let blocks = fuse.blocks(&cols);
            assert_eq!(blocks.iter().map(|b| b.len()).collect::<Vec<_>>(), sizes, "{fuse:?}");
            assert_eq!(blocks.concat(), cols, "{fuse:?}");
        }
        assert!(Fuse::qr(384, 2).blocks(&[]).is_empty());
        assert_eq!(Fuse::qr(384, 2), Fuse { width: 8, tasks: 2 });
        // The LU's: two columns a task, but at least four tasks on two threads.
        let lu = |n: usize| {
            Fuse::lu(2).blocks(&(0..n).collect::<Vec<_>>()).iter().map(|b| b.len()).collect::<Vec<_>>()
        };
        assert_eq!((lu(4), lu(5), lu(14)), (vec![1; 4], vec![2, 1, 1, 1], vec![2; 7]));
    }

    #[test]
    fn every_cut_gives_the_backends_factorization() {
        // Tiny tiles, many columns: blocks of several tile columns on one and on three threads.
        for fuse in [Fuse { width: 2, tasks: 1 }, Fuse { width: 5, tasks: 3 }, Fuse { width: 50, tasks: 1 }] {
            for &(m, n, nb) in &[(61, 47, 4), (30, 57, 5), (57, 57, 6)] {
                for threads in [1, 3] {
                    let ld = m + 2;
                    let k = m.min(n);
                    let a0 = Rng::new((m + n + nb) as u64).matrix(m, n, ld);
                    let mut a = a0.clone();
                    let mut tau = vec![GUARD; k + 2];
                    tile_qr_cut(m, n, ld, Part::uniform(nb), threads, Some(fuse), &mut a, &mut tau);
                    assert_untouched_outside(&a0, &a, m, n, ld, None);
                    assert!(tau[k..].iter().all(|&x| x == GUARD), "tau written beyond its K entries");
                    let mut r = a0.clone();
                    let mut rtau = vec![0.0; k];
                    reference_geqrf(m, n, &mut r, ld, &mut rtau);
                    let tol = 10.0 * (m.max(n) as f64) * eps();
                    let what = format!("{fuse:?} m {m} n {n} nb {nb} threads {threads}");
                    assert!(max_diff(&a, &r, m, n, ld) < tol, "{what}: V/R differ from the backend's");
                    assert!(max_diff(&tau, &rtau, k, 1, k) < tol, "{what}: tau differs from the backend's");
                }
            }
        }
    }

    #[test]
    fn zero_matrix_and_zero_columns_give_zero_tau_like_the_backend() {
        let (m, n, nb) = (23, 17, 5);
        let ld = m + 1;
        // All zero: R = 0, V = 0, tau = 0 exactly.
        let z0 = vec![0.0; ld * n];
        let mut z = z0.clone();
        let mut tau = vec![GUARD; n];
        tile_qr(m, n, ld, nb, 3, &mut z, &mut tau);
        let mut rz = z0.clone();
        let mut rtau = vec![GUARD; n];
        reference_geqrf(m, n, &mut rz, ld, &mut rtau);
        assert_eq!(z, rz);
        assert_eq!(tau, rtau);
        assert!(tau.iter().all(|&t| t == 0.0));

        // Zero columns at the start, inside a panel and first in a panel: a reflector applied to
        // a zero column leaves it exactly zero, so its own reflector is H = I (tau = 0).
        let mut rng = Rng::new(11);
        let mut a0 = rng.matrix(m, n, ld);
        for &j in &[0usize, 7, 10] {
            for i in 0..m {
                a0[i + j * ld] = 0.0;
            }
        }
        let mut a = a0.clone();
        let mut tau = vec![GUARD; n];
        tile_qr(m, n, ld, nb, 3, &mut a, &mut tau);
        let mut r = a0.clone();
        let mut rtau = vec![GUARD; n];
        reference_geqrf(m, n, &mut r, ld, &mut rtau);
        for &j in &[0usize, 7, 10] {
            assert_eq!(tau[j], 0.0, "tau[{j}]");
            assert_eq!(rtau[j], 0.0, "backend tau[{j}]");
        }
        let tol = 10.0 * m as f64 * eps();
        assert!(max_diff(&a, &r, m, n, ld) < tol);
        assert!(max_diff(&tau, &rtau, n, 1, n) < tol);
        let (res, orth) = qr_residuals(m, n, &a0, &a, ld, &tau);
        assert!(res < 10.0 && orth < 10.0, "residuals {res} {orth}");
    }

    #[test]
    fn nan_input_returns() {
        let (m, n, nb) = (30, 20, 4);
        let mut a = Rng::new(5).matrix(m, n, m);
        a[3 + 2 * m] = f64::NAN;
        let mut tau = vec![0.0; n];
        tile_qr(m, n, m, nb, 3, &mut a, &mut tau);
        // Column 2's reflector is NaN and spreads to every later column, as in LAPACK.
        assert!(tau[2].is_nan() && a[(n - 1) * m + n - 1].is_nan());
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            square_odd_sizes_tiny_tiles();
            tall_matrices();
            wide_matrices_including_a_partial_last_panel();
            one_thread_gives_the_same_factorization_as_three();
            zero_matrix_and_zero_columns_give_zero_tau_like_the_backend();
            nan_input_returns();
        });
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(|part| {
            for &(m, n) in &[(1, 1), (1, 9), (9, 1), (37, 37), (64, 17), (13, 40), (41, 40), (23, 37)] {
                check_part(m, n, part, 3);
            }
        });
    }

    #[test]
    fn trailing_updates_run_on_the_devices_and_evict_when_short_of_memory() {
        let (m, n, nb) = (75, 50, 8);
        let k = m.min(n);
        for mem in [1usize << 20, 24 << 10] {
            let mut rng = Rng::new(17);
            let a0 = rng.matrix(m, n, m);
            let mut a = a0.clone();
            let mut tau = vec![0.0; k];
            let ta = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), m, n, m, nb, nb) };
            let tt = unsafe { TiledMatrix::from_raw(tau.as_mut_ptr(), k, 1, k, nb, 1) };
            let store = Buffers::default();
            let mut c = cfg(3).with_emulated(2, mem);
            c.host_share = Some(0.0);
            let seq = Seq::new(&c);
            geqrf(&seq, &ta, Some(&tt), &store);
            let (r, stats) = seq.wait_stats();
            r.unwrap();
            let (res, orth) = qr_residuals(m, n, &a0, &a, m, &tau);
            assert!(res < 10.0 && orth < 10.0, "mem {mem}: {res} {orth}");
            for s in &stats {
                assert!(s.tasks > 0, "{s:?}");
                // 24 KB holds 22 KB of 512-byte tiles: a 10-tile column update needs 21.
                assert_eq!(s.evictions > 0, mem < (1 << 20), "mem {mem}: {s:?}");
            }
        }
    }
}
