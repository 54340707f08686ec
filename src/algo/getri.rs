//! Tile xGETRI: A⁻¹ from xGETRF's factors P·A = L·U, LAPACK's method on tiles. One task
//! generator for every runtime and element type (`getri` in shared memory, any `OpElem`).
//!
//! 1. inv(U) in place ([`super::trtri::generate_trtri`], upper, non-unit); L below the diagonal
//!    is not touched.
//! 2. X·L = inv(U) for X = inv(A)·P (LAPACK's DGETRI solves it column block by column block from
//!    the right): for tile column k from the last to the first, L's part of column k is taken out
//!    into buffers W\[i\] (one per tile i ≥ k: the strictly lower triangle of the diagonal tile,
//!    the whole tiles below) and zeroed in A; then for every tile row i,
//!    `A[i][k] -= Σ_{j>k} A[i][j]·W[j]` (GEMM, j from the last column down so that the term of
//!    column k + 1, finished last, is added last) and `A[i][k] ← A[i][k]·W[k]⁻¹`, solved with
//!    W\[k\] itself (TRSM, unit lower), as LAPACK's DGETRI solves with L's diagonal block. Until
//!    then W\[k\] was inverted once and each tile row multiplied by the inverse (TRMM); that made
//!    ‖X·A − I‖ 5–6× LAPACK's at n = 1500 (residuals in twice the working precision) even with
//!    an accurate inv(U), the more the larger the tile (on tiles of 8–32 it hardly showed).
//! 3. The column interchanges, j = n−1 down to 1: columns j and IPIV(j) swapped, as one
//!    permutation per tile row: one task per place holding tiles of the row (the place's tiles
//!    side by side: one block in the caller's array, or in a rank's local matrix), which takes
//!    the columns that come from other places from one buffer per place (a message on ranks).
//!
//! The caller rules out a zero diagonal element of U (LAPACK's INFO > 0, A untouched) and pivots
//! outside 1..=n.

use crate::device::ColSrc;
use crate::graph::op::OpElem;
use crate::graph::{prio, Graph, Op, Spec, TileId, Tiles};
use crate::kernels::{Diag, Side, Trans, Uplo};
use crate::runtime::shared::{Buffers, SharedGraph};
use crate::runtime::Seq;
use crate::scalar::Coef;
use crate::tile::TiledMatrix;

/// The shared-memory DGETRI of `a` with DGETRF's pivots `ipiv` (1-based); the buffers the
/// tasks use are kept in `store`, which must outlive the sequence.
pub fn getri<T: OpElem>(seq: &Seq, a: &TiledMatrix<T>, ipiv: &[i32], store: &Buffers<T>) {
    generate(&mut SharedGraph::with_buffers(seq, a, store), ipiv);
}

/// The tile DGETRI's tasks, submitted to `g` in program order (steps: nt of TRTRI, then one per
/// tile column of the solve, then the interchanges).
pub fn generate(g: &mut impl Graph, ipiv: &[i32]) {
    let t = g.tiling().clone();
    assert!(t.square_tiles(), "DGETRI needs rows and columns cut alike (square diagonal tiles)");
    assert_eq!(ipiv.len(), t.n(), "one pivot per row");
    let nt = t.nt();
    super::trtri::generate_trtri(g, Uplo::Upper, Diag::NonUnit, 0);
    for k in (0..nt).rev() {
        // The buffers W[i] of column k, i ≥ k.
        let mut w = vec![0; nt];
        let (kb, step) = (t.cols(k), nt + (nt - 1 - k));
        // Urgency grows as the solve moves left: column k is on the critical path after k + 1.
        let pr = |bonus| prio(nt, k, bonus);
        for (i, slot) in w.iter_mut().enumerate().skip(k) {
            let wi = g.buffer(t.rows(i), kb, t.id(i, k));
            *slot = wi;
            let op = Op::LowerOut { a: Tiles::one(0), w: Tiles::one(1), diagonal: i == k };
            let (writes, dims) = ([t.id(i, k), wi], [t.rows(i), kb, 0]);
            g.submit(Spec { op, prio: pr(3), step, dims, writes: &writes, reads: &[] });
        }
        for i in 0..nt {
            for j in (k + 1..nt).rev() {
                let op = Op::Gemm {
                    ta: Trans::No,
                    tb: Trans::No,
                    alpha: Coef::from(-1.0),
                    a: Tiles::one(1),
                    b: Tiles::one(2),
                    beta: Coef::from(1.0),
                    c: Tiles::one(0),
                    k: t.cols(j),
                };
                let (writes, reads) = ([t.id(i, k)], [t.id(i, j), w[j]]);
                let bonus = if j == k + 1 { 2 } else { 0 };
                let dims = [t.rows(i), kb, t.cols(j)];
                g.submit(Spec { op, prio: pr(bonus), step, dims, writes: &writes, reads: &reads });
            }
            // A[i][k] ← A[i][k]·W[k]⁻¹: solved with L's own unit lower diagonal tile.
            let op = Op::Trsm {
                side: Side::Right,
                uplo: Uplo::Lower,
                trans: Trans::No,
                diag: Diag::Unit,
                alpha: 1.0,
                a: Tiles::one(1),
                b: Tiles::one(0),
            };
            let (writes, reads, dims) = ([t.id(i, k)], [w[k]], [t.rows(i), kb, 0]);
            g.submit(Spec { op, prio: pr(3), step, dims, writes: &writes, reads: &reads });
        }
    }
    interchanges(g, ipiv, 2 * nt);
}

/// DGETRI's column interchanges (columns j and IPIV(j) swapped for j = n−1 down to 1; IPIV(n) =
/// n after DGETRF) as one permutation of the columns, applied per tile row: each place's tiles of
/// the row (one block: side by side in its memory) take their new columns from their own old
/// ones and from one buffer per other place that holds some of them (`ColExtract` there, moved as
/// one message). In shared memory the whole row is one place: one task per tile row.
fn interchanges(g: &mut impl Graph, ipiv: &[i32], step: usize) {
    let t = g.tiling().clone();
    let (n, nt) = (t.n(), t.nt());
    // src[c]: the column that ends in column c.
    let mut src: Vec<usize> = (0..n).collect();
    for j in (0..n.saturating_sub(1)).rev() {
        src.swap(j, ipiv[j] as usize - 1);
    }
    if src.iter().enumerate().all(|(c, &s)| c == s) {
        return;
    }
    // Tile column and offset in it of every column.
    let at = |c: usize| {
        let j = (0..nt).rfind(|&j| t.col_offset(j) <= c).expect("a column of the matrix");
        (j, c - t.col_offset(j))
    };
    for i in 0..nt {
        // The places of tile row i and their tile columns, in order of first appearance.
        let mut places: Vec<(usize, Vec<usize>)> = Vec::new();
        for j in 0..nt {
            let pl = g.place(t.id(i, j));
            match places.iter_mut().find(|(p, _)| *p == pl) {
                Some((_, js)) => js.push(j),
                None => places.push((pl, vec![j])),
            }
        }
        let place_of = |j: usize| places.iter().position(|(_, js)| js.contains(&j)).expect("placed");
        // Where tile column j sits among its place's tiles, and that block's first column.
        let slot = |j: usize| {
            let js = &places[place_of(j)].1;
            let k = js.iter().position(|&x| x == j).expect("placed");
            (k, js[..k].iter().map(|&x| t.cols(x)).sum::<usize>())
        };
        // Per destination place: the source of each of its columns, and per source place the
        // columns it sends there (tile position in the source's list, column in that tile).
        let np = places.len();
        let mut fills: Vec<Vec<ColSrc>> = vec![Vec::new(); np];
        let mut sends: Vec<Vec<Vec<(usize, usize)>>> = vec![vec![Vec::new(); np]; np];
        for (d, (_, js)) in places.iter().enumerate() {
            for &j in js {
                for &sc in &src[t.col_offset(j)..t.col_offset(j) + t.cols(j)] {
                    let (sj, off) = at(sc);
                    let s = place_of(sj);
                    let (k, first) = slot(sj);
                    if s == d {
                        fills[d].push(ColSrc::Own(first + off));
                    } else {
                        fills[d].push(ColSrc::Buf(s, sends[s][d].len()));
                        sends[s][d].push((k, off));
                    }
                }
            }
        }
        // The buffers, on their source place, filled before any tile of the row changes.
        let mut bufs: Vec<Vec<Option<TileId>>> = vec![vec![None; np]; np];
        for s in 0..np {
            let tiles: Vec<TileId> = places[s].1.iter().map(|&j| t.id(i, j)).collect();
            for d in 0..np {
                let cols = std::mem::take(&mut sends[s][d]);
                if cols.is_empty() {
                    continue;
                }
                let x = g.buffer(t.rows(i), cols.len(), tiles[0]);
                let dims = [t.rows(i), cols.len(), 0];
                let op = Op::ColExtract { x: Tiles::one(0), a: Tiles::stack(1, tiles.len()), cols };
                g.submit(Spec { op, prio: 0, step, dims, writes: &[x], reads: &tiles });
                bufs[s][d] = Some(x);
            }
        }
        for (d, (_, js)) in places.iter().enumerate() {
            let tiles: Vec<TileId> = js.iter().map(|&j| t.id(i, j)).collect();
            let from: Vec<TileId> = (0..np).filter_map(|s| bufs[s][d]).collect();
            // Buffer positions: ColSrc::Buf names the source place; renumber to `from`'s order.
            let pos: Vec<Option<usize>> = (0..np)
                .map(|s| bufs[s][d].map(|_| (0..s).filter(|&x| bufs[x][d].is_some()).count()))
                .collect();
            let src: Vec<ColSrc> = std::mem::take(&mut fills[d])
                .into_iter()
                .map(|c| match c {
                    ColSrc::Buf(s, o) => ColSrc::Buf(pos[s].expect("a buffer from that place"), o),
                    own => own,
                })
                .collect();
            let width = src.len();
            let from_ops = (!from.is_empty()).then(|| Tiles::stack(tiles.len(), from.len()));
            let op = Op::ColFill { a: Tiles::stack(0, tiles.len()), from: from_ops, src };
            let dims = [t.rows(i), width, 0];
            g.submit(Spec { op, prio: 0, step, dims, writes: &tiles, reads: &from });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::backend::forward;
    use crate::tile::{Part, Raw};

    /// The backend's DGETRI on a copy of the factors.
    fn reference(n: usize, f: &[f64], ld: usize, ipiv: &[i32]) -> Vec<f64> {
        let mut x = f.to_vec();
        let mut work = vec![0.0; n.max(1) * 64];
        let mut piv = ipiv.to_vec();
        // SAFETY: `x` holds the n×n factors (leading dimension ld), `piv` n pivots, `work` more
        // than DGETRI's optimum.
        let info = unsafe {
            forward::dgetri(
                n as i32,
                Raw::new(x.as_mut_ptr()),
                ld as i32,
                Raw::new(piv.as_mut_ptr()),
                Raw::new(work.as_mut_ptr()),
                work.len() as i32,
            )
        };
        assert_eq!(info, 0);
        x
    }

    pub(crate) fn check(n: usize, ld: usize, part: Part, threads: usize, seed: u64) {
        let a0 = Rng::new(seed).matrix(n, n, ld);
        let (f, ipiv, info) = reference_getrf(n, n, &a0, ld);
        assert_eq!(info, 0);
        let want = reference(n, &f, ld, &ipiv);
        let mut a = f.clone();
        let t = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, ld, part, part) };
        let store = Buffers::default();
        let seq = Seq::new(&cfg(threads));
        getri(&seq, &t, &ipiv, &store);
        seq.wait().unwrap();
        let (mut d, mut m): (f64, f64) = (0.0, 0.0);
        for j in 0..n {
            for i in 0..n {
                d = d.max((a[i + j * ld] - want[i + j * ld]).abs());
                m = m.max(want[i + j * ld].abs());
            }
        }
        assert!(d <= 1e-9 * m, "n {n} {part:?}: max difference {d} (max |inv(A)| {m})");
        // A·X = I within rounding: ‖A·X − I‖_max / (n·‖A‖_max·‖X‖_max·ε).
        let mut r: f64 = 0.0;
        let (amax, xmax) = (
            (0..n)
                .flat_map(|j| (0..n).map(move |i| (i, j)))
                .map(|(i, j)| a0[i + j * ld].abs())
                .fold(0.0, f64::max),
            m,
        );
        for j in 0..n {
            for i in 0..n {
                let s: f64 = (0..n).map(|k| a0[i + k * ld] * a[k + j * ld]).sum();
                r = r.max((s - if i == j { 1.0 } else { 0.0 }).abs());
            }
        }
        let scaled = r / (n as f64 * amax * xmax * eps());
        assert!(scaled < 100.0, "n {n} {part:?}: scaled residual {scaled}");
        assert_untouched_outside(&f, &a, n, n, ld, None);
    }

    /// Sizes up to 40 tiles a side (tiles of 1 still make thousands of tasks; beyond, the fake
    /// CUDA's unit-test steps spend minutes on them).
    fn all_cases(part: Part) {
        for (n, seed) in [(1, 1), (2, 2), (9, 3), (37, 4), (64, 5), (101, 6)] {
            if part.count(n) > 40 {
                continue;
            }
            check(n, n + 3, part, 3, seed);
        }
    }

    #[test]
    fn matches_the_backend_tiny_tiles_odd_sizes() {
        for nb in [1, 3, 8, 16] {
            all_cases(Part::uniform(nb));
        }
        check(40, 40, Part::uniform(64), 1, 9);
    }

    /// Accuracy parity with the backend's DGETRI (LAPACK's) on the same factors: ‖X·A − I‖₁ and
    /// ‖A·X − I‖₁ within twice the backend's (median over five seeds), none above four times, for
    /// a random matrix, one with rows and columns graded from 1 to 1e-4, and matrices of
    /// condition 1e6 and 1e10. Sizes not a multiple of the tile.
    #[test]
    fn getri_residuals_within_twice_the_backends() {
        // Many small tiles, and a few large ones: multiplying by the inverse of L's diagonal tile
        // instead of solving with it cost little on tiles of 8–32 and 2–4× ‖X·A − I‖ on 96.
        for (n, nb) in [(100, 8), (150, 16), (200, 24), (290, 96)] {
            let mut p = Parity::default();
            for seed in 1..=5 {
                let mut rng = Rng::new(200 + seed);
                let random = rng.matrix(n, n, n);
                let g = |x: usize| 1e-4f64.powf(x as f64 / n as f64);
                let graded: Vec<f64> = (0..n * n).map(|x| random[x] * g(x % n) * g(x / n)).collect();
                let cases = [
                    ("random", random.clone()),
                    ("graded", graded),
                    ("cond 1e6", with_condition(n, 1e6, false, &mut rng)),
                    ("cond 1e10", with_condition(n, 1e10, false, &mut rng)),
                ];
                for (name, a) in cases {
                    let (f, ipiv, info) = reference_getrf(n, n, &a, n);
                    assert_eq!(info, 0);
                    let want = reference(n, &f, n, &ipiv);
                    let mut x = f.clone();
                    let part = Part::uniform(nb);
                    // SAFETY: `x` holds an n×n matrix with leading dimension n, alive until the
                    // sequence has finished.
                    let t = unsafe { TiledMatrix::from_raw_parts(x.as_mut_ptr(), n, n, n, part, part) };
                    let store = Buffers::default();
                    let seq = Seq::new(&cfg(2));
                    getri(&seq, &t, &ipiv, &store);
                    seq.wait().unwrap();
                    let r = |x: &[f64], y: &[f64]| norm1(n, &inverse_residual(n, x, y, None));
                    let case = format!("n {n} nb {nb} {name}");
                    p.add(format!("{case}: ‖X·A − I‖"), r(&x, &a), r(&want, &a));
                    p.add(format!("{case}: ‖A·X − I‖"), r(&a, &x), r(&a, &want));
                }
            }
            p.check();
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
