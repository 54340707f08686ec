//! DGEQRF (Householder QR in LAPACK's format), with LAPACK 3.11's checks.
//!
//! Not yet on tiles: valid calls are forwarded to the backend (`path=forward reason=untiled`).

use super::{forward_reason, Path, Report};
use crate::backend::forward;
use crate::config::Config;
use crate::error::Error;
use crate::tile::Raw;

/// DGEQRF: A = Q·R with Q's Householder vectors below the diagonal and their scalars in `tau`.
#[allow(clippy::too_many_arguments)]
pub fn dgeqrf(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<f64>,
    lda: i32,
    tau: Raw<f64>,
    work: Raw<f64>,
    lwork: i32,
) -> Result<(), Error> {
    let query = lwork == -1;
    if m < 0 {
        return Err(Error::Arg(1));
    }
    if n < 0 {
        return Err(Error::Arg(2));
    }
    if lda < m.max(1) {
        return Err(Error::Arg(4));
    }
    if !query && lwork < n.max(1) {
        return Err(Error::Arg(7));
    }
    let rep = Report::start(cfg);
    let why = forward_reason(cfg, "dgeqrf", m.min(n) as usize).unwrap_or("untiled");
    forward::dgeqrf(m, n, a, lda, tau, work, lwork);
    let (mf, nf) = (m as f64, n as f64);
    let k = mf.min(nf);
    let flops = 2.0 * mf * nf * k - (mf + nf) * k * k + 2.0 * k * k * k / 3.0;
    if !query {
        rep.finish("dgeqrf", format_args!("m={m} n={n}"), Path::Forward, Some(why), flops);
    }
    Ok(())
}
