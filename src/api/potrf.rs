//! DPOTRF (Cholesky), DPOTRS and DPOSV, with LAPACK 3.11's checks.

use super::{flag, forward_reason, run_tiles_on_devices, Path, Report};
use crate::algo;
use crate::backend::forward;
use crate::config::Config;
use crate::device::Work;
use crate::error::Error;
use crate::kernels::Uplo;
use crate::tile::Raw;

pub(crate) fn parse_uplo(c: u8) -> Option<Uplo> {
    if flag(c, b'L') {
        Some(Uplo::Lower)
    } else if flag(c, b'U') {
        Some(Uplo::Upper)
    } else {
        None
    }
}

/// DPOTRF: the Cholesky factor of the `uplo` triangle of the n×n matrix A.
pub fn dpotrf(cfg: &Config, uplo: u8, n: i32, a: Raw<f64>, lda: i32) -> Result<(), Error> {
    let Some(ul) = parse_uplo(uplo) else { return Err(Error::Arg(1)) };
    if n < 0 {
        return Err(Error::Arg(2));
    }
    if lda < n.max(1) {
        return Err(Error::Arg(4));
    }
    if n == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let (nu, ld) = (n as usize, lda as usize);
    let flops = (nu as f64).powi(3) / 3.0;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, "dpotrf", nu) {
        let info = forward::dpotrf(uplo, n, a, lda);
        rep.finish("dpotrf", format_args!("uplo={uc} n={n}"), Path::Forward, Some(why), flops);
        return if info > 0 { Err(Error::Numerical(info)) } else { Ok(()) };
    }
    let nb = cfg.nb_for("dpotrf");
    let t = a.matrix(nu, nu, ld).tiled(nb, nb);
    let work = Work { flops, bytes: 8.0 * (nu * nu) as f64 };
    let r = run_tiles_on_devices(cfg, work, |seq| algo::potrf::potrf(seq, ul, &t));
    rep.finish("dpotrf", format_args!("uplo={uc} n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DPOTRS: solves A·X = B with the Cholesky factor from DPOTRF.
#[allow(clippy::too_many_arguments)]
pub fn dpotrs(
    cfg: &Config,
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    lda: i32,
    b: Raw<f64>,
    ldb: i32,
) -> Result<(), Error> {
    if parse_uplo(uplo).is_none() {
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
        return Err(Error::Arg(7));
    }
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let ul = parse_uplo(uplo).expect("checked above");
    let flops = 2.0 * (n as f64).powi(2) * nrhs as f64;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, "dpotrs", n as usize) {
        forward::dpotrs(uplo, n, nrhs, a, lda, b, ldb);
        rep.finish("dpotrs", format_args!("uplo={uc} n={n} nrhs={nrhs}"), Path::Forward, Some(why), flops);
        return Ok(());
    }
    let nb = cfg.nb_for("dpotrs");
    let (nu, ru) = (n as usize, nrhs as usize);
    let ta = a.matrix(nu, nu, lda as usize).tiled(nb, nb);
    let tb = b.matrix(nu, ru, ldb as usize).tiled(nb, nb);
    let work = Work { flops, bytes: 8.0 * (nu * (nu + ru)) as f64 };
    let r = run_tiles_on_devices(cfg, work, |seq| algo::potrs::potrs(seq, ul, &ta, &tb));
    rep.finish("dpotrs", format_args!("uplo={uc} n={n} nrhs={nrhs} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DPOSV: solves A·X = B for symmetric positive definite A by DPOTRF and DPOTRS.
#[allow(clippy::too_many_arguments)]
pub fn dposv(
    cfg: &Config,
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    lda: i32,
    b: Raw<f64>,
    ldb: i32,
) -> Result<(), Error> {
    if parse_uplo(uplo).is_none() {
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
        return Err(Error::Arg(7));
    }
    if n == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let ul = parse_uplo(uplo).expect("checked above");
    let nf = n as f64;
    let flops = nf * nf * nf / 3.0 + 2.0 * nf * nf * nrhs as f64;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, "dposv", n as usize) {
        let info = forward::dposv(uplo, n, nrhs, a, lda, b, ldb);
        rep.finish("dposv", format_args!("uplo={uc} n={n} nrhs={nrhs}"), Path::Forward, Some(why), flops);
        return if info > 0 { Err(Error::Numerical(info)) } else { Ok(()) };
    }
    let nb = cfg.nb_for("dposv");
    let (nu, ru) = (n as usize, nrhs as usize);
    let ta = a.matrix(nu, nu, lda as usize).tiled(nb, nb);
    let tb = b.matrix(nu, ru, ldb as usize).tiled(nb, nb);
    // Like LAPACK, B is left untouched when the factorization fails, so the solve is generated
    // only after the factorization has succeeded.
    let work = Work { flops, bytes: 8.0 * (nu * (nu + ru)) as f64 };
    let mut r = run_tiles_on_devices(cfg, work, |seq| algo::potrf::potrf(seq, ul, &ta));
    if r.is_ok() && nrhs > 0 {
        r = run_tiles_on_devices(cfg, work, |seq| algo::potrs::potrs(seq, ul, &ta, &tb));
    }
    rep.finish("dposv", format_args!("uplo={uc} n={n} nrhs={nrhs} nb={nb}"), Path::Tiles, None, flops);
    r
}
