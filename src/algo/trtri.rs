//! Tile triangular inverse (DTRTRI) and the product of a triangular factor with its transpose
//! (DLAUUM), after PLASMA's pdtrtri and pdlauum; DPOTRI is the one followed by the other on one
//! graph. One task generator each, for every runtime.
//!
//! TRTRI, lower (step k): the diagonal tile is inverted first (TRTRI: X = A\[k\]\[k\]⁻¹); the tiles
//! below it become `A[m][k] ← −A[m][k]·X` (TRMM); the finished columns left of k take them in,
//! `A[m][n] += A[m][k]·A[k][n]` for m > k > n (GEMM); row k left of the diagonal becomes
//! `A[k][n] ← X·A[k][n]` (TRMM). Upper is the transpose: `A[k][n] ← −X·A[k][n]`,
//! `A[m][n] += A[m][k]·A[k][n]` for m < k < n, `A[m][k] ← A[m][k]·X`. PLASMA solves with the
//! diagonal tile (TRSM) instead; multiplying by its inverse is the same arithmetic up to
//! rounding, and a tile TRMM runs at about twice the rate of a tile TRSM in OpenBLAS (256×256,
//! one thread: 41–48 against 17–26 GFLOP/s on the development machine).
//!
//! LAUUM, lower (Lᵀ·L, step k): `A[n][n] += A[k][n]ᵀ·A[k][n]` (SYRK) and
//! `A[m][n] += A[k][m]ᵀ·A[k][n]` for n < m < k (GEMM), then `A[k][n] ← A[k][k]ᵀ·A[k][n]`
//! (TRMM) and the diagonal tile's own product (LAUUM). Upper (U·Uᵀ) is the transpose.
//!
//! Rows and columns are cut alike (square diagonal tiles), uniform or hybrid. A zero diagonal
//! element is LAPACK's INFO > 0 before anything is touched: the caller checks for it (`api`).

use crate::graph::{prio, Graph, Op, Spec, Tiles};
use crate::kernels::{Diag, Side, Trans, Uplo};
use crate::runtime::shared::SharedGraph;
use crate::runtime::Seq;
use crate::tile::TiledMatrix;

/// The shared-memory inverse of the `uplo` triangle of `a`.
pub fn trtri(seq: &Seq, uplo: Uplo, diag: Diag, a: &TiledMatrix<f64>) {
    generate_trtri(&mut SharedGraph::new(seq, a), uplo, diag, 0);
}

/// The shared-memory DPOTRI: the inverse of the Cholesky factor, then its product with its
/// transpose (inv(U)·inv(U)ᵀ or inv(L)ᵀ·inv(L)), on one graph.
pub fn potri(seq: &Seq, uplo: Uplo, a: &TiledMatrix<f64>) {
    generate_potri(&mut SharedGraph::new(seq, a), uplo);
}

/// DPOTRI's tasks: the tile TRTRI of the `uplo` factor, then the tile LAUUM (its steps numbered
/// after TRTRI's), one graph.
pub fn generate_potri(g: &mut impl Graph, uplo: Uplo) {
    generate_trtri(g, uplo, Diag::NonUnit, 0);
    let nt = g.tiling().nt();
    generate_lauum(g, uplo, nt);
}

fn gemm(alpha: f64, ta: Trans, tb: Trans, k: usize) -> Op {
    Op::Gemm { ta, tb, alpha, a: Tiles::one(1), b: Tiles::one(2), beta: 1.0, c: Tiles::one(0), k }
}

fn trmm(side: Side, uplo: Uplo, diag: Diag, alpha: f64) -> Op {
    Op::Trmm { side, uplo, trans: Trans::No, diag, alpha, a: Tiles::one(1), b: Tiles::one(0) }
}

/// The tile TRTRI's tasks, submitted to `g` in program order; steps are numbered from `step0`.
pub fn generate_trtri(g: &mut impl Graph, uplo: Uplo, diag: Diag, step0: usize) {
    let t = g.tiling().clone();
    assert!(t.square_tiles(), "TRTRI needs rows and columns cut alike (square diagonal tiles)");
    let nt = t.nt();
    let lower = uplo == Uplo::Lower;
    // Tile (r, c) of the lower case, mirrored for the upper one.
    let id = |r: usize, c: usize| if lower { t.id(r, c) } else { t.id(c, r) };
    let dim = |r: usize, c: usize| if lower { [t.rows(r), t.cols(c)] } else { [t.rows(c), t.cols(r)] };
    for k in 0..nt {
        let (kk, kb, step) = (t.id(k, k), t.cols(k), step0 + k);
        let side = |near: Side| match (lower, near) {
            (true, s) => s,
            (false, Side::Left) => Side::Right,
            (false, Side::Right) => Side::Left,
        };
        let op = Op::Trtri { uplo, diag, a: Tiles::one(0) };
        g.submit(Spec { op, prio: prio(nt, k, 3), step, dims: [kb, kb, 0], writes: &[kk], reads: &[] });
        for m in k + 1..nt {
            let op = trmm(side(Side::Right), uplo, diag, -1.0);
            g.submit(Spec {
                op,
                prio: prio(nt, k, 2),
                step,
                dims: [dim(m, k)[0], dim(m, k)[1], 0],
                writes: &[id(m, k)],
                reads: &[kk],
            });
        }
        for m in k + 1..nt {
            for n in 0..k {
                // Lower: A[m][n] += A[m][k]·A[k][n]; upper: A[n][m] += A[n][k]·A[k][m].
                let reads = if lower { [id(m, k), id(k, n)] } else { [id(k, n), id(m, k)] };
                g.submit(Spec {
                    op: gemm(1.0, Trans::No, Trans::No, kb),
                    prio: prio(nt, k, 0),
                    step,
                    dims: [dim(m, n)[0], dim(m, n)[1], kb],
                    writes: &[id(m, n)],
                    reads: &reads,
                });
            }
        }
        for n in 0..k {
            let op = trmm(side(Side::Left), uplo, diag, 1.0);
            g.submit(Spec {
                op,
                prio: prio(nt, k, 1),
                step,
                dims: [dim(k, n)[0], dim(k, n)[1], 0],
                writes: &[id(k, n)],
                reads: &[kk],
            });
        }
    }
}

/// The tile LAUUM's tasks (U·Uᵀ or Lᵀ·L of the `uplo` triangle), submitted to `g` in program
/// order; steps are numbered from `step0`.
pub fn generate_lauum(g: &mut impl Graph, uplo: Uplo, step0: usize) {
    let t = g.tiling().clone();
    assert!(t.square_tiles(), "LAUUM needs rows and columns cut alike (square diagonal tiles)");
    let nt = t.nt();
    let lower = uplo == Uplo::Lower;
    let id = |r: usize, c: usize| if lower { t.id(r, c) } else { t.id(c, r) };
    let dim = |r: usize, c: usize| if lower { [t.rows(r), t.cols(c)] } else { [t.rows(c), t.cols(r)] };
    // Lower: op(X) = Xᵀ on the left of products; upper: transposed on the right.
    let (ta, tb) = if lower { (Trans::Yes, Trans::No) } else { (Trans::No, Trans::Yes) };
    for k in 0..nt {
        let (kk, kb, step) = (t.id(k, k), t.cols(k), step0 + k);
        for n in 0..k {
            let trans = if lower { Trans::Yes } else { Trans::No };
            let op = Op::Syrk { uplo, trans, alpha: 1.0, a: Tiles::one(1), beta: 1.0, c: Tiles::one(0) };
            g.submit(Spec {
                op,
                prio: prio(nt, n, 1),
                step,
                dims: [t.cols(n), t.cols(n), kb],
                writes: &[t.id(n, n)],
                reads: &[id(k, n)],
            });
            for m in n + 1..k {
                // Lower: A[m][n] += A[k][m]ᵀ·A[k][n]; upper: A[n][m] += A[n][k]·A[m][k]ᵀ.
                let reads = if lower { [id(k, m), id(k, n)] } else { [id(k, n), id(k, m)] };
                g.submit(Spec {
                    op: gemm(1.0, ta, tb, kb),
                    prio: prio(nt, n, 0),
                    step,
                    dims: [dim(m, n)[0], dim(m, n)[1], kb],
                    writes: &[id(m, n)],
                    reads: &reads,
                });
            }
        }
        for n in 0..k {
            let side = if lower { Side::Left } else { Side::Right };
            let op = Op::Trmm {
                side,
                uplo,
                trans: Trans::Yes,
                diag: Diag::NonUnit,
                alpha: 1.0,
                a: Tiles::one(1),
                b: Tiles::one(0),
            };
            g.submit(Spec {
                op,
                prio: prio(nt, k, 2),
                step,
                dims: [dim(k, n)[0], dim(k, n)[1], 0],
                writes: &[id(k, n)],
                reads: &[kk],
            });
        }
        let op = Op::Lauum { uplo, a: Tiles::one(0) };
        g.submit(Spec { op, prio: prio(nt, k, 3), step, dims: [kb, kb, 0], writes: &[kk], reads: &[] });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::backend::forward;
    use crate::tile::{Part, Raw};

    /// A triangular test matrix: random, its diagonal pushed away from zero (sign kept), guard
    /// values below row n.
    pub(crate) fn triangular(n: usize, ld: usize, seed: u64) -> Vec<f64> {
        let mut a = Rng::new(seed).matrix(n, n, ld);
        for i in 0..n {
            let d = a[i + i * ld];
            a[i + i * ld] = d.signum() * (1.0 + d.abs());
        }
        a
    }

    /// max |x − y| / max |y| over the `uplo` triangle.
    pub(crate) fn rel_diff(uplo: Uplo, n: usize, x: &[f64], y: &[f64], ld: usize) -> f64 {
        let (mut d, mut m): (f64, f64) = (0.0, 0.0);
        for j in 0..n {
            let rows = if uplo == Uplo::Lower { j..n } else { 0..j + 1 };
            for i in rows {
                d = d.max((x[i + j * ld] - y[i + j * ld]).abs());
                m = m.max(y[i + j * ld].abs());
            }
        }
        d / m.max(f64::MIN_POSITIVE)
    }

    fn check_trtri(uplo: Uplo, diag: Diag, n: usize, ld: usize, part: Part, threads: usize) {
        let a0 = triangular(n, ld, 11 * n as u64 + ld as u64);
        let mut want = a0.clone();
        let dc = if diag == Diag::Unit { b'U' } else { b'N' };
        // SAFETY: `want` holds an n×n matrix with leading dimension ld.
        let info =
            forward::dtrtri(uplo.ch(), dc, n as i32, unsafe { Raw::new(want.as_mut_ptr()) }, ld as i32);
        assert_eq!(info, 0);
        let mut a = a0.clone();
        let t = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, ld, part, part) };
        let seq = Seq::new(&cfg(threads));
        trtri(&seq, uplo, diag, &t);
        seq.wait().unwrap();
        let e = rel_diff(uplo, n, &a, &want, ld);
        assert!(e < 1e-12, "{uplo:?} {diag:?} n {n} {part:?}: relative difference {e}");
        assert_untouched_outside(&a0, &a, n, n, ld, Some(uplo));
        if diag == Diag::Unit {
            assert!((0..n).all(|i| a[i + i * ld] == a0[i + i * ld]), "a unit diagonal is not referenced");
        }
    }

    fn check_potri(uplo: Uplo, n: usize, ld: usize, part: Part, threads: usize) {
        let mut f = Rng::new(5 + n as u64).spd(n, ld);
        // SAFETY: `f` holds an n×n matrix with leading dimension ld.
        assert_eq!(forward::dpotrf(uplo.ch(), n as i32, unsafe { Raw::new(f.as_mut_ptr()) }, ld as i32), 0);
        let mut want = f.clone();
        // SAFETY: as above.
        assert_eq!(
            forward::dpotri(uplo.ch(), n as i32, unsafe { Raw::new(want.as_mut_ptr()) }, ld as i32),
            0
        );
        let mut a = f.clone();
        let t = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, ld, part, part) };
        let seq = Seq::new(&cfg(threads));
        potri(&seq, uplo, &t);
        seq.wait().unwrap();
        let e = rel_diff(uplo, n, &a, &want, ld);
        assert!(e < 1e-12, "{uplo:?} n {n} {part:?}: relative difference {e}");
        assert_untouched_outside(&f, &a, n, n, ld, Some(uplo));
    }

    /// Sizes up to 40 tiles a side (tiles of 1 still make thousands of tasks; beyond, the fake
    /// CUDA's unit-test steps spend minutes on them).
    fn all_cases(part: Part) {
        for n in [1, 2, 7, 37, 64, 101].into_iter().filter(|&n| part.count(n) <= 40) {
            for uplo in [Uplo::Lower, Uplo::Upper] {
                for diag in [Diag::NonUnit, Diag::Unit] {
                    check_trtri(uplo, diag, n, n + 3, part, 3);
                }
                check_potri(uplo, n, n + 2, part, 3);
            }
        }
    }

    #[test]
    fn trtri_and_potri_match_the_backend_tiny_tiles_odd_sizes() {
        for nb in [1, 3, 8, 16] {
            all_cases(Part::uniform(nb));
        }
        // One tile and a single thread.
        check_trtri(Uplo::Lower, Diag::NonUnit, 30, 30, Part::uniform(64), 1);
        check_potri(Uplo::Upper, 30, 30, Part::uniform(64), 1);
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
