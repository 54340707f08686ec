//! xPOTRF (Cholesky), xPOTRS and xPOSV in the four types (S, D, C, Z), with LAPACK 3.11's checks.

use super::{
    check_args, flag, forward_reason, learns, run_factorization_on_devices, run_tiles_on_devices, tune, Path,
    Report,
};
use crate::algo;
use crate::backend::forward;
use crate::config::Config;
use crate::device::{Factor, Work};
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

/// DPOTRF: [`potrf`] in f64.
pub fn dpotrf(cfg: &Config, uplo: u8, n: i32, a: Raw<f64>, lda: i32) -> Result<(), Error> {
    potrf(cfg, uplo, n, a, lda)
}

/// SPOTRF, DPOTRF, CPOTRF, ZPOTRF: the Cholesky factor of the `uplo` triangle of the n×n
/// symmetric (complex: Hermitian, A = L·Lᴴ or Uᴴ·U) matrix A, with LAPACK 3.11's checks and
/// INFO. One generator for the four types (`algo::potrf`), on the host's tiles and the process's
/// devices, or whole on a device's solver.
pub fn potrf<T: OpElem>(cfg: &Config, uplo: u8, n: i32, a: Raw<T>, lda: i32) -> Result<(), Error> {
    let name = scalar::name::<T>("potrf");
    let Some(ul) = parse_uplo(uplo) else { return Err(Error::Arg(1)) };
    check_args(&[(n < 0, 2), (lda < n.max(1), 4)])?;
    if n == 0 {
        return Ok(());
    }
    let (nu, ld) = (n as usize, lda as usize);
    if learns(cfg, name, nu) {
        let mut ac = a.snapshot(span(nu, nu, ld));
        tune::trials(cfg, name, nu, &mut || potrf(cfg, uplo, n, ac.fresh(), lda).is_ok());
    }
    let rep = Report::start(cfg);
    let flops = (nu as f64).powi(3) / 3.0 * T::FLOPS;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, name, nu) {
        let info = forward::potrf(uplo, n, a, lda);
        rep.finish(name, format_args!("uplo={uc} n={n}"), Path::Forward, Some(why), flops);
        return if info > 0 { Err(Error::Numerical(info)) } else { Ok(()) };
    }
    // SAFETY: A is the caller's n×n array with leading dimension lda (checked), which LAPACK's
    // contract gives this call alone; a Cholesky has no auxiliary output.
    let whole =
        unsafe { super::solve_whole(cfg, Factor::Potrf(ul), (nu, nu, ld), a.ptr(), std::ptr::null_mut()) };
    if let Some(r) = whole {
        rep.finish(name, format_args!("uplo={uc} n={n}"), Path::Solver, None, flops);
        return r;
    }
    let nb = cfg.nb_for(name, nu);
    let a = a.matrix(nu, nu, ld);
    let work = Work { flops, bytes: elem_bytes::<T>() * (nu * nu) as f64, cols: nu };
    let r = run_factorization_on_devices(cfg, name, nb, work, UpdateShape::Tiles, |seq, p| {
        let t = a.tiled_parts(p, p);
        seq.allocate(&t);
        algo::potrf::potrf(seq, ul, &t)
    });
    rep.finish(name, format_args!("uplo={uc} n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// The bytes of one element of `T`, for the devices' cost model ([`Work`]).
fn elem_bytes<T>() -> f64 {
    std::mem::size_of::<T>() as f64
}

/// DPOTRS: [`potrs`] in f64.
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
    potrs(cfg, uplo, n, nrhs, a, lda, b, ldb)
}

/// SPOTRS, DPOTRS, CPOTRS, ZPOTRS: solves A·X = B with the Cholesky factor from [`potrf`]
/// (two tile triangular solves, `algo::potrs`), with LAPACK 3.11's checks, every type on tiles
/// and devices.
#[allow(clippy::too_many_arguments)]
pub fn potrs<T: OpElem>(
    cfg: &Config,
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    lda: i32,
    b: Raw<T>,
    ldb: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("potrs");
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
    let (nu, ru) = (n as usize, nrhs as usize);
    if learns(cfg, name, nu) {
        let mut bc = b.snapshot(span(nu, ru, ldb as usize));
        tune::trials(cfg, name, nu, &mut || potrs(cfg, uplo, n, nrhs, a, lda, bc.fresh(), ldb).is_ok());
    }
    let rep = Report::start(cfg);
    let ul = parse_uplo(uplo).expect("checked above");
    let flops = 2.0 * (n as f64).powi(2) * nrhs as f64 * T::FLOPS;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, name, nu) {
        forward::potrs(uplo, n, nrhs, a, lda, b, ldb);
        rep.finish(name, format_args!("uplo={uc} n={n} nrhs={nrhs}"), Path::Forward, Some(why), flops);
        return Ok(());
    }
    let nb = cfg.nb_for(name, nu);
    let (a, b) = (a.matrix(nu, nu, lda as usize), b.matrix(nu, ru, ldb as usize));
    let work = Work { flops, bytes: elem_bytes::<T>() * (nu * (nu + ru)) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, name, nb, work, |seq, p| {
        algo::potrs::potrs(seq, ul, &a.tiled_parts(p, p), &b.tiled_parts(p, p))
    });
    rep.finish(name, format_args!("uplo={uc} n={n} nrhs={nrhs} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DPOSV: [`posv`] in f64.
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
    posv(cfg, uplo, n, nrhs, a, lda, b, ldb)
}

/// SPOSV, DPOSV, CPOSV, ZPOSV: solves A·X = B for symmetric (complex: Hermitian) positive
/// definite A by [`potrf`]'s and [`potrs`]'s generators, with LAPACK 3.11's checks, every type
/// on tiles and devices.
#[allow(clippy::too_many_arguments)]
pub fn posv<T: OpElem>(
    cfg: &Config,
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    lda: i32,
    b: Raw<T>,
    ldb: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("posv");
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
    let (nu, ru) = (n as usize, nrhs as usize);
    if learns(cfg, name, nu) {
        let (mut ac, mut bc) =
            (a.snapshot(span(nu, nu, lda as usize)), b.snapshot(span(nu, ru, ldb as usize)));
        tune::trials(cfg, name, nu, &mut || {
            posv(cfg, uplo, n, nrhs, ac.fresh(), lda, bc.fresh(), ldb).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let ul = parse_uplo(uplo).expect("checked above");
    let nf = n as f64;
    let flops = (nf * nf * nf / 3.0 + 2.0 * nf * nf * nrhs as f64) * T::FLOPS;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, name, nu) {
        let info = forward::posv(uplo, n, nrhs, a, lda, b, ldb);
        rep.finish(name, format_args!("uplo={uc} n={n} nrhs={nrhs}"), Path::Forward, Some(why), flops);
        return if info > 0 { Err(Error::Numerical(info)) } else { Ok(()) };
    }
    let nb = cfg.nb_for(name, nu);
    let (a, b) = (a.matrix(nu, nu, lda as usize), b.matrix(nu, ru, ldb as usize));
    // Like LAPACK, B is left untouched when the factorization fails, so the solve is generated
    // only after the factorization has succeeded. Each sequence cuts the arrays by its own
    // partition.
    let work = Work { flops, bytes: elem_bytes::<T>() * (nu * (nu + ru)) as f64, cols: nu };
    let mut r = run_factorization_on_devices(cfg, name, nb, work, UpdateShape::Tiles, |seq, p| {
        let t = a.tiled_parts(p, p);
        seq.allocate(&t);
        algo::potrf::potrf(seq, ul, &t)
    });
    if r.is_ok() && nrhs > 0 {
        r = run_tiles_on_devices(cfg, name, nb, work, |seq, p| {
            algo::potrs::potrs(seq, ul, &a.tiled_parts(p, p), &b.tiled_parts(p, p))
        });
    }
    rep.finish(name, format_args!("uplo={uc} n={n} nrhs={nrhs} nb={nb}"), Path::Tiles, None, flops);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::backend::lapack as bk;
    use crate::scalar::Scalar;

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
            // Everything outside the triangle holds the same on both sides: the backend's untouched.
            let d = crate::algo::testutil::rel(&a, &want);
            assert!(d <= 8.0 * T::eps(), "{name} {}: {d}", uplo as char);

            // INFO of a matrix that is not positive definite at 17.
            let mut bad = a0.clone();
            bad[17 + 17 * lda] = T::from_parts(-2.0, 0.25);
            let r = potrf(&host(8), uplo, n as i32, unsafe { Raw::new(bad.as_mut_ptr()) }, lda as i32);
            assert_eq!(r, Err(Error::Numerical(18)), "{name}");

            // On tiles with an emulated device taking half the columns: the backend's factor
            // within rounding, as on the host.
            let mut dev = host(8);
            (dev.emulate_gpus, dev.device_force, dev.host_share) = (1, true, Some(0.5));
            let mut a = a0.clone();
            potrf(&dev, uplo, n as i32, unsafe { Raw::new(a.as_mut_ptr()) }, lda as i32).unwrap();
            assert_eq!(crate::api::last_path(), "tiles", "{name}");
            let d = crate::algo::testutil::rel(&a, &want);
            assert!(d <= 8.0 * T::eps(), "{name} {} on a device: {d}", uplo as char);
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

    /// A Hermitian (real: symmetric) positive definite n×n matrix, both triangles, in an ld×n
    /// array with two more columns of `pad` after it and `pad` in rows n..ld (guard bands).
    fn hpd<T: Scalar>(rng: &mut Rng, n: usize, ld: usize, pad: T) -> Vec<T> {
        let mut a = vec![pad; ld * (n + 2)];
        for j in 0..n {
            a[j + j * ld] = T::from_f64(n as f64 + rng.next());
            for i in j + 1..n {
                let re = rng.next();
                let x = T::from_parts(re, rng.next());
                a[i + j * ld] = x;
                a[j + i * ld] = x.conj();
            }
        }
        a
    }

    /// xPOTRS and xPOSV through the entries in `T`, on tiles that do not divide n (tiny ones
    /// too), against the backend's routines on the same input: the factor and the solution
    /// within a few n·ε, the same bits on a second call, nothing written outside the matrices'
    /// triangles (guard bands after the rows and columns), A untouched by xPOTRS; INFO of a
    /// matrix that is not positive definite as the backend's, B then untouched; LAPACK's
    /// argument errors in LAPACK's order and the quick returns; and the forward where devices
    /// are, for the types that do not run on them.
    fn solve_entries<T: OpElem>() {
        let name = std::any::type_name::<T>();
        let host = |nb| {
            let mut c = Config::with_threads(3);
            c.min_n = Some(0);
            c.nb = Some(nb);
            c
        };
        let pad = T::from_parts(-321.25, 4.5);
        for (n, nrhs, nb) in [(45usize, 3usize, 8usize), (23, 5, 3), (10, 1, 4), (1, 2, 1)] {
            for uplo in [b'L', b'u'] {
                let ul = parse_uplo(uplo).unwrap();
                let what = format!("{name} {} n {n} nrhs {nrhs} nb {nb}", uplo as char);
                let (lda, ldb) = (n + 3, n + 2);
                let (ni, ri, lai, lbi) = (n as i32, nrhs as i32, lda as i32, ldb as i32);
                let mut rng = Rng::new((n * 31 + nb) as u64);
                let a0 = hpd::<T>(&mut rng, n, lda, pad);
                let b0 = rand::<T>(&mut rng, n, nrhs, ldb, pad);
                let tol = 4.0 * n as f64 * T::eps();

                // POSV: the backend's factor and solution, then tiles twice.
                let (mut fa, mut xb) = (a0.clone(), b0.clone());
                assert_eq!(forward::posv(uplo, ni, ri, raw(&mut fa), lai, raw(&mut xb), lbi), 0, "{what}");
                let mut runs = Vec::new();
                for _ in 0..2 {
                    let (mut a, mut b) = (a0.clone(), b0.clone());
                    posv(&host(nb), uplo, ni, ri, raw(&mut a), lai, raw(&mut b), lbi).unwrap();
                    assert_eq!(crate::api::last_path(), "tiles", "{what}");
                    runs.push((a, b));
                }
                assert!(runs[0] == runs[1], "{what}: posv's bits differ between two calls");
                let (a, b) = &runs[0];
                assert!(rel(a, &fa) <= tol, "{what}: posv's factor differs by {}", rel(a, &fa));
                assert!(rel(b, &xb) <= tol, "{what}: posv's solution differs by {}", rel(b, &xb));
                assert!(same_outside(&a0, a, n, n, lda, Some(ul)), "{what}: posv wrote outside A's triangle");
                assert!(same_outside(&b0, b, n, nrhs, ldb, None), "{what}: posv wrote outside B");

                // POSV with NRHS = 0 is POTRF.
                let (mut a1, mut a2, mut b1) = (a0.clone(), a0.clone(), b0.clone());
                posv(&host(nb), uplo, ni, 0, raw(&mut a1), lai, raw(&mut b1), lbi).unwrap();
                potrf(&host(nb), uplo, ni, raw(&mut a2), lai).unwrap();
                assert!(a1 == a2 && b1 == b0, "{what}: posv with nrhs 0 is not potrf alone");

                // POTRS with the backend's factor, twice; A is only read.
                let mut xw = b0.clone();
                assert_eq!(forward::potrs(uplo, ni, ri, raw(&mut fa), lai, raw(&mut xw), lbi), 0, "{what}");
                let mut xs = Vec::new();
                for _ in 0..2 {
                    let (mut f, mut x) = (fa.clone(), b0.clone());
                    potrs(&host(nb), uplo, ni, ri, raw(&mut f), lai, raw(&mut x), lbi).unwrap();
                    assert_eq!(crate::api::last_path(), "tiles", "{what}");
                    assert!(f == fa, "{what}: potrs wrote A");
                    xs.push(x);
                }
                assert!(xs[0] == xs[1], "{what}: potrs's bits differ between two calls");
                assert!(rel(&xs[0], &xw) <= tol, "{what}: potrs differs by {}", rel(&xs[0], &xw));
                assert!(same_outside(&b0, &xs[0], n, nrhs, ldb, None), "{what}: potrs wrote outside B");

                // Not positive definite at k (a real pivot ≤ 0; the imaginary part of a complex
                // diagonal entry is not read): the backend's INFO, B untouched.
                let k = n / 2;
                let mut bad = a0.clone();
                bad[k + k * lda] = T::from_parts(-2.0, 0.25);
                let (mut ra, mut rb) = (bad.clone(), b0.clone());
                let want = forward::posv(uplo, ni, ri, raw(&mut ra), lai, raw(&mut rb), lbi);
                assert_eq!(want, k as i32 + 1, "{what}");
                let (mut ba, mut bb) = (bad.clone(), b0.clone());
                let r = posv(&host(nb), uplo, ni, ri, raw(&mut ba), lai, raw(&mut bb), lbi);
                assert_eq!(r, Err(Error::Numerical(want)), "{what}");
                assert!(bb == b0, "{what}: B written by a failed posv");
                assert!(same_outside(&bad, &ba, n, n, lda, Some(ul)), "{what}: failed posv wrote outside A");
            }
        }

        // LAPACK's argument checks, first failing argument first, and the quick returns; nothing
        // is written in either case.
        let (mut a, mut b) = (vec![pad; 16], vec![pad; 16]);
        type Entry<T> = fn(&Config, u8, i32, i32, Raw<T>, i32, Raw<T>, i32) -> Result<(), Error>;
        for (routine, f) in [("potrs", potrs::<T> as Entry<T>), ("posv", posv::<T>)] {
            let cfg = host(2);
            let mut call =
                |uplo, n, nrhs, lda, ldb| f(&cfg, uplo, n, nrhs, raw(&mut a), lda, raw(&mut b), ldb);
            for (args, want) in [
                ((b'X', -1, -1, 0, 0), Err(Error::Arg(1))),
                ((b'L', -1, -1, 0, 0), Err(Error::Arg(2))),
                ((b'U', 2, -1, 1, 1), Err(Error::Arg(3))),
                ((b'L', 2, 1, 1, 1), Err(Error::Arg(5))),
                ((b'u', 3, 1, 3, 2), Err(Error::Arg(7))),
                ((b'L', 0, 1, 1, 1), Ok(())),
                ((b'L', 0, 0, 1, 1), Ok(())),
            ] {
                let (uplo, n, nrhs, lda, ldb) = args;
                assert_eq!(call(uplo, n, nrhs, lda, ldb), want, "{name} {routine} {args:?}");
            }
            if routine == "potrs" {
                assert_eq!(call(b'L', 3, 0, 3, 3), Ok(()), "{name} potrs with nrhs 0");
            }
        }
        assert!(a.iter().chain(&b).all(|&x| x == pad), "{name}: written on an error or a quick return");
    }

    #[test]
    fn potrs_and_posv_entries_in_every_type() {
        solve_entries::<f32>();
        solve_entries::<f64>();
        solve_entries::<crate::scalar::c32>();
        solve_entries::<crate::scalar::c64>();
    }

    #[test]
    fn entries_on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            dpotrf_and_dposv_entries_match_the_backend();
            dpotrf_info_matches_the_backend();
        });
    }
}
