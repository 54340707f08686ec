//! The BLAS symbols hetla exports: `sgemm_`, `dgemm_`, `cgemm_`, `zgemm_`, as gfortran calls
//! them (every argument by reference, the two CHARACTER lengths appended as `size_t`).
//!
//! Every ?GEMM of the process arrives here once hetla is loaded ahead of the BLAS, so the path to
//! the backend is kept to a load and a jump when no device is configured
//! ([`api::gemm::tiles_possible`]: the backend then checks the arguments itself), and to the
//! reference's argument checks and a thread-local test when one is (a call from inside a task or
//! another hetla call forwards); no allocation, lock or environment read. hetla's
//! own tile kernels call the backend's routines directly (`backend::lapack`), never these
//! symbols.

#![allow(clippy::missing_safety_doc)]

use super::guard;
use crate::api::gemm;
use crate::backend::lapack::{self as bk, xerbla};
use crate::config;
use crate::error::Error;
use crate::graph::op::OpElem;
use crate::scalar::{self, c32, c64};
use crate::tile::Raw;
use std::ffi::c_char;
use std::sync::atomic::{AtomicUsize, Ordering};

/// ?GEMM's Fortran interface for element type `T`, as gfortran calls it (the CHARACTER lengths
/// appended as `size_t`).
type Gemm<T> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const i32,
    *const i32,
    *const i32,
    *const T,
    *const T,
    *const i32,
    *const T,
    *const i32,
    *const T,
    *mut T,
    *const i32,
    usize,
    usize,
);

/// Where each type's export sends its calls (by [`scalar::type_index`]): 0 until the type's
/// first call decides ([`gemm_first`]), then the backend's own ?GEMM when no product of that
/// type can run on tiles ([`gemm::tiles_possible`]), or [`gemm_checked`] when one can.
static TARGET: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];

/// The routine type `T`'s export passes its call to.
#[inline(always)]
fn target<T: OpElem>() -> Gemm<T> {
    let t = TARGET[scalar::type_index::<T>()].load(Ordering::Acquire);
    if t == 0 {
        gemm_first::<T>
    } else {
        // SAFETY: a nonzero target of type `T` is a routine of type `Gemm<T>` stored by
        // `gemm_first::<T>`.
        unsafe { std::mem::transmute::<usize, Gemm<T>>(t) }
    }
}

// Each export only passes the caller's arguments on, unchanged, to its type's target: the
// compiler makes that a jump (a sibling call: `objdump -d` shows a load, a `cmov` and
// `jmp *%r11`), so without devices a program's ?GEMM reaches the backend's with its own
// arguments in place, as if hetla were not loaded, at the cost of one load and an indirect
// jump. Before, DGEMM called the backend with the 15 arguments pushed again (9 on the stack):
// 7.7% of the product's time at m = n = k = 4 and 5.8% at 8 (docs/speed.md).

/// SGEMM: C ← α·op(A)·op(B) + β·C. Without devices the call goes to the backend's SGEMM with
/// its arguments unchanged.
///
/// SAFETY: the Fortran calling convention: every scalar pointer valid to read, and A, B, C as
/// large as the reference SGEMM documents for the arguments given (the backend checks the
/// arguments, or with devices hetla does, as the reference does, before any array is touched).
#[no_mangle]
pub unsafe extern "C" fn sgemm_(
    transa: *const c_char,
    transb: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    alpha: *const f32,
    a: *const f32,
    lda: *const i32,
    b: *const f32,
    ldb: *const i32,
    beta: *const f32,
    c: *mut f32,
    ldc: *const i32,
    transa_len: usize,
    transb_len: usize,
) {
    // The caller's promises go on with its arguments.
    target::<f32>()(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len)
}

/// DGEMM: C ← α·op(A)·op(B) + β·C. Without devices the call goes to the backend's DGEMM with
/// its arguments unchanged.
///
/// SAFETY: the Fortran calling convention: every scalar pointer valid to read, and A, B, C as
/// large as the reference DGEMM documents for the arguments given (the backend checks the
/// arguments, or with devices hetla does, as the reference does, before any array is touched).
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
    // The caller's promises go on with its arguments.
    target::<f64>()(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len)
}

/// CGEMM: C ← α·op(A)·op(B) + β·C. Without devices the call goes to the backend's CGEMM with
/// its arguments unchanged.
///
/// SAFETY: the Fortran calling convention: every scalar pointer valid to read, and A, B, C as
/// large as the reference CGEMM documents for the arguments given (the backend checks the
/// arguments, or with devices hetla does, as the reference does, before any array is touched).
#[no_mangle]
pub unsafe extern "C" fn cgemm_(
    transa: *const c_char,
    transb: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    alpha: *const c32,
    a: *const c32,
    lda: *const i32,
    b: *const c32,
    ldb: *const i32,
    beta: *const c32,
    c: *mut c32,
    ldc: *const i32,
    transa_len: usize,
    transb_len: usize,
) {
    // The caller's promises go on with its arguments.
    target::<c32>()(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len)
}

/// ZGEMM: C ← α·op(A)·op(B) + β·C. Without devices the call goes to the backend's ZGEMM with
/// its arguments unchanged.
///
/// SAFETY: the Fortran calling convention: every scalar pointer valid to read, and A, B, C as
/// large as the reference ZGEMM documents for the arguments given (the backend checks the
/// arguments, or with devices hetla does, as the reference does, before any array is touched).
#[no_mangle]
pub unsafe extern "C" fn zgemm_(
    transa: *const c_char,
    transb: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    alpha: *const c64,
    a: *const c64,
    lda: *const i32,
    b: *const c64,
    ldb: *const i32,
    beta: *const c64,
    c: *mut c64,
    ldc: *const i32,
    transa_len: usize,
    transb_len: usize,
) {
    // The caller's promises go on with its arguments.
    target::<c64>()(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len)
}

/// The first ?GEMM of type `T` in the process: decides where every call of the type goes
/// ([`TARGET`]; threads that race here store the same routine) and passes this one on.
unsafe extern "C" fn gemm_first<T: OpElem>(
    transa: *const c_char,
    transb: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    alpha: *const T,
    a: *const T,
    lda: *const i32,
    b: *const T,
    ldb: *const i32,
    beta: *const T,
    c: *mut T,
    ldc: *const i32,
    transa_len: usize,
    transb_len: usize,
) {
    let f: Gemm<T> = if gemm::tiles_possible::<T>() {
        gemm_checked::<T>
    } else {
        // SAFETY: the backend's `?gemm_` of type `T`, whose interface is `Gemm<T>`; it checks the
        // arguments itself, as it would without hetla, and is not counted for a fork (the
        // program's own thread, as without hetla).
        std::mem::transmute::<usize, Gemm<T>>(bk::gemm_address::<T>())
    };
    TARGET[scalar::type_index::<T>()].store(f as usize, Ordering::Release);
    f(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len)
}

/// ?GEMM where products may run on tiles (devices are configured): the reference's checks, then
/// [`gemm::gemm`], or the backend from inside a task or another hetla call.
unsafe extern "C" fn gemm_checked<T: OpElem>(
    transa: *const c_char,
    transb: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    alpha: *const T,
    a: *const T,
    lda: *const i32,
    b: *const T,
    ldb: *const i32,
    beta: *const T,
    c: *mut T,
    ldc: *const i32,
    _transa_len: usize,
    _transb_len: usize,
) {
    let name = xerbla_name::<T>();
    let (ta, tb, mv, nv, kv) = (*transa as u8, *transb as u8, *m, *n, *k);
    let (ldav, ldbv, ldcv) = (*lda, *ldb, *ldc);
    if let Err(Error::Arg(pos)) = gemm::check::<T>(ta, tb, mv, nv, kv, ldav, ldbv, ldcv) {
        xerbla(name, pos);
        return;
    }
    let (alv, bev) = (*alpha, *beta);
    if gemm::nothing_to_do(mv, nv, kv, alv, bev) {
        return;
    }
    if crate::runtime::in_task() || crate::api::inside_entry_point() {
        // The caller's own argument pointers go on to the backend unchanged.
        bk::gemm::<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    let (a, b, c) = (Raw::new(a as *mut T), Raw::new(b as *mut T), Raw::new(c));
    guard(name, || gemm::gemm(config::get(), ta, tb, mv, nv, kv, alv, a, ldav, b, ldbv, bev, c, ldcv));
}

/// The routine's name as the reference BLAS passes it to XERBLA (six characters).
fn xerbla_name<T: OpElem>() -> &'static str {
    ["SGEMM ", "DGEMM ", "CGEMM ", "ZGEMM "][scalar::type_index::<T>()]
}
