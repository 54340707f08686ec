//! DPOTRF (Cholesky), DPOTRS and DPOSV, with LAPACK 3.11's checks.

use super::{
    check_args, flag, forward_reason, learns, run_factorization_on_devices, run_tiles, run_tiles_on_devices,
    tune, Path, Report,
};
use crate::algo;
use crate::backend::forward;
use crate::config::Config;
use crate::device::{self, Factor, Work};
use crate::error::Error;
use crate::graph::op::OpElem;
use crate::kernels::Uplo;
use crate::runtime::alloc::UpdateShape;
use crate::scalar;
use crate::tile::{span, Raw};

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
    check_args(&[(n < 0, 2), (lda < n.max(1), 4)])?;
    if n == 0 {
        return Ok(());
    }
    let (nu, ld) = (n as usize, lda as usize);
    if learns(cfg, "dpotrf", nu) {
        let mut ac = a.snapshot(span(nu, nu, ld));
        tune::trials(cfg, "dpotrf", nu, &mut || dpotrf(cfg, uplo, n, ac.fresh(), lda).is_ok());
    }
    let rep = Report::start(cfg);
    let flops = (nu as f64).powi(3) / 3.0;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, "dpotrf", nu) {
        let info = forward::dpotrf(uplo, n, a, lda);
        rep.finish("dpotrf", format_args!("uplo={uc} n={n}"), Path::Forward, Some(why), flops);
        return if info > 0 { Err(Error::Numerical(info)) } else { Ok(()) };
    }
    // SAFETY: A is the caller's n×n array with leading dimension lda (checked), which LAPACK's
    // contract gives this call alone; a Cholesky has no auxiliary output.
    let whole =
        unsafe { super::solve_whole(cfg, Factor::Potrf(ul), (nu, nu, ld), a.ptr(), std::ptr::null_mut()) };
    if let Some(r) = whole {
        rep.finish("dpotrf", format_args!("uplo={uc} n={n}"), Path::Solver, None, flops);
        return r;
    }
    let nb = cfg.nb_for("dpotrf", nu);
    let a = a.matrix(nu, nu, ld);
    let work = Work { flops, bytes: 8.0 * (nu * nu) as f64, cols: nu };
    let r = run_factorization_on_devices(cfg, "dpotrf", nb, work, UpdateShape::Tiles, |seq, p| {
        let t = a.tiled_parts(p, p);
        seq.allocate(&t);
        algo::potrf::potrf(seq, ul, &t)
    });
    rep.finish("dpotrf", format_args!("uplo={uc} n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// SPOTRF, CPOTRF, ZPOTRF: the Cholesky factor of the `uplo` triangle of the n×n symmetric
/// (complex: Hermitian) matrix A, with DPOTRF's checks and INFO, on tiles on the host
/// (`algo::potrf`, the generator DPOTRF runs). Calls that would involve devices forward: only
/// f64 ops go to devices so far (`graph::op::OpElem`), and the whole-matrix solver is f64 only.
pub fn potrf<T: OpElem>(cfg: &Config, uplo: u8, n: i32, a: Raw<T>, lda: i32) -> Result<(), Error> {
    let name = scalar::name::<T>("potrf");
    let Some(ul) = parse_uplo(uplo) else { return Err(Error::Arg(1)) };
    check_args(&[(n < 0, 2), (lda < n.max(1), 4)])?;
    if n == 0 {
        return Ok(());
    }
    let (nu, ld) = (n as usize, lda as usize);
    // Devices in the process: the call forwards (before any learning, whose trials would time
    // the same forwarding).
    let devices = !(crate::runtime::in_task() || cfg.is_disabled(name) || device::open(cfg).is_empty());
    if !devices && learns(cfg, name, nu) {
        let mut ac = a.snapshot(span(nu, nu, ld));
        tune::trials(cfg, name, nu, &mut || potrf(cfg, uplo, n, ac.fresh(), lda).is_ok());
    }
    let rep = Report::start(cfg);
    let flops = (nu as f64).powi(3) / 3.0 * T::FLOPS;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, name, nu).or(devices.then_some("devices")) {
        let info = forward::potrf(uplo, n, a, lda);
        rep.finish(name, format_args!("uplo={uc} n={n}"), Path::Forward, Some(why), flops);
        return if info > 0 { Err(Error::Numerical(info)) } else { Ok(()) };
    }
    let nb = cfg.nb_for(name, nu);
    let a = a.matrix(nu, nu, ld);
    let r = run_tiles(cfg, |seq| algo::potrf::potrf(seq, ul, &a.tiled(nb, nb)));
    rep.finish(name, format_args!("uplo={uc} n={n} nb={nb}"), Path::Tiles, None, flops);
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
    check_args(&[
        (parse_uplo(uplo).is_none(), 1),
        (n < 0, 2),
        (nrhs < 0, 3),
        (lda < n.max(1), 5),
        (ldb < n.max(1), 7),
    ])?;
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    if learns(cfg, "dpotrs", n as usize) {
        let mut bc = b.snapshot(span(n as usize, nrhs as usize, ldb as usize));
        tune::trials(cfg, "dpotrs", n as usize, &mut || {
            dpotrs(cfg, uplo, n, nrhs, a, lda, bc.fresh(), ldb).is_ok()
        });
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
    let nb = cfg.nb_for("dpotrs", n as usize);
    let (nu, ru) = (n as usize, nrhs as usize);
    let (a, b) = (a.matrix(nu, nu, lda as usize), b.matrix(nu, ru, ldb as usize));
    let work = Work { flops, bytes: 8.0 * (nu * (nu + ru)) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, "dpotrs", nb, work, |seq, p| {
        algo::potrs::potrs(seq, ul, &a.tiled_parts(p, p), &b.tiled_parts(p, p))
    });
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
    check_args(&[
        (parse_uplo(uplo).is_none(), 1),
        (n < 0, 2),
        (nrhs < 0, 3),
        (lda < n.max(1), 5),
        (ldb < n.max(1), 7),
    ])?;
    if n == 0 {
        return Ok(());
    }
    if learns(cfg, "dposv", n as usize) {
        let (nu, ru) = (n as usize, nrhs as usize);
        let (mut ac, mut bc) =
            (a.snapshot(span(nu, nu, lda as usize)), b.snapshot(span(nu, ru, ldb as usize)));
        tune::trials(cfg, "dposv", nu, &mut || {
            dposv(cfg, uplo, n, nrhs, ac.fresh(), lda, bc.fresh(), ldb).is_ok()
        });
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
    let nb = cfg.nb_for("dposv", n as usize);
    let (nu, ru) = (n as usize, nrhs as usize);
    let (a, b) = (a.matrix(nu, nu, lda as usize), b.matrix(nu, ru, ldb as usize));
    // Like LAPACK, B is left untouched when the factorization fails, so the solve is generated
    // only after the factorization has succeeded. Each sequence cuts the arrays by its own
    // partition.
    let work = Work { flops, bytes: 8.0 * (nu * (nu + ru)) as f64, cols: nu };
    let mut r = run_factorization_on_devices(cfg, "dposv", nb, work, UpdateShape::Tiles, |seq, p| {
        let t = a.tiled_parts(p, p);
        seq.allocate(&t);
        algo::potrf::potrf(seq, ul, &t)
    });
    if r.is_ok() && nrhs > 0 {
        r = run_tiles_on_devices(cfg, "dposv", nb, work, |seq, p| {
            algo::potrs::potrs(seq, ul, &a.tiled_parts(p, p), &b.tiled_parts(p, p))
        });
    }
    rep.finish("dposv", format_args!("uplo={uc} n={n} nrhs={nrhs} nb={nb}"), Path::Tiles, None, flops);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::backend::lapack as bk;

    fn tiles(nb: usize) -> Config {
        let mut c = with_test_devices(Config::with_threads(3));
        c.min_n = Some(0);
        c.nb = Some(nb);
        c
    }

    #[test]
    fn dpotrf_and_dposv_entries_match_the_backend() {
        for (uplo, n, lda, nrhs, nb) in [(b'L', 45, 47, 3, 8), (b'U', 45, 45, 2, 7), (b'l', 9, 10, 1, 4)] {
            let mut rng = Rng::new(n as u64 * 7 + nb as u64);
            let a0 = rng.spd(n, lda);
            let b0 = rng.matrix(n, nrhs, n);
            let (mut want, mut info) = (a0.clone(), 0);
            // SAFETY: an n×n matrix with leading dimension lda.
            unsafe { bk::dpotrf(bk::ch(uplo), &(n as i32), want.as_mut_ptr(), &(lda as i32), &mut info, 1) };
            assert_eq!(info, 0);
            let mut a = a0.clone();
            // SAFETY: `a` holds lda·n elements.
            dpotrf(&tiles(nb), uplo, n as i32, unsafe { Raw::new(a.as_mut_ptr()) }, lda as i32).unwrap();
            let tol = 10.0 * n as f64 * eps() * fnorm(&a0, n, n, lda);
            let mut d: f64 = 0.0;
            let lower = uplo.eq_ignore_ascii_case(&b'L');
            for j in 0..n {
                for i in 0..n {
                    if (lower && i >= j) || (!lower && i <= j) {
                        d = d.max((a[i + j * lda] - want[i + j * lda]).abs());
                    }
                }
            }
            assert!(d < tol, "{} n {n}: factor differs by {d}", uplo as char);
            assert_untouched_outside(&a0, &a, n, n, lda, Some(parse_uplo(uplo).unwrap()));

            // DPOSV: the solution agrees with the backend's.
            let (mut aw, mut bw) = (a0.clone(), b0.clone());
            // SAFETY: A n×n (lda), B n×nrhs (ld n).
            unsafe {
                bk::dposv(
                    bk::ch(uplo),
                    &(n as i32),
                    &(nrhs as i32),
                    aw.as_mut_ptr(),
                    &(lda as i32),
                    bw.as_mut_ptr(),
                    &(n as i32),
                    &mut info,
                    1,
                )
            };
            let (mut a2, mut b2) = (a0.clone(), b0.clone());
            // SAFETY: as above.
            let r = unsafe {
                dposv(
                    &tiles(nb),
                    uplo,
                    n as i32,
                    nrhs as i32,
                    Raw::new(a2.as_mut_ptr()),
                    lda as i32,
                    Raw::new(b2.as_mut_ptr()),
                    n as i32,
                )
            };
            r.unwrap();
            let dx = b2.iter().zip(&bw).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
            assert!(dx < 1e-8 * fnorm(&bw, n, nrhs, n).max(1.0), "n {n}: dposv differs by {dx}");
        }
    }

    #[test]
    fn dpotrf_info_matches_the_backend() {
        let n = 30;
        let mut a = Rng::new(5).spd(n, n);
        a[17 + 17 * n] = -50.0;
        let mut r = a.clone();
        let want = reference_potrf_info(Uplo::Lower, n, &mut r);
        // SAFETY: `a` holds n·n elements.
        let got = dpotrf(&tiles(4), b'L', n as i32, unsafe { Raw::new(a.as_mut_ptr()) }, n as i32);
        assert_eq!(got, Err(Error::Numerical(want)));
    }

    /// SPOTRF, CPOTRF, ZPOTRF through the entry: tiles, the backend's factor and INFO, LAPACK's
    /// argument errors, and forwarding when devices are present.
    fn other_type_entry<T: OpElem>() {
        let name = std::any::type_name::<T>();
        let host = |nb| {
            let mut c = Config::with_threads(3);
            c.min_n = Some(0);
            c.nb = Some(nb);
            c
        };
        let (n, lda) = (45usize, 47usize);
        for uplo in [b'L', b'u'] {
            let mut rng = Rng::new(3);
            let mut a0 = vec![T::from_parts(55.5, -1.0); lda * n];
            for j in 0..n {
                for i in 0..n {
                    let lower = uplo == b'L';
                    if i == j {
                        a0[i + j * lda] = T::from_f64(n as f64 + rng.next());
                    } else if (lower && i > j) || (!lower && i < j) {
                        let re = rng.next();
                        a0[i + j * lda] = T::from_parts(re, rng.next());
                    }
                }
            }
            let mut want = a0.clone();
            // SAFETY (every Raw here): the vector holds the lda·n (or 2×2) array the call reads.
            let info = forward::potrf(uplo, n as i32, unsafe { Raw::new(want.as_mut_ptr()) }, lda as i32);
            assert_eq!(info, 0);
            let mut a = a0.clone();
            // SAFETY: `a` holds lda·n elements.
            potrf(&host(8), uplo, n as i32, unsafe { Raw::new(a.as_mut_ptr()) }, lda as i32).unwrap();
            assert_eq!(crate::api::last_path(), "tiles", "{name}");
            let (mut d, mut s) = (0.0f64, 0.0f64);
            for (x, y) in a.iter().zip(&want) {
                let (xr, xi, yr, yi): (f64, f64, f64, f64) =
                    (x.re().into(), x.im().into(), y.re().into(), y.im().into());
                d += (xr - yr).powi(2) + (xi - yi).powi(2);
                s += yr * yr + yi * yi;
            }
            // Everything outside the triangle holds the same on both sides: the backend's untouched.
            assert!((d / s).sqrt() <= 8.0 * T::eps(), "{name} {}: {}", uplo as char, (d / s).sqrt());

            // INFO of a matrix that is not positive definite at 17.
            let mut bad = a0.clone();
            bad[17 + 17 * lda] = T::from_parts(-2.0, 0.25);
            let r = potrf(&host(8), uplo, n as i32, unsafe { Raw::new(bad.as_mut_ptr()) }, lda as i32);
            assert_eq!(r, Err(Error::Numerical(18)), "{name}");

            // With a device in the process the call forwards, with the backend's result.
            let mut dev = host(8);
            dev.emulate_gpus = 1;
            let mut a = a0.clone();
            potrf(&dev, uplo, n as i32, unsafe { Raw::new(a.as_mut_ptr()) }, lda as i32).unwrap();
            assert_eq!(crate::api::last_path(), "forward:devices", "{name}");
            assert!(a == want, "{name}: a forwarded call is the backend's");
        }
        let mut a = vec![T::one(); 4];
        let p = unsafe { Raw::new(a.as_mut_ptr()) };
        assert_eq!(potrf(&host(8), b'X', 2, p, 2), Err(Error::Arg(1)));
        assert_eq!(potrf(&host(8), b'L', -1, p, 2), Err(Error::Arg(2)));
        assert_eq!(potrf(&host(8), b'U', 2, p, 1), Err(Error::Arg(4)));
        assert_eq!(potrf(&host(8), b'U', 0, p, 1), Ok(()));
        assert!(a.iter().all(|&x| x == T::one()), "{name}: nothing written on an error");
    }

    #[test]
    fn spotrf_cpotrf_zpotrf_entries() {
        other_type_entry::<f32>();
        other_type_entry::<crate::scalar::c32>();
        other_type_entry::<crate::scalar::c64>();
    }

    #[test]
    fn entries_on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            dpotrf_and_dposv_entries_match_the_backend();
            dpotrf_info_matches_the_backend();
        });
    }
}
