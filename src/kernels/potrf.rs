//! POTRF on one diagonal tile: A = L·Lᵀ or Uᵀ·U. Returns LAPACK's INFO for the tile (the order
//! of the first leading minor that is not positive definite, 0 on success).

use super::{fi, Uplo};
use crate::backend::lapack::{self as bk, ch};
use crate::tile::ViewMut;

pub fn potrf(uplo: Uplo, mut a: ViewMut<f64>) -> i32 {
    debug_assert_eq!(a.m, a.n);
    let mut info = 0;
    // SAFETY: `a` is a valid square block.
    unsafe { bk::dpotrf(ch(uplo.ch()), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), &mut info, 1) };
    info
}
