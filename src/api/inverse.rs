//! DTRTRI, DPOTRI and DGETRI (inverses), with LAPACK 3.11's checks, run as the tile algorithms
//! of [`crate::algo::trtri`] and [`crate::algo::getri`] on views of the caller's arrays.
//!
//! LAPACK's DTRTRI (and so DPOTRI and DGETRI, which call it first) looks for a zero on the
//! diagonal before it computes anything: INFO = the first one's index, A untouched. The tile
//! path does the same check before it starts.

use super::potrf::parse_uplo;
use super::workspace;
use super::{check_args, flag, forward_reason, learns, run_tiles_on_devices, tune, Path, Report};
use crate::algo;
use crate::backend::forward;
use crate::config::Config;
use crate::device::Work;
use crate::error::Error;
use crate::kernels::Diag;
use crate::runtime::shared::Buffers;
use crate::tile::{span, ColMajor, Raw};

fn numerical(info: i32) -> Result<(), Error> {
    if info > 0 {
        Err(Error::Numerical(info))
    } else {
        Ok(())
    }
}

/// The first zero on the diagonal of the n×n matrix `a`, 1-based (DTRTRI's INFO), if any.
fn zero_diagonal(a: &ColMajor<f64>) -> Option<i32> {
    (0..a.n).find(|&i| a.get(i, i) == 0.0).map(|i| i as i32 + 1)
}

fn parse_diag(c: u8) -> Option<Diag> {
    if flag(c, b'N') {
        Some(Diag::NonUnit)
    } else if flag(c, b'U') {
        Some(Diag::Unit)
    } else {
        None
    }
}

/// DTRTRI: A ← A⁻¹ for the `uplo` triangle of the n×n matrix A.
pub fn dtrtri(cfg: &Config, uplo: u8, diag: u8, n: i32, a: Raw<f64>, lda: i32) -> Result<(), Error> {
    let Some(ul) = parse_uplo(uplo) else { return Err(Error::Arg(1)) };
    let Some(dg) = parse_diag(diag) else { return Err(Error::Arg(2)) };
    check_args(&[(n < 0, 3), (lda < n.max(1), 5)])?;
    if n == 0 {
        return Ok(());
    }
    let (nu, ld) = (n as usize, lda as usize);
    if learns(cfg, "dtrtri", nu) {
        let mut ac = a.snapshot(span(nu, nu, ld));
        tune::trials(cfg, "dtrtri", nu, &mut || dtrtri(cfg, uplo, diag, n, ac.fresh(), lda).is_ok());
    }
    let rep = Report::start(cfg);
    let flops = (nu as f64).powi(3) / 3.0;
    let (uc, dc) = (uplo.to_ascii_uppercase() as char, diag.to_ascii_uppercase() as char);
    if let Some(why) = forward_reason(cfg, "dtrtri", nu) {
        let info = forward::dtrtri(uplo, diag, n, a, lda);
        rep.finish("dtrtri", format_args!("uplo={uc} diag={dc} n={n}"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let a = a.matrix(nu, nu, ld);
    if dg == Diag::NonUnit {
        if let Some(i) = zero_diagonal(&a) {
            rep.finish("dtrtri", format_args!("uplo={uc} diag={dc} n={n}"), Path::Tiles, None, 0.0);
            return Err(Error::Numerical(i));
        }
    }
    let nb = cfg.nb_for("dtrtri", nu);
    let work = Work { flops, bytes: 8.0 * (nu * nu) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, "dtrtri", nb, work, |seq, p| {
        algo::trtri::trtri(seq, ul, dg, &a.tiled_parts(p, p))
    });
    rep.finish("dtrtri", format_args!("uplo={uc} diag={dc} n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DPOTRI: A ← A⁻¹ from the Cholesky factor DPOTRF left in the `uplo` triangle.
pub fn dpotri(cfg: &Config, uplo: u8, n: i32, a: Raw<f64>, lda: i32) -> Result<(), Error> {
    let Some(ul) = parse_uplo(uplo) else { return Err(Error::Arg(1)) };
    check_args(&[(n < 0, 2), (lda < n.max(1), 4)])?;
    if n == 0 {
        return Ok(());
    }
    let (nu, ld) = (n as usize, lda as usize);
    if learns(cfg, "dpotri", nu) {
        let mut ac = a.snapshot(span(nu, nu, ld));
        tune::trials(cfg, "dpotri", nu, &mut || dpotri(cfg, uplo, n, ac.fresh(), lda).is_ok());
    }
    let rep = Report::start(cfg);
    let flops = 2.0 * (nu as f64).powi(3) / 3.0;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, "dpotri", nu) {
        let info = forward::dpotri(uplo, n, a, lda);
        rep.finish("dpotri", format_args!("uplo={uc} n={n}"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let a = a.matrix(nu, nu, ld);
    if let Some(i) = zero_diagonal(&a) {
        rep.finish("dpotri", format_args!("uplo={uc} n={n}"), Path::Tiles, None, 0.0);
        return Err(Error::Numerical(i));
    }
    let nb = cfg.nb_for("dpotri", nu);
    let work = Work { flops, bytes: 8.0 * (nu * nu) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, "dpotri", nb, work, |seq, p| {
        algo::trtri::potri(seq, ul, &a.tiled_parts(p, p))
    });
    rep.finish("dpotri", format_args!("uplo={uc} n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DGETRI: A ← A⁻¹ from DGETRF's factors and pivots.
///
/// Workspace queries and invalid calls go to the backend unchanged (its checks are LAPACK's,
/// and it writes WORK(1) as LAPACK does even then); so do calls whose pivots are not all in
/// 1..=n (LAPACK would read outside the matrix), `reason=pivot-outside`. The tile path needs no
/// workspace: any valid LWORK runs at full speed, and WORK(1) receives the backend's optimal
/// LWORK as LAPACK's DGETRI writes it.
pub fn dgetri(
    cfg: &Config,
    n: i32,
    a: Raw<f64>,
    lda: i32,
    ipiv: Raw<i32>,
    work: Raw<f64>,
    lwork: i32,
) -> Result<(), Error> {
    let valid = workspace::dgetri_valid(n, lda, lwork);
    let nu = n.max(0) as usize;
    let piv = ipiv.matrix(nu, 1, nu);
    let inside = valid && (0..nu).all(|i| (1..=n).contains(&piv.get(i, 0)));
    if inside && n > 0 && learns(cfg, "dgetri", nu) {
        let (mut ac, mut wc) = (a.snapshot(span(nu, nu, lda as usize)), work.snapshot(lwork as usize));
        tune::trials(cfg, "dgetri", nu, &mut || {
            dgetri(cfg, n, ac.fresh(), lda, ipiv, wc.fresh(), lwork).is_ok()
        });
    }
    let rep = Report::start(cfg);
    if !valid || n == 0 {
        return workspace::dgetri(cfg, &rep, "untiled", n, a, lda, ipiv, work, lwork);
    }
    if !inside {
        return workspace::dgetri(cfg, &rep, "pivot-outside", n, a, lda, ipiv, work, lwork);
    }
    if let Some(why) = forward_reason(cfg, "dgetri", nu) {
        return workspace::dgetri(cfg, &rep, why, n, a, lda, ipiv, work, lwork);
    }
    // WORK(1) as LAPACK's DGETRI writes it first (what a singular U leaves there).
    let opt = workspace::query_with(|w, l| forward::dgetri(n, a, lda, ipiv, w, l));
    work.set(0, opt as f64);
    let nf = n as f64;
    let flops = 4.0 * nf * nf * nf / 3.0;
    let a = a.matrix(nu, nu, lda as usize);
    if let Some(i) = zero_diagonal(&a) {
        rep.finish("dgetri", format_args!("n={n}"), Path::Tiles, None, 0.0);
        return Err(Error::Numerical(i));
    }
    let pivots: Vec<i32> = (0..nu).map(|i| piv.get(i, 0)).collect();
    let nb = cfg.nb_for("dgetri", nu);
    let store = Buffers::default();
    let wk = Work { flops, bytes: 8.0 * (nu * nu) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, "dgetri", nb, wk, |seq, p| {
        algo::getri::getri(seq, &a.tiled_parts(p, p), &pivots, &store)
    });
    // LAPACK's DGETRI ends with WORK(1) = the workspace its blocked code used: N·NB when its
    // block size NB (the query's answer over N) is in 2..N, else N (unblocked).
    let lnb = opt / n;
    work.set(0, if lnb > 1 && lnb < n { opt as f64 } else { n as f64 });
    rep.finish("dgetri", format_args!("n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::{self as tu, Rng};

    /// Every call on tiles of 4 (many tasks), on this thread's test devices if any.
    fn tiles_cfg() -> Config {
        let mut c = tu::cfg(2);
        c.min_n = Some(0);
        c.nb = Some(4);
        c
    }

    fn raw(v: &mut [f64]) -> Raw<f64> {
        // SAFETY: the tests pass arrays as large as the routine reads for their arguments.
        unsafe { Raw::new(v.as_mut_ptr()) }
    }

    fn rawi(v: &mut [i32]) -> Raw<i32> {
        // SAFETY: as above.
        unsafe { Raw::new(v.as_mut_ptr()) }
    }

    fn info_of(r: Result<(), Error>) -> i32 {
        crate::error::info_of(&r)
    }

    #[test]
    fn illegal_arguments_in_lapack_order() {
        let c = tiles_cfg();
        let mut a = vec![1.0; 16];
        assert_eq!(dtrtri(&c, b'X', b'Q', -1, raw(&mut a), 0), Err(Error::Arg(1)));
        assert_eq!(dtrtri(&c, b'u', b'Q', -1, raw(&mut a), 0), Err(Error::Arg(2)));
        assert_eq!(dtrtri(&c, b'u', b'n', -1, raw(&mut a), 0), Err(Error::Arg(3)));
        assert_eq!(dtrtri(&c, b'L', b'U', 4, raw(&mut a), 3), Err(Error::Arg(5)));
        assert_eq!(dpotri(&c, b'X', -1, raw(&mut a), 0), Err(Error::Arg(1)));
        assert_eq!(dpotri(&c, b'l', -1, raw(&mut a), 0), Err(Error::Arg(2)));
        assert_eq!(dpotri(&c, b'U', 4, raw(&mut a), 3), Err(Error::Arg(4)));
        assert!(a.iter().all(|&x| x == 1.0), "a rejected call touches nothing");
        // DGETRI's checks are the backend's own (it reports them through xerbla itself).
        let (mut ipiv, mut w) = (vec![1i32; 4], vec![0.0; 16]);
        assert_eq!(info_of(dgetri(&c, -1, raw(&mut a), 1, rawi(&mut ipiv), raw(&mut w), 16)), -1);
        assert_eq!(info_of(dgetri(&c, 4, raw(&mut a), 3, rawi(&mut ipiv), raw(&mut w), 16)), -3);
        assert_eq!(info_of(dgetri(&c, 4, raw(&mut a), 4, rawi(&mut ipiv), raw(&mut w), 3)), -6);
        // n = 0: nothing to do.
        assert_eq!(dtrtri(&c, b'L', b'N', 0, raw(&mut a), 1), Ok(()));
        assert_eq!(dpotri(&c, b'L', 0, raw(&mut a), 1), Ok(()));
        assert_eq!(dgetri(&c, 0, raw(&mut a), 1, rawi(&mut ipiv), raw(&mut w), 1), Ok(()));
        assert!(a.iter().all(|&x| x == 1.0));
    }

    /// A zero on the diagonal: LAPACK's INFO (the first one) and A exactly as it came.
    #[test]
    fn a_singular_factor_gives_lapack_info_and_leaves_a_untouched() {
        let c = tiles_cfg();
        let (n, ld) = (23, 25);
        for bad in [0usize, 6, 13, 22] {
            let mut a0 = Rng::new(bad as u64).matrix(n, n, ld);
            for i in 0..n {
                a0[i + i * ld] += 3.0;
            }
            a0[bad + bad * ld] = 0.0;
            if bad < 20 {
                a0[20 + 20 * ld] = 0.0;
            }
            for uplo in [b'L', b'U'] {
                let mut want = a0.clone();
                let info = forward::dtrtri(uplo, b'N', n as i32, raw(&mut want), ld as i32);
                assert_eq!(info, bad as i32 + 1);
                let mut a = a0.clone();
                assert_eq!(
                    dtrtri(&c, uplo, b'N', n as i32, raw(&mut a), ld as i32),
                    Err(Error::Numerical(info))
                );
                assert_eq!(a, a0, "dtrtri must not touch a singular A");
                let mut want = a0.clone();
                assert_eq!(forward::dpotri(uplo, n as i32, raw(&mut want), ld as i32), info);
                assert_eq!(dpotri(&c, uplo, n as i32, raw(&mut a), ld as i32), Err(Error::Numerical(info)));
                assert_eq!(a, a0, "dpotri must not touch a singular A");
                // A unit diagonal is not looked at: the inverse is the backend's.
                let mut want = a0.clone();
                assert_eq!(forward::dtrtri(uplo, b'U', n as i32, raw(&mut want), ld as i32), 0);
                assert_eq!(dtrtri(&c, uplo, b'U', n as i32, raw(&mut a), ld as i32), Ok(()));
                let ul = parse_uplo(uplo).unwrap();
                let e = crate::algo::trtri::tests::rel_diff(ul, n, &a, &want, ld);
                assert!(e < 1e-12, "unit diagonal: relative difference {e}");
                a.clone_from(&a0);
            }
            // DGETRI on factors whose U has that zero: INFO and WORK(1) as the backend's.
            let mut ipiv: Vec<i32> = (0..n as i32).map(|i| (i + 1 + (i % 3)).min(n as i32)).collect();
            let (mut want, mut wpiv, mut w0) = (a0.clone(), ipiv.clone(), vec![0.0; n * 64]);
            let l = w0.len() as i32;
            let info = forward::dgetri(n as i32, raw(&mut want), ld as i32, rawi(&mut wpiv), raw(&mut w0), l);
            assert_eq!(info, bad as i32 + 1);
            let mut a = a0.clone();
            let mut w = vec![0.0; n];
            let r = dgetri(&c, n as i32, raw(&mut a), ld as i32, rawi(&mut ipiv), raw(&mut w), n as i32);
            assert_eq!(r, Err(Error::Numerical(info)));
            assert_eq!(a, a0, "dgetri must not touch a singular A");
            assert_eq!(w[0], w0[0], "WORK(1)");
        }
    }

    /// DGETRI with the minimum LWORK (N) and with a query: the inverse, and WORK(1), as the
    /// backend's with its optimal workspace.
    #[test]
    fn dgetri_minimum_lwork_and_query() {
        let c = tiles_cfg();
        for (n, ld) in [(1usize, 1usize), (2, 3), (30, 33), (150, 151)] {
            let a0 = Rng::new(n as u64).matrix(n, n, ld);
            let (f, ipiv, info) = tu::reference_getrf(n, n, &a0, ld);
            assert_eq!(info, 0);
            let (mut want, mut wp, mut w0) = (f.clone(), ipiv.clone(), vec![0.0; n * 64]);
            let l = w0.len() as i32;
            assert_eq!(
                forward::dgetri(n as i32, raw(&mut want), ld as i32, rawi(&mut wp), raw(&mut w0), l),
                0
            );
            let (mut q, mut q0) = ([0.0], [0.0]);
            let (mut a, mut p) = (f.clone(), ipiv.clone());
            assert_eq!(forward::dgetri(n as i32, raw(&mut a), ld as i32, rawi(&mut p), raw(&mut q0), -1), 0);
            assert_eq!(dgetri(&c, n as i32, raw(&mut a), ld as i32, rawi(&mut p), raw(&mut q), -1), Ok(()));
            assert_eq!(q[0], q0[0], "the workspace query answers what the backend answers");
            assert_eq!(a, f, "a query touches nothing");
            let mut w = vec![0.0; n];
            assert_eq!(
                dgetri(&c, n as i32, raw(&mut a), ld as i32, rawi(&mut p), raw(&mut w), n as i32),
                Ok(())
            );
            assert_eq!(w[0], w0[0], "WORK(1)");
            let (mut d, mut m): (f64, f64) = (0.0, 0.0);
            for j in 0..n {
                for i in 0..n {
                    d = d.max((a[i + j * ld] - want[i + j * ld]).abs());
                    m = m.max(want[i + j * ld].abs());
                }
            }
            assert!(d <= 1e-10 * m, "n {n}: max difference {d}");
            tu::assert_untouched_outside(&f, &a, n, n, ld, None);
        }
    }

    #[test]
    fn on_two_emulated_devices() {
        tu::on_devices(tu::TestDevices { count: 2, mem: 16 << 20, host_share: 0.5 }, || {
            a_singular_factor_gives_lapack_info_and_leaves_a_untouched();
            dgetri_minimum_lwork_and_query();
        });
    }
}
