//! xGETRF (LU with partial pivoting), xGETRS and xGESV in the four types (S, D, C, Z), with
//! LAPACK 3.11's checks, run as the tile algorithms of [`crate::algo::getrf`] on views of the
//! caller's arrays.

use super::{
    check_args, forward_reason, forwards_for_devices, learns, run_factorization_on_devices,
    run_tiles_on_devices, tune, Path, Report,
};
use crate::algo;
use crate::algo::getrf::{Solve, ZeroPivot};
use crate::backend::forward;
use crate::config::{Config, Pivoting};
use crate::device::{Factor, Work};
use crate::error::Error;
use crate::graph::op::OpElem;
use crate::runtime::alloc::UpdateShape;
use crate::runtime::shared::Buffers;
use crate::scalar;
use crate::tile::{span, Part, Raw};

fn numerical(info: i32) -> Result<(), Error> {
    if info > 0 {
        Err(Error::Numerical(info))
    } else {
        Ok(())
    }
}

/// The bytes of one element of `T`, for the devices' cost model ([`Work`]).
fn elem_bytes<T>() -> f64 {
    std::mem::size_of::<T>() as f64
}

/// The pivoting a call of type `T` runs: `HETLA_LU`'s in f64, partial pivoting in the other
/// types (CALU's ops are f64 only, [`OpElem::CALU`]).
fn pivoting<T: OpElem>(cfg: &Config) -> Pivoting {
    if T::CALU {
        cfg.lu
    } else {
        Pivoting::Gepp
    }
}

/// DGETRF: [`getrf`] in f64.
pub fn dgetrf(cfg: &Config, m: i32, n: i32, a: Raw<f64>, lda: i32, ipiv: Raw<i32>) -> Result<(), Error> {
    getrf(cfg, m, n, a, lda, ipiv)
}

/// SGETRF, DGETRF, CGETRF, ZGETRF: P·L·U of the m×n matrix A; `ipiv` receives LAPACK's row
/// interchanges (partial pivoting by the backend's own choice of pivot in each column: the first
/// largest |x| in the real types, |re| + |im| in the complex ones), INFO the first exactly zero
/// pivot. One generator for the four types (`algo::getrf`); f64 also runs on devices, whole on
/// a device's solver and with CALU, the other types run on the host's tiles with partial
/// pivoting and forward where the process has devices (`api::forwards_for_devices`).
pub fn getrf<T: OpElem>(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<T>,
    lda: i32,
    ipiv: Raw<i32>,
) -> Result<(), Error> {
    let name = scalar::name::<T>("getrf");
    check_args(&[(m < 0, 1), (n < 0, 2), (lda < m.max(1), 4)])?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    let (mu, nu, ld) = (m as usize, n as usize, lda as usize);
    let kmin = mu.min(nu);
    let devices = forwards_for_devices::<T>(cfg, name);
    if !devices && learns(cfg, name, kmin) {
        let (mut ac, mut pc) = (a.snapshot(span(mu, nu, ld)), ipiv.snapshot(kmin));
        tune::trials(cfg, name, kmin, &mut || getrf(cfg, m, n, ac.fresh(), lda, pc.fresh()).is_ok());
    }
    let rep = Report::start(cfg);
    let (mf, nf) = (m as f64, n as f64);
    let k = mf.min(nf);
    let flops = 2.0 * (mf * nf * k - (mf + nf) * k * k / 2.0 + k * k * k / 3.0) * T::FLOPS;
    if let Some(why) = forward_reason(cfg, name, kmin).or(devices.then_some("devices")) {
        let info = forward::getrf(m, n, a, lda, ipiv);
        rep.finish(name, format_args!("m={m} n={n} pivot=gepp"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let pivot = pivoting::<T>(cfg);
    if pivot == Pivoting::Gepp {
        if let Some(af) = T::as_f64(a.ptr()) {
            // SAFETY: A is the caller's m×n array with leading dimension lda (checked) and IPIV
            // its min(m, n) pivots, which LAPACK's contract gives this call alone.
            let whole =
                unsafe { super::solve_whole(cfg, Factor::Getrf, (mu, nu, ld), af, ipiv.ptr() as *mut u8) };
            if let Some(r) = whole {
                rep.finish(name, format_args!("m={m} n={n} pivot=gepp"), Path::Solver, None, flops);
                return r;
            }
        }
    }
    let nb = cfg.nb_for(name, kmin);
    let (a, ipiv) = (a.matrix(mu, nu, ld), ipiv.matrix(kmin, 1, kmin));
    let info = ZeroPivot::new();
    let store = Buffers::default();
    let work = Work { flops, bytes: elem_bytes::<T>() * (mu * nu) as f64, cols: nu };
    let r = run_factorization_on_devices(cfg, name, nb, work, UpdateShape::Columns, |seq, p| {
        info.clear();
        let t = a.tiled_parts(p, p);
        seq.allocate(&t);
        algo::getrf::getrf(seq, pivot, cfg.threads, &t, &ipiv.tiled_parts(p, Part::uniform(1)), &info, &store)
    });
    rep.finish(name, format_args!("m={m} n={n} nb={nb} pivot={}", pivot.name()), Path::Tiles, None, flops);
    r?;
    numerical(info.get())
}

/// DGETRS: [`getrs`] in f64.
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
    getrs(cfg, trans, n, nrhs, a, lda, ipiv, b, ldb)
}

/// SGETRS, DGETRS, CGETRS, ZGETRS: solves op(A)·X = B with the factors from [`getrf`], op(A) =
/// A, Aᵀ or (TRANS = 'C') Aᴴ, with LAPACK 3.11's checks; f64 also on devices, the other types
/// forward where the process has devices.
#[allow(clippy::too_many_arguments)]
pub fn getrs<T: OpElem>(
    cfg: &Config,
    trans: u8,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    lda: i32,
    ipiv: Raw<i32>,
    b: Raw<T>,
    ldb: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("getrs");
    let solve = Solve::parse(trans);
    check_args(&[(solve.is_none(), 1), (n < 0, 2), (nrhs < 0, 3), (lda < n.max(1), 5), (ldb < n.max(1), 8)])?;
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    let (nu, nr) = (n as usize, nrhs as usize);
    let devices = forwards_for_devices::<T>(cfg, name);
    if !devices && learns(cfg, name, nu) {
        let mut bc = b.snapshot(span(nu, nr, ldb as usize));
        tune::trials(cfg, name, nu, &mut || {
            getrs(cfg, trans, n, nrhs, a, lda, ipiv, bc.fresh(), ldb).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let flops = 2.0 * (n as f64).powi(2) * nrhs as f64 * T::FLOPS;
    let tc = trans.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, name, nu).or(devices.then_some("devices")) {
        let info = forward::getrs(trans, n, nrhs, a, lda, ipiv, b, ldb);
        rep.finish(name, format_args!("trans={tc} n={n} nrhs={nrhs}"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let solve = solve.expect("checked above");
    let nb = cfg.nb_for(name, nu);
    let (a, ipiv, b) =
        (a.matrix(nu, nu, lda as usize), ipiv.matrix(nu, 1, nu), b.matrix(nu, nr, ldb as usize));
    let work = Work { flops, bytes: elem_bytes::<T>() * (nu * (nu + nr)) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, name, nb, work, |seq, p| {
        let (ta, tp, tb) = (a.tiled_parts(p, p), ipiv.tiled_parts(p, Part::uniform(1)), b.tiled_parts(p, p));
        algo::getrf::getrs(seq, solve, &ta, &tp, &tb)
    });
    rep.finish(name, format_args!("trans={tc} n={n} nrhs={nrhs} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DGESV: [`gesv`] in f64.
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
    gesv(cfg, n, nrhs, a, lda, ipiv, b, ldb)
}

/// SGESV, DGESV, CGESV, ZGESV: solves A·X = B by [`getrf`]'s and [`getrs`]'s generators, with
/// LAPACK 3.11's checks; f64 also on devices and with CALU, the other types forward where the
/// process has devices.
#[allow(clippy::too_many_arguments)]
pub fn gesv<T: OpElem>(
    cfg: &Config,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    lda: i32,
    ipiv: Raw<i32>,
    b: Raw<T>,
    ldb: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("gesv");
    check_args(&[(n < 0, 1), (nrhs < 0, 2), (lda < n.max(1), 4), (ldb < n.max(1), 7)])?;
    if n == 0 {
        return Ok(());
    }
    let (nu, nr) = (n as usize, nrhs as usize);
    let devices = forwards_for_devices::<T>(cfg, name);
    if !devices && learns(cfg, name, nu) {
        let (mut ac, mut pc) = (a.snapshot(span(nu, nu, lda as usize)), ipiv.snapshot(nu));
        let mut bc = b.snapshot(span(nu, nr, ldb as usize));
        tune::trials(cfg, name, nu, &mut || {
            gesv(cfg, n, nrhs, ac.fresh(), lda, pc.fresh(), bc.fresh(), ldb).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let nf = n as f64;
    let flops = (2.0 * nf * nf * nf / 3.0 + 2.0 * nf * nf * nrhs as f64) * T::FLOPS;
    if let Some(why) = forward_reason(cfg, name, nu).or(devices.then_some("devices")) {
        let info = forward::gesv(n, nrhs, a, lda, ipiv, b, ldb);
        rep.finish(name, format_args!("n={n} nrhs={nrhs} pivot=gepp"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let pivot = pivoting::<T>(cfg);
    let nb = cfg.nb_for(name, nu);
    let (a, ipiv, b) =
        (a.matrix(nu, nu, lda as usize), ipiv.matrix(nu, 1, nu), b.matrix(nu, nr, ldb as usize));
    // Two sequences: the solve may only start once INFO is known, because LAPACK leaves B
    // untouched when the factor is singular. Each cuts the arrays by its own partition (ipiv
    // holds whole-matrix row indices, whatever the tiles).
    let info = ZeroPivot::new();
    let store = Buffers::default();
    let work = Work { flops, bytes: elem_bytes::<T>() * (nu * (nu + nr)) as f64, cols: nu };
    let mut r = run_factorization_on_devices(cfg, name, nb, work, UpdateShape::Columns, |seq, p| {
        info.clear();
        let t = a.tiled_parts(p, p);
        seq.allocate(&t);
        algo::getrf::getrf(seq, pivot, cfg.threads, &t, &ipiv.tiled_parts(p, Part::uniform(1)), &info, &store)
    });
    if r.is_ok() && info.get() == 0 && nr > 0 {
        r = run_tiles_on_devices(cfg, name, nb, work, |seq, p| {
            let (ta, tp, tb) =
                (a.tiled_parts(p, p), ipiv.tiled_parts(p, Part::uniform(1)), b.tiled_parts(p, p));
            algo::getrf::getrs(seq, Solve::Plain, &ta, &tp, &tb)
        });
    }
    rep.finish(
        name,
        format_args!("n={n} nrhs={nrhs} nb={nb} pivot={}", pivot.name()),
        Path::Tiles,
        None,
        flops,
    );
    r?;
    numerical(info.get())
}

// The tests hand the entry points `Raw` pointers to vectors sized exactly as LAPACK documents
// for the arguments passed, which is `Raw::new`'s contract.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::backend::lapack as bk;

    /// A configuration that sends every call down the tile path with `nb`×`nb` tiles.
    fn tiles(nb: usize) -> Config {
        let mut c = with_test_devices(Config::with_threads(3));
        c.min_n = Some(0);
        c.nb = Some(nb);
        c
    }

    #[test]
    fn dgetrf_entry_matches_backend() {
        for &(m, n, lda, nb) in
            &[(1, 1, 1, 3), (2, 2, 4, 3), (45, 45, 50, 8), (60, 31, 61, 5), (31, 60, 33, 5)]
        {
            let mut rng = Rng::new((m * n + nb) as u64);
            let a0 = rng.matrix(m, n, lda);
            let k = m.min(n);
            let (mut want, mut piv_want, mut info_want) = (a0.clone(), vec![0i32; k], 0);
            // SAFETY: an m×n matrix with leading dimension lda and k pivots.
            unsafe {
                bk::dgetrf(
                    &(m as i32),
                    &(n as i32),
                    want.as_mut_ptr(),
                    &(lda as i32),
                    piv_want.as_mut_ptr(),
                    &mut info_want,
                )
            };
            let (mut a, mut piv) = (a0.clone(), vec![0i32; k]);
            // SAFETY: the arrays have the sizes DGETRF documents for these arguments.
            let r = dgetrf(
                &tiles(nb),
                m as i32,
                n as i32,
                unsafe { Raw::new(a.as_mut_ptr()) },
                lda as i32,
                unsafe { Raw::new(piv.as_mut_ptr()) },
            );
            assert_eq!(r, Ok(()));
            assert_eq!(info_want, 0);
            assert_eq!(piv, piv_want, "m {m} n {n}");
            let mut d: f64 = 0.0;
            for j in 0..n {
                for i in 0..m {
                    d = d.max((a[i + j * lda] - want[i + j * lda]).abs());
                }
            }
            // Same pivots, so the factors agree to rounding (entries of a random LU are O(1)).
            assert!(d < 20.0 * m.max(n) as f64 * eps(), "m {m} n {n}: factors differ by {d}");
            assert_untouched_outside(&a0, &a, m, n, lda, None);
        }
    }

    #[test]
    fn dgetrf_entry_reports_info_and_arguments() {
        let (n, lda) = (20, 22);
        let mut a = Rng::new(2).matrix(n, n, lda);
        (0..n).for_each(|i| a[i + 9 * lda] = 0.0);
        let mut piv = vec![0i32; n];
        let r =
            dgetrf(&tiles(4), n as i32, n as i32, unsafe { Raw::new(a.as_mut_ptr()) }, lda as i32, unsafe {
                Raw::new(piv.as_mut_ptr())
            });
        assert_eq!(r, Err(Error::Numerical(10)));
        // The factorization went on past the zero pivot: every pivot is set.
        assert!(piv.iter().all(|&p| p >= 1 && p as usize <= n));
        let mut bad = |m: i32, nn: i32, ld: i32| {
            dgetrf(&tiles(4), m, nn, unsafe { Raw::new(a.as_mut_ptr()) }, ld, unsafe {
                Raw::new(piv.as_mut_ptr())
            })
        };
        assert_eq!(bad(-1, 3, 3), Err(Error::Arg(1)));
        assert_eq!(bad(3, -1, 3), Err(Error::Arg(2)));
        assert_eq!(bad(3, 3, 2), Err(Error::Arg(4)));
        assert_eq!(bad(0, 3, 1), Ok(()));
    }

    /// ‖op(A)·X − B‖_F / (‖A‖_F·‖X‖_F·n·eps).
    #[allow(clippy::too_many_arguments)]
    fn residual(
        t: bool,
        n: usize,
        nrhs: usize,
        a: &[f64],
        lda: usize,
        x: &[f64],
        b: &[f64],
        ldb: usize,
    ) -> f64 {
        let mut r = vec![0.0; n * nrhs];
        for j in 0..nrhs {
            for i in 0..n {
                let ax: f64 =
                    (0..n).map(|k| if t { a[k + i * lda] } else { a[i + k * lda] } * x[k + j * ldb]).sum();
                r[i + j * n] = ax - b[i + j * ldb];
            }
        }
        fnorm(&r, n, nrhs, n) / (fnorm(a, n, n, lda) * fnorm(x, n, nrhs, ldb) * n as f64 * eps())
    }

    #[test]
    fn dgesv_and_dgetrs_solve_both_ways() {
        for &(n, nrhs, nb) in &[(1, 1, 3), (2, 3, 3), (37, 5, 5), (64, 17, 8), (71, 3, 16)] {
            let (lda, ldb) = (n + 2, n + 1);
            let mut rng = Rng::new(n as u64 + 100);
            let a0 = rng.matrix(n, n, lda);
            let b0 = rng.matrix(n, nrhs, ldb);
            let (mut a, mut piv, mut x) = (a0.clone(), vec![0i32; n], b0.clone());
            let r = dgesv(
                &tiles(nb),
                n as i32,
                nrhs as i32,
                unsafe { Raw::new(a.as_mut_ptr()) },
                lda as i32,
                unsafe { Raw::new(piv.as_mut_ptr()) },
                unsafe { Raw::new(x.as_mut_ptr()) },
                ldb as i32,
            );
            assert_eq!(r, Ok(()));
            let res = residual(false, n, nrhs, &a0, lda, &x, &b0, ldb);
            assert!(res < 10.0, "dgesv n {n}: residual {res}");
            assert_untouched_outside(&a0, &a, n, n, lda, None);
            assert_untouched_outside(&b0, &x, n, nrhs, ldb, None);
            // Reuse the factors for both transposes through the DGETRS entry point.
            for (tc, t) in [(b'N', false), (b't', true), (b'C', true)] {
                let mut x = b0.clone();
                let r = dgetrs(
                    &tiles(nb),
                    tc,
                    n as i32,
                    nrhs as i32,
                    unsafe { Raw::new(a.as_mut_ptr()) },
                    lda as i32,
                    unsafe { Raw::new(piv.as_mut_ptr()) },
                    unsafe { Raw::new(x.as_mut_ptr()) },
                    ldb as i32,
                );
                assert_eq!(r, Ok(()));
                let res = residual(t, n, nrhs, &a0, lda, &x, &b0, ldb);
                assert!(res < 10.0, "dgetrs {} n {n}: residual {res}", tc as char);
                assert_untouched_outside(&b0, &x, n, nrhs, ldb, None);
            }
        }
    }

    #[test]
    fn dgesv_singular_leaves_b_alone() {
        let (n, nrhs) = (23, 4);
        let mut rng = Rng::new(9);
        let mut a = rng.matrix(n, n, n);
        (0..n).for_each(|j| a[5 + j * n] = 0.0);
        let mut want = a.clone();
        let (mut piv_want, mut info_want) = (vec![0i32; n], 0);
        // SAFETY: an n×n matrix and n pivots.
        unsafe {
            bk::dgetrf(
                &(n as i32),
                &(n as i32),
                want.as_mut_ptr(),
                &(n as i32),
                piv_want.as_mut_ptr(),
                &mut info_want,
            )
        };
        let b0 = rng.matrix(n, nrhs, n);
        let (mut b, mut piv) = (b0.clone(), vec![0i32; n]);
        let r = dgesv(
            &tiles(5),
            n as i32,
            nrhs as i32,
            unsafe { Raw::new(a.as_mut_ptr()) },
            n as i32,
            unsafe { Raw::new(piv.as_mut_ptr()) },
            unsafe { Raw::new(b.as_mut_ptr()) },
            n as i32,
        );
        assert_eq!(r, Err(Error::Numerical(info_want)));
        assert_eq!(info_want, n as i32);
        assert_eq!(piv, piv_want);
        assert_eq!(b, b0, "B must not be touched when the factor is singular");
    }

    #[test]
    fn entries_on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            dgetrf_entry_matches_backend();
            dgetrf_entry_reports_info_and_arguments();
            dgesv_and_dgetrs_solve_both_ways();
            dgesv_singular_leaves_b_alone();
        });
    }
}
