//! The BLAS symbol hetla exports: `dgemm_`, as gfortran calls it (every argument by reference,
//! the two CHARACTER lengths appended as `size_t`).
//!
//! Every DGEMM of the process arrives here once hetla is loaded ahead of the BLAS, so the path to
//! the backend is kept to a load and a jump when no device is configured
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
use std::sync::atomic::{AtomicUsize, Ordering};

/// DGEMM's Fortran interface as gfortran calls it (the CHARACTER lengths appended as `size_t`).
type Dgemm = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const i32,
    *const i32,
    *const i32,
    *const f64,
    *const f64,
    *const i32,
    *const f64,
    *const i32,
    *const f64,
    *mut f64,
    *const i32,
    usize,
    usize,
);

/// Where [`dgemm_`] sends each call: 0 until the first call decides ([`dgemm_first`]), then the
/// backend's own DGEMM when no product of this process can run on tiles
/// ([`gemm::tiles_possible`]), or [`dgemm_checked`] when one can.
static DGEMM_TARGET: AtomicUsize = AtomicUsize::new(0);

// The export only passes the caller's arguments on, unchanged, to `DGEMM_TARGET`'s routine:
// the compiler makes that a jump (a sibling call: `objdump -d` shows a load, a `cmov` and
// `jmp *%r11`), so without devices a program's DGEMM reaches the backend's with its own
// arguments in place, as if hetla were not loaded, at the cost of one load and an indirect
// jump. Before, the export called the backend with the 15 arguments pushed again (9 on the
// stack): 7.7% of the product's time at m = n = k = 4 and 5.8% at 8 (docs/speed.md).

/// DGEMM: C ← α·op(A)·op(B) + β·C. Without devices the call goes to the backend's DGEMM with
/// its arguments unchanged.
///
/// SAFETY: the Fortran calling convention: every scalar pointer valid to read, and A, B, C as
/// large as the reference DGEMM documents for the arguments given (checked by the backend, or
/// with devices by `dgemm_checked` before any array is touched; `Raw::new` records the
/// promise).
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
    transa_len: usize,
    transb_len: usize,
) {
    let t = DGEMM_TARGET.load(Ordering::Acquire);
    // SAFETY: a nonzero target is a routine of type `Dgemm` stored by `dgemm_first`; the caller's
    // promises go on with its arguments.
    let f: Dgemm = if t == 0 { dgemm_first } else { std::mem::transmute::<usize, Dgemm>(t) };
    f(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len)
}

/// The first DGEMM of the process: decides where every call goes ([`DGEMM_TARGET`]; threads
/// that race here store the same routine) and passes this one on.
unsafe extern "C" fn dgemm_first(
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
    transa_len: usize,
    transb_len: usize,
) {
    let f: Dgemm = if gemm::tiles_possible() {
        dgemm_checked
    } else {
        // SAFETY: the backend's `dgemm_`, whose interface is `Dgemm`; it checks the arguments
        // itself, as it would without hetla, and is not counted for a fork (the program's own
        // thread, as without hetla).
        std::mem::transmute::<usize, Dgemm>(bk::dgemm_address())
    };
    DGEMM_TARGET.store(f as usize, Ordering::Release);
    f(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len)
}

/// DGEMM where products may run on tiles (devices are configured): the reference's checks, then
/// [`gemm::dgemm`], or the backend from inside a task or another hetla call.
unsafe extern "C" fn dgemm_checked(
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
