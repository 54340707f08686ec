//! BLAS-3 tile kernels: GEMM (C = αop(A)op(B) + βC), SYRK (C = αop(A)op(A)ᵀ + βC on one
//! triangle) and TRSM (B = α op(A)⁻¹ B or B op(A)⁻¹).

use super::{fi, Diag, Side, Trans, Uplo};
use crate::backend::lapack::{self as bk, ch};
use crate::tile::{View, ViewMut};

pub fn gemm(ta: Trans, tb: Trans, alpha: f64, a: View<f64>, b: View<f64>, beta: f64, mut c: ViewMut<f64>) {
    let k = if ta == Trans::No { a.n } else { a.m };
    debug_assert_eq!(c.m, if ta == Trans::No { a.m } else { a.n });
    debug_assert_eq!(c.n, if tb == Trans::No { b.n } else { b.m });
    debug_assert_eq!(k, if tb == Trans::No { b.m } else { b.n });
    if c.m == 0 || c.n == 0 {
        return;
    }
    // SAFETY: the views describe valid blocks of the stated shapes (runtime::Ctx), and the
    // shapes agree as asserted above.
    unsafe {
        bk::dgemm(
            ch(ta.ch()),
            ch(tb.ch()),
            &fi(c.m),
            &fi(c.n),
            &fi(k),
            &alpha,
            a.as_ptr(),
            &fi(a.ld),
            b.as_ptr(),
            &fi(b.ld),
            &beta,
            c.as_mut_ptr(),
            &fi(c.ld),
            1,
            1,
        )
    }
}

pub fn syrk(uplo: Uplo, trans: Trans, alpha: f64, a: View<f64>, beta: f64, mut c: ViewMut<f64>) {
    let k = if trans == Trans::No { a.n } else { a.m };
    debug_assert_eq!(c.m, c.n);
    if c.n == 0 {
        return;
    }
    // SAFETY: valid views of the stated shapes.
    unsafe {
        bk::dsyrk(
            ch(uplo.ch()),
            ch(trans.ch()),
            &fi(c.n),
            &fi(k),
            &alpha,
            a.as_ptr(),
            &fi(a.ld),
            &beta,
            c.as_mut_ptr(),
            &fi(c.ld),
            1,
            1,
        )
    }
}

#[allow(clippy::too_many_arguments)]
pub fn trsm(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: f64, a: View<f64>, mut b: ViewMut<f64>) {
    debug_assert_eq!(a.m, a.n);
    debug_assert_eq!(a.n, if side == Side::Left { b.m } else { b.n });
    if b.m == 0 || b.n == 0 {
        return;
    }
    // SAFETY: valid views of the stated shapes.
    unsafe {
        bk::dtrsm(
            ch(side.ch()),
            ch(uplo.ch()),
            ch(ta.ch()),
            ch(diag.ch()),
            &fi(b.m),
            &fi(b.n),
            &alpha,
            a.as_ptr(),
            &fi(a.ld),
            b.as_mut_ptr(),
            &fi(b.ld),
            1,
            1,
            1,
            1,
        )
    }
}

/// Below this order [`trsm_right`] hands the triangle to the backend's TRSM.
const TRSM_LEAF: usize = 32;

/// B ← B·op(A)⁻¹ (A n×n triangular, B r×n), split recursively into two triangles of half the
/// order and a GEMM between them until the order is at most [`TRSM_LEAF`]. The backend's own
/// TRSM does most of its work outside its GEMM kernel on small blocks; measured against it on
/// one thread (OpenBLAS 0.3.21, the two solves of a transposed LU solve, r = n): n = 256 905
/// against 1250 µs, n = 128 170 against 226 µs, n = 64 about 24 against 28 µs.
///
/// With op(A) = [T₁₁ T₁₂; 0 T₂₂] (upper: A upper and not transposed, or lower and transposed):
/// X₁ = B₁·T₁₁⁻¹, B₂ −= X₁·T₁₂, X₂ = B₂·T₂₂⁻¹; with op(A) = [T₁₁ 0; T₂₁ T₂₂]: X₂ = B₂·T₂₂⁻¹,
/// B₁ −= X₂·T₂₁, X₁ = B₁·T₁₁⁻¹.
pub fn trsm_right(uplo: Uplo, ta: Trans, diag: Diag, a: View<f64>, b: ViewMut<f64>) {
    let n = b.n;
    debug_assert!(a.m == n && a.n == n);
    if n <= TRSM_LEAF {
        return trsm(Side::Right, uplo, ta, diag, 1.0, a, b);
    }
    let (n1, n2) = (n / 2, n - n / 2);
    let (a11, a22) = (a.sub(0, 0, n1, n1), a.sub(n1, n1, n2, n2));
    // The off-diagonal block of op(A) as a block of A, and whether op(A) is upper triangular.
    let upper = (uplo == Uplo::Upper) != (ta == Trans::Yes);
    let off = if uplo == Uplo::Upper { a.sub(0, n1, n1, n2) } else { a.sub(n1, 0, n2, n1) };
    let (mut b1, mut b2) = b.split_cols_mut(n1);
    let r = b1.m;
    if upper {
        trsm_right(uplo, ta, diag, a11, b1.sub_mut(0, 0, r, n1));
        gemm(Trans::No, ta, -1.0, b1.as_view(), off, 1.0, b2.sub_mut(0, 0, r, n2));
        trsm_right(uplo, ta, diag, a22, b2);
    } else {
        trsm_right(uplo, ta, diag, a22, b2.sub_mut(0, 0, r, n2));
        gemm(Trans::No, ta, -1.0, b2.as_view(), off, 1.0, b1.sub_mut(0, 0, r, n1));
        trsm_right(uplo, ta, diag, a11, b1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::Rng;

    #[test]
    fn trsm_right_equals_the_backends_trsm() {
        let mut rng = Rng::new(3);
        for &(r, n) in &[(3, 1), (5, 33), (64, 64), (17, 100), (40, 257)] {
            let lda = n + 2;
            let mut a: Vec<f64> = (0..lda * n).map(|_| 0.1 * rng.next()).collect();
            for i in 0..n {
                a[i + i * lda] = 1.5 + rng.next();
            }
            let ldb = r + 1;
            let b0: Vec<f64> = (0..ldb * n).map(|_| rng.next()).collect();
            for uplo in [Uplo::Lower, Uplo::Upper] {
                for ta in [Trans::No, Trans::Yes] {
                    for diag in [Diag::Unit, Diag::NonUnit] {
                        let av = View::from_slice(&a, n, n, lda);
                        let (mut x, mut y) = (b0.clone(), b0.clone());
                        trsm(Side::Right, uplo, ta, diag, 1.0, av, ViewMut::from_slice(&mut x, r, n, ldb));
                        trsm_right(uplo, ta, diag, av, ViewMut::from_slice(&mut y, r, n, ldb));
                        for (k, (p, q)) in x.iter().zip(&y).enumerate() {
                            if k % ldb == r {
                                assert_eq!(p, q, "padding written");
                            } else {
                                assert!(
                                    (p - q).abs() <= 1e-12 * p.abs().max(1.0),
                                    "{uplo:?} {ta:?} {diag:?} r={r} n={n}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
