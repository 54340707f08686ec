//! BLAS-3 tile kernels, generic over the element type ([`Scalar`]): GEMM (C = αop(A)op(B) + βC),
//! HERK (C = αop(A)op(A)ᴴ + βC on one triangle; SYRK for the real types) and TRSM
//! (B = α op(A)⁻¹ B or B op(A)⁻¹). op(A) is A or its adjoint (Aᵀ for the real types).

use super::{adjoint as tr, fi, Diag, Side, Trans, Uplo};
use crate::backend::lapack::{self as bk, ch};
use crate::scalar::{c32, c64, Scalar};
use crate::tile::{View, ViewMut};

/// C ← α·op(A)·op(B) + β·C by the backend's `?gemm_` (op = adjoint for `Trans::Yes`, transpose
/// for `Trans::Transpose`).
pub fn gemm<T: Scalar>(ta: Trans, tb: Trans, alpha: T, a: View<T>, b: View<T>, beta: T, mut c: ViewMut<T>) {
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
        bk::gemm::<T>(
            ch(tr::<T>(ta)),
            ch(tr::<T>(tb)),
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
        )
    }
}

/// The rank-k update of one triangle of a Hermitian (for real types: symmetric) C:
/// C ← α·op(A)·op(A)ᴴ + β·C, α and β real, by the backend's `?syrk_` / `?herk_`.
pub fn herk<T: Scalar>(
    uplo: Uplo,
    trans: Trans,
    alpha: T::Real,
    a: View<T>,
    beta: T::Real,
    mut c: ViewMut<T>,
) {
    let k = if trans == Trans::No { a.n } else { a.m };
    debug_assert_eq!(c.m, c.n);
    if c.n == 0 {
        return;
    }
    // SAFETY: valid views of the stated shapes.
    unsafe {
        bk::herk::<T>(
            ch(uplo.ch()),
            ch(tr::<T>(trans)),
            &fi(c.n),
            &fi(k),
            &alpha,
            a.as_ptr(),
            &fi(a.ld),
            &beta,
            c.as_mut_ptr(),
            &fi(c.ld),
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
///
/// That is the f64 kernel; the other types take the backend's `?trsm_` whole ([`TileTrsm`]).
pub fn trsm<T: TileTrsm>(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: T, a: View<T>, b: ViewMut<T>) {
    T::trsm(side, uplo, ta, diag, alpha, a, b)
}

/// The tile TRSM of an element type: f64 splits the triangle and solves the leaves itself
/// ([`trsm`]'s method, `kernels::trsm_leaf` is f64 only), the other types call the backend.
pub trait TileTrsm: Scalar {
    fn trsm(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: Self, a: View<Self>, b: ViewMut<Self>);
}

impl TileTrsm for f64 {
    #[inline]
    fn trsm(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: f64, a: View<f64>, b: ViewMut<f64>) {
        trsm_split(side, uplo, ta, diag, alpha, a, b)
    }
}

macro_rules! backend_trsm {
    ($($t:ty),*) => {$(
        impl TileTrsm for $t {
            fn trsm(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: $t, a: View<$t>, b: ViewMut<$t>) {
                trsm_backend(side, uplo, ta, diag, alpha, a, b)
            }
        }
    )*};
}
backend_trsm!(f32, c32, c64);

fn trsm_split(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: f64, a: View<f64>, b: ViewMut<f64>) {
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
    trsm_split(side, uplo, ta, diag, alpha, t_first, first.reborrow());
    let x = first.as_view();
    if side == Side::Left {
        gemm(ta, Trans::No, -1.0, off, x, alpha, second.reborrow());
    } else {
        gemm(Trans::No, ta, -1.0, x, off, alpha, second.reborrow());
    }
    trsm_split(side, uplo, ta, diag, 1.0, t_second, second.reborrow());
}

/// B ← α·op(A)⁻¹·B or α·B·op(A)⁻¹ by the backend's `?trsm_` (the non-f64 tile TRSM, and what
/// the f64 tests compare [`trsm`] with).
pub(super) fn trsm_backend<T: Scalar>(
    side: Side,
    uplo: Uplo,
    ta: Trans,
    diag: Diag,
    alpha: T,
    a: View<T>,
    mut b: ViewMut<T>,
) {
    if b.m == 0 || b.n == 0 {
        return;
    }
    // SAFETY: valid views of the stated shapes (A of B's order on the given side).
    unsafe {
        bk::trsm::<T>(
            ch(side.ch()),
            ch(uplo.ch()),
            ch(tr::<T>(ta)),
            ch(diag.ch()),
            &fi(b.m),
            &fi(b.n),
            &alpha,
            a.as_ptr(),
            &fi(a.ld),
            b.as_mut_ptr(),
            &fi(b.ld),
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
        compare_with_dtrsm("recursive", &trsm::<f64>, &cases, 3);
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
