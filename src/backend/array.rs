//! LAPACK auxiliaries applied by `api/` entry logic to a whole caller array: the max-abs norm,
//! scaling by a ratio without overflow, zeroing, machine constants and the block size oracle.
//! Drivers such as DGELS use them exactly where the reference driver does, so their results
//! (scaled inputs, zeroed outputs, workspace sizes) match LAPACK's bit for bit.
//!
//! These are safe functions because the pointers arrive as [`Raw`], whose creator vouched for
//! them under LAPACK's calling convention, and the api layer has checked the dimensions. The
//! norm, the scaling and the zeroing are numerical work of the caller's ([`numeric`]), as in the
//! reference driver.

use super::lapack::{self as bk, ch};
use crate::fenv::numeric;
use crate::scalar::Scalar;
use crate::tile::Raw;

/// `xLANGE('M')`: the largest absolute value (modulus, for complex types) of the m×n matrix,
/// NaN if one is NaN, as the reference computes it (a larger value or a NaN replaces the
/// running one).
pub fn max_abs<T: Scalar>(m: i32, n: i32, a: Raw<T>, lda: i32) -> f64 {
    let (m, n, lda) = (m.max(0) as usize, n.max(0) as usize, lda.max(1) as usize);
    numeric(|| {
        let mut value = 0.0f64;
        for j in 0..n {
            for i in 0..m {
                // SAFETY: Raw's contract covers the m×n block with leading dimension lda.
                let x: f64 = unsafe { *a.ptr().add(i + j * lda) }.abs().into();
                if value < x || x.is_nan() {
                    value = x;
                }
            }
        }
        value
    })
}

/// `xLASCL('G')`: multiplies the m×n matrix by `cto / cfrom` (both exact in `T`'s real type),
/// in steps that neither overflow nor underflow.
pub fn scale<T: Scalar>(cfrom: f64, cto: f64, m: i32, n: i32, a: Raw<T>, lda: i32) {
    let mut info = 0;
    let (cf, ct) = (T::Real::from_f64(cfrom), T::Real::from_f64(cto));
    // SAFETY: Raw's contract covers the m×n block.
    numeric(|| unsafe { bk::lascl::<T>(ch(b'G'), &0, &0, &cf, &ct, &m, &n, a.ptr(), &lda, &mut info) });
    debug_assert_eq!(info, 0, "xlascl rejected checked arguments");
}

/// `xLASET('F', m, n, 0, 0)`: zeroes the m×n matrix.
pub fn zero<T: Scalar>(m: i32, n: i32, a: Raw<T>, lda: i32) {
    let (m, n, lda) = (m.max(0) as usize, n.max(0) as usize, lda.max(1) as usize);
    for j in 0..n {
        for i in 0..m {
            // SAFETY: Raw's contract covers the m×n block.
            unsafe { *a.ptr().add(i + j * lda) = T::zero() };
        }
    }
}

/// `xLAMCH('S') / xLAMCH('P')` of `T`'s real type: the SMLNUM of LAPACK's drivers before the
/// square root (the smallest normal number over the relative machine precision).
pub fn small_over_eps<T: Scalar>() -> f64 {
    let safe_min =
        if std::mem::size_of::<T::Real>() == 4 { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE };
    safe_min / (2.0 * T::eps())
}

/// `ILAENV(ispec, name, opts, n1, n2, n3, n4)` of the backend.
pub fn ilaenv(ispec: i32, name: &str, opts: &str, n: [i32; 4]) -> i32 {
    // SAFETY: ILAENV reads `name` and `opts` up to the lengths passed after the arguments, and
    // the integers by reference; nothing is written.
    unsafe {
        bk::ilaenv(
            &ispec,
            name.as_ptr() as *const std::ffi::c_char,
            opts.as_ptr() as *const std::ffi::c_char,
            &n[0],
            &n[1],
            &n[2],
            &n[3],
            name.len(),
            opts.len(),
        )
    }
}

/// Stores `v` in the first element of a LAPACK WORK array (the optimal LWORK on exit).
/// (For a complex type, in its real part.)
pub fn store_first<T: Scalar>(work: Raw<T>, v: f64) {
    // SAFETY: LAPACK documents WORK as an array of at least one element whenever the routine
    // returns a workspace size, which Raw's creator vouched for.
    unsafe { *work.ptr() = T::from_f64(v) };
}
