//! ScaLAPACK symbols as Fortran calls them: every argument by reference, descriptors as
//! `INTEGER DESC(9)`, hidden CHARACTER lengths appended as `size_t`.
//!
//! SAFETY (every function here): the Fortran calling convention makes the caller responsible for
//! each scalar pointer being valid to read (INFO to write), each descriptor holding 9 integers,
//! and each local array being as large as ScaLAPACK documents for the arguments given;
//! `Raw::new` records that promise, and `api::scalapack` checks the arguments before any local
//! array is touched.

#![allow(clippy::missing_safety_doc)]

use super::pguard;
use crate::api::scalapack::{self as sl, Desc};
use crate::config;
use crate::tile::Raw;
use std::ffi::c_char;

unsafe fn desc(p: *const i32) -> Desc {
    // SAFETY: the caller passes a descriptor of 9 integers (see the module's contract).
    Desc(*(p as *const [i32; 9]))
}

#[no_mangle]
pub unsafe extern "C" fn pdpotrf_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PDPOTRF", || {
        sl::potrf::pdpotrf(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdpotrs_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    b: *mut f64,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PDPOTRS", || {
        sl::potrf::pdpotrs(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut f64),
            *ia,
            *ja,
            &da,
            Raw::new(b),
            *ib,
            *jb,
            &db,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdposv_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    b: *mut f64,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PDPOSV", || {
        sl::potrf::pdposv(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(b),
            *ib,
            *jb,
            &db,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdgetrf_(
    m: *const i32,
    n: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PDGETRF", || {
        sl::getrf::pdgetrf(config::get(), *m, *n, Raw::new(a), *ia, *ja, &da, Raw::new(ipiv))
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdgetrs_(
    trans: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *const i32,
    b: *mut f64,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PDGETRS", || {
        sl::getrf::pdgetrs(
            config::get(),
            *trans as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut f64),
            *ia,
            *ja,
            &da,
            Raw::new(ipiv as *mut i32),
            Raw::new(b),
            *ib,
            *jb,
            &db,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdgesv_(
    n: *const i32,
    nrhs: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *mut i32,
    b: *mut f64,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PDGESV", || {
        sl::getrf::pdgesv(
            config::get(),
            *n,
            *nrhs,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(ipiv),
            Raw::new(b),
            *ib,
            *jb,
            &db,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdgeqrf_(
    m: *const i32,
    n: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *mut f64,
    work: *mut f64,
    lwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PDGEQRF", || {
        sl::geqrf::pdgeqrf(
            config::get(),
            *m,
            *n,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(tau),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdtrtri_(
    uplo: *const c_char,
    diag: *const c_char,
    n: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
    _diag_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PDTRTRI", || {
        sl::inverse::pdtrtri(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdpotri_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PDPOTRI", || {
        sl::inverse::pdpotri(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdgetri_(
    n: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *const i32,
    work: *mut f64,
    lwork: *const i32,
    iwork: *mut i32,
    liwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PDGETRI", || {
        sl::inverse::pdgetri(
            config::get(),
            *n,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(ipiv as *mut i32),
            Raw::new(work),
            *lwork,
            Raw::new(iwork),
            *liwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdorgqr_(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *const f64,
    work: *mut f64,
    lwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PDORGQR", || {
        sl::orgqr::pdorgqr(
            config::get(),
            *m,
            *n,
            *k,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(tau as *mut f64),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdormqr_(
    side: *const c_char,
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut f64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *const f64,
    c: *mut f64,
    ic: *const i32,
    jc: *const i32,
    descc: *const i32,
    work: *mut f64,
    lwork: *const i32,
    info: *mut i32,
    _side_len: usize,
    _trans_len: usize,
) {
    let (da, dc) = (desc(desca), desc(descc));
    *info = pguard(da.ctxt(), "PDORMQR", || {
        sl::orgqr::pdormqr(
            config::get(),
            *side as u8,
            *trans as u8,
            *m,
            *n,
            *k,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(tau as *mut f64),
            Raw::new(c),
            *ic,
            *jc,
            &dc,
            Raw::new(work),
            *lwork,
        )
    });
}

// The distributed block tridiagonal routines (hetla's own, `api::scalapack::bt`): DBTTRF's,
// DBTTRS's and DBTSV's arguments with a BLACS context after LDB (after IPIV for PDBTTRF).

#[no_mangle]
pub unsafe extern "C" fn pdbttrf_(
    n: *const i32,
    m: *const i32,
    dl: *mut f64,
    d: *mut f64,
    du: *mut f64,
    af: *mut f64,
    laf: *const i32,
    ipiv: *mut i32,
    ictxt: *const i32,
    info: *mut i32,
) {
    *info = pguard(*ictxt, "PDBTTRF", || {
        sl::bt::pdbttrf(
            config::get(),
            *n,
            *m,
            Raw::new(dl),
            Raw::new(d),
            Raw::new(du),
            Raw::new(af),
            *laf,
            Raw::new(ipiv),
            *ictxt,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdbttrs_(
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
    ictxt: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    *info = pguard(*ictxt, "PDBTTRS", || {
        sl::bt::pdbttrs(
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
            *ictxt,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pdbtsv_(
    n: *const i32,
    m: *const i32,
    nrhs: *const i32,
    dl: *mut f64,
    d: *mut f64,
    du: *mut f64,
    b: *mut f64,
    ldb: *const i32,
    ictxt: *const i32,
    info: *mut i32,
) {
    *info = pguard(*ictxt, "PDBTSV", || {
        sl::bt::pdbtsv(
            config::get(),
            *n,
            *m,
            *nrhs,
            Raw::new(dl),
            Raw::new(d),
            Raw::new(du),
            Raw::new(b),
            *ldb,
            *ictxt,
        )
    });
}
