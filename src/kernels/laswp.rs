//! LASWP on one block: the row interchanges of an LU factorization applied to an m×n block.
//!
//! `ipiv[i]` (1-based, relative to the block's first row) is the row swapped with row i + 1.
//! [`Dir::Forward`] applies them for i = 0, 1, … (P·B, as DGETRF and DGETRS with TRANS = 'N'
//! need); [`Dir::Backward`] applies them in reverse order (Pᵀ·B, for DGETRS with TRANS = 'T').

use super::fi;
use crate::backend::lapack as bk;
use crate::tile::ViewMut;

/// Order in which the interchanges are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Forward,
    Backward,
}

pub fn laswp(mut a: ViewMut<f64>, ipiv: &[i32], dir: Dir) {
    // An out-of-range pivot (only possible from a caller's corrupt IPIV in DGETRS) would make the
    // backend write outside the block; refuse it instead, which fails the call cleanly.
    assert!(ipiv.len() <= a.m, "more interchanges than rows");
    for (i, &p) in ipiv.iter().enumerate() {
        assert!(p >= 1 && p as usize <= a.m, "row interchange {} -> {p} outside 1..={}", i + 1, a.m);
    }
    if a.n == 0 || ipiv.is_empty() {
        return;
    }
    let incx = match dir {
        Dir::Forward => 1,
        Dir::Backward => -1,
    };
    // SAFETY: `a` is a valid m×n block; `ipiv` holds k2 = ipiv.len() entries, every one a row
    // index within 1..=m (checked above), so every swap stays inside the block.
    unsafe { bk::dlaswp(&fi(a.n), a.as_mut_ptr(), &fi(a.ld), &1, &fi(ipiv.len()), ipiv.as_ptr(), &incx) };
}
