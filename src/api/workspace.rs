//! Forwarded DORGQR, DORMQR (`api::orgqr`) and xGETRI (`api::inverse`, any of the four types)
//! calls go to the backend, but never with less workspace than its blocked code wants. DGEQRF and DGELS calls that are forwarded (small, or
//! learned to be faster in the backend) get the same treatment through `with_workspace`.
//!
//! Many legacy programs pass the documented minimum LWORK (N for DORGQR and DGETRI, the other
//! dimension for DORMQR). LAPACK then runs its unblocked code, 5 to 8 times slower than with the
//! workspace its query asks for. When a call is valid and its LWORK is below what the backend's
//! own workspace query answers, hetla hands the backend a buffer of that size instead (taken from
//! and returned to [`crate::tile::recycle`]) and copies WORK(1) back: the same routine, the same
//! outputs up to rounding (the blocked and unblocked codes apply the same reflectors or the same
//! inverse), only faster. Everything else (queries, bad arguments with their `xerbla` message,
//! enough workspace, calls from inside a task) goes to the backend unchanged. The verbose line
//! says `path=forward reason=WHY` (`untiled` for queries and invalid calls, else why the call was
//! not run on tiles), followed by `lwork=L->W` when the buffer was grown.
//!
//! The argument checks below only decide whether growing is safe: they are LAPACK 3.11's,
//! complete, so an invalid call is never queried, and it reaches the backend's own checks as it
//! came.

use super::{flag, Path, Report};
use crate::backend::forward;
use crate::config::Config;
use crate::error::Error;
use crate::scalar::Scalar;
use crate::tile::Raw;

/// The backend's INFO as the call's result (negative after the backend's own `xerbla`).
fn backend_info(info: i32) -> Result<(), Error> {
    if info == 0 {
        Ok(())
    } else {
        Err(Error::Numerical(info))
    }
}

/// Runs `call(work, lwork)` with the caller's workspace, or with a grown one when `valid`, the
/// caller's `lwork` is below the backend's optimum `query()` and growing is allowed; returns
/// the backend's INFO and the LWORK used. WORK holds elements of any of the four types.
pub(crate) fn with_workspace<T: Scalar>(
    cfg: &Config,
    routine: &str,
    valid: bool,
    work: Raw<T>,
    lwork: i32,
    query: impl FnOnce() -> i32,
    call: impl FnOnce(Raw<T>, i32) -> i32,
) -> (i32, i32) {
    let grow = valid && lwork != -1 && !crate::runtime::in_task() && !cfg.is_disabled(routine);
    let want = if grow { query() } else { lwork };
    if want <= lwork {
        return (call(work, lwork), lwork);
    }
    // A recycled buffer of doubles large enough for `want` elements of `T`.
    let doubles = (want as usize * std::mem::size_of::<T>()).div_ceil(8);
    let mut buf = crate::tile::recycle::take(doubles);
    // SAFETY: `buf` holds `doubles` zeroed f64s (8-byte aligned, at least the alignment of every
    // `T`), as many bytes as `want` elements of `T` need, and any bit pattern of zeros is a valid
    // value of each type; owned here until the call returns.
    let raw = unsafe { Raw::new(buf.as_mut_ptr() as *mut T) };
    let info = call(raw, want);
    // The caller's WORK has at least one element (LWORK ≥ 1 for a valid call).
    work.set(0, raw.matrix(1, 1, 1).get(0, 0));
    crate::tile::recycle::give(buf);
    (info, want)
}

/// The backend's optimal LWORK from a workspace query (`call(work, -1)`): WORK(1)'s real part.
pub(crate) fn query_with<T: Scalar>(call: impl FnOnce(Raw<T>, i32) -> i32) -> i32 {
    query_value(call).map_or(0, |w| w.re().into() as i32)
}

/// WORK(1) as the backend's workspace query (`call(work, -1)`) leaves it, if the query succeeds.
pub(crate) fn query_value<T: Scalar>(call: impl FnOnce(Raw<T>, i32) -> i32) -> Option<T> {
    let mut w = [T::zero()];
    // SAFETY: a one-element array, all a workspace query writes.
    let info = call(unsafe { Raw::new(w.as_mut_ptr()) }, -1);
    (info == 0).then_some(w[0])
}

/// The nominal flops of a call that computes (none for a query or a rejected call).
fn counted(valid: bool, lwork: i32, flops: f64) -> f64 {
    if valid && lwork != -1 {
        flops.max(0.0)
    } else {
        0.0
    }
}

/// The verbose line's reason: `why`, with ` lwork=L->W` when the workspace was grown.
pub(crate) fn grown(why: &str, lwork: i32, used: i32) -> String {
    if used != lwork {
        format!("{why} lwork={lwork}->{used}")
    } else {
        why.to_string()
    }
}

/// Whether DORGQR's arguments are valid (LAPACK's checks; an invalid call goes to the backend,
/// which reports it as LAPACK does).
pub(crate) fn dorgqr_valid(m: i32, n: i32, k: i32, lda: i32, lwork: i32) -> bool {
    m >= 0 && (0..=m).contains(&n) && (0..=n).contains(&k) && lda >= m.max(1) && lwork >= n.max(1)
}

/// Whether xORMQR's (xUNMQR's) arguments are valid (as [`dorgqr_valid`]): TRANS is 'N' or
/// `adjoint` ('T' for the real types, 'C' for the complex ones).
#[allow(clippy::too_many_arguments)]
pub(crate) fn dormqr_valid(
    adjoint: u8,
    side: u8,
    trans: u8,
    m: i32,
    n: i32,
    k: i32,
    lda: i32,
    ldc: i32,
    lwork: i32,
) -> bool {
    let left = flag(side, b'L');
    let (nq, nw) = if left { (m, n) } else { (n, m) };
    (left || flag(side, b'R'))
        && (flag(trans, b'N') || flag(trans, adjoint))
        && m >= 0
        && n >= 0
        && (0..=nq).contains(&k)
        && lda >= nq.max(1)
        && ldc >= m.max(1)
        && lwork >= nw.max(1)
}

/// Whether xGETRI's arguments are valid (as [`dorgqr_valid`]).
pub(crate) fn getri_valid(n: i32, lda: i32, lwork: i32) -> bool {
    n >= 0 && lda >= n.max(1) && lwork >= n.max(1)
}

/// DORGQR forwarded (`api::orgqr::dorgqr` decides when): the m×n matrix Q with orthonormal
/// columns from K reflectors; `why` is the verbose line's reason, `rep` the call's report.
/// (xORGQR or xUNGQR of any type.)
#[allow(clippy::too_many_arguments)]
pub(crate) fn dorgqr<T: Scalar>(
    cfg: &Config,
    rep: &Report,
    why: &str,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<T>,
    lda: i32,
    tau: Raw<T>,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let name = crate::scalar::name::<T>("orgqr");
    let valid = dorgqr_valid(m, n, k, lda, lwork);
    let call = |w: Raw<T>, l: i32| forward::orgqr(m, n, k, a, lda, tau, w, l);
    let (info, used) = with_workspace(cfg, name, valid, work, lwork, || query_with(call), call);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let flops = (4.0 * mf * nf * kf - 2.0 * (mf + nf) * kf * kf + 4.0 * kf * kf * kf / 3.0) * T::FLOPS;
    rep.finish(
        name,
        format_args!("m={m} n={n} k={k}"),
        Path::Forward,
        Some(&grown(why, lwork, used)),
        counted(valid, lwork, flops),
    );
    backend_info(info)
}

/// DORMQR forwarded (`api::orgqr::dormqr` decides when): C ← op(Q)·C or C·op(Q) with Q from
/// K reflectors; `why` is the verbose line's reason, `rep` the call's report.
/// (xORMQR or xUNMQR of any type.)
#[allow(clippy::too_many_arguments)]
pub(crate) fn dormqr<T: Scalar>(
    cfg: &Config,
    rep: &Report,
    why: &str,
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
) -> Result<(), Error> {
    let name = crate::scalar::name::<T>("ormqr");
    let left = flag(side, b'L');
    let valid = dormqr_valid(T::ADJOINT, side, trans, m, n, k, lda, ldc, lwork);
    let call = |w: Raw<T>, l: i32| forward::ormqr(side, trans, m, n, k, a, lda, tau, c, ldc, w, l);
    let (info, used) = with_workspace(cfg, name, valid, work, lwork, || query_with(call), call);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let flops = T::FLOPS
        * if left {
            4.0 * nf * mf * kf - 2.0 * nf * kf * kf
        } else {
            4.0 * mf * nf * kf - 2.0 * mf * kf * kf
        };
    let (sc, tc) = (side.to_ascii_uppercase() as char, trans.to_ascii_uppercase() as char);
    rep.finish(
        name,
        format_args!("side={sc} trans={tc} m={m} n={n} k={k}"),
        Path::Forward,
        Some(&grown(why, lwork, used)),
        counted(valid, lwork, flops),
    );
    backend_info(info)
}

/// xGETRI forwarded (`api::inverse::getri` decides when) with a grown workspace: `why` is the
/// verbose line's reason, `rep` the call's report, started before the decision.
#[allow(clippy::too_many_arguments)]
pub(crate) fn getri<T: Scalar>(
    cfg: &Config,
    rep: &Report,
    why: &str,
    n: i32,
    a: Raw<T>,
    lda: i32,
    ipiv: Raw<i32>,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let name = crate::scalar::name::<T>("getri");
    let valid = getri_valid(n, lda, lwork);
    let call = |w: Raw<T>, l: i32| forward::getri(n, a, lda, ipiv, w, l);
    let (info, used) = with_workspace(cfg, name, valid, work, lwork, || query_with(call), call);
    let nf = n as f64;
    rep.finish(
        name,
        format_args!("n={n}"),
        Path::Forward,
        Some(&grown(why, lwork, used)),
        counted(valid, lwork, 4.0 * nf * nf * nf / 3.0 * T::FLOPS),
    );
    backend_info(info)
}
