//! DGETRF (LU with partial pivoting), DGETRS and DGESV, with LAPACK 3.11's checks.
//!
//! Not yet on tiles: valid calls are forwarded to the backend (`path=forward reason=untiled`).

use super::{flag, forward_reason, Path, Report};
use crate::backend::forward;
use crate::config::Config;
use crate::error::Error;
use crate::tile::Raw;

fn numerical(info: i32) -> Result<(), Error> {
    if info > 0 {
        Err(Error::Numerical(info))
    } else {
        Ok(())
    }
}

/// DGETRF: P·L·U of the m×n matrix A; `ipiv` receives LAPACK's row interchanges.
pub fn dgetrf(cfg: &Config, m: i32, n: i32, a: Raw<f64>, lda: i32, ipiv: Raw<i32>) -> Result<(), Error> {
    if m < 0 {
        return Err(Error::Arg(1));
    }
    if n < 0 {
        return Err(Error::Arg(2));
    }
    if lda < m.max(1) {
        return Err(Error::Arg(4));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let why = forward_reason(cfg, "dgetrf", m.min(n) as usize).unwrap_or("untiled");
    let info = forward::dgetrf(m, n, a, lda, ipiv);
    let (mf, nf) = (m as f64, n as f64);
    let k = mf.min(nf);
    let flops = mf * nf * k - (mf + nf) * k * k / 2.0 + k * k * k / 3.0;
    rep.finish("dgetrf", format_args!("m={m} n={n}"), Path::Forward, Some(why), flops);
    numerical(info)
}

/// DGETRS: solves op(A)·X = B with the factors from DGETRF.
#[allow(clippy::too_many_arguments)]
pub fn dgetrs(
    cfg: &Config,
    trans: u8,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    lda: i32,
    ipiv: Raw<i32>,
    b: Raw<f64>,
    ldb: i32,
) -> Result<(), Error> {
    if !(flag(trans, b'N') || flag(trans, b'T') || flag(trans, b'C')) {
        return Err(Error::Arg(1));
    }
    if n < 0 {
        return Err(Error::Arg(2));
    }
    if nrhs < 0 {
        return Err(Error::Arg(3));
    }
    if lda < n.max(1) {
        return Err(Error::Arg(5));
    }
    if ldb < n.max(1) {
        return Err(Error::Arg(8));
    }
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let why = forward_reason(cfg, "dgetrs", n as usize).unwrap_or("untiled");
    let info = forward::dgetrs(trans, n, nrhs, a, lda, ipiv, b, ldb);
    let flops = 2.0 * (n as f64).powi(2) * nrhs as f64;
    let tc = trans.to_ascii_uppercase() as char;
    rep.finish("dgetrs", format_args!("trans={tc} n={n} nrhs={nrhs}"), Path::Forward, Some(why), flops);
    numerical(info)
}

/// DGESV: solves A·X = B by DGETRF and DGETRS.
#[allow(clippy::too_many_arguments)]
pub fn dgesv(
    cfg: &Config,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    lda: i32,
    ipiv: Raw<i32>,
    b: Raw<f64>,
    ldb: i32,
) -> Result<(), Error> {
    if n < 0 {
        return Err(Error::Arg(1));
    }
    if nrhs < 0 {
        return Err(Error::Arg(2));
    }
    if lda < n.max(1) {
        return Err(Error::Arg(4));
    }
    if ldb < n.max(1) {
        return Err(Error::Arg(7));
    }
    let rep = Report::start(cfg);
    let why = forward_reason(cfg, "dgesv", n as usize).unwrap_or("untiled");
    let info = forward::dgesv(n, nrhs, a, lda, ipiv, b, ldb);
    let nf = n as f64;
    let flops = 2.0 * nf * nf * nf / 3.0 + 2.0 * nf * nf * nrhs as f64;
    rep.finish("dgesv", format_args!("n={n} nrhs={nrhs}"), Path::Forward, Some(why), flops);
    numerical(info)
}
