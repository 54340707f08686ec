//! POTRF on one diagonal tile: A = L·Lᴴ or Uᴴ·U (Lᵀ, Uᵀ for the real types) by the backend's
//! `?potrf_`. Returns LAPACK's INFO for the tile (the order of the first leading minor that is
//! not positive definite, 0 on success).

use super::{fi, Uplo};
use crate::backend::lapack::{self as bk, ch};
use crate::scalar::Scalar;
use crate::tile::ViewMut;

pub fn potrf<T: Scalar>(uplo: Uplo, mut a: ViewMut<T>) -> i32 {
    debug_assert_eq!(a.m, a.n);
    let mut info = 0;
    // SAFETY: `a` is a valid square block.
    unsafe { bk::potrf::<T>(ch(uplo.ch()), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), &mut info) };
    info
}
