//! LAPACK auxiliaries applied by `api/` entry logic to a whole caller array: the max-abs norm,
//! scaling by a ratio without overflow, zeroing, machine constants and the block size oracle.
//! Drivers such as DGELS use them exactly where the reference driver does, so their results
//! (scaled inputs, zeroed outputs, workspace sizes) match LAPACK's bit for bit.
//!
//! These are safe functions because the pointers arrive as [`Raw`], whose creator vouched for
//! them under LAPACK's calling convention, and the api layer has checked the dimensions. The
//! norm, the scaling and the zeroing are numerical work of the caller's ([`numeric`]), as in the
//! reference driver.

use super::lapack::{self as bk, ch};
use crate::fenv::numeric;
use crate::tile::Raw;

/// `DLANGE('M')`: the largest absolute value of the m×n matrix (NaN if one is NaN).
pub fn max_abs(m: i32, n: i32, a: Raw<f64>, lda: i32) -> f64 {
    // The 'M' norm needs no workspace; LAPACK passes a dummy of one element.
    let mut rwork = [0.0f64; 1];
    // SAFETY: Raw's contract covers the m×n block with leading dimension lda.
    numeric(|| unsafe { bk::dlange(ch(b'M'), &m, &n, a.ptr(), &lda, rwork.as_mut_ptr(), 1) })
}

/// `DLASCL('G')`: multiplies the m×n matrix by `cto / cfrom`, in steps that neither overflow
/// nor underflow.
pub fn scale(cfrom: f64, cto: f64, m: i32, n: i32, a: Raw<f64>, lda: i32) {
    let mut info = 0;
    // SAFETY: Raw's contract covers the m×n block.
    numeric(|| unsafe { bk::dlascl(ch(b'G'), &0, &0, &cfrom, &cto, &m, &n, a.ptr(), &lda, &mut info, 1) });
    debug_assert_eq!(info, 0, "dlascl rejected checked arguments");
}

/// `DLASET('F', m, n, 0, 0)`: zeroes the m×n matrix.
pub fn zero(m: i32, n: i32, a: Raw<f64>, lda: i32) {
    // SAFETY: Raw's contract covers the m×n block.
    numeric(|| unsafe { bk::dlaset(ch(b'F'), &m, &n, &0.0, &0.0, a.ptr(), &lda, 1) });
}

/// `DLAMCH(c)`.
pub fn lamch(c: u8) -> f64 {
    // SAFETY: DLAMCH only reads its character argument.
    unsafe { bk::dlamch(ch(c), 1) }
}

/// `ILAENV(ispec, name, opts, n1, n2, n3, n4)` of the backend.
pub fn ilaenv(ispec: i32, name: &str, opts: &str, n: [i32; 4]) -> i32 {
    // SAFETY: ILAENV reads `name` and `opts` up to the lengths passed after the arguments, and
    // the integers by reference; nothing is written.
    unsafe {
        bk::ilaenv(
            &ispec,
            name.as_ptr() as *const std::ffi::c_char,
            opts.as_ptr() as *const std::ffi::c_char,
            &n[0],
            &n[1],
            &n[2],
            &n[3],
            name.len(),
            opts.len(),
        )
    }
}

/// Stores `v` in the first element of a LAPACK WORK array (the optimal LWORK on exit).
pub fn store_first(work: Raw<f64>, v: f64) {
    // SAFETY: LAPACK documents WORK as an array of at least one element whenever the routine
    // returns a workspace size, which Raw's creator vouched for.
    unsafe { *work.ptr() = v };
}
