//! The inverse's tile kernels, generic over the element type ([`Scalar`]): TRTRI (a triangular
//! tile's inverse, in place), LAUUM (the product U·Uᴴ or Lᴴ·L of a triangular tile, in place on
//! that triangle; Uᵀ and Lᵀ for the real types) and TRMM (B ← α·op(A)·B or α·B·op(A), A
//! triangular, op = the adjoint for `Trans::Yes`). Each is the backend's routine of the type.

use super::adjoint as tr;
use super::{fi, Diag, Side, Trans, Uplo};
use crate::backend::lapack::{self as bk, ch};
use crate::scalar::Scalar;
use crate::tile::{View, ViewMut};

/// The inverse of the `uplo` triangle of the square tile `a`, in place; LAPACK's INFO (the first
/// zero diagonal element, 1-based, when not unit).
pub fn trtri<T: Scalar>(uplo: Uplo, diag: Diag, mut a: ViewMut<T>) -> i32 {
    debug_assert_eq!(a.m, a.n);
    if a.n == 0 {
        return 0;
    }
    let mut info = 0;
    // SAFETY: `a` is a valid square block.
    unsafe { bk::trtri::<T>(ch(uplo.ch()), ch(diag.ch()), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), &mut info) };
    info
}

/// U·Uᴴ (upper) or Lᴴ·L (lower) of the triangle of the square tile `a`, into that triangle (the
/// diagonal real for complex types, as the backend's `?lauum_` leaves it).
pub fn lauum<T: Scalar>(uplo: Uplo, mut a: ViewMut<T>) {
    debug_assert_eq!(a.m, a.n);
    if a.n == 0 {
        return;
    }
    let mut info = 0;
    // SAFETY: `a` is a valid square block.
    unsafe { bk::lauum::<T>(ch(uplo.ch()), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), &mut info) };
}

#[allow(clippy::too_many_arguments)]
pub fn trmm<T: Scalar>(
    side: Side,
    uplo: Uplo,
    ta: Trans,
    diag: Diag,
    alpha: T,
    a: View<T>,
    mut b: ViewMut<T>,
) {
    debug_assert_eq!(a.m, a.n);
    debug_assert_eq!(a.n, if side == Side::Left { b.m } else { b.n });
    if b.m == 0 || b.n == 0 {
        return;
    }
    // SAFETY: valid views of the stated shapes.
    unsafe {
        bk::trmm::<T>(
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
