//! Tile triangular solve with many right-hand sides: B ← op(A)⁻¹·B, A triangular (n×n, rows and
//! columns cut by the same partition, uniform or hybrid), B n×nrhs whose row tiles follow A's.
//! Serves DPOTRS and DGETRS.
//!
//! Forward substitution (A lower and not transposed, or upper and transposed) walks k upward:
//! `B[k] ← op(A[k][k])⁻¹·B[k]`, then `B[m] -= op(A)[m][k]·B[k]` for m > k. Backward substitution
//! walks k downward with m < k. `op(A)[m][k]` is `A[m][k]`, or `A[k][m]ᵀ` when transposed.

use crate::device::{DeviceOp, Tiles};
use crate::kernels::{self, Diag, Side, Trans, Uplo};
use crate::runtime::{Seq, Task};
use crate::tile::TiledMatrix;

pub fn trsm_left(
    seq: &Seq,
    uplo: Uplo,
    trans: Trans,
    diag: Diag,
    a: &TiledMatrix<f64>,
    b: &TiledMatrix<f64>,
) {
    let (a, b) = (*a, *b);
    assert!(a.square_tiles(), "A's rows and columns must be cut alike");
    assert_eq!(b.rows, a.cols, "B's row tiles must match A's tiles");
    assert_eq!(a.n, b.m);
    let nt = a.nt();
    let forward = (uplo == Uplo::Lower) == (trans == Trans::No);
    for step in 0..nt {
        let k = if forward { step } else { nt - 1 - step };
        let p = ((nt - step) * 4) as i64;
        for j in 0..b.nt() {
            let t = Task::new("trsm")
                .prio(p + 2)
                .dims(b.tile_rows(k), b.tile_cols(j), 0)
                .read(&a, k, k)
                .rw(&b, k, j)
                .device_op(DeviceOp::Trsm {
                    side: Side::Left,
                    uplo,
                    trans,
                    diag,
                    alpha: 1.0,
                    a: Tiles::one(0),
                    b: Tiles::one(1),
                });
            seq.submit(t, move |c| {
                kernels::trsm(Side::Left, uplo, trans, diag, 1.0, c.tile(&a, k, k), c.tile_mut(&b, k, j));
                Ok(())
            });
        }
        let rows: Vec<usize> = if forward { (k + 1..nt).collect() } else { (0..k).collect() };
        for m in rows {
            // op(A)[m][k]: stored at (m, k) when not transposed, at (k, m) when transposed.
            let (ai, aj) = if trans == Trans::No { (m, k) } else { (k, m) };
            for j in 0..b.nt() {
                let t = Task::new("gemm")
                    .prio(p)
                    .dims(b.tile_rows(m), b.tile_cols(j), b.tile_rows(k))
                    .read(&a, ai, aj)
                    .read(&b, k, j)
                    .rw(&b, m, j)
                    .device_op(DeviceOp::Gemm {
                        ta: trans,
                        tb: Trans::No,
                        alpha: -1.0,
                        a: Tiles::one(0),
                        b: Tiles::one(1),
                        beta: 1.0,
                        c: Tiles::one(2),
                        k: b.tile_rows(k),
                    });
                seq.submit(t, move |c| {
                    kernels::gemm(
                        trans,
                        Trans::No,
                        -1.0,
                        c.tile(&a, ai, aj),
                        c.tile(&b, k, j),
                        1.0,
                        c.tile_mut(&b, m, j),
                    );
                    Ok(())
                });
            }
        }
    }
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
