//! Whole ScaLAPACK calls handed to the next ScaLAPACK in the process (`path=forward`).
//!
//! hetla exports `pdpotrf_` and friends, so the reference's definitions are found with
//! [`super::lookup`] (`RTLD_NEXT`, then the fallback libraries), never by an `extern` declaration
//! of a name we export (ARCHITECTURE.md, decision 1). The pointers arrive as [`Raw`], whose creator
//! vouched for them under ScaLAPACK's calling convention; descriptors are 9 integers.

use super::lapack::ch;
use crate::scalar::{pname, type_index, Scalar};
use crate::tile::Raw;
use std::ffi::c_char;
use std::sync::OnceLock;

/// ScaLAPACK libraries tried, in order, when nothing after libhetla in the search order defines
/// the routine (the library was loaded by a program linked against hetla only).
const FALLBACK_LIBS: &[&str] = &["libscalapack-openmpi.so.2.2", "libscalapack-openmpi.so", "libscalapack.so"];

fn resolve(cache: &OnceLock<usize>, sym: impl FnOnce() -> String) -> usize {
    *cache.get_or_init(|| {
        let sym = sym();
        let sym = sym.as_str();
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
type M<T> = *mut T;
type IM = *mut i32;

/// The wrapper of each forwarded routine, from its Fortran argument list, for each element type:
/// `potrf::<T>` calls `p?potrf_` of `T`'s letter (`pcungqr_` for `orgqr::<c32>`,
/// [`crate::scalar::pname`]), each type's symbol resolved once. Each argument is named
/// with its kind: `chr` (a CHARACTER flag, `u8`), `int` (an INTEGER, `i32`), `mat` (a local
/// array of the type, [`Raw<T>`]), `piv` (a local INTEGER array, [`Raw<i32>`]) or `desc` (a
/// descriptor, [`Desc9`]); INFO is appended and returned, and the `chr` arguments named in
/// brackets get their hidden CHARACTER lengths (1) after it, as gfortran passes them.
macro_rules! scalapack_fns {
    (@ty chr) => { u8 };
    (@ty int) => { i32 };
    (@ty mat) => { Raw<T> };
    (@ty piv) => { Raw<i32> };
    (@ty desc) => { &Desc9 };
    (@ffi chr) => { C };
    (@ffi int) => { I };
    (@ffi mat) => { M<T> };
    (@ffi piv) => { IM };
    (@ffi desc) => { I };
    (@pass chr $x:ident) => { ch($x) };
    (@pass int $x:ident) => { &$x };
    (@pass mat $x:ident) => { $x.ptr() };
    (@pass piv $x:ident) => { $x.ptr() };
    (@pass desc $x:ident) => { $x.as_ptr() };
    (@len $flag:ident) => { 1usize };
    (@lenty $flag:ident) => { usize };
    ($( $name:ident ( $($arg:ident : $kind:ident),* ) [$($flag:ident),*] ;)*) => {
        $(
            #[doc = concat!("The next ScaLAPACK's `p?", stringify!($name), "_` of `T`; returns its INFO.")]
            #[allow(clippy::too_many_arguments)]
            pub fn $name<T: Scalar>($($arg: scalapack_fns!(@ty $kind)),*) -> i32 {
                static P: [OnceLock<usize>; 4] = [const { OnceLock::new() }; 4];
                let p = resolve(&P[type_index::<T>()], || format!("{}_", pname::<T>(stringify!($name))));
                // SAFETY: `p` is the address of the named ScaLAPACK routine of T's type, whose
                // Fortran signature is the one spelled out here (LP64 integers, arrays of T,
                // hidden CHARACTER lengths as usize after the last argument).
                let f = unsafe {
                    std::mem::transmute::<
                        usize,
                        unsafe extern "C" fn($(scalapack_fns!(@ffi $kind),)* IM $(, scalapack_fns!(@lenty $flag))*),
                    >(p)
                };
                let mut info = 0;
                // SAFETY: the arrays come as `Raw`, whose creator vouched for them under
                // ScaLAPACK's calling convention; the reference checks the arguments itself.
                // The reference's arithmetic is the caller's numerical work (`fenv::numeric`).
                crate::fenv::numeric(|| unsafe {
                    f($(scalapack_fns!(@pass $kind $arg),)* &mut info $(, scalapack_fns!(@len $flag))*)
                });
                info
            }
        )*
    };
}

/// A descriptor as ScaLAPACK reads it.
pub type Desc9 = [i32; 9];

scalapack_fns! {
    potrf(uplo: chr, n: int, a: mat, ia: int, ja: int, desca: desc) [uplo];
    potrs(uplo: chr, n: int, nrhs: int, a: mat, ia: int, ja: int, desca: desc, b: mat,
        ib: int, jb: int, descb: desc) [uplo];
    posv(uplo: chr, n: int, nrhs: int, a: mat, ia: int, ja: int, desca: desc, b: mat,
        ib: int, jb: int, descb: desc) [uplo];
    getrf(m: int, n: int, a: mat, ia: int, ja: int, desca: desc, ipiv: piv) [];
    getrs(trans: chr, n: int, nrhs: int, a: mat, ia: int, ja: int, desca: desc,
        ipiv: piv, b: mat, ib: int, jb: int, descb: desc) [trans];
    gesv(n: int, nrhs: int, a: mat, ia: int, ja: int, desca: desc, ipiv: piv, b: mat,
        ib: int, jb: int, descb: desc) [];
    geqrf(m: int, n: int, a: mat, ia: int, ja: int, desca: desc, tau: mat, work: mat,
        lwork: int) [];
    trtri(uplo: chr, diag: chr, n: int, a: mat, ia: int, ja: int, desca: desc) [uplo, diag];
    potri(uplo: chr, n: int, a: mat, ia: int, ja: int, desca: desc) [uplo];
    getri(n: int, a: mat, ia: int, ja: int, desca: desc, ipiv: piv, work: mat, lwork: int,
        iwork: piv, liwork: int) [];
    orgqr(m: int, n: int, k: int, a: mat, ia: int, ja: int, desca: desc, tau: mat,
        work: mat, lwork: int) [];
    ormqr(side: chr, trans: chr, m: int, n: int, k: int, a: mat, ia: int, ja: int,
        desca: desc, tau: mat, c: mat, ic: int, jc: int, descc: desc, work: mat, lwork: int) [side, trans];
}
