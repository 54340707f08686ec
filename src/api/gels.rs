//! DGELS (least squares and minimum-norm solutions through QR or LQ), with LAPACK 3.11's checks.
//!
//! Not yet on tiles: valid calls are forwarded to the backend (`path=forward reason=untiled`).

use super::{flag, forward_reason, Path, Report};
use crate::backend::forward;
use crate::config::Config;
use crate::error::Error;
use crate::tile::Raw;

/// DGELS: solves min‖op(A)·X − B‖ or the minimum-norm op(A)·X = B for full-rank A.
#[allow(clippy::too_many_arguments)]
pub fn dgels(
    cfg: &Config,
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
) -> Result<(), Error> {
    let query = lwork == -1;
    let mn = m.min(n);
    if !(flag(trans, b'N') || flag(trans, b'T')) {
        return Err(Error::Arg(1));
    }
    if m < 0 {
        return Err(Error::Arg(2));
    }
    if n < 0 {
        return Err(Error::Arg(3));
    }
    if nrhs < 0 {
        return Err(Error::Arg(4));
    }
    if lda < m.max(1) {
        return Err(Error::Arg(6));
    }
    if ldb < m.max(n).max(1) {
        return Err(Error::Arg(8));
    }
    if !query && lwork < (mn + mn.max(nrhs)).max(1) {
        return Err(Error::Arg(10));
    }
    let rep = Report::start(cfg);
    let why = forward_reason(cfg, "dgels", mn as usize).unwrap_or("untiled");
    let info = forward::dgels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork);
    let (mf, nf) = (m as f64, n as f64);
    let k = mf.min(nf);
    let flops = 2.0 * mf * nf * k - (mf + nf) * k * k + 2.0 * k * k * k / 3.0;
    if !query {
        let tc = trans.to_ascii_uppercase() as char;
        rep.finish(
            "dgels",
            format_args!("trans={tc} m={m} n={n} nrhs={nrhs}"),
            Path::Forward,
            Some(why),
            flops,
        );
    }
    if info > 0 {
        Err(Error::Numerical(info))
    } else {
        Ok(())
    }
}
