//! The cuBLAS and cuSOLVER routines of each element type: the S, D, C or Z member of every family
//! the lowering calls ([`super::super::lower::Call`]), behind one trait so that the device's
//! `run` is written once for the four types. Scalars arrive as f64 (the ops' −1, 0, 1: exact in
//! every type) and are taken into the routine's type here; the rank-k update is SYRK for the real
//! types and HERK (real α and β) for the complex ones, as [`crate::graph::op`] states the op.

use super::{cb, cs};
use crate::scalar::{c32, c64, Coef, Scalar};

/// A cuBLAS status and the routine's name, for the device failure that names it.
pub(super) type Status = (cb::cublasStatus_t, &'static str);
/// A cuSOLVER status and the routine's name.
pub(super) type SolverStatus = (cs::cusolverStatus_t, &'static str);

/// One element type's routines. Every argument is cuBLAS's (addresses as device pointers).
///
/// # Safety
/// Each function is a cuBLAS/cuSOLVER call: the addresses must be device memory holding the
/// blocks the sizes and leading dimensions describe, in this type, and the handle must be live.
#[allow(clippy::too_many_arguments)]
pub(super) trait CuElem: Scalar {
    unsafe fn gemm(
        h: cb::cublasHandle_t,
        ta: cb::cublasOperation_t,
        tb: cb::cublasOperation_t,
        mnk: [i32; 3],
        alpha: Coef,
        a: (u64, i32),
        b: (u64, i32),
        beta: Coef,
        c: (u64, i32),
    ) -> Status;
    /// SYRK (real types) or HERK (complex).
    unsafe fn rank_k(
        h: cb::cublasHandle_t,
        uplo: cb::cublasFillMode_t,
        trans: cb::cublasOperation_t,
        nk: [i32; 2],
        alpha: f64,
        a: (u64, i32),
        beta: f64,
        c: (u64, i32),
    ) -> Status;
    unsafe fn trsm(
        h: cb::cublasHandle_t,
        sdtd: (cb::cublasSideMode_t, cb::cublasFillMode_t, cb::cublasOperation_t, cb::cublasDiagType_t),
        mn: [i32; 2],
        alpha: f64,
        a: (u64, i32),
        b: (u64, i32),
    ) -> Status;
    /// Out of place: C ← α·op(A)·B or α·B·op(A).
    unsafe fn trmm(
        h: cb::cublasHandle_t,
        sdtd: (cb::cublasSideMode_t, cb::cublasFillMode_t, cb::cublasOperation_t, cb::cublasDiagType_t),
        mn: [i32; 2],
        alpha: f64,
        a: (u64, i32),
        b: (u64, i32),
        c: (u64, i32),
    ) -> Status;
    /// C ← α·A + β·B, no transposes.
    unsafe fn geam(
        h: cb::cublasHandle_t,
        mn: [i32; 2],
        alpha: f64,
        a: (u64, i32),
        beta: f64,
        b: (u64, i32),
        c: (u64, i32),
    ) -> Status;
    /// `count` products 1·(1×n row) of no transposes: A, B and C arrays of device pointers.
    unsafe fn gemm_rows(
        h: cb::cublasHandle_t,
        n: i32,
        a: u64,
        b: (u64, i32),
        c: (u64, i32),
        count: i32,
    ) -> Status;
    unsafe fn potrf_buffer_size(
        h: cs::cusolverDnHandle_t,
        uplo: cs::cublasFillMode_t,
        n: i32,
        a: (u64, i32),
        lwork: &mut i32,
    ) -> SolverStatus;
    unsafe fn potrf(
        h: cs::cusolverDnHandle_t,
        uplo: cs::cublasFillMode_t,
        n: i32,
        a: (u64, i32),
        work: (u64, i32),
        info: u64,
    ) -> SolverStatus;
    /// The workspace (elements) of GETRF (`qr` false) or GEQRF (`qr` true) on an m×n matrix.
    unsafe fn lu_qr_buffer_size(
        h: cs::cusolverDnHandle_t,
        qr: bool,
        mn: [i32; 2],
        a: (u64, i32),
        lwork: &mut i32,
    ) -> SolverStatus;
    /// GETRF with the pivots into `aux` (i32), or (`qr`) GEQRF with tau into `aux` (this type).
    unsafe fn lu_qr(
        h: cs::cusolverDnHandle_t,
        qr: bool,
        mn: [i32; 2],
        a: (u64, i32),
        aux: u64,
        work: (u64, i32),
        info: u64,
    ) -> SolverStatus;
}

/// The TRANS of an adjoint operand: transposed for the real types, conjugate transposed for the
/// complex ones.
pub(super) fn adjoint<T: Scalar>() -> cb::cublasOperation_t {
    if T::COMPLEX {
        cb::cublasOperation_t::CUBLAS_OP_C
    } else {
        cb::cublasOperation_t::CUBLAS_OP_T
    }
}

macro_rules! cu_elem {
    ($t:ty, $lib:ty, $sol:ty, $real:ty, $scal:expr,
     $gemm:ident, $rk:ident, $trsm:ident, $trmm:ident, $geam:ident, $batched:ident,
     $potrf_bs:ident, $potrf:ident, $getrf_bs:ident, $getrf:ident, $geqrf_bs:ident, $geqrf:ident) => {
        impl CuElem for $t {
            unsafe fn gemm(
                h: cb::cublasHandle_t,
                ta: cb::cublasOperation_t,
                tb: cb::cublasOperation_t,
                [m, n, k]: [i32; 3],
                alpha: Coef,
                a: (u64, i32),
                b: (u64, i32),
                beta: Coef,
                c: (u64, i32),
            ) -> Status {
                let (al, be): ($lib, $lib) = ($scal(alpha.re, alpha.im), $scal(beta.re, beta.im));
                // SAFETY: the caller's guarantee (the trait's contract).
                let r = unsafe {
                    cb::$gemm(
                        h,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        &al,
                        a.0 as *const $lib,
                        a.1,
                        b.0 as *const $lib,
                        b.1,
                        &be,
                        c.0 as *mut $lib,
                        c.1,
                    )
                };
                (r, stringify!($gemm))
            }
            unsafe fn rank_k(
                h: cb::cublasHandle_t,
                uplo: cb::cublasFillMode_t,
                trans: cb::cublasOperation_t,
                [n, k]: [i32; 2],
                alpha: f64,
                a: (u64, i32),
                beta: f64,
                c: (u64, i32),
            ) -> Status {
                let (al, be) = (alpha as $real, beta as $real);
                // SAFETY: the caller's guarantee.
                let r = unsafe {
                    cb::$rk(h, uplo, trans, n, k, &al, a.0 as *const $lib, a.1, &be, c.0 as *mut $lib, c.1)
                };
                (r, stringify!($rk))
            }
            unsafe fn trsm(
                h: cb::cublasHandle_t,
                (s, u, t, d): (
                    cb::cublasSideMode_t,
                    cb::cublasFillMode_t,
                    cb::cublasOperation_t,
                    cb::cublasDiagType_t,
                ),
                [m, n]: [i32; 2],
                alpha: f64,
                a: (u64, i32),
                b: (u64, i32),
            ) -> Status {
                let al: $lib = $scal(alpha, 0.0);
                // SAFETY: the caller's guarantee.
                let r = unsafe {
                    cb::$trsm(h, s, u, t, d, m, n, &al, a.0 as *const $lib, a.1, b.0 as *mut $lib, b.1)
                };
                (r, stringify!($trsm))
            }
            unsafe fn trmm(
                h: cb::cublasHandle_t,
                (s, u, t, d): (
                    cb::cublasSideMode_t,
                    cb::cublasFillMode_t,
                    cb::cublasOperation_t,
                    cb::cublasDiagType_t,
                ),
                [m, n]: [i32; 2],
                alpha: f64,
                a: (u64, i32),
                b: (u64, i32),
                c: (u64, i32),
            ) -> Status {
                let al: $lib = $scal(alpha, 0.0);
                // SAFETY: the caller's guarantee.
                let r = unsafe {
                    cb::$trmm(
                        h,
                        s,
                        u,
                        t,
                        d,
                        m,
                        n,
                        &al,
                        a.0 as *const $lib,
                        a.1,
                        b.0 as *const $lib,
                        b.1,
                        c.0 as *mut $lib,
                        c.1,
                    )
                };
                (r, stringify!($trmm))
            }
            unsafe fn geam(
                h: cb::cublasHandle_t,
                [m, n]: [i32; 2],
                alpha: f64,
                a: (u64, i32),
                beta: f64,
                b: (u64, i32),
                c: (u64, i32),
            ) -> Status {
                let (al, be): ($lib, $lib) = ($scal(alpha, 0.0), $scal(beta, 0.0));
                let no = cb::cublasOperation_t::CUBLAS_OP_N;
                // SAFETY: the caller's guarantee.
                let r = unsafe {
                    cb::$geam(
                        h,
                        no,
                        no,
                        m,
                        n,
                        &al,
                        a.0 as *const $lib,
                        a.1,
                        &be,
                        b.0 as *const $lib,
                        b.1,
                        c.0 as *mut $lib,
                        c.1,
                    )
                };
                (r, stringify!($geam))
            }
            unsafe fn gemm_rows(
                h: cb::cublasHandle_t,
                n: i32,
                a: u64,
                b: (u64, i32),
                c: (u64, i32),
                count: i32,
            ) -> Status {
                let (one, zero): ($lib, $lib) = ($scal(1.0, 0.0), $scal(0.0, 0.0));
                let no = cb::cublasOperation_t::CUBLAS_OP_N;
                // SAFETY: the caller's guarantee.
                let r = unsafe {
                    cb::$batched(
                        h,
                        no,
                        no,
                        1,
                        n,
                        1,
                        &one,
                        a as *const *const $lib,
                        1,
                        b.0 as *const *const $lib,
                        b.1,
                        &zero,
                        c.0 as *const *mut $lib,
                        c.1,
                        count,
                    )
                };
                (r, stringify!($batched))
            }
            unsafe fn potrf_buffer_size(
                h: cs::cusolverDnHandle_t,
                uplo: cs::cublasFillMode_t,
                n: i32,
                a: (u64, i32),
                lwork: &mut i32,
            ) -> SolverStatus {
                // SAFETY: the caller's guarantee.
                let r = unsafe { cs::$potrf_bs(h, uplo, n, a.0 as *mut $sol, a.1, lwork) };
                (r, stringify!($potrf_bs))
            }
            unsafe fn potrf(
                h: cs::cusolverDnHandle_t,
                uplo: cs::cublasFillMode_t,
                n: i32,
                a: (u64, i32),
                work: (u64, i32),
                info: u64,
            ) -> SolverStatus {
                // SAFETY: the caller's guarantee.
                let r = unsafe {
                    cs::$potrf(
                        h,
                        uplo,
                        n,
                        a.0 as *mut $sol,
                        a.1,
                        work.0 as *mut $sol,
                        work.1,
                        info as *mut i32,
                    )
                };
                (r, stringify!($potrf))
            }
            unsafe fn lu_qr_buffer_size(
                h: cs::cusolverDnHandle_t,
                qr: bool,
                [m, n]: [i32; 2],
                a: (u64, i32),
                lwork: &mut i32,
            ) -> SolverStatus {
                // SAFETY: the caller's guarantee.
                unsafe {
                    if qr {
                        (cs::$geqrf_bs(h, m, n, a.0 as *mut $sol, a.1, lwork), stringify!($geqrf_bs))
                    } else {
                        (cs::$getrf_bs(h, m, n, a.0 as *mut $sol, a.1, lwork), stringify!($getrf_bs))
                    }
                }
            }
            unsafe fn lu_qr(
                h: cs::cusolverDnHandle_t,
                qr: bool,
                [m, n]: [i32; 2],
                a: (u64, i32),
                aux: u64,
                work: (u64, i32),
                info: u64,
            ) -> SolverStatus {
                let (pa, pw, pi) = (a.0 as *mut $sol, work.0 as *mut $sol, info as *mut i32);
                // SAFETY: the caller's guarantee.
                unsafe {
                    if qr {
                        (cs::$geqrf(h, m, n, pa, a.1, aux as *mut $sol, pw, work.1, pi), stringify!($geqrf))
                    } else {
                        (cs::$getrf(h, m, n, pa, a.1, pw, aux as *mut i32, pi), stringify!($getrf))
                    }
                }
            }
        }
    };
}

cu_elem!(
    f32,
    f32,
    f32,
    f32,
    |x: f64, _: f64| x as f32,
    cublasSgemm_v2,
    cublasSsyrk_v2,
    cublasStrsm_v2,
    cublasStrmm_v2,
    cublasSgeam,
    cublasSgemmBatched,
    cusolverDnSpotrf_bufferSize,
    cusolverDnSpotrf,
    cusolverDnSgetrf_bufferSize,
    cusolverDnSgetrf,
    cusolverDnSgeqrf_bufferSize,
    cusolverDnSgeqrf
);
cu_elem!(
    f64,
    f64,
    f64,
    f64,
    |x: f64, _: f64| x,
    cublasDgemm_v2,
    cublasDsyrk_v2,
    cublasDtrsm_v2,
    cublasDtrmm_v2,
    cublasDgeam,
    cublasDgemmBatched,
    cusolverDnDpotrf_bufferSize,
    cusolverDnDpotrf,
    cusolverDnDgetrf_bufferSize,
    cusolverDnDgetrf,
    cusolverDnDgeqrf_bufferSize,
    cusolverDnDgeqrf
);
cu_elem!(
    c32,
    cb::cuComplex,
    cs::cuComplex,
    f32,
    |x: f64, y: f64| cb::cuComplex { x: x as f32, y: y as f32 },
    cublasCgemm_v2,
    cublasCherk_v2,
    cublasCtrsm_v2,
    cublasCtrmm_v2,
    cublasCgeam,
    cublasCgemmBatched,
    cusolverDnCpotrf_bufferSize,
    cusolverDnCpotrf,
    cusolverDnCgetrf_bufferSize,
    cusolverDnCgetrf,
    cusolverDnCgeqrf_bufferSize,
    cusolverDnCgeqrf
);
cu_elem!(
    c64,
    cb::cuDoubleComplex,
    cs::cuDoubleComplex,
    f64,
    |x: f64, y: f64| cb::cuDoubleComplex { x, y },
    cublasZgemm_v2,
    cublasZherk_v2,
    cublasZtrsm_v2,
    cublasZtrmm_v2,
    cublasZgeam,
    cublasZgemmBatched,
    cusolverDnZpotrf_bufferSize,
    cusolverDnZpotrf,
    cusolverDnZgetrf_bufferSize,
    cusolverDnZgetrf,
    cusolverDnZgeqrf_bufferSize,
    cusolverDnZgeqrf
);
