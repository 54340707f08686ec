//! LAPACK symbols as gfortran calls them: every argument by reference, hidden CHARACTER lengths
//! appended as `size_t`.
//!
//! SAFETY (every function here): the Fortran calling convention makes the caller responsible for
//! each scalar pointer being valid to read (INFO to write) and for each array being as large as
//! LAPACK documents for the arguments given; `Raw::new` records that promise, and `api` checks
//! the arguments before any array is touched.

#![allow(clippy::missing_safety_doc)]

use super::guard;
use crate::api;
use crate::config;
use crate::tile::Raw;
use std::ffi::c_char;

#[no_mangle]
pub unsafe extern "C" fn dpotrf_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut f64,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("DPOTRF", || api::potrf::dpotrf(config::get(), *uplo as u8, *n, Raw::new(a), *lda));
}
