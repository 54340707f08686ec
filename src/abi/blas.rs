//! The BLAS symbol hetla exports: `dgemm_`, as gfortran calls it (every argument by reference,
//! the two CHARACTER lengths appended as `size_t`).
//!
//! Every DGEMM of the process arrives here once hetla is loaded ahead of the BLAS, so the path to
//! the backend is kept to a load and a branch when no device is configured
//! ([`api::gemm::tiles_possible`]: the backend then checks the arguments itself), and to the
//! reference's argument checks and a thread-local test when one is (a call from inside a task or
//! another hetla call forwards); no allocation, lock or environment read. hetla's
//! own tile kernels call the backend's DGEMM directly (`backend::lapack`), never this symbol.

#![allow(clippy::missing_safety_doc)]

use super::guard;
use crate::api::gemm;
use crate::backend::lapack::{self as bk, xerbla};
use crate::config;
use crate::error::Error;
use crate::tile::Raw;
use std::ffi::c_char;

/// DGEMM: C ← α·op(A)·op(B) + β·C.
///
/// SAFETY: the Fortran calling convention: every scalar pointer valid to read, and A, B, C as
/// large as the reference DGEMM documents for the arguments given (checked before any array is
/// touched; `Raw::new` records the promise).
#[no_mangle]
pub unsafe extern "C" fn dgemm_(
    transa: *const c_char,
    transb: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    alpha: *const f64,
    a: *const f64,
    lda: *const i32,
    b: *const f64,
    ldb: *const i32,
    beta: *const f64,
    c: *mut f64,
    ldc: *const i32,
    _transa_len: usize,
    _transb_len: usize,
) {
    if !gemm::tiles_possible() {
        // No device: the backend's DGEMM as the program would call it without hetla, its own
        // argument checks included, and not counted for a fork (the program's own thread).
        bk::direct::dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
        return;
    }
    let (ta, tb, mv, nv, kv) = (*transa as u8, *transb as u8, *m, *n, *k);
    let (ldav, ldbv, ldcv) = (*lda, *ldb, *ldc);
    if let Err(Error::Arg(pos)) = gemm::check(ta, tb, mv, nv, kv, ldav, ldbv, ldcv) {
        xerbla("DGEMM ", pos);
        return;
    }
    let (alv, bev) = (*alpha, *beta);
    if gemm::nothing_to_do(mv, nv, kv, alv, bev) {
        return;
    }
    if crate::runtime::in_task() || crate::api::inside_entry_point() {
        // The caller's own argument pointers go on to the backend unchanged.
        bk::dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
        return;
    }
    let (a, b, c) = (Raw::new(a as *mut f64), Raw::new(b as *mut f64), Raw::new(c));
    guard("DGEMM ", || gemm::dgemm(config::get(), ta, tb, mv, nv, kv, alv, a, ldav, b, ldbv, bev, c, ldcv));
}
