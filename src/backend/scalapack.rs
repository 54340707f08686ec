//! Whole ScaLAPACK calls handed to the next ScaLAPACK in the process (`path=forward`).
//!
//! hetla exports `pdpotrf_` and friends, so the reference's definitions are found with
//! [`super::lookup`] (`RTLD_NEXT`, then the fallback libraries), never by an `extern` declaration
//! of a name we export (DESIGN.md, decision 1). The pointers arrive as [`Raw`], whose creator
//! vouched for them under ScaLAPACK's calling convention; descriptors are 9 integers.

use super::lapack::ch;
use crate::tile::Raw;
use std::ffi::c_char;
use std::sync::OnceLock;

/// ScaLAPACK libraries tried, in order, when nothing after libhetla in the search order defines
/// the routine (the library was loaded by a program linked against hetla only).
const FALLBACK_LIBS: &[&str] = &["libscalapack-openmpi.so.2.2", "libscalapack-openmpi.so", "libscalapack.so"];

fn resolve(cache: &OnceLock<usize>, sym: &str) -> usize {
    *cache.get_or_init(|| {
        let p = super::lookup(sym);
        if !p.is_null() {
            return p as usize;
        }
        for lib in FALLBACK_LIBS {
            let name = std::ffi::CString::new(*lib).expect("no NUL");
            let csym = std::ffi::CString::new(sym).expect("no NUL");
            // SAFETY: dlopen/dlsym with valid NUL-terminated names; the handle is never closed.
            let p = unsafe {
                let h = libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL);
                if h.is_null() {
                    continue;
                }
                libc::dlsym(h, csym.as_ptr())
            };
            if !p.is_null() && !super::is_own_symbol(p) {
                return p as usize;
            }
        }
        panic!("hetla: no ScaLAPACK after libhetla in this process defines `{sym}`")
    })
}

type I = *const i32;
type C = *const c_char;
type M = *mut f64;
type IM = *mut i32;

macro_rules! forward_fn {
    ($sym:literal, $ty:ty) => {{
        static P: OnceLock<usize> = OnceLock::new();
        let p = resolve(&P, $sym);
        // SAFETY: `p` is the address of the named ScaLAPACK routine, whose Fortran signature is
        // the one given here (LP64 integers, hidden CHARACTER lengths as usize).
        unsafe { std::mem::transmute::<usize, $ty>(p) }
    }};
}

/// A descriptor as ScaLAPACK reads it.
pub type Desc9 = [i32; 9];

pub fn pdpotrf(uplo: u8, n: i32, a: Raw<f64>, ia: i32, ja: i32, desca: &Desc9) -> i32 {
    let f = forward_fn!("pdpotrf_", unsafe extern "C" fn(C, I, M, I, I, I, IM, usize));
    let mut info = 0;
    // SAFETY: Raw's contract; the reference checks the arguments itself.
    unsafe { f(ch(uplo), &n, a.ptr(), &ia, &ja, desca.as_ptr(), &mut info, 1) };
    info
}

#[allow(clippy::too_many_arguments)]
pub fn pdpotrs(
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc9,
    b: Raw<f64>,
    ib: i32,
    jb: i32,
    descb: &Desc9,
) -> i32 {
    let f = forward_fn!("pdpotrs_", unsafe extern "C" fn(C, I, I, M, I, I, I, M, I, I, I, IM, usize));
    let mut info = 0;
    // SAFETY: Raw's contract.
    unsafe {
        f(
            ch(uplo),
            &n,
            &nrhs,
            a.ptr(),
            &ia,
            &ja,
            desca.as_ptr(),
            b.ptr(),
            &ib,
            &jb,
            descb.as_ptr(),
            &mut info,
            1,
        )
    };
    info
}

#[allow(clippy::too_many_arguments)]
pub fn pdposv(
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc9,
    b: Raw<f64>,
    ib: i32,
    jb: i32,
    descb: &Desc9,
) -> i32 {
    let f = forward_fn!("pdposv_", unsafe extern "C" fn(C, I, I, M, I, I, I, M, I, I, I, IM, usize));
    let mut info = 0;
    // SAFETY: Raw's contract.
    unsafe {
        f(
            ch(uplo),
            &n,
            &nrhs,
            a.ptr(),
            &ia,
            &ja,
            desca.as_ptr(),
            b.ptr(),
            &ib,
            &jb,
            descb.as_ptr(),
            &mut info,
            1,
        )
    };
    info
}

#[allow(clippy::too_many_arguments)]
pub fn pdgetrf(m: i32, n: i32, a: Raw<f64>, ia: i32, ja: i32, desca: &Desc9, ipiv: Raw<i32>) -> i32 {
    let f = forward_fn!("pdgetrf_", unsafe extern "C" fn(I, I, M, I, I, I, IM, IM));
    let mut info = 0;
    // SAFETY: Raw's contract.
    unsafe { f(&m, &n, a.ptr(), &ia, &ja, desca.as_ptr(), ipiv.ptr(), &mut info) };
    info
}

#[allow(clippy::too_many_arguments)]
pub fn pdgetrs(
    trans: u8,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc9,
    ipiv: Raw<i32>,
    b: Raw<f64>,
    ib: i32,
    jb: i32,
    descb: &Desc9,
) -> i32 {
    let f = forward_fn!("pdgetrs_", unsafe extern "C" fn(C, I, I, M, I, I, I, IM, M, I, I, I, IM, usize));
    let mut info = 0;
    // SAFETY: Raw's contract.
    unsafe {
        f(
            ch(trans),
            &n,
            &nrhs,
            a.ptr(),
            &ia,
            &ja,
            desca.as_ptr(),
            ipiv.ptr(),
            b.ptr(),
            &ib,
            &jb,
            descb.as_ptr(),
            &mut info,
            1,
        )
    };
    info
}

#[allow(clippy::too_many_arguments)]
pub fn pdgesv(
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc9,
    ipiv: Raw<i32>,
    b: Raw<f64>,
    ib: i32,
    jb: i32,
    descb: &Desc9,
) -> i32 {
    let f = forward_fn!("pdgesv_", unsafe extern "C" fn(I, I, M, I, I, I, IM, M, I, I, I, IM));
    let mut info = 0;
    // SAFETY: Raw's contract.
    unsafe {
        f(
            &n,
            &nrhs,
            a.ptr(),
            &ia,
            &ja,
            desca.as_ptr(),
            ipiv.ptr(),
            b.ptr(),
            &ib,
            &jb,
            descb.as_ptr(),
            &mut info,
        )
    };
    info
}

#[allow(clippy::too_many_arguments)]
pub fn pdgeqrf(
    m: i32,
    n: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc9,
    tau: Raw<f64>,
    work: Raw<f64>,
    lwork: i32,
) -> i32 {
    let f = forward_fn!("pdgeqrf_", unsafe extern "C" fn(I, I, M, I, I, I, M, M, I, IM));
    let mut info = 0;
    // SAFETY: Raw's contract.
    unsafe { f(&m, &n, a.ptr(), &ia, &ja, desca.as_ptr(), tau.ptr(), work.ptr(), &lwork, &mut info) };
    info
}
