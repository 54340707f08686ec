//! xGETRF (LU with partial pivoting), xGETRS and xGESV in the four types (S, D, C, Z), with
//! LAPACK 3.11's checks, run as the tile algorithms of [`crate::algo::getrf`] on views of the
//! caller's arrays.

use super::{
    check_args, forward_reason, learns, run_factorization_on_devices, run_tiles_on_devices, tune, Path,
    Report,
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

/// DGETRF: [`getrf`] in f64.
pub fn dgetrf(cfg: &Config, m: i32, n: i32, a: Raw<f64>, lda: i32, ipiv: Raw<i32>) -> Result<(), Error> {
    getrf(cfg, m, n, a, lda, ipiv)
}

/// SGETRF, DGETRF, CGETRF, ZGETRF: P·L·U of the m×n matrix A; `ipiv` receives LAPACK's row
/// interchanges (partial pivoting by the backend's own choice of pivot in each column: the first
/// largest |x| in the real types, |re| + |im| in the complex ones), INFO the first exactly zero
/// pivot; with `HETLA_LU=calu` CALU's tournament pivoting instead. One generator for the four
/// types (`algo::getrf`), on the host's tiles and the process's devices, or whole on a device's
/// solver.
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
    if learns(cfg, name, kmin) {
        let (mut ac, mut pc) = (a.snapshot(span(mu, nu, ld)), ipiv.snapshot(kmin));
        tune::trials(cfg, name, kmin, &mut || getrf(cfg, m, n, ac.fresh(), lda, pc.fresh()).is_ok());
    }
    let rep = Report::start(cfg);
    let (mf, nf) = (m as f64, n as f64);
    let k = mf.min(nf);
    let flops = 2.0 * (mf * nf * k - (mf + nf) * k * k / 2.0 + k * k * k / 3.0) * T::FLOPS;
    if let Some(why) = forward_reason(cfg, name, kmin) {
        let info = forward::getrf(m, n, a, lda, ipiv);
        rep.finish(name, format_args!("m={m} n={n} pivot=gepp"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let pivot = cfg.lu;
    if pivot == Pivoting::Gepp {
        // SAFETY: A is the caller's m×n array with leading dimension lda (checked) and IPIV its
        // min(m, n) pivots, which LAPACK's contract gives this call alone.
        let whole =
            unsafe { super::solve_whole(cfg, Factor::Getrf, (mu, nu, ld), a.ptr(), ipiv.ptr() as *mut u8) };
        if let Some(r) = whole {
            rep.finish(name, format_args!("m={m} n={n} pivot=gepp"), Path::Solver, None, flops);
            return r;
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
/// A, Aᵀ or (TRANS = 'C') Aᴴ, with LAPACK 3.11's checks, on tiles and devices in every type.
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
    if learns(cfg, name, nu) {
        let mut bc = b.snapshot(span(nu, nr, ldb as usize));
        tune::trials(cfg, name, nu, &mut || {
            getrs(cfg, trans, n, nrhs, a, lda, ipiv, bc.fresh(), ldb).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let flops = 2.0 * (n as f64).powi(2) * nrhs as f64 * T::FLOPS;
    let tc = trans.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, name, nu) {
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
/// LAPACK 3.11's checks, on tiles and devices in every type.
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
    if learns(cfg, name, nu) {
        let (mut ac, mut pc) = (a.snapshot(span(nu, nu, lda as usize)), ipiv.snapshot(nu));
        let mut bc = b.snapshot(span(nu, nr, ldb as usize));
        tune::trials(cfg, name, nu, &mut || {
            gesv(cfg, n, nrhs, ac.fresh(), lda, pc.fresh(), bc.fresh(), ldb).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let nf = n as f64;
    let flops = (2.0 * nf * nf * nf / 3.0 + 2.0 * nf * nf * nrhs as f64) * T::FLOPS;
    if let Some(why) = forward_reason(cfg, name, nu) {
        let info = forward::gesv(n, nrhs, a, lda, ipiv, b, ldb);
        rep.finish(name, format_args!("n={n} nrhs={nrhs} pivot=gepp"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let pivot = cfg.lu;
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
    use crate::scalar::Scalar;

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

    /// ‖op(A)·X − B‖_F / (‖A‖_F·‖X‖_F·n·ε) in f64 arithmetic, op(A) = A, Aᵀ or Aᴴ by `trans`.
    #[allow(clippy::too_many_arguments)]
    fn solve_residual<T: Scalar>(
        trans: u8,
        n: usize,
        nrhs: usize,
        a: &[T],
        lda: usize,
        x: &[T],
        b: &[T],
        ldb: usize,
    ) -> f64 {
        let op = |i: usize, k: usize| -> (f64, f64) {
            match trans.to_ascii_uppercase() {
                b'N' => parts(a[i + k * lda]),
                b'T' => parts(a[k + i * lda]),
                _ => {
                    let (re, im) = parts(a[k + i * lda]);
                    (re, -im)
                }
            }
        };
        let mut r = vec![0.0f64; 2 * n * nrhs];
        for j in 0..nrhs {
            for i in 0..n {
                let (mut sr, mut si) = (0.0, 0.0);
                for k in 0..n {
                    let ((ar, ai), (xr, xi)) = (op(i, k), parts(x[k + j * ldb]));
                    sr += ar * xr - ai * xi;
                    si += ar * xi + ai * xr;
                }
                let (br, bi) = parts(b[i + j * ldb]);
                (r[2 * (i + j * n)], r[2 * (i + j * n) + 1]) = (sr - br, si - bi);
            }
        }
        fnorm(&r, 2 * n * nrhs, 1, 2 * n * nrhs)
            / (fnorm(a, n, n, lda) * fnorm(x, n, nrhs, ldb) * n as f64 * T::eps())
    }

    /// A configuration on the host's tiles alone (no test devices), `nb`×`nb`.
    fn host(nb: usize) -> Config {
        let mut c = Config::with_threads(3);
        c.min_n = Some(0);
        c.nb = Some(nb);
        c
    }

    /// xGETRF, xGETRS and xGESV through the entries in `T`, on tiles that do not divide the
    /// matrix (tiny ones too), against the backend's routines on the same input: the same IPIV
    /// and INFO, the factors within a few n·ε, solutions with a small residual and near the
    /// backend's, TRANS = N, T, C (and lower case), the same bits on a second call, nothing
    /// written outside the arrays (guard bands after the rows and columns), A and IPIV untouched
    /// by xGETRS; a singular matrix's INFO as the backend's, B then untouched; and the forward
    /// where devices are, for the types that do not run on them.
    fn lu_entries<T: OpElem>() {
        // One backend thread for the whole test: OpenBLAS 0.3.21's threaded xGETRF overflows a
        // test thread's 2 MiB stack, and its bits would depend on how many threads the tests
        // running beside this one left it (the comparisons of forwarded calls are bitwise).
        let _blas = crate::backend::BlasThreadsGuard::new();
        let name = std::any::type_name::<T>();
        let pad = T::from_parts(-321.25, 4.5);
        let ipad = -77i32;
        for (n, nrhs, nb) in [(45usize, 3usize, 8usize), (23, 5, 3), (10, 1, 4), (7, 4, 1), (1, 2, 1)] {
            let what = format!("{name} n {n} nrhs {nrhs} nb {nb}");
            let (lda, ldb) = (n + 3, n + 2);
            let (ni, ri, lai, lbi) = (n as i32, nrhs as i32, lda as i32, ldb as i32);
            let mut rng = Rng::new((n * 31 + nb) as u64);
            let a0 = rand::<T>(&mut rng, n, n, lda, pad);
            let b0 = rand::<T>(&mut rng, n, nrhs, ldb, pad);
            let p0 = vec![ipad; n + 2];
            let tol = 20.0 * n as f64 * T::eps();

            // GESV: the backend's factor, pivots and solution, then tiles twice.
            let (mut fa, mut fp, mut xb) = (a0.clone(), p0.clone(), b0.clone());
            assert_eq!(
                forward::gesv(ni, ri, raw(&mut fa), lai, raw(&mut fp), raw(&mut xb), lbi),
                0,
                "{what}"
            );
            let mut runs = Vec::new();
            for _ in 0..2 {
                let (mut a, mut p, mut b) = (a0.clone(), p0.clone(), b0.clone());
                gesv(&host(nb), ni, ri, raw(&mut a), lai, raw(&mut p), raw(&mut b), lbi).unwrap();
                assert_eq!(crate::api::last_path(), "tiles", "{what}");
                runs.push((a, p, b));
            }
            assert!(runs[0] == runs[1], "{what}: gesv's bits differ between two calls");
            let (a, p, b) = &runs[0];
            assert_eq!(p, &fp, "{what}: gesv's ipiv");
            assert!(rel(a, &fa) <= tol, "{what}: gesv's factor differs by {}", rel(a, &fa));
            let res = solve_residual(b'N', n, nrhs, &a0, lda, b, &b0, ldb);
            assert!(res < 10.0, "{what}: gesv's residual {res}");
            assert!(rel(b, &xb) <= 5.0 * tol, "{what}: gesv's solution differs by {}", rel(b, &xb));
            assert!(same_outside(&a0, a, n, n, lda, None), "{what}: gesv wrote outside A");
            assert!(same_outside(&b0, b, n, nrhs, ldb, None), "{what}: gesv wrote outside B");
            assert!(p[n..] == p0[n..], "{what}: gesv wrote past IPIV's n entries");

            // GESV with NRHS = 0 is GETRF on tiles, as in LAPACK; a forwarded one is the
            // backend's (OpenBLAS's returns before factoring).
            let (mut a1, mut p1, mut b1) = (a0.clone(), p0.clone(), b0.clone());
            let (mut a2, mut p2, mut b2) = (a0.clone(), p0.clone(), b0.clone());
            gesv(&host(nb), ni, 0, raw(&mut a1), lai, raw(&mut p1), raw(&mut b1), lbi).unwrap();
            if crate::api::last_path() == "tiles" {
                getrf(&host(nb), ni, ni, raw(&mut a2), lai, raw(&mut p2)).unwrap();
            } else {
                forward::gesv(ni, 0, raw(&mut a2), lai, raw(&mut p2), raw(&mut b2), lbi);
            }
            assert!(a1 == a2 && p1 == p2 && b1 == b0, "{what}: gesv with nrhs 0 is not getrf alone");

            // GETRS with the backend's factors, every TRANS, twice; A and IPIV are only read.
            for tc in [b'N', b'T', b'C', b'n', b't', b'c'] {
                let what = format!("{what} trans {}", tc as char);
                let mut xw = b0.clone();
                let info = forward::getrs(tc, ni, ri, raw(&mut fa), lai, raw(&mut fp), raw(&mut xw), lbi);
                assert_eq!(info, 0, "{what}");
                let mut xs = Vec::new();
                for _ in 0..2 {
                    let (mut f, mut q, mut x) = (fa.clone(), fp.clone(), b0.clone());
                    getrs(&host(nb), tc, ni, ri, raw(&mut f), lai, raw(&mut q), raw(&mut x), lbi).unwrap();
                    assert_eq!(crate::api::last_path(), "tiles", "{what}");
                    assert!(f == fa && q == fp, "{what}: getrs wrote A or IPIV");
                    xs.push(x);
                }
                assert!(xs[0] == xs[1], "{what}: getrs's bits differ between two calls");
                let res = solve_residual(tc, n, nrhs, &a0, lda, &xs[0], &b0, ldb);
                assert!(res < 10.0, "{what}: getrs's residual {res}");
                assert!(rel(&xs[0], &xw) <= 5.0 * tol, "{what}: getrs differs by {}", rel(&xs[0], &xw));
                assert!(same_outside(&b0, &xs[0], n, nrhs, ldb, None), "{what}: getrs wrote outside B");
            }

            // Singular (an exactly zero column k): the backend's INFO and pivots, B untouched.
            let k = n / 2;
            let mut bad = a0.clone();
            (0..n).for_each(|i| bad[i + k * lda] = T::zero());
            let (mut ra, mut rp, mut rb) = (bad.clone(), p0.clone(), b0.clone());
            let want = forward::gesv(ni, ri, raw(&mut ra), lai, raw(&mut rp), raw(&mut rb), lbi);
            assert_eq!(want, k as i32 + 1, "{what}");
            let (mut ba, mut bp, mut bb) = (bad.clone(), p0.clone(), b0.clone());
            let r = gesv(&host(nb), ni, ri, raw(&mut ba), lai, raw(&mut bp), raw(&mut bb), lbi);
            assert_eq!(r, Err(Error::Numerical(want)), "{what}");
            assert_eq!(bp, rp, "{what}: singular gesv's ipiv");
            assert!(bb == b0, "{what}: B written by a failed gesv");
            assert!(same_outside(&bad, &ba, n, n, lda, None), "{what}: failed gesv wrote outside A");
            let (mut ga, mut gp) = (bad.clone(), p0.clone());
            let r = getrf(&host(nb), ni, ni, raw(&mut ga), lai, raw(&mut gp));
            assert_eq!(r, Err(Error::Numerical(want)), "{what}: getrf's INFO");
            assert!(ga == ba && gp == bp, "{what}: getrf and gesv factor alike");
        }

        // Rectangular GETRF, tall and wide: the backend's pivots and INFO, factors within a few
        // n·ε, the same bits twice, nothing outside A.
        for (m, n, nb) in [(31usize, 23usize, 3usize), (23, 40, 4), (60, 31, 5), (9, 1, 2), (1, 9, 2)] {
            let what = format!("{name} getrf m {m} n {n} nb {nb}");
            let lda = m + 2;
            let (mi, ni, lai) = (m as i32, n as i32, lda as i32);
            let k = m.min(n);
            let a0 = rand::<T>(&mut Rng::new((m * 7 + n) as u64), m, n, lda, pad);
            let (mut fa, mut fp) = (a0.clone(), vec![ipad; k + 1]);
            assert_eq!(forward::getrf(mi, ni, raw(&mut fa), lai, raw(&mut fp)), 0, "{what}");
            let mut runs = Vec::new();
            for _ in 0..2 {
                let (mut a, mut p) = (a0.clone(), vec![ipad; k + 1]);
                getrf(&host(nb), mi, ni, raw(&mut a), lai, raw(&mut p)).unwrap();
                assert_eq!(crate::api::last_path(), "tiles", "{what}");
                runs.push((a, p));
            }
            assert!(runs[0] == runs[1], "{what}: bits differ between two calls");
            let (a, p) = &runs[0];
            assert_eq!(p, &fp, "{what}: ipiv (and nothing past its min(m, n) entries)");
            assert!(
                rel(a, &fa) <= 20.0 * m.max(n) as f64 * T::eps(),
                "{what}: factor differs by {}",
                rel(a, &fa)
            );
            assert!(same_outside(&a0, a, m, n, lda, None), "{what}: wrote outside A");
            // A zero column inside the leading min(m, n): the backend's INFO.
            let c = k / 2;
            let mut bad = a0.clone();
            (0..m).for_each(|i| bad[i + c * lda] = T::zero());
            let (mut ra, mut rp) = (bad.clone(), vec![ipad; k + 1]);
            let want = forward::getrf(mi, ni, raw(&mut ra), lai, raw(&mut rp));
            let (mut ba, mut bp) = (bad.clone(), vec![ipad; k + 1]);
            let r = getrf(&host(nb), mi, ni, raw(&mut ba), lai, raw(&mut bp));
            assert_eq!(r, Err(Error::Numerical(want)), "{what}: INFO");
            assert_eq!(bp, rp, "{what}: singular ipiv");
        }

        // LAPACK's argument checks, first failing argument first, and the quick returns; nothing
        // is written in either case.
        let (mut a, mut b, mut p) = (vec![pad; 16], vec![pad; 16], vec![ipad; 4]);
        let cfg = host(2);
        for (args, want) in [
            ((-1, -1, 0), Err(Error::Arg(1))),
            ((-1, 3, 3), Err(Error::Arg(1))),
            ((2, -1, 0), Err(Error::Arg(2))),
            ((3, 3, 2), Err(Error::Arg(4))),
            ((0, 3, 1), Ok(())),
            ((3, 0, 3), Ok(())),
            ((0, 0, 1), Ok(())),
        ] {
            let (m, n, lda) = args;
            assert_eq!(getrf(&cfg, m, n, raw(&mut a), lda, raw(&mut p)), want, "{name} getrf {args:?}");
        }
        for (args, want) in [
            ((b'X', -1, -1, 0, 0), Err(Error::Arg(1))),
            ((b'N', -1, -1, 0, 0), Err(Error::Arg(2))),
            ((b'T', 2, -1, 1, 1), Err(Error::Arg(3))),
            ((b'C', 2, 1, 1, 1), Err(Error::Arg(5))),
            ((b'n', 3, 1, 3, 2), Err(Error::Arg(8))),
            ((b'N', 0, 1, 1, 1), Ok(())),
            ((b't', 3, 0, 3, 3), Ok(())),
        ] {
            let (t, n, nrhs, lda, ldb) = args;
            let r = getrs(&cfg, t, n, nrhs, raw(&mut a), lda, raw(&mut p), raw(&mut b), ldb);
            assert_eq!(r, want, "{name} getrs {args:?}");
        }
        for (args, want) in [
            ((-1, -1, 0, 0), Err(Error::Arg(1))),
            ((2, -1, 1, 1), Err(Error::Arg(2))),
            ((2, 1, 1, 1), Err(Error::Arg(4))),
            ((3, 1, 3, 2), Err(Error::Arg(7))),
            ((0, 1, 1, 1), Ok(())),
            ((0, 0, 1, 1), Ok(())),
        ] {
            let (n, nrhs, lda, ldb) = args;
            let r = gesv(&cfg, n, nrhs, raw(&mut a), lda, raw(&mut p), raw(&mut b), ldb);
            assert_eq!(r, want, "{name} gesv {args:?}");
        }
        assert!(a.iter().chain(&b).all(|&x| x == pad), "{name}: written on an error or a quick return");
        assert!(p.iter().all(|&x| x == ipad), "{name}: IPIV written on an error or a quick return");
    }

    #[test]
    fn getrf_getrs_gesv_entries_in_every_type() {
        lu_entries::<f32>();
        lu_entries::<f64>();
        lu_entries::<crate::scalar::c32>();
        lu_entries::<crate::scalar::c64>();
    }

    /// HETLA_LU=calu runs CALU in every type (its pivots differ from partial pivoting's on this
    /// matrix); the default pivots partially, with the backend's ipiv.
    #[test]
    fn calu_in_every_type() {
        fn run<T: OpElem>(pivot: Pivoting) {
            let name = std::any::type_name::<T>();
            let mut cfg = host(5);
            cfg.lu = pivot;
            let n = 30;
            let mut rng = Rng::new(4);
            let a0 = rand::<T>(&mut rng, n, n, n, T::zero());
            let (mut a, mut p) = (a0.clone(), vec![0i32; n]);
            getrf(&cfg, n as i32, n as i32, raw(&mut a), n as i32, raw(&mut p)).unwrap();
            assert_eq!(crate::api::last_path(), "tiles", "{name}");
            assert!(
                p.iter().enumerate().all(|(t, &x)| x as usize > t && x as usize <= n),
                "{name}: ipiv {p:?}"
            );
            // On this matrix the host's tournament (one leaf per thread) picks other pivots than
            // partial pivoting does; the backend's are GEPP's.
            let (_, piv, _) = reference_getrf(n, n, &a0, n);
            if crate::device::open(&cfg).is_empty() {
                let calu = pivot == Pivoting::Calu;
                assert_eq!(p != piv, calu, "{name} {}: ipiv {p:?}, GEPP's {piv:?}", pivot.name());
            }
        }
        for pivot in [Pivoting::Gepp, Pivoting::Calu] {
            run::<f64>(pivot);
            run::<f32>(pivot);
            run::<crate::scalar::c32>(pivot);
            run::<crate::scalar::c64>(pivot);
        }
    }

    /// HETLA_DISABLE names each type's routines apart: a disabled one forwards
    /// (`reason=disabled`), the same routine in another type still runs on tiles.
    #[test]
    fn disabled_per_type() {
        fn run<T: OpElem>(cfg: &Config) -> String {
            let n = 12;
            let mut rng = Rng::new(6);
            let (mut a, mut b) =
                (rand::<T>(&mut rng, n, n, n, T::zero()), rand::<T>(&mut rng, n, 2, n, T::zero()));
            let mut p = vec![0i32; n];
            let ni = n as i32;
            gesv(cfg, ni, 2, raw(&mut a), ni, raw(&mut p), raw(&mut b), ni).unwrap();
            crate::api::last_path()
        }
        let mut cfg = host(4);
        cfg.disabled = vec!["cgesv".to_string()];
        assert!(crate::config::ROUTINES.contains(&"cgesv") && crate::config::ROUTINES.contains(&"zgetrs"));
        assert_eq!(run::<crate::scalar::c32>(&cfg), "forward:disabled");
        assert_eq!(run::<crate::scalar::c64>(&cfg), "tiles");
        assert_eq!(run::<f32>(&cfg), "tiles");
        assert_eq!(run::<f64>(&cfg), "tiles");
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
