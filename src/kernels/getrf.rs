//! GETRF on one panel: P·A = L·U of an m×n block by LU with partial pivoting (the backend's
//! recursive GEPP, run single-threaded inside one task). `ipiv` receives the block-local row
//! interchanges (1-based, LAPACK's convention) for the first min(m, n) columns; the return value
//! is LAPACK's INFO for the block: the 1-based index of the first exactly-zero pivot, or 0.
//!
//! A zero pivot does not stop the factorization (as in LAPACK): the remaining columns are still
//! factored, so the tile algorithm carries on and reports INFO at the end.

use super::fi;
use crate::backend::lapack as bk;
use crate::tile::ViewMut;

pub fn getrf(mut a: ViewMut<f64>, mut ipiv: ViewMut<i32>) -> i32 {
    let k = a.m.min(a.n);
    // The pivot vector must hold one entry per factored column, stored contiguously.
    assert!(ipiv.m >= k && ipiv.n == 1, "pivot block too small for the panel");
    if k == 0 {
        return 0;
    }
    let mut info = 0;
    // SAFETY: `a` is a valid m×n block with leading dimension a.ld >= m, and `ipiv` is a valid
    // column of at least min(m, n) integers, as asserted above.
    unsafe { bk::dgetrf(&fi(a.m), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), ipiv.as_mut_ptr(), &mut info) };
    info
}

/// [`getrf`] with the pivots in a slice (the distributed LU keeps them in its panel buffer).
pub fn getrf_slice(mut a: ViewMut<f64>, ipiv: &mut [i32]) -> i32 {
    let k = a.m.min(a.n);
    assert!(ipiv.len() >= k, "pivot slice too small for the panel");
    if k == 0 {
        return 0;
    }
    let mut info = 0;
    // SAFETY: `a` is a valid m×n block with leading dimension a.ld >= m, and `ipiv` holds at
    // least min(m, n) integers, as asserted above.
    unsafe { bk::dgetrf(&fi(a.m), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), ipiv.as_mut_ptr(), &mut info) };
    info
}
