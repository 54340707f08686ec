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
use crate::scalar::{c32, c64};
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

#[no_mangle]
pub unsafe extern "C" fn spotrf_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut f32,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("SPOTRF", || api::potrf::potrf(config::get(), *uplo as u8, *n, Raw::new(a), *lda));
}

#[no_mangle]
pub unsafe extern "C" fn cpotrf_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut c32,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("CPOTRF", || api::potrf::potrf(config::get(), *uplo as u8, *n, Raw::new(a), *lda));
}

#[no_mangle]
pub unsafe extern "C" fn zpotrf_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut c64,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("ZPOTRF", || api::potrf::potrf(config::get(), *uplo as u8, *n, Raw::new(a), *lda));
}

#[no_mangle]
pub unsafe extern "C" fn dpotrs_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const f64,
    lda: *const i32,
    b: *mut f64,
    ldb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("DPOTRS", || {
        api::potrf::dpotrs(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut f64),
            *lda,
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn dposv_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut f64,
    lda: *const i32,
    b: *mut f64,
    ldb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("DPOSV ", || {
        api::potrf::dposv(config::get(), *uplo as u8, *n, *nrhs, Raw::new(a), *lda, Raw::new(b), *ldb)
    });
}

#[no_mangle]
pub unsafe extern "C" fn spotrs_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const f32,
    lda: *const i32,
    b: *mut f32,
    ldb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("SPOTRS", || {
        api::potrf::potrs(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut f32),
            *lda,
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn cpotrs_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const c32,
    lda: *const i32,
    b: *mut c32,
    ldb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("CPOTRS", || {
        api::potrf::potrs(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut c32),
            *lda,
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn zpotrs_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const c64,
    lda: *const i32,
    b: *mut c64,
    ldb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("ZPOTRS", || {
        api::potrf::potrs(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut c64),
            *lda,
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn sposv_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut f32,
    lda: *const i32,
    b: *mut f32,
    ldb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("SPOSV ", || {
        api::potrf::posv(config::get(), *uplo as u8, *n, *nrhs, Raw::new(a), *lda, Raw::new(b), *ldb)
    });
}

#[no_mangle]
pub unsafe extern "C" fn cposv_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut c32,
    lda: *const i32,
    b: *mut c32,
    ldb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("CPOSV ", || {
        api::potrf::posv(config::get(), *uplo as u8, *n, *nrhs, Raw::new(a), *lda, Raw::new(b), *ldb)
    });
}

#[no_mangle]
pub unsafe extern "C" fn zposv_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut c64,
    lda: *const i32,
    b: *mut c64,
    ldb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("ZPOSV ", || {
        api::potrf::posv(config::get(), *uplo as u8, *n, *nrhs, Raw::new(a), *lda, Raw::new(b), *ldb)
    });
}

#[no_mangle]
pub unsafe extern "C" fn dgetrf_(
    m: *const i32,
    n: *const i32,
    a: *mut f64,
    lda: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    *info = guard("DGETRF", || api::getrf::dgetrf(config::get(), *m, *n, Raw::new(a), *lda, Raw::new(ipiv)));
}

#[no_mangle]
pub unsafe extern "C" fn dgetrs_(
    trans: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const f64,
    lda: *const i32,
    ipiv: *const i32,
    b: *mut f64,
    ldb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("DGETRS", || {
        api::getrf::dgetrs(
            config::get(),
            *trans as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut f64),
            *lda,
            Raw::new(ipiv as *mut i32),
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn dgesv_(
    n: *const i32,
    nrhs: *const i32,
    a: *mut f64,
    lda: *const i32,
    ipiv: *mut i32,
    b: *mut f64,
    ldb: *const i32,
    info: *mut i32,
) {
    *info = guard("DGESV ", || {
        api::getrf::dgesv(config::get(), *n, *nrhs, Raw::new(a), *lda, Raw::new(ipiv), Raw::new(b), *ldb)
    });
}

#[no_mangle]
pub unsafe extern "C" fn sgetrf_(
    m: *const i32,
    n: *const i32,
    a: *mut f32,
    lda: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    *info = guard("SGETRF", || api::getrf::getrf(config::get(), *m, *n, Raw::new(a), *lda, Raw::new(ipiv)));
}

#[no_mangle]
pub unsafe extern "C" fn sgetrs_(
    trans: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const f32,
    lda: *const i32,
    ipiv: *const i32,
    b: *mut f32,
    ldb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("SGETRS", || {
        api::getrf::getrs(
            config::get(),
            *trans as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut f32),
            *lda,
            Raw::new(ipiv as *mut i32),
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn sgesv_(
    n: *const i32,
    nrhs: *const i32,
    a: *mut f32,
    lda: *const i32,
    ipiv: *mut i32,
    b: *mut f32,
    ldb: *const i32,
    info: *mut i32,
) {
    *info = guard("SGESV ", || {
        api::getrf::gesv(config::get(), *n, *nrhs, Raw::new(a), *lda, Raw::new(ipiv), Raw::new(b), *ldb)
    });
}

#[no_mangle]
pub unsafe extern "C" fn cgetrf_(
    m: *const i32,
    n: *const i32,
    a: *mut c32,
    lda: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    *info = guard("CGETRF", || api::getrf::getrf(config::get(), *m, *n, Raw::new(a), *lda, Raw::new(ipiv)));
}

#[no_mangle]
pub unsafe extern "C" fn cgetrs_(
    trans: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const c32,
    lda: *const i32,
    ipiv: *const i32,
    b: *mut c32,
    ldb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("CGETRS", || {
        api::getrf::getrs(
            config::get(),
            *trans as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut c32),
            *lda,
            Raw::new(ipiv as *mut i32),
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn cgesv_(
    n: *const i32,
    nrhs: *const i32,
    a: *mut c32,
    lda: *const i32,
    ipiv: *mut i32,
    b: *mut c32,
    ldb: *const i32,
    info: *mut i32,
) {
    *info = guard("CGESV ", || {
        api::getrf::gesv(config::get(), *n, *nrhs, Raw::new(a), *lda, Raw::new(ipiv), Raw::new(b), *ldb)
    });
}

#[no_mangle]
pub unsafe extern "C" fn zgetrf_(
    m: *const i32,
    n: *const i32,
    a: *mut c64,
    lda: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    *info = guard("ZGETRF", || api::getrf::getrf(config::get(), *m, *n, Raw::new(a), *lda, Raw::new(ipiv)));
}

#[no_mangle]
pub unsafe extern "C" fn zgetrs_(
    trans: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const c64,
    lda: *const i32,
    ipiv: *const i32,
    b: *mut c64,
    ldb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("ZGETRS", || {
        api::getrf::getrs(
            config::get(),
            *trans as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut c64),
            *lda,
            Raw::new(ipiv as *mut i32),
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn zgesv_(
    n: *const i32,
    nrhs: *const i32,
    a: *mut c64,
    lda: *const i32,
    ipiv: *mut i32,
    b: *mut c64,
    ldb: *const i32,
    info: *mut i32,
) {
    *info = guard("ZGESV ", || {
        api::getrf::gesv(config::get(), *n, *nrhs, Raw::new(a), *lda, Raw::new(ipiv), Raw::new(b), *ldb)
    });
}

#[no_mangle]
pub unsafe extern "C" fn dgeqrf_(
    m: *const i32,
    n: *const i32,
    a: *mut f64,
    lda: *const i32,
    tau: *mut f64,
    work: *mut f64,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("DGEQRF", || {
        api::geqrf::dgeqrf(config::get(), *m, *n, Raw::new(a), *lda, Raw::new(tau), Raw::new(work), *lwork)
    });
}

#[no_mangle]
pub unsafe extern "C" fn dgels_(
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    nrhs: *const i32,
    a: *mut f64,
    lda: *const i32,
    b: *mut f64,
    ldb: *const i32,
    work: *mut f64,
    lwork: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("DGELS ", || {
        api::gels::dgels(
            config::get(),
            *trans as u8,
            *m,
            *n,
            *nrhs,
            Raw::new(a),
            *lda,
            Raw::new(b),
            *ldb,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn dorgqr_(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut f64,
    lda: *const i32,
    tau: *const f64,
    work: *mut f64,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("DORGQR", || {
        api::orgqr::dorgqr(
            config::get(),
            *m,
            *n,
            *k,
            Raw::new(a),
            *lda,
            Raw::new(tau as *mut f64),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn dormqr_(
    side: *const c_char,
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut f64,
    lda: *const i32,
    tau: *const f64,
    c: *mut f64,
    ldc: *const i32,
    work: *mut f64,
    lwork: *const i32,
    info: *mut i32,
    _side_len: usize,
    _trans_len: usize,
) {
    *info = guard("DORMQR", || {
        api::orgqr::dormqr(
            config::get(),
            *side as u8,
            *trans as u8,
            *m,
            *n,
            *k,
            Raw::new(a),
            *lda,
            Raw::new(tau as *mut f64),
            Raw::new(c),
            *ldc,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn sgeqrf_(
    m: *const i32,
    n: *const i32,
    a: *mut f32,
    lda: *const i32,
    tau: *mut f32,
    work: *mut f32,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("SGEQRF", || {
        api::geqrf::geqrf(config::get(), *m, *n, Raw::new(a), *lda, Raw::new(tau), Raw::new(work), *lwork)
    });
}

#[no_mangle]
pub unsafe extern "C" fn sgels_(
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    nrhs: *const i32,
    a: *mut f32,
    lda: *const i32,
    b: *mut f32,
    ldb: *const i32,
    work: *mut f32,
    lwork: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("SGELS ", || {
        api::gels::gels(
            config::get(),
            *trans as u8,
            *m,
            *n,
            *nrhs,
            Raw::new(a),
            *lda,
            Raw::new(b),
            *ldb,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn sorgqr_(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut f32,
    lda: *const i32,
    tau: *const f32,
    work: *mut f32,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("SORGQR", || {
        api::orgqr::orgqr(
            config::get(),
            *m,
            *n,
            *k,
            Raw::new(a),
            *lda,
            Raw::new(tau as *mut f32),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn sormqr_(
    side: *const c_char,
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut f32,
    lda: *const i32,
    tau: *const f32,
    c: *mut f32,
    ldc: *const i32,
    work: *mut f32,
    lwork: *const i32,
    info: *mut i32,
    _side_len: usize,
    _trans_len: usize,
) {
    *info = guard("SORMQR", || {
        api::orgqr::ormqr(
            config::get(),
            *side as u8,
            *trans as u8,
            *m,
            *n,
            *k,
            Raw::new(a),
            *lda,
            Raw::new(tau as *mut f32),
            Raw::new(c),
            *ldc,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn cgeqrf_(
    m: *const i32,
    n: *const i32,
    a: *mut c32,
    lda: *const i32,
    tau: *mut c32,
    work: *mut c32,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("CGEQRF", || {
        api::geqrf::geqrf(config::get(), *m, *n, Raw::new(a), *lda, Raw::new(tau), Raw::new(work), *lwork)
    });
}

#[no_mangle]
pub unsafe extern "C" fn cgels_(
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    nrhs: *const i32,
    a: *mut c32,
    lda: *const i32,
    b: *mut c32,
    ldb: *const i32,
    work: *mut c32,
    lwork: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("CGELS ", || {
        api::gels::gels(
            config::get(),
            *trans as u8,
            *m,
            *n,
            *nrhs,
            Raw::new(a),
            *lda,
            Raw::new(b),
            *ldb,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn cungqr_(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut c32,
    lda: *const i32,
    tau: *const c32,
    work: *mut c32,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("CUNGQR", || {
        api::orgqr::orgqr(
            config::get(),
            *m,
            *n,
            *k,
            Raw::new(a),
            *lda,
            Raw::new(tau as *mut c32),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn cunmqr_(
    side: *const c_char,
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut c32,
    lda: *const i32,
    tau: *const c32,
    c: *mut c32,
    ldc: *const i32,
    work: *mut c32,
    lwork: *const i32,
    info: *mut i32,
    _side_len: usize,
    _trans_len: usize,
) {
    *info = guard("CUNMQR", || {
        api::orgqr::ormqr(
            config::get(),
            *side as u8,
            *trans as u8,
            *m,
            *n,
            *k,
            Raw::new(a),
            *lda,
            Raw::new(tau as *mut c32),
            Raw::new(c),
            *ldc,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn zgeqrf_(
    m: *const i32,
    n: *const i32,
    a: *mut c64,
    lda: *const i32,
    tau: *mut c64,
    work: *mut c64,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("ZGEQRF", || {
        api::geqrf::geqrf(config::get(), *m, *n, Raw::new(a), *lda, Raw::new(tau), Raw::new(work), *lwork)
    });
}

#[no_mangle]
pub unsafe extern "C" fn zgels_(
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    nrhs: *const i32,
    a: *mut c64,
    lda: *const i32,
    b: *mut c64,
    ldb: *const i32,
    work: *mut c64,
    lwork: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("ZGELS ", || {
        api::gels::gels(
            config::get(),
            *trans as u8,
            *m,
            *n,
            *nrhs,
            Raw::new(a),
            *lda,
            Raw::new(b),
            *ldb,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn zungqr_(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut c64,
    lda: *const i32,
    tau: *const c64,
    work: *mut c64,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("ZUNGQR", || {
        api::orgqr::orgqr(
            config::get(),
            *m,
            *n,
            *k,
            Raw::new(a),
            *lda,
            Raw::new(tau as *mut c64),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn zunmqr_(
    side: *const c_char,
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut c64,
    lda: *const i32,
    tau: *const c64,
    c: *mut c64,
    ldc: *const i32,
    work: *mut c64,
    lwork: *const i32,
    info: *mut i32,
    _side_len: usize,
    _trans_len: usize,
) {
    *info = guard("ZUNMQR", || {
        api::orgqr::ormqr(
            config::get(),
            *side as u8,
            *trans as u8,
            *m,
            *n,
            *k,
            Raw::new(a),
            *lda,
            Raw::new(tau as *mut c64),
            Raw::new(c),
            *ldc,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn dgetri_(
    n: *const i32,
    a: *mut f64,
    lda: *const i32,
    ipiv: *const i32,
    work: *mut f64,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("DGETRI", || {
        api::inverse::dgetri(
            config::get(),
            *n,
            Raw::new(a),
            *lda,
            Raw::new(ipiv as *mut i32),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn dtrtri_(
    uplo: *const c_char,
    diag: *const c_char,
    n: *const i32,
    a: *mut f64,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
    _diag_len: usize,
) {
    *info = guard("DTRTRI", || {
        api::inverse::dtrtri(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *lda)
    });
}

#[no_mangle]
pub unsafe extern "C" fn dpotri_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut f64,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("DPOTRI", || api::inverse::dpotri(config::get(), *uplo as u8, *n, Raw::new(a), *lda));
}

// The inverses in single precision and complex (`api::inverse`'s generic routines).

#[no_mangle]
pub unsafe extern "C" fn sgetri_(
    n: *const i32,
    a: *mut f32,
    lda: *const i32,
    ipiv: *const i32,
    work: *mut f32,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("SGETRI", || {
        api::inverse::getri(
            config::get(),
            *n,
            Raw::new(a),
            *lda,
            Raw::new(ipiv as *mut i32),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn strtri_(
    uplo: *const c_char,
    diag: *const c_char,
    n: *const i32,
    a: *mut f32,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
    _diag_len: usize,
) {
    *info = guard("STRTRI", || {
        api::inverse::trtri(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *lda)
    });
}

#[no_mangle]
pub unsafe extern "C" fn spotri_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut f32,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("SPOTRI", || api::inverse::potri(config::get(), *uplo as u8, *n, Raw::new(a), *lda));
}

#[no_mangle]
pub unsafe extern "C" fn cgetri_(
    n: *const i32,
    a: *mut c32,
    lda: *const i32,
    ipiv: *const i32,
    work: *mut c32,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("CGETRI", || {
        api::inverse::getri(
            config::get(),
            *n,
            Raw::new(a),
            *lda,
            Raw::new(ipiv as *mut i32),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn ctrtri_(
    uplo: *const c_char,
    diag: *const c_char,
    n: *const i32,
    a: *mut c32,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
    _diag_len: usize,
) {
    *info = guard("CTRTRI", || {
        api::inverse::trtri(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *lda)
    });
}

#[no_mangle]
pub unsafe extern "C" fn cpotri_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut c32,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("CPOTRI", || api::inverse::potri(config::get(), *uplo as u8, *n, Raw::new(a), *lda));
}

#[no_mangle]
pub unsafe extern "C" fn zgetri_(
    n: *const i32,
    a: *mut c64,
    lda: *const i32,
    ipiv: *const i32,
    work: *mut c64,
    lwork: *const i32,
    info: *mut i32,
) {
    *info = guard("ZGETRI", || {
        api::inverse::getri(
            config::get(),
            *n,
            Raw::new(a),
            *lda,
            Raw::new(ipiv as *mut i32),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn ztrtri_(
    uplo: *const c_char,
    diag: *const c_char,
    n: *const i32,
    a: *mut c64,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
    _diag_len: usize,
) {
    *info = guard("ZTRTRI", || {
        api::inverse::trtri(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *lda)
    });
}

#[no_mangle]
pub unsafe extern "C" fn zpotri_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut c64,
    lda: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    *info = guard("ZPOTRI", || api::inverse::potri(config::get(), *uplo as u8, *n, Raw::new(a), *lda));
}

// Block tridiagonal systems (hetla's own routines, `api::bt`).

#[no_mangle]
pub unsafe extern "C" fn dbttrf_(
    n: *const i32,
    m: *const i32,
    dl: *mut f64,
    d: *mut f64,
    du: *mut f64,
    af: *mut f64,
    laf: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    *info = guard("DBTTRF", || {
        api::bt::dbttrf(
            config::get(),
            *n,
            *m,
            Raw::new(dl),
            Raw::new(d),
            Raw::new(du),
            Raw::new(af),
            *laf,
            Raw::new(ipiv),
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn dbttrs_(
    trans: *const c_char,
    n: *const i32,
    m: *const i32,
    nrhs: *const i32,
    dl: *const f64,
    d: *const f64,
    du: *const f64,
    af: *const f64,
    laf: *const i32,
    ipiv: *const i32,
    b: *mut f64,
    ldb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = guard("DBTTRS", || {
        api::bt::dbttrs(
            config::get(),
            *trans as u8,
            *n,
            *m,
            *nrhs,
            Raw::new(dl as *mut f64),
            Raw::new(d as *mut f64),
            Raw::new(du as *mut f64),
            Raw::new(af as *mut f64),
            *laf,
            Raw::new(ipiv as *mut i32),
            Raw::new(b),
            *ldb,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn dbtsv_(
    n: *const i32,
    m: *const i32,
    nrhs: *const i32,
    dl: *mut f64,
    d: *mut f64,
    du: *mut f64,
    b: *mut f64,
    ldb: *const i32,
    info: *mut i32,
) {
    *info = guard("DBTSV ", || {
        api::bt::dbtsv(
            config::get(),
            *n,
            *m,
            *nrhs,
            Raw::new(dl),
            Raw::new(d),
            Raw::new(du),
            Raw::new(b),
            *ldb,
        )
    });
}
