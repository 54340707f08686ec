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
use crate::scalar::{c32, c64};
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
        sl::potrf::potrf::<f64>(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pspotrf_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PSPOTRF", || {
        sl::potrf::potrf::<f32>(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pcpotrf_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PCPOTRF", || {
        sl::potrf::potrf::<c32>(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pzpotrf_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PZPOTRF", || {
        sl::potrf::potrf::<c64>(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
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
        sl::potrf::potrs::<f64>(
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
pub unsafe extern "C" fn pspotrs_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    b: *mut f32,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PSPOTRS", || {
        sl::potrf::potrs::<f32>(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut f32),
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
pub unsafe extern "C" fn pcpotrs_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    b: *mut c32,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PCPOTRS", || {
        sl::potrf::potrs::<c32>(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut c32),
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
pub unsafe extern "C" fn pzpotrs_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    b: *mut c64,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PZPOTRS", || {
        sl::potrf::potrs::<c64>(
            config::get(),
            *uplo as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut c64),
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
        sl::potrf::posv::<f64>(
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
pub unsafe extern "C" fn psposv_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    b: *mut f32,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PSPOSV", || {
        sl::potrf::posv::<f32>(
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
pub unsafe extern "C" fn pcposv_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    b: *mut c32,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PCPOSV", || {
        sl::potrf::posv::<c32>(
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
pub unsafe extern "C" fn pzposv_(
    uplo: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    b: *mut c64,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PZPOSV", || {
        sl::potrf::posv::<c64>(
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
        sl::getrf::getrf::<f64>(config::get(), *m, *n, Raw::new(a), *ia, *ja, &da, Raw::new(ipiv))
    });
}

#[no_mangle]
pub unsafe extern "C" fn psgetrf_(
    m: *const i32,
    n: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PSGETRF", || {
        sl::getrf::getrf::<f32>(config::get(), *m, *n, Raw::new(a), *ia, *ja, &da, Raw::new(ipiv))
    });
}

#[no_mangle]
pub unsafe extern "C" fn pcgetrf_(
    m: *const i32,
    n: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PCGETRF", || {
        sl::getrf::getrf::<c32>(config::get(), *m, *n, Raw::new(a), *ia, *ja, &da, Raw::new(ipiv))
    });
}

#[no_mangle]
pub unsafe extern "C" fn pzgetrf_(
    m: *const i32,
    n: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PZGETRF", || {
        sl::getrf::getrf::<c64>(config::get(), *m, *n, Raw::new(a), *ia, *ja, &da, Raw::new(ipiv))
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
        sl::getrf::getrs::<f64>(
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
pub unsafe extern "C" fn psgetrs_(
    trans: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *const i32,
    b: *mut f32,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PSGETRS", || {
        sl::getrf::getrs::<f32>(
            config::get(),
            *trans as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut f32),
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
pub unsafe extern "C" fn pcgetrs_(
    trans: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *const i32,
    b: *mut c32,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PCGETRS", || {
        sl::getrf::getrs::<c32>(
            config::get(),
            *trans as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut c32),
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
pub unsafe extern "C" fn pzgetrs_(
    trans: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *const i32,
    b: *mut c64,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
    _trans_len: usize,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PZGETRS", || {
        sl::getrf::getrs::<c64>(
            config::get(),
            *trans as u8,
            *n,
            *nrhs,
            Raw::new(a as *mut c64),
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
        sl::getrf::gesv::<f64>(
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
pub unsafe extern "C" fn psgesv_(
    n: *const i32,
    nrhs: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *mut i32,
    b: *mut f32,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PSGESV", || {
        sl::getrf::gesv::<f32>(
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
pub unsafe extern "C" fn pcgesv_(
    n: *const i32,
    nrhs: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *mut i32,
    b: *mut c32,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PCGESV", || {
        sl::getrf::gesv::<c32>(
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
pub unsafe extern "C" fn pzgesv_(
    n: *const i32,
    nrhs: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *mut i32,
    b: *mut c64,
    ib: *const i32,
    jb: *const i32,
    descb: *const i32,
    info: *mut i32,
) {
    let (da, db) = (desc(desca), desc(descb));
    *info = pguard(da.ctxt(), "PZGESV", || {
        sl::getrf::gesv::<c64>(
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
        sl::geqrf::geqrf::<f64>(
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
pub unsafe extern "C" fn psgeqrf_(
    m: *const i32,
    n: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *mut f32,
    work: *mut f32,
    lwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PSGEQRF", || {
        sl::geqrf::geqrf::<f32>(
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
pub unsafe extern "C" fn pcgeqrf_(
    m: *const i32,
    n: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *mut c32,
    work: *mut c32,
    lwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PCGEQRF", || {
        sl::geqrf::geqrf::<c32>(
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
pub unsafe extern "C" fn pzgeqrf_(
    m: *const i32,
    n: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *mut c64,
    work: *mut c64,
    lwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PZGEQRF", || {
        sl::geqrf::geqrf::<c64>(
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
        sl::inverse::trtri::<f64>(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pstrtri_(
    uplo: *const c_char,
    diag: *const c_char,
    n: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
    _diag_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PSTRTRI", || {
        sl::inverse::trtri::<f32>(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pctrtri_(
    uplo: *const c_char,
    diag: *const c_char,
    n: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
    _diag_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PCTRTRI", || {
        sl::inverse::trtri::<c32>(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pztrtri_(
    uplo: *const c_char,
    diag: *const c_char,
    n: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
    _diag_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PZTRTRI", || {
        sl::inverse::trtri::<c64>(config::get(), *uplo as u8, *diag as u8, *n, Raw::new(a), *ia, *ja, &da)
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
        sl::inverse::potri::<f64>(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pspotri_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PSPOTRI", || {
        sl::inverse::potri::<f32>(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pcpotri_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PCPOTRI", || {
        sl::inverse::potri::<c32>(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
    });
}

#[no_mangle]
pub unsafe extern "C" fn pzpotri_(
    uplo: *const c_char,
    n: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    info: *mut i32,
    _uplo_len: usize,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PZPOTRI", || {
        sl::inverse::potri::<c64>(config::get(), *uplo as u8, *n, Raw::new(a), *ia, *ja, &da)
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
        sl::inverse::getri::<f64>(
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
pub unsafe extern "C" fn psgetri_(
    n: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *const i32,
    work: *mut f32,
    lwork: *const i32,
    iwork: *mut i32,
    liwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PSGETRI", || {
        sl::inverse::getri::<f32>(
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
pub unsafe extern "C" fn pcgetri_(
    n: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *const i32,
    work: *mut c32,
    lwork: *const i32,
    iwork: *mut i32,
    liwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PCGETRI", || {
        sl::inverse::getri::<c32>(
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
pub unsafe extern "C" fn pzgetri_(
    n: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    ipiv: *const i32,
    work: *mut c64,
    lwork: *const i32,
    iwork: *mut i32,
    liwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PZGETRI", || {
        sl::inverse::getri::<c64>(
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
        sl::orgqr::orgqr::<f64>(
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
pub unsafe extern "C" fn psorgqr_(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *const f32,
    work: *mut f32,
    lwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PSORGQR", || {
        sl::orgqr::orgqr::<f32>(
            config::get(),
            *m,
            *n,
            *k,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(tau as *mut f32),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pcungqr_(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *const c32,
    work: *mut c32,
    lwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PCUNGQR", || {
        sl::orgqr::orgqr::<c32>(
            config::get(),
            *m,
            *n,
            *k,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(tau as *mut c32),
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pzungqr_(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *const c64,
    work: *mut c64,
    lwork: *const i32,
    info: *mut i32,
) {
    let da = desc(desca);
    *info = pguard(da.ctxt(), "PZUNGQR", || {
        sl::orgqr::orgqr::<c64>(
            config::get(),
            *m,
            *n,
            *k,
            Raw::new(a),
            *ia,
            *ja,
            &da,
            Raw::new(tau as *mut c64),
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
        sl::orgqr::ormqr::<f64>(
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

#[no_mangle]
pub unsafe extern "C" fn psormqr_(
    side: *const c_char,
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut f32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *const f32,
    c: *mut f32,
    ic: *const i32,
    jc: *const i32,
    descc: *const i32,
    work: *mut f32,
    lwork: *const i32,
    info: *mut i32,
    _side_len: usize,
    _trans_len: usize,
) {
    let (da, dc) = (desc(desca), desc(descc));
    *info = pguard(da.ctxt(), "PSORMQR", || {
        sl::orgqr::ormqr::<f32>(
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
            Raw::new(tau as *mut f32),
            Raw::new(c),
            *ic,
            *jc,
            &dc,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pcunmqr_(
    side: *const c_char,
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut c32,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *const c32,
    c: *mut c32,
    ic: *const i32,
    jc: *const i32,
    descc: *const i32,
    work: *mut c32,
    lwork: *const i32,
    info: *mut i32,
    _side_len: usize,
    _trans_len: usize,
) {
    let (da, dc) = (desc(desca), desc(descc));
    *info = pguard(da.ctxt(), "PCUNMQR", || {
        sl::orgqr::ormqr::<c32>(
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
            Raw::new(tau as *mut c32),
            Raw::new(c),
            *ic,
            *jc,
            &dc,
            Raw::new(work),
            *lwork,
        )
    });
}

#[no_mangle]
pub unsafe extern "C" fn pzunmqr_(
    side: *const c_char,
    trans: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut c64,
    ia: *const i32,
    ja: *const i32,
    desca: *const i32,
    tau: *const c64,
    c: *mut c64,
    ic: *const i32,
    jc: *const i32,
    descc: *const i32,
    work: *mut c64,
    lwork: *const i32,
    info: *mut i32,
    _side_len: usize,
    _trans_len: usize,
) {
    let (da, dc) = (desc(desca), desc(descc));
    *info = pguard(da.ctxt(), "PZUNMQR", || {
        sl::orgqr::ormqr::<c64>(
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
            Raw::new(tau as *mut c64),
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
