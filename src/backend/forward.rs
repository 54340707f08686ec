//! Whole calls handed to the backend unchanged (`path=forward`): small problems, routines listed
//! in `HETLA_DISABLE`, and calls made from inside one of our own tasks.
//!
//! These are safe functions because the pointers arrive as [`Raw`], whose creator vouched for them
//! under LAPACK's calling convention. Each call is numerical work of the caller's
//! ([`crate::fenv::numeric`]): the flags the backend raises are the call's.

use super::lapack::{self as bk, ch};
use crate::fenv::numeric;
use crate::scalar::Scalar;
use crate::tile::Raw;

/// The backend's DPOTRF ([`potrf`] in f64).
pub fn dpotrf(uplo: u8, n: i32, a: Raw<f64>, lda: i32) -> i32 {
    potrf(uplo, n, a, lda)
}

/// The backend's `?potrf_` for element type `T` (SPOTRF, DPOTRF, CPOTRF, ZPOTRF).
pub fn potrf<T: Scalar>(uplo: u8, n: i32, a: Raw<T>, lda: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract; the backend checks the arguments itself.
    numeric(|| unsafe { bk::potrf::<T>(ch(uplo), &n, a.ptr(), &lda, &mut info) });
    info
}

/// The backend's DPOTRS ([`potrs`] in f64).
pub fn dpotrs(uplo: u8, n: i32, nrhs: i32, a: Raw<f64>, lda: i32, b: Raw<f64>, ldb: i32) -> i32 {
    potrs(uplo, n, nrhs, a, lda, b, ldb)
}

/// The backend's `?potrs_` for element type `T`.
pub fn potrs<T: Scalar>(uplo: u8, n: i32, nrhs: i32, a: Raw<T>, lda: i32, b: Raw<T>, ldb: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe { bk::potrs::<T>(ch(uplo), &n, &nrhs, a.ptr(), &lda, b.ptr(), &ldb, &mut info) });
    info
}

/// The backend's DPOSV ([`posv`] in f64).
pub fn dposv(uplo: u8, n: i32, nrhs: i32, a: Raw<f64>, lda: i32, b: Raw<f64>, ldb: i32) -> i32 {
    posv(uplo, n, nrhs, a, lda, b, ldb)
}

/// The backend's `?posv_` for element type `T`.
pub fn posv<T: Scalar>(uplo: u8, n: i32, nrhs: i32, a: Raw<T>, lda: i32, b: Raw<T>, ldb: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe { bk::posv::<T>(ch(uplo), &n, &nrhs, a.ptr(), &lda, b.ptr(), &ldb, &mut info) });
    info
}

/// The backend's DGETRF ([`getrf`] in f64).
pub fn dgetrf(m: i32, n: i32, a: Raw<f64>, lda: i32, ipiv: Raw<i32>) -> i32 {
    getrf(m, n, a, lda, ipiv)
}

/// The backend's `?getrf_` for element type `T` (SGETRF, DGETRF, CGETRF, ZGETRF).
pub fn getrf<T: Scalar>(m: i32, n: i32, a: Raw<T>, lda: i32, ipiv: Raw<i32>) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe { bk::getrf::<T>(&m, &n, a.ptr(), &lda, ipiv.ptr(), &mut info) });
    info
}

/// The backend's DGETRS ([`getrs`] in f64).
#[allow(clippy::too_many_arguments)]
pub fn dgetrs(
    trans: u8,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    lda: i32,
    ipiv: Raw<i32>,
    b: Raw<f64>,
    ldb: i32,
) -> i32 {
    getrs(trans, n, nrhs, a, lda, ipiv, b, ldb)
}

/// The backend's `?getrs_` for element type `T`.
#[allow(clippy::too_many_arguments)]
pub fn getrs<T: Scalar>(
    trans: u8,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    lda: i32,
    ipiv: Raw<i32>,
    b: Raw<T>,
    ldb: i32,
) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe {
        bk::getrs::<T>(ch(trans), &n, &nrhs, a.ptr(), &lda, ipiv.ptr(), b.ptr(), &ldb, &mut info)
    });
    info
}

/// The backend's DGESV ([`gesv`] in f64).
pub fn dgesv(n: i32, nrhs: i32, a: Raw<f64>, lda: i32, ipiv: Raw<i32>, b: Raw<f64>, ldb: i32) -> i32 {
    gesv(n, nrhs, a, lda, ipiv, b, ldb)
}

/// The backend's `?gesv_` for element type `T`.
pub fn gesv<T: Scalar>(n: i32, nrhs: i32, a: Raw<T>, lda: i32, ipiv: Raw<i32>, b: Raw<T>, ldb: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe { bk::gesv::<T>(&n, &nrhs, a.ptr(), &lda, ipiv.ptr(), b.ptr(), &ldb, &mut info) });
    info
}

/// The backend's DGEQRF ([`geqrf`] in f64).
pub fn dgeqrf(m: i32, n: i32, a: Raw<f64>, lda: i32, tau: Raw<f64>, work: Raw<f64>, lwork: i32) -> i32 {
    geqrf(m, n, a, lda, tau, work, lwork)
}

/// The backend's `?geqrf_` for element type `T` (SGEQRF, DGEQRF, CGEQRF, ZGEQRF).
pub fn geqrf<T: Scalar>(m: i32, n: i32, a: Raw<T>, lda: i32, tau: Raw<T>, work: Raw<T>, lwork: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe { bk::geqrf::<T>(&m, &n, a.ptr(), &lda, tau.ptr(), work.ptr(), &lwork, &mut info) });
    info
}

/// The backend's DGELS ([`gels`] in f64).
#[allow(clippy::too_many_arguments)]
pub fn dgels(
    trans: u8,
    m: i32,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    lda: i32,
    b: Raw<f64>,
    ldb: i32,
    work: Raw<f64>,
    lwork: i32,
) -> i32 {
    gels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork)
}

/// The backend's `?gels_` for element type `T`.
#[allow(clippy::too_many_arguments)]
pub fn gels<T: Scalar>(
    trans: u8,
    m: i32,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    lda: i32,
    b: Raw<T>,
    ldb: i32,
    work: Raw<T>,
    lwork: i32,
) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe {
        bk::gels::<T>(ch(trans), &m, &n, &nrhs, a.ptr(), &lda, b.ptr(), &ldb, work.ptr(), &lwork, &mut info)
    });
    info
}

/// The backend's ILAENV for a LAPACK routine `name` (upper case, e.g. `"DGEQRF"`) with no
/// options: ISPEC 1 is the block size, 2 the minimum block size, 3 the crossover point. Entry
/// points use it so that a workspace query answers with exactly the number LAPACK gives.
pub fn ilaenv(ispec: i32, name: &str, n1: i32, n2: i32, n3: i32, n4: i32) -> i32 {
    let opts = b" ";
    // SAFETY: ILAENV reads NAME and OPTS as CHARACTER strings of the lengths passed and the four
    // integers by reference; every pointer is valid for the call.
    unsafe {
        bk::ilaenv(
            &ispec,
            name.as_ptr() as *const std::ffi::c_char,
            opts.as_ptr() as *const std::ffi::c_char,
            &n1,
            &n2,
            &n3,
            &n4,
            name.len(),
            opts.len(),
        )
    }
}

/// The backend's DORGQR ([`orgqr`] in f64).
#[allow(clippy::too_many_arguments)]
pub fn dorgqr(
    m: i32,
    n: i32,
    k: i32,
    a: Raw<f64>,
    lda: i32,
    tau: Raw<f64>,
    work: Raw<f64>,
    lwork: i32,
) -> i32 {
    orgqr(m, n, k, a, lda, tau, work, lwork)
}

/// The backend's `?orgqr_` (SORGQR, DORGQR) or `?ungqr_` (CUNGQR, ZUNGQR) for `T`.
#[allow(clippy::too_many_arguments)]
pub fn orgqr<T: Scalar>(
    m: i32,
    n: i32,
    k: i32,
    a: Raw<T>,
    lda: i32,
    tau: Raw<T>,
    work: Raw<T>,
    lwork: i32,
) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract; the backend checks the arguments itself.
    numeric(|| unsafe {
        bk::orgqr::<T>(&m, &n, &k, a.ptr(), &lda, tau.ptr(), work.ptr(), &lwork, &mut info)
    });
    info
}

/// The backend's DORMQR ([`ormqr`] in f64).
#[allow(clippy::too_many_arguments)]
pub fn dormqr(
    side: u8,
    trans: u8,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<f64>,
    lda: i32,
    tau: Raw<f64>,
    c: Raw<f64>,
    ldc: i32,
    work: Raw<f64>,
    lwork: i32,
) -> i32 {
    ormqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork)
}

/// The backend's `?ormqr_` (SORMQR, DORMQR) or `?unmqr_` (CUNMQR, ZUNMQR) for `T`.
#[allow(clippy::too_many_arguments)]
pub fn ormqr<T: Scalar>(
    side: u8,
    trans: u8,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<T>,
    lda: i32,
    tau: Raw<T>,
    c: Raw<T>,
    ldc: i32,
    work: Raw<T>,
    lwork: i32,
) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe {
        bk::ormqr::<T>(
            ch(side),
            ch(trans),
            &m,
            &n,
            &k,
            a.ptr(),
            &lda,
            tau.ptr(),
            c.ptr(),
            &ldc,
            work.ptr(),
            &lwork,
            &mut info,
        )
    });
    info
}

/// The backend's DGETRI ([`getri`] in f64).
pub fn dgetri(n: i32, a: Raw<f64>, lda: i32, ipiv: Raw<i32>, work: Raw<f64>, lwork: i32) -> i32 {
    getri(n, a, lda, ipiv, work, lwork)
}

/// The backend's `?getri_` for element type `T` (SGETRI, DGETRI, CGETRI, ZGETRI).
pub fn getri<T: Scalar>(n: i32, a: Raw<T>, lda: i32, ipiv: Raw<i32>, work: Raw<T>, lwork: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe { bk::getri::<T>(&n, a.ptr(), &lda, ipiv.ptr(), work.ptr(), &lwork, &mut info) });
    info
}

/// The backend's DTRTRI ([`trtri`] in f64).
pub fn dtrtri(uplo: u8, diag: u8, n: i32, a: Raw<f64>, lda: i32) -> i32 {
    trtri(uplo, diag, n, a, lda)
}

/// The backend's `?trtri_` for element type `T` (STRTRI, DTRTRI, CTRTRI, ZTRTRI).
pub fn trtri<T: Scalar>(uplo: u8, diag: u8, n: i32, a: Raw<T>, lda: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe { bk::trtri::<T>(ch(uplo), ch(diag), &n, a.ptr(), &lda, &mut info) });
    info
}

/// The backend's DPOTRI ([`potri`] in f64).
pub fn dpotri(uplo: u8, n: i32, a: Raw<f64>, lda: i32) -> i32 {
    potri(uplo, n, a, lda)
}

/// The backend's `?potri_` for element type `T` (SPOTRI, DPOTRI, CPOTRI, ZPOTRI).
pub fn potri<T: Scalar>(uplo: u8, n: i32, a: Raw<T>, lda: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract.
    numeric(|| unsafe { bk::potri::<T>(ch(uplo), &n, a.ptr(), &lda, &mut info) });
    info
}

/// The backend's `?gemm_` for element type `T` (SGEMM, DGEMM, CGEMM, ZGEMM) on the caller's
/// arrays, arguments as received (the checks have passed).
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn gemm<T: Scalar>(
    ta: u8,
    tb: u8,
    m: i32,
    n: i32,
    k: i32,
    alpha: T,
    a: Raw<T>,
    lda: i32,
    b: Raw<T>,
    ldb: i32,
    beta: T,
    c: Raw<T>,
    ldc: i32,
) {
    // SAFETY: Raw's contract: the arrays are as large as ?GEMM documents for these arguments.
    numeric(|| unsafe {
        bk::gemm::<T>(ch(ta), ch(tb), &m, &n, &k, &alpha, a.ptr(), &lda, b.ptr(), &ldb, &beta, c.ptr(), &ldc)
    })
}
