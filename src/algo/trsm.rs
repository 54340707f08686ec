//! Tile triangular solves with many right-hand sides: B ← op(A)⁻¹·B, A triangular (n×n, rows
//! and columns cut by the same partition, uniform or hybrid), B n×nrhs whose row tiles follow
//! A's. One task generator for every runtime: DPOTRS, DGETRS and DGELS in shared memory,
//! PDPOTRS and PDGETRS on every rank.
//!
//! Forward substitution (A lower and not transposed, or upper and transposed) walks k upward:
//! `B[k] ← op(A[k][k])⁻¹·B[k]`, then `B[m] -= op(A)[m][k]·B[k]` for m > k. Backward substitution
//! walks k downward with m < k. `op(A)[m][k]` is `A[m][k]`, or `A[k][m]ᵀ` when transposed. Steps
//! are numbered over all passes of a call; a TRSM's priority is highest in its step and a GEMM's
//! follows the step that will solve its target, so the update into the next diagonal tile and
//! that tile's solve run before the rest of the trailing updates.

use crate::graph::op::OpElem;
use crate::graph::{prio, Graph, Op, Spec, TileId, Tiles};
use crate::kernels::{Diag, Side, Trans, Uplo};
use crate::runtime::shared::SharedGraph;
use crate::runtime::Seq;
use crate::scalar::Coef;
use crate::tile::TiledMatrix;

/// One triangular solve: B ← op(A's `uplo` triangle)⁻¹·B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pass {
    pub uplo: Uplo,
    pub trans: Trans,
    pub diag: Diag,
}

impl Pass {
    /// Whether the substitution walks the tile rows upward.
    fn forward(&self) -> bool {
        (self.uplo == Uplo::Lower) == (self.trans == Trans::No)
    }
}

/// The passes' tasks, in order, on B's tiles: tile (i, c) of B is `b[i + c·nt]` (nt = A's tile
/// rows), `bcols[c]` columns wide; A is the graph's matrix.
pub fn generate(g: &mut impl Graph, passes: &[Pass], b: &[TileId], bcols: &[usize]) {
    let t = g.tiling().clone();
    assert!(t.square_tiles(), "A's rows and columns must be cut alike");
    let (nt, ct) = (t.nt(), bcols.len());
    assert_eq!(b.len(), nt * ct, "B's row tiles must match A's tiles");
    let steps = passes.len() * nt;
    for (pi, &Pass { uplo, trans, diag }) in passes.iter().enumerate() {
        let forward = passes[pi].forward();
        // The step (over all passes) at which tile row i is solved.
        let step_of = |i: usize| pi * nt + if forward { i } else { nt - 1 - i };
        for s in 0..nt {
            let k = if forward { s } else { nt - 1 - s };
            let (kb, akk, step) = (t.rows(k), t.id(k, k), step_of(k));
            for (c, &cols) in bcols.iter().enumerate() {
                let op = Op::Trsm {
                    side: Side::Left,
                    uplo,
                    trans,
                    diag,
                    alpha: 1.0,
                    a: Tiles::one(1),
                    b: Tiles::one(0),
                };
                let writes = [b[k + c * nt]];
                g.submit(Spec {
                    op,
                    prio: prio(steps, step, 3),
                    step,
                    dims: [kb, cols, 0],
                    writes: &writes,
                    reads: &[akk],
                });
            }
            let targets = if forward { k + 1..nt } else { 0..k };
            for m in targets {
                // op(A)(m, k): stored at (m, k) when not transposed, at (k, m) when transposed.
                let aid = if trans == Trans::No { t.id(m, k) } else { t.id(k, m) };
                for (c, &cols) in bcols.iter().enumerate() {
                    let op = Op::Gemm {
                        ta: trans,
                        tb: Trans::No,
                        alpha: Coef::from(-1.0),
                        a: Tiles::one(1),
                        b: Tiles::one(2),
                        beta: Coef::from(1.0),
                        c: Tiles::one(0),
                        k: kb,
                    };
                    let (writes, reads) = ([b[m + c * nt]], [aid, b[k + c * nt]]);
                    let (pr, dims) = (prio(steps, step_of(m), 1), [t.rows(m), cols, kb]);
                    g.submit(Spec { op, prio: pr, step, dims, writes: &writes, reads: &reads });
                }
            }
        }
    }
}

/// The shared-memory solves of the passes with A = `a` on `b`, in any element type (a
/// transposed pass is the adjoint for complex types).
pub fn solve<T: OpElem>(seq: &Seq, passes: &[Pass], a: &TiledMatrix<T>, b: &TiledMatrix<T>) {
    assert_eq!(b.rows, a.cols, "B's row tiles must match A's tiles");
    assert_eq!(a.n, b.m);
    let mut g = SharedGraph::new(seq, a);
    let ids = g.attach(b);
    let bcols: Vec<usize> = (0..b.nt()).map(|c| b.tile_cols(c)).collect();
    generate(&mut g, passes, &ids, &bcols);
}

/// B ← op(A)⁻¹·B in shared memory (one pass of [`solve`]; a transposed op is the adjoint).
pub fn trsm_left<T: OpElem>(
    seq: &Seq,
    uplo: Uplo,
    trans: Trans,
    diag: Diag,
    a: &TiledMatrix<T>,
    b: &TiledMatrix<T>,
) {
    solve(seq, &[Pass { uplo, trans, diag }], a, b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::tile::Part;

    #[test]
    fn all_four_triangular_cases_match_direct_multiplication() {
        all_four_cases(Part::uniform(7));
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(all_four_cases);
    }

    fn all_four_cases(part: Part) {
        let (n, nrhs, ld, ldb) = (53, 11, 57, 60);
        for uplo in [Uplo::Lower, Uplo::Upper] {
            for trans in [Trans::No, Trans::Yes] {
                for diag in [Diag::NonUnit, Diag::Unit] {
                    let mut rng = Rng::new(5);
                    let mut a = rng.matrix(n, n, ld);
                    for i in 0..n {
                        a[i + i * ld] += 4.0 * n as f64;
                    }
                    let x = rng.matrix(n, nrhs, ldb);
                    // B = op(A)·X using only the triangle (and unit diagonal if asked).
                    let elem = |i: usize, j: usize| -> f64 {
                        let (r, c) = if trans == Trans::No { (i, j) } else { (j, i) };
                        let inside = if uplo == Uplo::Lower { r >= c } else { r <= c };
                        if r == c && diag == Diag::Unit {
                            1.0
                        } else if inside {
                            a[r + c * ld]
                        } else {
                            0.0
                        }
                    };
                    let mut b = x.clone();
                    for j in 0..nrhs {
                        for i in 0..n {
                            b[i + j * ldb] = (0..n).map(|k| elem(i, k) * x[k + j * ldb]).sum();
                        }
                    }
                    let b0 = b.clone();
                    let mut a2 = a.clone();
                    let ta = unsafe { TiledMatrix::from_raw_parts(a2.as_mut_ptr(), n, n, ld, part, part) };
                    let tb = unsafe {
                        TiledMatrix::from_raw_parts(b.as_mut_ptr(), n, nrhs, ldb, part, Part::uniform(4))
                    };
                    let seq = Seq::new(&cfg(3));
                    trsm_left(&seq, uplo, trans, diag, &ta, &tb);
                    seq.wait().unwrap();
                    let mut err: f64 = 0.0;
                    for j in 0..nrhs {
                        for i in 0..n {
                            err = err.max((b[i + j * ldb] - x[i + j * ldb]).abs());
                        }
                    }
                    assert!(err < 1e-12, "{uplo:?} {trans:?} {diag:?}: error {err}");
                    assert_eq!(a, a2, "A must not change");
                    assert_untouched_outside(&b0, &b, n, nrhs, ldb, None);
                }
            }
        }
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(all_four_triangular_cases_match_direct_multiplication);
    }
}
