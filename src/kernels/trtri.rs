//! The inverse's tile kernels: TRTRI (a triangular tile's inverse, in place), LAUUM (the product
//! U·Uᵀ or Lᵀ·L of a triangular tile, in place on that triangle) and TRMM (B ← α·op(A)·B or
//! α·B·op(A), A triangular).

use super::{fi, Diag, Side, Trans, Uplo};
use crate::backend::lapack::{self as bk, ch};
use crate::tile::{View, ViewMut};

/// The inverse of the `uplo` triangle of the square tile `a`, in place; LAPACK's INFO (the first
/// zero diagonal element, 1-based, when not unit).
pub fn trtri(uplo: Uplo, diag: Diag, mut a: ViewMut<f64>) -> i32 {
    debug_assert_eq!(a.m, a.n);
    if a.n == 0 {
        return 0;
    }
    let mut info = 0;
    // SAFETY: `a` is a valid square block.
    unsafe { bk::dtrtri(ch(uplo.ch()), ch(diag.ch()), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), &mut info, 1, 1) };
    info
}

/// U·Uᵀ (upper) or Lᵀ·L (lower) of the triangle of the square tile `a`, into that triangle.
pub fn lauum(uplo: Uplo, mut a: ViewMut<f64>) {
    debug_assert_eq!(a.m, a.n);
    if a.n == 0 {
        return;
    }
    let mut info = 0;
    // SAFETY: `a` is a valid square block.
    unsafe { bk::dlauum(ch(uplo.ch()), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), &mut info, 1) };
}

#[allow(clippy::too_many_arguments)]
pub fn trmm(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: f64, a: View<f64>, mut b: ViewMut<f64>) {
    debug_assert_eq!(a.m, a.n);
    debug_assert_eq!(a.n, if side == Side::Left { b.m } else { b.n });
    if b.m == 0 || b.n == 0 {
        return;
    }
    // SAFETY: valid views of the stated shapes.
    unsafe {
        bk::dtrmm(
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
