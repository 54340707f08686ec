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

/// Up to this order [`trsm`] solves the triangle by substitution ([`super::trsm_leaf`]).
const TRSM_LEAF: usize = super::trsm_leaf::LEAF;

/// B ← α·op(A)⁻¹·B (`side` Left) or B ← α·B·op(A)⁻¹ (Right), A triangular of order k.
///
/// Above `TRSM_LEAF` the triangle is split in two of half the order and a GEMM between them,
/// recursively; the leaves are solved by our own substitution kernel. OpenBLAS's own TRSM does much of its work
/// outside its GEMM kernel on the blocks tiles have, and single-threaded (as inside a task) the
/// split runs faster in every case measured (OpenBLAS 0.3.21, best of three): k = B's other
/// dimension = 192, 256, 384: 1.25–1.47× for every side, triangle and transpose; k = 512 (leaves
/// of 64) 1.16–1.28×; k = 256 with 1 to 16 columns 1.5–6×; k = 64 1.1–1.3×.
///
/// Left, op(A) = [T₁₁ 0; T₂₁ T₂₂] (lower: A lower and not transposed, or upper and transposed):
/// X₁ = α·T₁₁⁻¹·B₁, B₂ ← α·B₂ − T₂₁·X₁, X₂ = T₂₂⁻¹·B₂; upper op(A) the same from the bottom
/// (X₂ first, B₁ ← α·B₁ − T₁₂·X₂). Right, the mirror image over columns: upper op(A) solves X₁
/// first (B₂ ← α·B₂ − X₁·T₁₂), lower op(A) X₂ first (B₁ ← α·B₁ − X₂·T₂₁).
#[allow(clippy::too_many_arguments)]
pub fn trsm(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: f64, a: View<f64>, b: ViewMut<f64>) {
    let k = if side == Side::Left { b.m } else { b.n };
    debug_assert!(a.m == k && a.n == k, "trsm: a square triangle of B's order");
    if b.m == 0 || b.n == 0 {
        return;
    }
    if k <= TRSM_LEAF {
        return super::trsm_leaf::trsm_leaf(side, uplo, ta, diag, alpha, a, b);
    }
    let (k1, k2) = (k / 2, k - k / 2);
    let (a11, a22) = (a.sub(0, 0, k1, k1), a.sub(k1, k1, k2, k2));
    // op(A)'s off-diagonal block as a block of A, and whether op(A) is upper triangular.
    let off = if uplo == Uplo::Upper { a.sub(0, k1, k1, k2) } else { a.sub(k1, 0, k2, k1) };
    let upper = (uplo == Uplo::Upper) != (ta == Trans::Yes);
    let (mut b1, mut b2) = if side == Side::Left { b.split_rows(k1) } else { b.split_cols_mut(k1) };
    // The half solved first, then the other half updated with it and solved.
    let first_is_1 = (side == Side::Left) != upper;
    let (t_first, t_second) = if first_is_1 { (a11, a22) } else { (a22, a11) };
    let (first, second) = if first_is_1 { (&mut b1, &mut b2) } else { (&mut b2, &mut b1) };
    trsm(side, uplo, ta, diag, alpha, t_first, first.reborrow());
    let x = first.as_view();
    if side == Side::Left {
        gemm(ta, Trans::No, -1.0, off, x, alpha, second.reborrow());
    } else {
        gemm(Trans::No, ta, -1.0, x, off, alpha, second.reborrow());
    }
    trsm(side, uplo, ta, diag, 1.0, t_second, second.reborrow());
}

/// [`trsm`] by the backend's DTRSM (what the tests compare with).
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(super) fn trsm_backend(
    side: Side,
    uplo: Uplo,
    ta: Trans,
    diag: Diag,
    alpha: f64,
    a: View<f64>,
    mut b: ViewMut<f64>,
) {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::algo::testutil::Rng;

    #[test]
    fn recursive_trsm_equals_the_backends() {
        let cases = [(1, 3), (7, 100), (32, 70), (33, 5), (64, 64), (100, 17), (257, 40), (40, 1)];
        compare_with_dtrsm("recursive", &trsm, &cases, 3);
    }

    /// A solve with the [`trsm`] contract.
    pub(crate) type TrsmLike<'a> = &'a dyn Fn(Side, Uplo, Trans, Diag, f64, View<f64>, ViewMut<f64>);

    /// `f` against the backend's DTRSM on every side, triangle, transpose and diagonal, for each
    /// (triangle order k, B's other dimension) in `cases`, with α = 1 and −2.5; B has a padding
    /// row, which must stay as it was.
    pub(crate) fn compare_with_dtrsm(name: &str, f: TrsmLike, cases: &[(usize, usize)], seed: u64) {
        let mut rng = Rng::new(seed);
        for &(k, other) in cases {
            let lda = k + 2;
            let mut a: Vec<f64> = (0..lda * k).map(|_| 0.1 * rng.next()).collect();
            for i in 0..k {
                a[i + i * lda] = 1.5 + rng.next();
            }
            for side in [Side::Left, Side::Right] {
                let (m, n) = if side == Side::Left { (k, other) } else { (other, k) };
                let ldb = m + 1;
                let b0: Vec<f64> = (0..ldb * n).map(|_| rng.next()).collect();
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    for ta in [Trans::No, Trans::Yes] {
                        for (diag, alpha) in [(Diag::Unit, 1.0), (Diag::NonUnit, -2.5)] {
                            let av = View::from_slice(&a, k, k, lda);
                            let (mut x, mut y) = (b0.clone(), b0.clone());
                            trsm_backend(
                                side,
                                uplo,
                                ta,
                                diag,
                                alpha,
                                av,
                                ViewMut::from_slice(&mut x, m, n, ldb),
                            );
                            f(side, uplo, ta, diag, alpha, av, ViewMut::from_slice(&mut y, m, n, ldb));
                            let what =
                                format!("{name} {side:?} {uplo:?} {ta:?} {diag:?} k={k} other={other}");
                            for (e, (p, q)) in x.iter().zip(&y).enumerate() {
                                if e % ldb == m {
                                    assert_eq!(p, q, "{what}: padding written");
                                } else {
                                    assert!((p - q).abs() <= 1e-12 * p.abs().max(1.0), "{what}: {p} vs {q}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
