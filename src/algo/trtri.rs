//! Tile triangular inverse (DTRTRI) and the product of a triangular factor with its transpose
//! (DLAUUM, after PLASMA's pdlauum); DPOTRI is the one followed by the other on one graph. One
//! task generator each, for every runtime.
//!
//! TRTRI computes X = T⁻¹ so that X·T = I holds block by block the way LAPACK's DTRTRI makes it
//! hold: every block X\[m\]\[k\] off the diagonal is *solved* from
//! `X[m][k]·T[k][k] = −Σ_j X[m][j]·T[j][k]` with the original diagonal tile T\[k\]\[k\] (TRSM),
//! each term the product of a finished block of X with an original block of T, and the diagonal
//! tile is inverted after its column is solved. Its residual ‖X·T − I‖ then stays within a small
//! multiple of ε·‖|X|·|T|‖, as LAPACK's does, and ‖T·X − I‖ is LAPACK's too. Upper goes through
//! the tile columns left to right; lower right to left (the same algorithm on the matrix with its
//! rows and columns reversed, not its transpose: the transpose would make T·X = I hold instead).
//! Steps in [`generate_trtri`]. LAPACK's DTRTRI sums the same products column by column
//! (left-looking, a TRMM by the inverted leading part); here each finished column is added into
//! all later ones at once (right-looking, GEMMs), which leaves more tasks ready at a time.
//!
//! Until this order, the generator was PLASMA's pdtrtri with its TRSMs replaced by TRMMs by the
//! inverted diagonal tile, and lower the transpose of upper. At n = 3000 (residuals formed in
//! twice the working precision, `bench/inverse_accuracy.sh`) its ‖X·T − I‖ was 2–11× OpenBLAS's
//! for upper triangles and 5–87× for lower ones, unit or not. Both causes count: at n = 1500,
//! multiplying by the inverted tile in this order cost 1.5–10×, and PLASMA's order with TRSMs
//! 2.5–6× (upper) and 7–36× (lower).
//!
//! LAUUM, lower (Lᵀ·L, step k): `A[n][n] += A[k][n]ᵀ·A[k][n]` (SYRK) and
//! `A[m][n] += A[k][m]ᵀ·A[k][n]` for n < m < k (GEMM), then `A[k][n] ← A[k][k]ᵀ·A[k][n]`
//! (TRMM) and the diagonal tile's own product (LAUUM). Upper (U·Uᵀ) is the transpose.
//!
//! Every element type runs these generators (`OpElem`): a transposed operand is the adjoint, so
//! for complex types LAUUM forms Lᴴ·L or U·Uᴴ (HERK on the diagonal tiles' updates, the
//! backend's ?LAUUM on the tiles themselves, real diagonals) and xPOTRI is CPOTRI's/ZPOTRI's.
//!
//! Rows and columns are cut alike (square diagonal tiles), uniform or hybrid. A zero diagonal
//! element is LAPACK's INFO > 0 before anything is touched: the caller checks for it (`api`).

use crate::graph::op::OpElem;
use crate::graph::{prio, Graph, Op, Spec, Tiles};
use crate::kernels::{Diag, Side, Trans, Uplo};
use crate::runtime::shared::SharedGraph;
use crate::runtime::Seq;
use crate::scalar::Coef;
use crate::tile::TiledMatrix;

/// The shared-memory inverse of the `uplo` triangle of `a`, in any element type.
pub fn trtri<T: OpElem>(seq: &Seq, uplo: Uplo, diag: Diag, a: &TiledMatrix<T>) {
    generate_trtri(&mut SharedGraph::new(seq, a), uplo, diag, 0);
}

/// The shared-memory xPOTRI: the inverse of the Cholesky factor, then its product with its
/// adjoint (inv(U)·inv(U)ᴴ or inv(L)ᴴ·inv(L); the transpose for the real types), on one graph.
pub fn potri<T: OpElem>(seq: &Seq, uplo: Uplo, a: &TiledMatrix<T>) {
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
    Op::Gemm {
        ta,
        tb,
        alpha: alpha.into(),
        a: Tiles::one(1),
        b: Tiles::one(2),
        beta: Coef::from(1.0),
        c: Tiles::one(0),
        k,
    }
}

fn trmm(side: Side, uplo: Uplo, diag: Diag, alpha: f64) -> Op {
    Op::Trmm { side, uplo, trans: Trans::No, diag, alpha, a: Tiles::one(1), b: Tiles::one(0) }
}

/// The tile TRTRI's tasks, submitted to `g` in program order; steps are numbered from `step0`.
///
/// Upper takes the tile columns k = 0, 1, …, lower k = nt−1, …, 0 (the same algorithm on the
/// matrix with its rows and columns in reverse order). "Off" below is the side of the diagonal
/// the triangle lies on: rows m < k of column k and columns n > k of row k for upper, m > k and
/// n < k for lower. Step k:
///
/// 1. `A[m][k] ← −A[m][k]·A[k][k]⁻¹` for the off rows m (TRSM by the *original* diagonal tile);
///    A\[m\]\[k\] then holds X\[m\]\[k\] of X = A⁻¹;
/// 2. `A[k][k] ← A[k][k]⁻¹` (TRTRI);
/// 3. `A[m][n] += A[m][k]·A[k][n]` for the off rows m and off columns n (GEMM; row k is still
///    the original);
/// 4. `A[k][n] ← A[k][k]·A[k][n]` for the off columns n (TRMM by the inverted diagonal tile).
///
/// So when column k is solved, A\[m\]\[k\] = Σ_j X\[m\]\[j\]·T\[j\]\[k\] over the columns j
/// done before it, as the module's docs require.
pub fn generate_trtri(g: &mut impl Graph, uplo: Uplo, diag: Diag, step0: usize) {
    let t = g.tiling().clone();
    assert!(t.square_tiles(), "TRTRI needs rows and columns cut alike (square diagonal tiles)");
    let nt = t.nt();
    let lower = uplo == Uplo::Lower;
    for s in 0..nt {
        let k = if lower { nt - 1 - s } else { s };
        let (kk, kb, step) = (t.id(k, k), t.cols(k), step0 + s);
        // The off-diagonal tiles of column k (rows) and of row k (columns), in the triangle.
        let off: Vec<usize> = if lower { (k + 1..nt).collect() } else { (0..k).collect() };
        let far: Vec<usize> = if lower { (0..k).collect() } else { (k + 1..nt).collect() };
        // The urgency of step s: the steps run in s's order whichever way k goes.
        let pr = |bonus| prio(nt, s, bonus);
        for &m in &off {
            let op = Op::Trsm {
                side: Side::Right,
                uplo,
                trans: Trans::No,
                diag,
                alpha: -1.0,
                a: Tiles::one(1),
                b: Tiles::one(0),
            };
            let dims = [t.rows(m), kb, 0];
            g.submit(Spec { op, prio: pr(2), step, dims, writes: &[t.id(m, k)], reads: &[kk] });
        }
        let op = Op::Trtri { uplo, diag, a: Tiles::one(0) };
        g.submit(Spec { op, prio: pr(3), step, dims: [kb, kb, 0], writes: &[kk], reads: &[] });
        for &m in &off {
            for &n in &far {
                g.submit(Spec {
                    op: gemm(1.0, Trans::No, Trans::No, kb),
                    prio: pr(0),
                    step,
                    dims: [t.rows(m), t.cols(n), kb],
                    writes: &[t.id(m, n)],
                    reads: &[t.id(m, k), t.id(k, n)],
                });
            }
        }
        for &n in &far {
            let op = trmm(Side::Left, uplo, diag, 1.0);
            let dims = [kb, t.cols(n), 0];
            g.submit(Spec { op, prio: pr(1), step, dims, writes: &[t.id(k, n)], reads: &[kk] });
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

    /// The `uplo` triangle of the n×n `a` (leading dimension n) alone: zeros outside it, ones on
    /// a unit diagonal.
    pub(crate) fn dense_triangle(uplo: Uplo, diag: Diag, n: usize, a: &[f64]) -> Vec<f64> {
        let mut t = vec![0.0; n * n];
        for j in 0..n {
            let rows = if uplo == Uplo::Lower { j..n } else { 0..j + 1 };
            for i in rows {
                t[i + j * n] = if i == j && diag == Diag::Unit { 1.0 } else { a[i + j * n] };
            }
        }
        t
    }

    fn transposed(n: usize, a: &[f64]) -> Vec<f64> {
        (0..n * n).map(|x| a[x / n + (x % n) * n]).collect()
    }

    /// Triangles of order n (leading dimension n) that tell a careful inverse from a careless
    /// one, from `seed`: LU's U and unit L of a random matrix; U with rows or columns graded from
    /// 1 to 1e-8, and D⁻¹·L·D with D graded from 1 to 1e-6 (unit); R of the QR of a matrix of
    /// condition 1e6, 1e10, 1e14, its transpose, both scaled to a unit diagonal. The other
    /// triangle holds what the factorization left there (ignored by both inverses).
    pub(crate) fn hard_triangles(n: usize, seed: u64) -> Vec<(String, Uplo, Diag, Vec<f64>)> {
        let mut rng = Rng::new(seed);
        let (f, _, info) = reference_getrf(n, n, &rng.matrix(n, n, n), n);
        assert_eq!(info, 0);
        let grade = |e: f64, x: f64| e.powf(x / n as f64);
        let graded = |g: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
            (0..n * n).map(|x| f[x] * g(x % n, x / n)).collect()
        };
        let mut out = vec![
            ("LU's U".to_string(), Uplo::Upper, Diag::NonUnit, f.clone()),
            ("LU's unit L".to_string(), Uplo::Lower, Diag::Unit, f.clone()),
            ("U, graded rows".to_string(), Uplo::Upper, Diag::NonUnit, graded(&|i, _| grade(1e-8, i as f64))),
            (
                "U, graded columns".to_string(),
                Uplo::Upper,
                Diag::NonUnit,
                graded(&|_, j| grade(1e-8, j as f64)),
            ),
            (
                "graded unit L".to_string(),
                Uplo::Lower,
                Diag::Unit,
                graded(&|i, j| grade(1e-6, j as f64 - i as f64)),
            ),
        ];
        for kappa in [1e6, 1e10, 1e14] {
            let mut r = with_condition(n, kappa, false, &mut rng);
            reference_geqrf(n, n, &mut r, n, &mut vec![0.0; n]);
            let mut unit = r.clone();
            for j in 0..n {
                for i in 0..j {
                    unit[i + j * n] /= r[i + i * n];
                }
            }
            out.push((format!("R of cond {kappa:e}"), Uplo::Upper, Diag::NonUnit, r.clone()));
            out.push((format!("Rᵀ of cond {kappa:e}"), Uplo::Lower, Diag::NonUnit, transposed(n, &r)));
            out.push((format!("unit R of cond {kappa:e}"), Uplo::Upper, Diag::Unit, unit.clone()));
            out.push((format!("unit Rᵀ of cond {kappa:e}"), Uplo::Lower, Diag::Unit, transposed(n, &unit)));
        }
        out
    }

    /// ‖X·T − I‖₁ and ‖T·X − I‖₁ of hetla's inverse (tiles of nb) and of the backend's, of the
    /// same `uplo`/`diag` triangle of `a` (n×n, leading dimension n).
    fn trtri_residuals(uplo: Uplo, diag: Diag, n: usize, a: &[f64], nb: usize) -> [(f64, f64); 2] {
        let mut want = a.to_vec();
        // SAFETY: `want` holds an n×n matrix with leading dimension n.
        let info =
            forward::dtrtri(uplo.ch(), diag.ch(), n as i32, unsafe { Raw::new(want.as_mut_ptr()) }, n as i32);
        assert_eq!(info, 0);
        let mut x = a.to_vec();
        let part = Part::uniform(nb);
        // SAFETY: `x` holds an n×n matrix with leading dimension n, alive until the
        // sequence has finished.
        let t = unsafe { TiledMatrix::from_raw_parts(x.as_mut_ptr(), n, n, n, part, part) };
        let seq = Seq::new(&cfg(2));
        trtri(&seq, uplo, diag, &t);
        seq.wait().unwrap();
        let tri = dense_triangle(uplo, diag, n, a);
        let (xh, xb) = (dense_triangle(uplo, diag, n, &x), dense_triangle(uplo, diag, n, &want));
        let r = |x: &[f64], y: &[f64]| norm1(n, &inverse_residual(n, x, y, Some(uplo)));
        [(r(&xh, &tri), r(&xb, &tri)), (r(&tri, &xh), r(&tri, &xb))]
    }

    /// Accuracy parity with the backend's DTRTRI (LAPACK's): on every triangle of
    /// [`hard_triangles`], both residuals within twice the backend's (median over five seeds),
    /// none above four times. Many tiles, sizes not a multiple of the tile. Inverting the
    /// diagonal tile first and multiplying by the inverse, or the lower triangle in the upper
    /// one's transposed order, gave ratios of 3–40 here.
    #[test]
    fn trtri_residuals_within_twice_the_backends() {
        // Many small tiles, and a few large ones (where multiplying by an inverted diagonal tile
        // instead of solving with the original costs the most).
        for (n, nb) in [(290, 96), (100, 8), (150, 16), (237, 24)] {
            let mut p = Parity::default();
            for seed in 1..=5 {
                for (name, uplo, diag, a) in hard_triangles(n, seed) {
                    let [l, r] = trtri_residuals(uplo, diag, n, &a, nb);
                    p.add(format!("n {n} nb {nb} {name}: ‖X·T − I‖"), l.0, l.1);
                    p.add(format!("n {n} nb {nb} {name}: ‖T·X − I‖"), r.0, r.1);
                }
            }
            p.check();
        }
    }

    /// The same for DPOTRI (TRTRI, then LAUUM) on SPD matrices of condition 1e2, 1e6, 1e10:
    /// ‖X·A − I‖₁ and ‖A·X − I‖₁ within twice the backend's DPOTRI on the same factor.
    #[test]
    fn potri_residuals_within_twice_the_backends() {
        for (n, nb) in [(150, 16), (237, 24)] {
            let mut p = Parity::default();
            for seed in 1..=5 {
                let mut rng = Rng::new(100 + seed);
                for kappa in [1e2, 1e6, 1e10] {
                    let a = with_condition(n, kappa, true, &mut rng);
                    for uplo in [Uplo::Lower, Uplo::Upper] {
                        let mut f = a.clone();
                        // SAFETY: `f` holds an n×n matrix with leading dimension n.
                        let info = forward::dpotrf(
                            uplo.ch(),
                            n as i32,
                            unsafe { Raw::new(f.as_mut_ptr()) },
                            n as i32,
                        );
                        assert_eq!(info, 0);
                        let mut want = f.clone();
                        // SAFETY: as above.
                        let info = forward::dpotri(
                            uplo.ch(),
                            n as i32,
                            unsafe { Raw::new(want.as_mut_ptr()) },
                            n as i32,
                        );
                        assert_eq!(info, 0);
                        let mut x = f.clone();
                        let part = Part::uniform(nb);
                        // SAFETY: `x` holds an n×n matrix with leading dimension n, alive until the
                        // sequence has finished.
                        let t = unsafe { TiledMatrix::from_raw_parts(x.as_mut_ptr(), n, n, n, part, part) };
                        let seq = Seq::new(&cfg(2));
                        potri(&seq, uplo, &t);
                        seq.wait().unwrap();
                        // The inverses as full symmetric matrices.
                        let full = |v: &[f64]| -> Vec<f64> {
                            (0..n * n)
                                .map(|x| {
                                    let (i, j) = (x % n, x / n);
                                    let inside = if uplo == Uplo::Lower { i >= j } else { i <= j };
                                    if inside {
                                        v[x]
                                    } else {
                                        v[j + i * n]
                                    }
                                })
                                .collect()
                        };
                        let (xh, xb) = (full(&x), full(&want));
                        // X and A symmetric: A·X − I = (X·A − I)ᵀ, whose 1-norm is its ∞-norm.
                        let (rh, rb) =
                            (inverse_residual(n, &xh, &a, None), inverse_residual(n, &xb, &a, None));
                        let case = format!("n {n} nb {nb} {uplo:?} cond {kappa:e}");
                        p.add(format!("{case}: ‖X·A − I‖"), norm1(n, &rh), norm1(n, &rb));
                        p.add(format!("{case}: ‖A·X − I‖"), norm_inf(n, &rh), norm_inf(n, &rb));
                    }
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
