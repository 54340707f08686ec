//! Typed entry points into the backend's BLAS and LAPACK (Fortran ABI: every argument by
//! reference, CHARACTER lengths appended as `usize`).
//!
//! Each function resolves its symbol once with [`super::lookup`] and calls through the pointer.
//! They are `unsafe` because they are raw FFI: the caller guarantees that every pointer is valid
//! for the sizes and leading dimensions it passes, as the reference documentation requires.

#![allow(clippy::too_many_arguments, clippy::missing_safety_doc)]

use std::ffi::c_char;
use std::sync::OnceLock;

type C = *const c_char;
type I = *const i32;
type R = *const f64;
type M = *mut f64;
type IM = *mut i32;

fn resolve(sym: &str) -> usize {
    let p = super::lookup(sym);
    if p.is_null() {
        panic!("hetla: the backend LAPACK/BLAS has no `{sym}`");
    }
    p as usize
}

/// The address of the backend's `?gemm_` of type `T`, which hetla's export of that type passes
/// the program's calls on to when no product can run on tiles (`abi::blas`).
pub fn gemm_address<T: crate::scalar::Scalar>() -> usize {
    T::routines().addr(Routine::Gemm)
}

macro_rules! backend_fns {
    ($( $name:ident = $sym:literal ( $($arg:ident : $ty:ty),* ) $(-> $ret:ty)? ;)*) => {
        /// The same entry points, not counted for a fork (`crate::fork`): what the counted ones
        /// below call once counted. (The `?gemm_` exports without devices jump to the backend's
        /// routine themselves, [`gemm_address`], uncounted as without hetla.)
        pub mod direct {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[doc = concat!("The backend's `", $sym, "`, not counted.")]
                pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                    static P: OnceLock<usize> = OnceLock::new();
                    let p = *P.get_or_init(|| resolve($sym));
                    // SAFETY: `p` is the address of the named Fortran routine, whose ABI is the
                    // one spelled out in this declaration (LP64 integers, hidden lengths as usize).
                    let f: unsafe extern "C" fn($($ty),*) $(-> $ret)? = std::mem::transmute(p);
                    f($($arg),*)
                }
            )*
        }
        $(
            #[doc = concat!("The backend's `", $sym, "`.")]
            pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                // Counted, so that a fork waits for it ([`crate::fork`]).
                let _call = crate::fork::BackendCall::enter();
                // The accuracy comparisons' second reference (`super::reference`); release
                // builds without the feature never look.
                #[cfg(any(test, feature = "netlib-reference"))]
                if let Some(p) = super::reference::active_symbol($sym) {
                    // SAFETY: as in `direct`: the reference LAPACK's routine of this name.
                    let f: unsafe extern "C" fn($($ty),*) $(-> $ret)? = std::mem::transmute(p);
                    return f($($arg),*);
                }
                direct::$name($($arg),*)
            }
        )*
    };
}

backend_fns! {
    dgemm = "dgemm_"(ta: C, tb: C, m: I, n: I, k: I, alpha: R, a: R, lda: I, b: R, ldb: I,
        beta: R, c: M, ldc: I, l1: usize, l2: usize);
    dsyrk = "dsyrk_"(uplo: C, trans: C, n: I, k: I, alpha: R, a: R, lda: I, beta: R, c: M,
        ldc: I, l1: usize, l2: usize);
    dtrsm = "dtrsm_"(side: C, uplo: C, ta: C, diag: C, m: I, n: I, alpha: R, a: R, lda: I,
        b: M, ldb: I, l1: usize, l2: usize, l3: usize, l4: usize);
    dtrmm = "dtrmm_"(side: C, uplo: C, ta: C, diag: C, m: I, n: I, alpha: R, a: R, lda: I,
        b: M, ldb: I, l1: usize, l2: usize, l3: usize, l4: usize);
    dpotrf = "dpotrf_"(uplo: C, n: I, a: M, lda: I, info: IM, l1: usize);
    dtrtri = "dtrtri_"(uplo: C, diag: C, n: I, a: M, lda: I, info: IM, l1: usize, l2: usize);
    dlauum = "dlauum_"(uplo: C, n: I, a: M, lda: I, info: IM, l1: usize);
    dswap = "dswap_"(n: I, x: M, incx: I, y: M, incy: I);
    dpotri = "dpotri_"(uplo: C, n: I, a: M, lda: I, info: IM, l1: usize);
    dpotrs = "dpotrs_"(uplo: C, n: I, nrhs: I, a: R, lda: I, b: M, ldb: I, info: IM, l1: usize);
    dposv = "dposv_"(uplo: C, n: I, nrhs: I, a: M, lda: I, b: M, ldb: I, info: IM, l1: usize);
    dgetrf = "dgetrf_"(m: I, n: I, a: M, lda: I, ipiv: IM, info: IM);
    dgetrs = "dgetrs_"(trans: C, n: I, nrhs: I, a: R, lda: I, ipiv: I, b: M, ldb: I, info: IM,
        l1: usize);
    dgesv = "dgesv_"(n: I, nrhs: I, a: M, lda: I, ipiv: IM, b: M, ldb: I, info: IM);
    dgbsv = "dgbsv_"(n: I, kl: I, ku: I, nrhs: I, ab: M, ldab: I, ipiv: IM, b: M, ldb: I,
        info: IM);
    dgbtrf = "dgbtrf_"(m: I, n: I, kl: I, ku: I, ab: M, ldab: I, ipiv: IM, info: IM);
    dgbtrs = "dgbtrs_"(trans: C, n: I, kl: I, ku: I, nrhs: I, ab: R, ldab: I, ipiv: I, b: M, ldb: I,
        info: IM, l1: usize);
    dgeqrf = "dgeqrf_"(m: I, n: I, a: M, lda: I, tau: M, work: M, lwork: I, info: IM);
    dgeqr2 = "dgeqr2_"(m: I, n: I, a: M, lda: I, tau: M, work: M, info: IM);
    dgetri = "dgetri_"(n: I, a: M, lda: I, ipiv: I, work: M, lwork: I, info: IM);
    dgels = "dgels_"(trans: C, m: I, n: I, nrhs: I, a: M, lda: I, b: M, ldb: I, work: M,
        lwork: I, info: IM, l1: usize);
    dlaswp = "dlaswp_"(n: I, a: M, lda: I, k1: I, k2: I, ipiv: I, incx: I);
    dlarft = "dlarft_"(direct: C, storev: C, n: I, k: I, v: R, ldv: I, tau: R, t: M, ldt: I,
        l1: usize, l2: usize);
    dlarfb = "dlarfb_"(side: C, trans: C, direct: C, storev: C, m: I, n: I, k: I, v: R, ldv: I,
        t: R, ldt: I, c: M, ldc: I, work: M, ldwork: I, l1: usize, l2: usize, l3: usize,
        l4: usize);
    dgeqrt3 = "dgeqrt3_"(m: I, n: I, a: M, lda: I, t: M, ldt: I, info: IM);
    dgeqrt = "dgeqrt_"(m: I, n: I, nb: I, a: M, lda: I, t: M, ldt: I, work: M, info: IM);
    dgemqrt = "dgemqrt_"(side: C, trans: C, m: I, n: I, k: I, nb: I, v: R, ldv: I, t: R, ldt: I,
        c: M, ldc: I, work: M, info: IM, l1: usize, l2: usize);
    dtpqrt = "dtpqrt_"(m: I, n: I, l: I, nb: I, a: M, lda: I, b: M, ldb: I, t: M, ldt: I,
        work: M, info: IM);
    dtpmqrt = "dtpmqrt_"(side: C, trans: C, m: I, n: I, k: I, l: I, nb: I, v: R, ldv: I, t: R,
        ldt: I, a: M, lda: I, b: M, ldb: I, work: M, info: IM, l1: usize, l2: usize);
    dorgqr = "dorgqr_"(m: I, n: I, k: I, a: M, lda: I, tau: R, work: M, lwork: I, info: IM);
    dormqr = "dormqr_"(side: C, trans: C, m: I, n: I, k: I, a: R, lda: I, tau: R, c: M, ldc: I,
        work: M, lwork: I, info: IM, l1: usize, l2: usize);
    dtrtrs = "dtrtrs_"(uplo: C, trans: C, diag: C, n: I, nrhs: I, a: R, lda: I, b: M, ldb: I,
        info: IM, l1: usize, l2: usize, l3: usize);
    dlange = "dlange_"(norm: C, m: I, n: I, a: R, lda: I, work: M, l1: usize) -> f64;
    dlascl = "dlascl_"(kind: C, kl: I, ku: I, cfrom: R, cto: R, m: I, n: I, a: M, lda: I,
        info: IM, l1: usize);
    dlaset = "dlaset_"(uplo: C, m: I, n: I, alpha: R, beta: R, a: M, lda: I, l1: usize);
    dlacpy = "dlacpy_"(uplo: C, m: I, n: I, a: R, lda: I, b: M, ldb: I, l1: usize);
    dlamch = "dlamch_"(cmach: C, l1: usize) -> f64;
}

/// The backend routines of one element type that the generic kernels call
/// ([`crate::scalar::Scalar::routines`]), each resolved on first use by the type's letter and
/// the routine's stem (`z` + `herk` = `zherk_`).
pub struct Routines {
    letter: u8,
    cells: [OnceLock<usize>; Routine::COUNT],
}

/// A routine of [`Routines`].
#[derive(Clone, Copy, Debug)]
pub enum Routine {
    Gemm,
    /// SYRK for the real types, HERK for the complex ones.
    Herk,
    Trsm,
    Potrf,
    Potrs,
    Posv,
    Getrf,
    Getrs,
    Gesv,
    Laswp,
    Trmm,
    /// The QR family's routines; ORGQR and ORMQR are UNGQR and UNMQR for the complex types.
    Larft,
    Larfb,
    Geqrt3,
    Geqrt,
    Gemqrt,
    Tpqrt,
    Tpmqrt,
    Geqrf,
    Orgqr,
    Ormqr,
    Gels,
    Lascl,
    /// The inversion family's.
    Trtri,
    Lauum,
    Potri,
    Getri,
}

impl Routine {
    const COUNT: usize = 28;
    fn stem(self, complex: bool) -> &'static str {
        match self {
            Routine::Gemm => "gemm",
            Routine::Herk if complex => "herk",
            Routine::Herk => "syrk",
            Routine::Trsm => "trsm",
            Routine::Potrf => "potrf",
            Routine::Potrs => "potrs",
            Routine::Posv => "posv",
            Routine::Getrf => "getrf",
            Routine::Getrs => "getrs",
            Routine::Gesv => "gesv",
            Routine::Laswp => "laswp",
            Routine::Trmm => "trmm",
            Routine::Larft => "larft",
            Routine::Larfb => "larfb",
            Routine::Geqrt3 => "geqrt3",
            Routine::Geqrt => "geqrt",
            Routine::Gemqrt => "gemqrt",
            Routine::Tpqrt => "tpqrt",
            Routine::Tpmqrt => "tpmqrt",
            Routine::Geqrf => "geqrf",
            Routine::Orgqr if complex => "ungqr",
            Routine::Orgqr => "orgqr",
            Routine::Ormqr if complex => "unmqr",
            Routine::Ormqr => "ormqr",
            Routine::Gels => "gels",
            Routine::Lascl => "lascl",
            Routine::Trtri => "trtri",
            Routine::Lauum => "lauum",
            Routine::Potri => "potri",
            Routine::Getri => "getri",
        }
    }
}

impl Routines {
    pub const fn new(letter: u8) -> Self {
        Routines { letter, cells: [const { OnceLock::new() }; Routine::COUNT] }
    }
    /// The address of routine `r` of this type.
    fn addr(&self, r: Routine) -> usize {
        *self.cells[r as usize].get_or_init(|| resolve(&self.symbol(r)))
    }
    /// The Fortran symbol of routine `r` of this type (`zherk_`).
    pub(crate) fn symbol(&self, r: Routine) -> String {
        let complex = matches!(self.letter, b'c' | b'z');
        format!("{}{}_", self.letter as char, r.stem(complex))
    }
}

/// Calls routine `r` of `T`'s backend routines as a Fortran routine of signature `$sig`.
macro_rules! call_typed {
    ($t:ty, $r:expr, fn($($ty:ty),*), $($arg:expr),*) => {{
        let routines = <$t as crate::scalar::Scalar>::routines();
        let p = routines.addr($r);
        // The accuracy comparisons' second reference (`super::reference`), as in `backend_fns!`.
        #[cfg(any(test, feature = "netlib-reference"))]
        let p = super::reference::active_symbol_of(|| routines.symbol($r)).unwrap_or(p);
        // SAFETY: `p` is the address of the backend's routine of that name for element type
        // `$t`, whose Fortran ABI is the one spelled out here (the reference BLAS/LAPACK's, LP64
        // integers, hidden CHARACTER lengths as usize): the same for all four types with the
        // element type substituted, and real α, β for HERK.
        let f: unsafe extern "C" fn($($ty),*) = std::mem::transmute::<usize, unsafe extern "C" fn($($ty),*)>(p);
        let _call = crate::fork::BackendCall::enter();
        f($($arg),*)
    }};
}

/// The backend's `?gemm_` for `T`.
pub unsafe fn gemm<T: crate::scalar::Scalar>(
    ta: C,
    tb: C,
    m: I,
    n: I,
    k: I,
    alpha: *const T,
    a: *const T,
    lda: I,
    b: *const T,
    ldb: I,
    beta: *const T,
    c: *mut T,
    ldc: I,
) {
    call_typed!(
        T,
        Routine::Gemm,
        fn(C, C, I, I, I, *const T, *const T, I, *const T, I, *const T, *mut T, I, usize, usize),
        ta,
        tb,
        m,
        n,
        k,
        alpha,
        a,
        lda,
        b,
        ldb,
        beta,
        c,
        ldc,
        1,
        1
    )
}

/// The backend's `?syrk_` (real `T`) or `?herk_` (complex `T`, real α and β).
pub unsafe fn herk<T: crate::scalar::Scalar>(
    uplo: C,
    trans: C,
    n: I,
    k: I,
    alpha: *const T::Real,
    a: *const T,
    lda: I,
    beta: *const T::Real,
    c: *mut T,
    ldc: I,
) {
    call_typed!(
        T,
        Routine::Herk,
        fn(C, C, I, I, *const T::Real, *const T, I, *const T::Real, *mut T, I, usize, usize),
        uplo,
        trans,
        n,
        k,
        alpha,
        a,
        lda,
        beta,
        c,
        ldc,
        1,
        1
    )
}

/// The backend's `?trsm_` for `T`.
pub unsafe fn trsm<T: crate::scalar::Scalar>(
    side: C,
    uplo: C,
    ta: C,
    diag: C,
    m: I,
    n: I,
    alpha: *const T,
    a: *const T,
    lda: I,
    b: *mut T,
    ldb: I,
) {
    call_typed!(
        T,
        Routine::Trsm,
        fn(C, C, C, C, I, I, *const T, *const T, I, *mut T, I, usize, usize, usize, usize),
        side,
        uplo,
        ta,
        diag,
        m,
        n,
        alpha,
        a,
        lda,
        b,
        ldb,
        1,
        1,
        1,
        1
    )
}

/// The backend's `?potrf_` for `T`.
pub unsafe fn potrf<T: crate::scalar::Scalar>(uplo: C, n: I, a: *mut T, lda: I, info: IM) {
    call_typed!(T, Routine::Potrf, fn(C, I, *mut T, I, IM, usize), uplo, n, a, lda, info, 1)
}

/// The backend's `?potrs_` for `T`.
pub unsafe fn potrs<T: crate::scalar::Scalar>(
    uplo: C,
    n: I,
    nrhs: I,
    a: *const T,
    lda: I,
    b: *mut T,
    ldb: I,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Potrs,
        fn(C, I, I, *const T, I, *mut T, I, IM, usize),
        uplo,
        n,
        nrhs,
        a,
        lda,
        b,
        ldb,
        info,
        1
    )
}

/// The backend's `?posv_` for `T`.
pub unsafe fn posv<T: crate::scalar::Scalar>(
    uplo: C,
    n: I,
    nrhs: I,
    a: *mut T,
    lda: I,
    b: *mut T,
    ldb: I,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Posv,
        fn(C, I, I, *mut T, I, *mut T, I, IM, usize),
        uplo,
        n,
        nrhs,
        a,
        lda,
        b,
        ldb,
        info,
        1
    )
}

/// The backend's `?getrf_` for `T`.
pub unsafe fn getrf<T: crate::scalar::Scalar>(m: I, n: I, a: *mut T, lda: I, ipiv: IM, info: IM) {
    call_typed!(T, Routine::Getrf, fn(I, I, *mut T, I, IM, IM), m, n, a, lda, ipiv, info)
}

/// The backend's `?getrs_` for `T` (TRANS `'T'` is the plain transpose in every type, `'C'` the
/// conjugate one).
pub unsafe fn getrs<T: crate::scalar::Scalar>(
    trans: C,
    n: I,
    nrhs: I,
    a: *const T,
    lda: I,
    ipiv: I,
    b: *mut T,
    ldb: I,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Getrs,
        fn(C, I, I, *const T, I, I, *mut T, I, IM, usize),
        trans,
        n,
        nrhs,
        a,
        lda,
        ipiv,
        b,
        ldb,
        info,
        1
    )
}

/// The backend's `?gesv_` for `T`.
pub unsafe fn gesv<T: crate::scalar::Scalar>(
    n: I,
    nrhs: I,
    a: *mut T,
    lda: I,
    ipiv: IM,
    b: *mut T,
    ldb: I,
    info: IM,
) {
    call_typed!(T, Routine::Gesv, fn(I, I, *mut T, I, IM, *mut T, I, IM), n, nrhs, a, lda, ipiv, b, ldb, info)
}

/// The backend's `?laswp_` for `T`.
pub unsafe fn laswp<T: crate::scalar::Scalar>(n: I, a: *mut T, lda: I, k1: I, k2: I, ipiv: I, incx: I) {
    call_typed!(T, Routine::Laswp, fn(I, *mut T, I, I, I, I, I), n, a, lda, k1, k2, ipiv, incx)
}

/// The backend's `?trmm_` for `T`.
pub unsafe fn trmm<T: crate::scalar::Scalar>(
    side: C,
    uplo: C,
    ta: C,
    diag: C,
    m: I,
    n: I,
    alpha: *const T,
    a: *const T,
    lda: I,
    b: *mut T,
    ldb: I,
) {
    call_typed!(
        T,
        Routine::Trmm,
        fn(C, C, C, C, I, I, *const T, *const T, I, *mut T, I, usize, usize, usize, usize),
        side,
        uplo,
        ta,
        diag,
        m,
        n,
        alpha,
        a,
        lda,
        b,
        ldb,
        1,
        1,
        1,
        1
    )
}

/// The backend's `?trtri_` for `T`.
pub unsafe fn trtri<T: crate::scalar::Scalar>(uplo: C, diag: C, n: I, a: *mut T, lda: I, info: IM) {
    call_typed!(
        T,
        Routine::Trtri,
        fn(C, C, I, *mut T, I, IM, usize, usize),
        uplo,
        diag,
        n,
        a,
        lda,
        info,
        1,
        1
    )
}

/// The backend's `?lauum_` for `T` (U·Uᴴ or Lᴴ·L: the conjugate transpose for complex `T`).
pub unsafe fn lauum<T: crate::scalar::Scalar>(uplo: C, n: I, a: *mut T, lda: I, info: IM) {
    call_typed!(T, Routine::Lauum, fn(C, I, *mut T, I, IM, usize), uplo, n, a, lda, info, 1)
}

/// The backend's `?potri_` for `T`.
pub unsafe fn potri<T: crate::scalar::Scalar>(uplo: C, n: I, a: *mut T, lda: I, info: IM) {
    call_typed!(T, Routine::Potri, fn(C, I, *mut T, I, IM, usize), uplo, n, a, lda, info, 1)
}

/// The backend's `?getri_` for `T`.
pub unsafe fn getri<T: crate::scalar::Scalar>(
    n: I,
    a: *mut T,
    lda: I,
    ipiv: I,
    work: *mut T,
    lwork: I,
    info: IM,
) {
    call_typed!(T, Routine::Getri, fn(I, *mut T, I, I, *mut T, I, IM), n, a, lda, ipiv, work, lwork, info)
}

/// The backend's `?larft_` for `T`.
pub unsafe fn larft<T: crate::scalar::Scalar>(
    direct: C,
    storev: C,
    n: I,
    k: I,
    v: *const T,
    ldv: I,
    tau: *const T,
    t: *mut T,
    ldt: I,
) {
    call_typed!(
        T,
        Routine::Larft,
        fn(C, C, I, I, *const T, I, *const T, *mut T, I, usize, usize),
        direct,
        storev,
        n,
        k,
        v,
        ldv,
        tau,
        t,
        ldt,
        1,
        1
    )
}

/// The backend's `?larfb_` for `T` (TRANS `'C'` for the adjoint of a complex H).
pub unsafe fn larfb<T: crate::scalar::Scalar>(
    side: C,
    trans: C,
    direct: C,
    storev: C,
    m: I,
    n: I,
    k: I,
    v: *const T,
    ldv: I,
    t: *const T,
    ldt: I,
    c: *mut T,
    ldc: I,
    work: *mut T,
    ldwork: I,
) {
    call_typed!(
        T,
        Routine::Larfb,
        fn(C, C, C, C, I, I, I, *const T, I, *const T, I, *mut T, I, *mut T, I, usize, usize, usize, usize),
        side,
        trans,
        direct,
        storev,
        m,
        n,
        k,
        v,
        ldv,
        t,
        ldt,
        c,
        ldc,
        work,
        ldwork,
        1,
        1,
        1,
        1
    )
}

/// The backend's `?geqrt3_` for `T`.
pub unsafe fn geqrt3<T: crate::scalar::Scalar>(m: I, n: I, a: *mut T, lda: I, t: *mut T, ldt: I, info: IM) {
    call_typed!(T, Routine::Geqrt3, fn(I, I, *mut T, I, *mut T, I, IM), m, n, a, lda, t, ldt, info)
}

/// The backend's `?geqrt_` for `T`.
pub unsafe fn geqrt<T: crate::scalar::Scalar>(
    m: I,
    n: I,
    nb: I,
    a: *mut T,
    lda: I,
    t: *mut T,
    ldt: I,
    work: *mut T,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Geqrt,
        fn(I, I, I, *mut T, I, *mut T, I, *mut T, IM),
        m,
        n,
        nb,
        a,
        lda,
        t,
        ldt,
        work,
        info
    )
}

/// The backend's `?gemqrt_` for `T`.
pub unsafe fn gemqrt<T: crate::scalar::Scalar>(
    side: C,
    trans: C,
    m: I,
    n: I,
    k: I,
    nb: I,
    v: *const T,
    ldv: I,
    t: *const T,
    ldt: I,
    c: *mut T,
    ldc: I,
    work: *mut T,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Gemqrt,
        fn(C, C, I, I, I, I, *const T, I, *const T, I, *mut T, I, *mut T, IM, usize, usize),
        side,
        trans,
        m,
        n,
        k,
        nb,
        v,
        ldv,
        t,
        ldt,
        c,
        ldc,
        work,
        info,
        1,
        1
    )
}

/// The backend's `?tpqrt_` for `T`.
pub unsafe fn tpqrt<T: crate::scalar::Scalar>(
    m: I,
    n: I,
    l: I,
    nb: I,
    a: *mut T,
    lda: I,
    b: *mut T,
    ldb: I,
    t: *mut T,
    ldt: I,
    work: *mut T,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Tpqrt,
        fn(I, I, I, I, *mut T, I, *mut T, I, *mut T, I, *mut T, IM),
        m,
        n,
        l,
        nb,
        a,
        lda,
        b,
        ldb,
        t,
        ldt,
        work,
        info
    )
}

/// The backend's `?tpmqrt_` for `T`.
pub unsafe fn tpmqrt<T: crate::scalar::Scalar>(
    side: C,
    trans: C,
    m: I,
    n: I,
    k: I,
    l: I,
    nb: I,
    v: *const T,
    ldv: I,
    t: *const T,
    ldt: I,
    a: *mut T,
    lda: I,
    b: *mut T,
    ldb: I,
    work: *mut T,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Tpmqrt,
        fn(C, C, I, I, I, I, I, *const T, I, *const T, I, *mut T, I, *mut T, I, *mut T, IM, usize, usize),
        side,
        trans,
        m,
        n,
        k,
        l,
        nb,
        v,
        ldv,
        t,
        ldt,
        a,
        lda,
        b,
        ldb,
        work,
        info,
        1,
        1
    )
}

/// The backend's `?geqrf_` for `T`.
pub unsafe fn geqrf<T: crate::scalar::Scalar>(
    m: I,
    n: I,
    a: *mut T,
    lda: I,
    tau: *mut T,
    work: *mut T,
    lwork: I,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Geqrf,
        fn(I, I, *mut T, I, *mut T, *mut T, I, IM),
        m,
        n,
        a,
        lda,
        tau,
        work,
        lwork,
        info
    )
}

/// The backend's `?orgqr_` (real `T`) or `?ungqr_` (complex `T`).
pub unsafe fn orgqr<T: crate::scalar::Scalar>(
    m: I,
    n: I,
    k: I,
    a: *mut T,
    lda: I,
    tau: *const T,
    work: *mut T,
    lwork: I,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Orgqr,
        fn(I, I, I, *mut T, I, *const T, *mut T, I, IM),
        m,
        n,
        k,
        a,
        lda,
        tau,
        work,
        lwork,
        info
    )
}

/// The backend's `?ormqr_` (real `T`) or `?unmqr_` (complex `T`).
pub unsafe fn ormqr<T: crate::scalar::Scalar>(
    side: C,
    trans: C,
    m: I,
    n: I,
    k: I,
    a: *const T,
    lda: I,
    tau: *const T,
    c: *mut T,
    ldc: I,
    work: *mut T,
    lwork: I,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Ormqr,
        fn(C, C, I, I, I, *const T, I, *const T, *mut T, I, *mut T, I, IM, usize, usize),
        side,
        trans,
        m,
        n,
        k,
        a,
        lda,
        tau,
        c,
        ldc,
        work,
        lwork,
        info,
        1,
        1
    )
}

/// The backend's `?gels_` for `T`.
pub unsafe fn gels<T: crate::scalar::Scalar>(
    trans: C,
    m: I,
    n: I,
    nrhs: I,
    a: *mut T,
    lda: I,
    b: *mut T,
    ldb: I,
    work: *mut T,
    lwork: I,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Gels,
        fn(C, I, I, I, *mut T, I, *mut T, I, *mut T, I, IM, usize),
        trans,
        m,
        n,
        nrhs,
        a,
        lda,
        b,
        ldb,
        work,
        lwork,
        info,
        1
    )
}

/// The backend's `?lascl_` for `T` (CFROM and CTO in `T`'s real type).
pub unsafe fn lascl<T: crate::scalar::Scalar>(
    kind: C,
    kl: I,
    ku: I,
    cfrom: *const T::Real,
    cto: *const T::Real,
    m: I,
    n: I,
    a: *mut T,
    lda: I,
    info: IM,
) {
    call_typed!(
        T,
        Routine::Lascl,
        fn(C, I, I, *const T::Real, *const T::Real, I, I, *mut T, I, IM, usize),
        kind,
        kl,
        ku,
        cfrom,
        cto,
        m,
        n,
        a,
        lda,
        info,
        1
    )
}

/// The process's `ilaenv_`: the application's own when it defines one (ILAENV is LAPACK's
/// documented tuning hook, and LAPACK's test programs replace it), else the backend's. LAPACK
/// routines reach ILAENV through the global symbol table, so this is the ILAENV whose answers a
/// LAPACK routine in this process would use.
pub unsafe fn ilaenv(ispec: I, name: C, opts: C, n1: I, n2: I, n3: I, n4: I, l1: usize, l2: usize) -> i32 {
    static P: OnceLock<usize> = OnceLock::new();
    let p = *P.get_or_init(|| {
        let p = super::lookup_global("ilaenv_");
        if p.is_null() {
            panic!("hetla: the backend LAPACK has no `ilaenv_`");
        }
        p as usize
    });
    // SAFETY: `p` is the address of ILAENV, a Fortran INTEGER FUNCTION with this signature
    // (LP64 integers, hidden lengths as usize); hetla itself defines no `ilaenv_`.
    let f: unsafe extern "C" fn(I, C, C, I, I, I, I, usize, usize) -> i32 = std::mem::transmute(p);
    f(ispec, name, opts, n1, n2, n3, n4, l1, l2)
}

/// Shorthand for passing a Fortran CHARACTER*1 argument.
pub fn ch(c: u8) -> *const c_char {
    // Static storage so the pointer outlives the call.
    static CHARS: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = i as u8;
            i += 1;
        }
        t
    };
    &CHARS[c as usize] as *const u8 as *const c_char
}

/// Calls the application's (or the backend's) `xerbla_` with a LAPACK routine name such as
/// `"DPOTRF"` and the position of the bad argument.
pub fn xerbla(srname: &str, pos: i32) {
    static P: OnceLock<usize> = OnceLock::new();
    let p = *P.get_or_init(|| super::lookup_global("xerbla_") as usize);
    if p == 0 {
        crate::error::say(format_args!(
            " ** On entry to {srname} parameter number {pos} had an illegal value"
        ));
        return;
    }
    // A Fortran handler reads `len` bytes, but C handlers (OpenBLAS's own xerbla_ among them)
    // print SRNAME with %s and ignore the length: the name must also be NUL-terminated, or they
    // read past it into whatever follows.
    let mut name = [0u8; 33];
    let len = srname.len().min(32);
    name[..len].copy_from_slice(&srname.as_bytes()[..len]);
    // SAFETY: xerbla_(SRNAME, INFO) is the standard Fortran error handler; we pass a buffer of
    // `len` bytes (NUL-terminated) and a pointer to an integer, both valid during the call.
    unsafe {
        let f: unsafe extern "C" fn(*const c_char, *const i32, usize) = std::mem::transmute(p);
        f(name.as_ptr() as *const c_char, &pos, len);
    }
}
