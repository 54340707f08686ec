//! xTRTRI, xPOTRI and xGETRI (inverses) in the four types (S, D, C, Z), with LAPACK 3.11's
//! checks, run as the tile algorithms of [`crate::algo::trtri`] and [`crate::algo::getri`] on
//! views of the caller's arrays. One source for every type: `dtrtri`, `dpotri` and `dgetri` are
//! the f64 instances of [`trtri`], [`potri`] and [`getri`], every type on the host's tiles and
//! the process's devices. For complex types xPOTRI is Hermitian: inv(U)·inv(U)ᴴ or
//! inv(L)ᴴ·inv(L), as CPOTRI/ZPOTRI (ZLAUUM's real diagonal).
//!
//! LAPACK's xTRTRI (and so xPOTRI and xGETRI, which call it first) looks for a zero on the
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
use crate::graph::op::OpElem;
use crate::kernels::Diag;
use crate::runtime::shared::Buffers;
use crate::scalar::{self, Scalar};
use crate::tile::{span, ColMajor, Raw};

fn numerical(info: i32) -> Result<(), Error> {
    if info > 0 {
        Err(Error::Numerical(info))
    } else {
        Ok(())
    }
}

/// The bytes of `len` elements of `T`, for the devices' cost model ([`Work`]).
fn bytes_of<T>(len: usize) -> f64 {
    (std::mem::size_of::<T>() * len) as f64
}

/// The first exactly zero element on the diagonal of the n×n matrix `a` (both parts zero for
/// complex types), 1-based (xTRTRI's INFO), if any.
fn zero_diagonal<T: Scalar>(a: &ColMajor<T>) -> Option<i32> {
    (0..a.n).find(|&i| a.get(i, i) == T::zero()).map(|i| i as i32 + 1)
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

/// DTRTRI: [`trtri`] in f64.
pub fn dtrtri(cfg: &Config, uplo: u8, diag: u8, n: i32, a: Raw<f64>, lda: i32) -> Result<(), Error> {
    trtri(cfg, uplo, diag, n, a, lda)
}

/// STRTRI, DTRTRI, CTRTRI, ZTRTRI: A ← A⁻¹ for the `uplo` triangle of the n×n matrix A (the other
/// triangle untouched, a unit diagonal not referenced).
pub fn trtri<T: OpElem>(cfg: &Config, uplo: u8, diag: u8, n: i32, a: Raw<T>, lda: i32) -> Result<(), Error> {
    let name = scalar::name::<T>("trtri");
    let Some(ul) = parse_uplo(uplo) else { return Err(Error::Arg(1)) };
    let Some(dg) = parse_diag(diag) else { return Err(Error::Arg(2)) };
    check_args(&[(n < 0, 3), (lda < n.max(1), 5)])?;
    if n == 0 {
        return Ok(());
    }
    let (nu, ld) = (n as usize, lda as usize);
    if learns(cfg, name, nu) {
        let mut ac = a.snapshot(span(nu, nu, ld));
        tune::trials(cfg, name, nu, &mut || trtri(cfg, uplo, diag, n, ac.fresh(), lda).is_ok());
    }
    let rep = Report::start(cfg);
    let flops = (nu as f64).powi(3) / 3.0 * T::FLOPS;
    let (uc, dc) = (uplo.to_ascii_uppercase() as char, diag.to_ascii_uppercase() as char);
    if let Some(why) = forward_reason(cfg, name, nu) {
        let info = forward::trtri(uplo, diag, n, a, lda);
        rep.finish(name, format_args!("uplo={uc} diag={dc} n={n}"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let a = a.matrix(nu, nu, ld);
    if dg == Diag::NonUnit {
        if let Some(i) = zero_diagonal(&a) {
            rep.finish(name, format_args!("uplo={uc} diag={dc} n={n}"), Path::Tiles, None, 0.0);
            return Err(Error::Numerical(i));
        }
    }
    let nb = cfg.nb_for(name, nu);
    let work = Work { flops, bytes: bytes_of::<T>(nu * nu), cols: nu };
    let r = run_tiles_on_devices(cfg, name, nb, work, |seq, p| {
        algo::trtri::trtri(seq, ul, dg, &a.tiled_parts(p, p))
    });
    rep.finish(name, format_args!("uplo={uc} diag={dc} n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DPOTRI: [`potri`] in f64.
pub fn dpotri(cfg: &Config, uplo: u8, n: i32, a: Raw<f64>, lda: i32) -> Result<(), Error> {
    potri(cfg, uplo, n, a, lda)
}

/// SPOTRI, DPOTRI, CPOTRI, ZPOTRI: A ← A⁻¹ from the Cholesky factor xPOTRF left in the `uplo`
/// triangle (Hermitian for the complex types: inv(U)·inv(U)ᴴ, a real diagonal).
pub fn potri<T: OpElem>(cfg: &Config, uplo: u8, n: i32, a: Raw<T>, lda: i32) -> Result<(), Error> {
    let name = scalar::name::<T>("potri");
    let Some(ul) = parse_uplo(uplo) else { return Err(Error::Arg(1)) };
    check_args(&[(n < 0, 2), (lda < n.max(1), 4)])?;
    if n == 0 {
        return Ok(());
    }
    let (nu, ld) = (n as usize, lda as usize);
    if learns(cfg, name, nu) {
        let mut ac = a.snapshot(span(nu, nu, ld));
        tune::trials(cfg, name, nu, &mut || potri(cfg, uplo, n, ac.fresh(), lda).is_ok());
    }
    let rep = Report::start(cfg);
    let flops = 2.0 * (nu as f64).powi(3) / 3.0 * T::FLOPS;
    let uc = uplo.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, name, nu) {
        let info = forward::potri(uplo, n, a, lda);
        rep.finish(name, format_args!("uplo={uc} n={n}"), Path::Forward, Some(why), flops);
        return numerical(info);
    }
    let a = a.matrix(nu, nu, ld);
    if let Some(i) = zero_diagonal(&a) {
        rep.finish(name, format_args!("uplo={uc} n={n}"), Path::Tiles, None, 0.0);
        return Err(Error::Numerical(i));
    }
    let nb = cfg.nb_for(name, nu);
    let work = Work { flops, bytes: bytes_of::<T>(nu * nu), cols: nu };
    let r =
        run_tiles_on_devices(cfg, name, nb, work, |seq, p| algo::trtri::potri(seq, ul, &a.tiled_parts(p, p)));
    rep.finish(name, format_args!("uplo={uc} n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DGETRI: [`getri`] in f64.
pub fn dgetri(
    cfg: &Config,
    n: i32,
    a: Raw<f64>,
    lda: i32,
    ipiv: Raw<i32>,
    work: Raw<f64>,
    lwork: i32,
) -> Result<(), Error> {
    getri(cfg, n, a, lda, ipiv, work, lwork)
}

/// SGETRI, DGETRI, CGETRI, ZGETRI: A ← A⁻¹ from xGETRF's factors and pivots.
///
/// Workspace queries and invalid calls go to the backend unchanged (its checks are LAPACK's,
/// and it writes WORK(1) as LAPACK does even then); so do calls whose pivots are not all in
/// 1..=n (LAPACK would read outside the matrix), `reason=pivot-outside`. The tile path needs no
/// workspace: any valid LWORK runs at full speed, and WORK(1) receives the backend's optimal
/// LWORK as LAPACK's xGETRI writes it (the real part of a complex WORK(1)).
pub fn getri<T: OpElem>(
    cfg: &Config,
    n: i32,
    a: Raw<T>,
    lda: i32,
    ipiv: Raw<i32>,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("getri");
    let valid = workspace::getri_valid(n, lda, lwork);
    let nu = n.max(0) as usize;
    let piv = ipiv.matrix(nu, 1, nu);
    let inside = valid && (0..nu).all(|i| (1..=n).contains(&piv.get(i, 0)));
    if inside && n > 0 && learns(cfg, name, nu) {
        let (mut ac, mut wc) = (a.snapshot(span(nu, nu, lda as usize)), work.snapshot(lwork as usize));
        tune::trials(cfg, name, nu, &mut || getri(cfg, n, ac.fresh(), lda, ipiv, wc.fresh(), lwork).is_ok());
    }
    let rep = Report::start(cfg);
    if !valid || n == 0 {
        return workspace::getri(cfg, &rep, "untiled", n, a, lda, ipiv, work, lwork);
    }
    if !inside {
        return workspace::getri(cfg, &rep, "pivot-outside", n, a, lda, ipiv, work, lwork);
    }
    if let Some(why) = forward_reason(cfg, name, nu) {
        return workspace::getri(cfg, &rep, why, n, a, lda, ipiv, work, lwork);
    }
    // WORK(1) as LAPACK's xGETRI writes it first (what a singular U leaves there).
    let q = workspace::query_value(|w, l| forward::getri(n, a, lda, ipiv, w, l)).unwrap_or_default();
    let opt: i32 = q.re().into() as i32;
    work.set(0, q);
    let nf = n as f64;
    let flops = 4.0 * nf * nf * nf / 3.0 * T::FLOPS;
    let a = a.matrix(nu, nu, lda as usize);
    if let Some(i) = zero_diagonal(&a) {
        rep.finish(name, format_args!("n={n}"), Path::Tiles, None, 0.0);
        return Err(Error::Numerical(i));
    }
    let pivots: Vec<i32> = (0..nu).map(|i| piv.get(i, 0)).collect();
    let nb = cfg.nb_for(name, nu);
    let store = Buffers::default();
    let wk = Work { flops, bytes: bytes_of::<T>(nu * nu), cols: nu };
    let r = run_tiles_on_devices(cfg, name, nb, wk, |seq, p| {
        algo::getri::getri(seq, &a.tiled_parts(p, p), &pivots, &store)
    });
    // LAPACK's xGETRI ends with WORK(1) = the workspace its blocked code used: N·NB when its
    // block size NB (the query's answer over N) is in 2..N, else N (unblocked).
    let lnb = opt / n;
    work.set(0, if lnb > 1 && lnb < n { q } else { T::from_f64(nf) });
    rep.finish(name, format_args!("n={n} nb={nb}"), Path::Tiles, None, flops);
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

    /// The entry points in every type (f32, f64, c32, c64) against the backend's routine of
    /// that type on the same input.
    mod typed {
        use super::super::*;
        use crate::algo::testutil::{self as tu, parts, rand, raw, rel, same_outside, Parity, Rng};
        use crate::kernels::Uplo;
        use crate::scalar::{c32, c64};

        fn host(nb: usize) -> Config {
            let mut c = tu::cfg(3);
            c.min_n = Some(0);
            c.nb = Some(nb);
            c
        }

        fn uplo_of(c: u8) -> Uplo {
            parse_uplo(c).unwrap()
        }

        /// Whether (i, j) is in the `uplo` triangle.
        fn inside(ul: Uplo, i: usize, j: usize) -> bool {
            if ul == Uplo::Lower {
                i >= j
            } else {
                i <= j
            }
        }

        /// A triangular test matrix in an ld×(n + 2) array (`pad` outside): random entries, the
        /// diagonal's real part pushed to ±(√n + |x|) so that the triangle is well conditioned.
        fn triangular<T: Scalar>(n: usize, ld: usize, seed: u64, pad: T) -> Vec<T> {
            let mut a = rand(&mut Rng::new(seed), n, n, ld, pad);
            for i in 0..n {
                let (re, im) = parts(a[i + i * ld]);
                a[i + i * ld] = T::from_parts(re.signum() * ((n as f64).sqrt() + re.abs()), im);
            }
            a
        }

        /// A Hermitian positive definite n×n matrix in an ld×(n + 2) array (`pad` outside):
        /// B·Bᴴ/n + I with B random, real diagonal.
        fn hpd<T: Scalar>(n: usize, ld: usize, seed: u64, pad: T) -> Vec<T> {
            let b = rand::<T>(&mut Rng::new(seed), n, n, n, T::zero());
            let mut a = vec![pad; ld * (n + 2)];
            for j in 0..n {
                for i in 0..n {
                    let (mut re, mut im) = (0.0, 0.0);
                    for k in 0..n {
                        let ((ar, ai), (br, bi)) = (parts(b[i + k * n]), parts(b[j + k * n]));
                        re += ar * br + ai * bi;
                        im += ai * br - ar * bi;
                    }
                    let (re, im) = (re / n as f64 + if i == j { 1.0 } else { 0.0 }, im / n as f64);
                    a[i + j * ld] = T::from_parts(re, if i == j { 0.0 } else { im });
                }
            }
            a
        }

        /// The backend's xPOTRF of `a`.
        fn factor<T: Scalar>(uplo: u8, n: usize, a: &[T], ld: usize) -> Vec<T> {
            let mut f = a.to_vec();
            assert_eq!(forward::potrf(uplo, n as i32, raw(&mut f), ld as i32), 0);
            f
        }

        fn tol<T: Scalar>(n: usize) -> f64 {
            64.0 * n.max(1) as f64 * T::eps()
        }

        fn trtri_case<T: OpElem>(n: usize, ld: usize, nb: usize) {
            let pad = T::from_parts(-321.25, 4.5);
            for uplo in [b'L', b'u'] {
                for diag in [b'N', b'u'] {
                    let what = format!(
                        "{} n {n} nb {nb} {} {}",
                        scalar::name::<T>("trtri"),
                        uplo as char,
                        diag as char
                    );
                    let a0 = triangular::<T>(n, ld, 7 * n as u64 + nb as u64, pad);
                    let mut want = a0.clone();
                    assert_eq!(forward::trtri(uplo, diag, n as i32, raw(&mut want), ld as i32), 0);
                    let mut runs = Vec::new();
                    for _ in 0..2 {
                        let mut a = a0.clone();
                        assert_eq!(trtri(&host(nb), uplo, diag, n as i32, raw(&mut a), ld as i32), Ok(()));
                        assert_eq!(crate::api::last_path(), "tiles", "{what}");
                        runs.push(a);
                    }
                    assert!(runs[0] == runs[1], "{what}: bits differ between two calls");
                    let a = &runs[0];
                    assert!(rel(a, &want) <= tol::<T>(n), "{what}: differs by {}", rel(a, &want));
                    assert!(same_outside(&a0, a, n, n, ld, Some(uplo_of(uplo))), "{what}: wrote outside");
                    if flag(diag, b'U') {
                        assert!(
                            (0..n).all(|i| a[i + i * ld] == a0[i + i * ld]),
                            "{what}: unit diagonal written"
                        );
                    }
                }
            }
        }

        fn potri_case<T: OpElem>(n: usize, ld: usize, nb: usize) {
            let pad = T::from_parts(-321.25, 4.5);
            for uplo in [b'L', b'u'] {
                let what = format!("{} n {n} nb {nb} {}", scalar::name::<T>("potri"), uplo as char);
                let f = factor(uplo, n, &hpd::<T>(n, ld, 3 + n as u64, pad), ld);
                let mut want = f.clone();
                assert_eq!(forward::potri(uplo, n as i32, raw(&mut want), ld as i32), 0);
                let mut runs = Vec::new();
                for _ in 0..2 {
                    let mut a = f.clone();
                    assert_eq!(potri(&host(nb), uplo, n as i32, raw(&mut a), ld as i32), Ok(()));
                    assert_eq!(crate::api::last_path(), "tiles", "{what}");
                    runs.push(a);
                }
                assert!(runs[0] == runs[1], "{what}: bits differ between two calls");
                let a = &runs[0];
                assert!(rel(a, &want) <= tol::<T>(n), "{what}: differs by {}", rel(a, &want));
                assert!(same_outside(&f, a, n, n, ld, Some(uplo_of(uplo))), "{what}: wrote outside");
                // Hermitian: a real diagonal, as xLAUUM leaves it.
                assert!((0..n).all(|i| parts(a[i + i * ld]).1 == 0.0), "{what}: diagonal not real");
            }
        }

        fn getri_case<T: OpElem>(n: usize, ld: usize, nb: usize) {
            let pad = T::from_parts(-321.25, 4.5);
            let what = format!("{} n {n} nb {nb}", scalar::name::<T>("getri"));
            let a0 = rand::<T>(&mut Rng::new(11 + n as u64), n, n, ld, pad);
            let (f, ipiv, info) = tu::reference_getrf(n, n, &a0, ld);
            assert_eq!(info, 0);
            let (mut want, mut wp, mut w0) = (f.clone(), ipiv.clone(), vec![T::zero(); 64 * n]);
            let l = w0.len() as i32;
            assert_eq!(forward::getri(n as i32, raw(&mut want), ld as i32, raw(&mut wp), raw(&mut w0), l), 0);
            // The workspace query: the backend's answer, nothing else written.
            let (mut q, mut q0) = ([pad], [pad]);
            let (mut a, mut p) = (f.clone(), ipiv.clone());
            assert_eq!(forward::getri(n as i32, raw(&mut a), ld as i32, raw(&mut p), raw(&mut q0), -1), 0);
            assert_eq!(
                getri(&host(nb), n as i32, raw(&mut a), ld as i32, raw(&mut p), raw(&mut q), -1),
                Ok(())
            );
            assert_eq!(q, q0, "{what}: query");
            assert!(a == f, "{what}: a query touches nothing");
            let mut runs = Vec::new();
            for lwork in [n, 64 * n] {
                let mut a = f.clone();
                let mut w = vec![pad; lwork];
                let r = getri(
                    &host(nb),
                    n as i32,
                    raw(&mut a),
                    ld as i32,
                    raw(&mut p),
                    raw(&mut w),
                    lwork as i32,
                );
                assert_eq!(r, Ok(()), "{what}");
                assert_eq!(crate::api::last_path(), "tiles", "{what}");
                assert_eq!(w[0], w0[0], "{what}: WORK(1) with LWORK {lwork}");
                runs.push(a);
            }
            assert!(runs[0] == runs[1], "{what}: bits differ between two calls");
            let a = &runs[0];
            assert!(rel(a, &want) <= tol::<T>(n), "{what}: differs by {}", rel(a, &want));
            assert!(same_outside(&f, a, n, n, ld, None), "{what}: wrote outside");
        }

        fn matches_the_backend<T: OpElem>() {
            // One backend thread for the whole test: where devices are the calls forward, and
            // a forwarded call's bits depend on the backend's thread count, which the tests
            // running beside this one change (their comparisons are bitwise too).
            let _blas = crate::backend::BlasThreadsGuard::new();
            for (n, nb) in [(1usize, 1usize), (2, 1), (7, 3), (37, 4), (45, 8), (67, 16)] {
                trtri_case::<T>(n, n + 3, nb);
                potri_case::<T>(n, n + 2, nb);
                getri_case::<T>(n, n + 1, nb);
            }
        }

        #[test]
        fn inverses_match_the_backend_in_every_type() {
            matches_the_backend::<f32>();
            matches_the_backend::<f64>();
            matches_the_backend::<c32>();
            matches_the_backend::<c64>();
        }

        /// Zero diagonals, argument errors, quick returns and forwarding beside a device.
        fn edges<T: OpElem>() {
            let (n, ld, nb) = (23usize, 25usize, 4usize);
            let pad = T::from_parts(-321.25, 4.5);
            let ni = n as i32;
            for bad in [0usize, 9, 22] {
                let mut a0 = triangular::<T>(n, ld, bad as u64, pad);
                a0[bad + bad * ld] = T::zero();
                if bad < 20 {
                    a0[20 + 20 * ld] = T::zero();
                }
                for uplo in [b'L', b'U'] {
                    let mut want = a0.clone();
                    assert_eq!(forward::trtri(uplo, b'N', ni, raw(&mut want), ld as i32), bad as i32 + 1);
                    let mut a = a0.clone();
                    assert_eq!(
                        trtri(&host(nb), uplo, b'N', ni, raw(&mut a), ld as i32),
                        Err(Error::Numerical(bad as i32 + 1))
                    );
                    assert!(a == a0, "trtri touched a singular A");
                    let mut want = a0.clone();
                    assert_eq!(forward::potri(uplo, ni, raw(&mut want), ld as i32), bad as i32 + 1);
                    assert_eq!(
                        potri(&host(nb), uplo, ni, raw(&mut a), ld as i32),
                        Err(Error::Numerical(bad as i32 + 1))
                    );
                    assert!(a == a0, "potri touched a singular A");
                    // A unit diagonal is not looked at.
                    let mut want = a0.clone();
                    assert_eq!(forward::trtri(uplo, b'U', ni, raw(&mut want), ld as i32), 0);
                    assert_eq!(trtri(&host(nb), uplo, b'U', ni, raw(&mut a), ld as i32), Ok(()));
                    assert!(rel(&a, &want) <= tol::<T>(n), "unit: {}", rel(&a, &want));
                }
                // GETRI on factors whose U has the zero: INFO and WORK(1) as the backend's.
                let mut ipiv: Vec<i32> = (0..ni).map(|i| (i + 1 + (i % 3)).min(ni)).collect();
                let (mut want, mut wp, mut w0) = (a0.clone(), ipiv.clone(), vec![T::zero(); 64 * n]);
                let l = w0.len() as i32;
                assert_eq!(
                    forward::getri(ni, raw(&mut want), ld as i32, raw(&mut wp), raw(&mut w0), l),
                    bad as i32 + 1
                );
                let (mut a, mut w) = (a0.clone(), vec![pad; n]);
                let r = getri(&host(nb), ni, raw(&mut a), ld as i32, raw(&mut ipiv), raw(&mut w), ni);
                assert_eq!(r, Err(Error::Numerical(bad as i32 + 1)));
                assert!(a == a0, "getri touched a singular A");
                assert_eq!(w[0], w0[0], "WORK(1) of a singular getri");
            }
            // Argument errors in LAPACK's order, nothing touched; N = 0 returns at once.
            let c = host(nb);
            let mut a = vec![pad; 16];
            assert_eq!(trtri(&c, b'X', b'Q', -1, raw(&mut a), 0), Err(Error::Arg(1)));
            assert_eq!(trtri(&c, b'u', b'Q', -1, raw(&mut a), 0), Err(Error::Arg(2)));
            assert_eq!(trtri(&c, b'u', b'n', -1, raw(&mut a), 0), Err(Error::Arg(3)));
            assert_eq!(trtri(&c, b'L', b'U', 4, raw(&mut a), 3), Err(Error::Arg(5)));
            assert_eq!(potri(&c, b'X', -1, raw(&mut a), 0), Err(Error::Arg(1)));
            assert_eq!(potri(&c, b'l', -1, raw(&mut a), 0), Err(Error::Arg(2)));
            assert_eq!(potri(&c, b'U', 4, raw(&mut a), 3), Err(Error::Arg(4)));
            let (mut ipiv, mut w) = (vec![1i32; 4], vec![pad; 16]);
            assert_eq!(
                crate::error::info_of(&getri(&c, -1, raw(&mut a), 1, raw(&mut ipiv), raw(&mut w), 16)),
                -1
            );
            assert_eq!(
                crate::error::info_of(&getri(&c, 4, raw(&mut a), 3, raw(&mut ipiv), raw(&mut w), 16)),
                -3
            );
            assert_eq!(
                crate::error::info_of(&getri(&c, 4, raw(&mut a), 4, raw(&mut ipiv), raw(&mut w), 3)),
                -6
            );
            assert_eq!(trtri(&c, b'L', b'N', 0, raw(&mut a), 1), Ok(()));
            assert_eq!(potri(&c, b'L', 0, raw(&mut a), 1), Ok(()));
            assert!(a.iter().all(|&x| x == pad), "a rejected or empty call touches nothing");
            let mut w1 = [pad];
            assert_eq!(getri(&c, 0, raw(&mut a), 1, raw(&mut ipiv), raw(&mut w1), 1), Ok(()));
            let mut w0 = [pad];
            assert_eq!(forward::getri(0, raw(&mut a), 1, raw(&mut ipiv), raw(&mut w0), 1), 0);
            assert_eq!(w1, w0, "WORK(1) of N = 0 as the backend's");
            // On tiles with an emulated device taking half the columns: within rounding of the
            // backend, as on the host.
            {
                let mut dev = host(nb);
                (dev.emulate_gpus, dev.device_force, dev.host_share) = (1, true, Some(0.5));
                let a0 = triangular::<T>(n, ld, 5, pad);
                let (mut a, mut want) = (a0.clone(), a0.clone());
                assert_eq!(forward::trtri(b'U', b'N', ni, raw(&mut want), ld as i32), 0);
                assert_eq!(trtri(&dev, b'U', b'N', ni, raw(&mut a), ld as i32), Ok(()));
                assert_eq!(crate::api::last_path(), "tiles");
                assert!(rel(&a, &want) <= tol::<T>(n), "trtri on a device");
                let f = factor(b'L', n, &hpd::<T>(n, ld, 9, pad), ld);
                let (mut a, mut want) = (f.clone(), f.clone());
                assert_eq!(forward::potri(b'L', ni, raw(&mut want), ld as i32), 0);
                assert_eq!(potri(&dev, b'L', ni, raw(&mut a), ld as i32), Ok(()));
                assert_eq!(crate::api::last_path(), "tiles");
                assert!(rel(&a, &want) <= tol::<T>(n), "potri on a device");
                let (f, mut ipiv, _) = tu::reference_getrf(n, n, &a0, ld);
                let (mut a, mut w) = (f.clone(), vec![T::zero(); 64 * n]);
                let (mut want, mut ww) = (f.clone(), vec![T::zero(); 64 * n]);
                assert_eq!(
                    forward::getri(ni, raw(&mut want), ld as i32, raw(&mut ipiv), raw(&mut ww), 64 * ni),
                    0
                );
                assert_eq!(
                    getri(&dev, ni, raw(&mut a), ld as i32, raw(&mut ipiv), raw(&mut w), 64 * ni),
                    Ok(())
                );
                assert_eq!(crate::api::last_path(), "tiles");
                assert!(rel(&a, &want) <= tol::<T>(n), "getri on a device");
            }
        }

        #[test]
        fn singular_info_argument_errors_quick_returns_in_every_type() {
            edges::<f32>();
            edges::<f64>();
            edges::<c32>();
            edges::<c64>();
        }

        /// The n×n matrix `a` (leading dimension ld) as a real matrix of twice the order for a
        /// complex type ([[Re, −Im], [Im, Re]], whose products are the complex products), itself
        /// for a real one; `entry(i, j)` gives each entry (`None`: zero).
        fn real_form<T: Scalar>(n: usize, entry: &dyn Fn(usize, usize) -> Option<T>) -> Vec<f64> {
            let m = if T::COMPLEX { 2 * n } else { n };
            let mut r = vec![0.0; m * m];
            for j in 0..n {
                for i in 0..n {
                    let (re, im) = entry(i, j).map_or((0.0, 0.0), parts);
                    r[i + j * m] = re;
                    if T::COMPLEX {
                        r[i + n + (j + n) * m] = re;
                        r[i + n + j * m] = im;
                        r[i + (j + n) * m] = -im;
                    }
                }
            }
            r
        }

        /// ‖X·Y − I‖₁ of the real forms, formed in twice the working precision.
        fn residual(m: usize, x: &[f64], y: &[f64]) -> f64 {
            tu::norm1(m, &tu::inverse_residual(m, x, y, None))
        }

        /// `call` on a copy of `a` by each of the two references the accuracy harness holds hetla
        /// to (`crate::accuracy`): the backend on one BLAS thread (pinned: the other tests change
        /// OpenBLAS's thread count while they run, and its rounding with it; against the backend
        /// alone, on whatever threads it had, this test passed alone and failed once in a full
        /// run, the single POTRI's ‖A·X − I‖ 2.7e-5 against the backend's 1.2e-5 in two seeds of
        /// three) and netlib's LAPACK.
        fn by_references<T: Scalar>(a: &[T], call: impl Fn(&mut [T]) -> i32) -> [Vec<T>; 2] {
            let netlib = crate::backend::reference::Netlib::open().unwrap_or_else(|e| panic!("{e}"));
            let run = || {
                let mut x = a.to_vec();
                assert_eq!(call(&mut x), 0);
                x
            };
            let backend = {
                let _one = crate::backend::BlasThreadsGuard::new();
                run()
            };
            [backend, crate::backend::reference::with(netlib, run)]
        }

        /// The larger of measure `r` over the references' inverses `xb` (real forms).
        fn worst(xb: &[Vec<f64>], r: impl Fn(&[f64]) -> f64) -> f64 {
            xb.iter().map(|b| r(b)).fold(0.0, f64::max)
        }

        /// ‖X·T − I‖ and ‖T·X − I‖ of hetla's inverse and of the references', for triangles that
        /// tell a careful inverse from a careless one (LU's U and unit L, graded rows and
        /// columns, graded unit L), and ‖X·A − I‖, ‖A·X − I‖ for POTRI (graded HPD) and GETRI
        /// (random and graded): within twice the larger of the two references' measures
        /// ([`by_references`]), median over three seeds.
        fn parity<T: OpElem>() {
            let (n, nb) = (96usize, 8usize);
            let m = if T::COMPLEX { 2 * n } else { n };
            let single = T::eps() > 1e-10;
            let grade = |e: f64, x: f64| e.powf(x / n as f64);
            let g = if single { 1e-3 } else { 1e-8 };
            let mut p = Parity::default();
            for seed in 1..=3u64 {
                let mut rng = Rng::new(40 + seed);
                let r = rand::<T>(&mut rng, n, n, n, T::zero());
                let (f, _, info) = tu::reference_getrf(n, n, &r, n);
                assert_eq!(info, 0);
                let graded = |w: &dyn Fn(usize, usize) -> f64| -> Vec<T> {
                    (0..n * n)
                        .map(|x| {
                            let (re, im) = parts(f[x]);
                            let s = w(x % n, x / n);
                            T::from_parts(re * s, im * s)
                        })
                        .collect()
                };
                let tris: Vec<(&str, u8, u8, Vec<T>)> = vec![
                    ("LU's U", b'U', b'N', f.clone()),
                    ("LU's unit L", b'L', b'U', f.clone()),
                    ("U, graded rows", b'U', b'N', graded(&|i, _| grade(g, i as f64))),
                    ("U, graded columns", b'U', b'N', graded(&|_, j| grade(g, j as f64))),
                    ("graded unit L", b'L', b'U', graded(&|i, j| grade(g.sqrt(), j as f64 - i as f64))),
                ];
                for (name, uplo, diag, a) in tris {
                    let ul = uplo_of(uplo);
                    let wants = by_references(&a, |w| forward::trtri(uplo, diag, n as i32, raw(w), n as i32));
                    let mut x = a.clone();
                    assert_eq!(trtri(&host(nb), uplo, diag, n as i32, raw(&mut x), n as i32), Ok(()));
                    let tri = |v: &[T]| {
                        let v = v.to_vec();
                        real_form::<T>(n, &move |i, j| {
                            if i == j && diag == b'U' {
                                Some(T::one())
                            } else if inside(ul, i, j) {
                                Some(v[i + j * n])
                            } else {
                                None
                            }
                        })
                    };
                    let (t, xh) = (tri(&a), tri(&x));
                    let xb: Vec<Vec<f64>> = wants.iter().map(|w| tri(w)).collect();
                    p.add(
                        format!("trtri {name}: ‖X·T − I‖"),
                        residual(m, &xh, &t),
                        worst(&xb, |b| residual(m, b, &t)),
                    );
                    p.add(
                        format!("trtri {name}: ‖T·X − I‖"),
                        residual(m, &t, &xh),
                        worst(&xb, |b| residual(m, &t, b)),
                    );
                }
                // POTRI on a graded HPD matrix D·(B·Bᴴ/n + I)·D.
                let h = hpd::<T>(n, n, 60 + seed, T::zero());
                let d = |i: usize| grade(if single { 1e-2 } else { 1e-4 }, i as f64);
                let a: Vec<T> = (0..n * n)
                    .map(|x| {
                        let (re, im) = parts(h[x]);
                        let s = d(x % n) * d(x / n);
                        T::from_parts(re * s, im * s)
                    })
                    .collect();
                for uplo in [b'L', b'U'] {
                    let ul = uplo_of(uplo);
                    let fa = factor(uplo, n, &a, n);
                    let mut x = fa.clone();
                    let wants = by_references(&fa, |w| forward::potri(uplo, n as i32, raw(w), n as i32));
                    assert_eq!(potri(&host(nb), uplo, n as i32, raw(&mut x), n as i32), Ok(()));
                    let full = |v: &[T]| {
                        let v = v.to_vec();
                        real_form::<T>(n, &move |i, j| {
                            Some(if inside(ul, i, j) { v[i + j * n] } else { v[j + i * n].conj() })
                        })
                    };
                    let af = {
                        let a = a.clone();
                        real_form::<T>(n, &move |i, j| Some(a[i + j * n]))
                    };
                    let xh = full(&x);
                    let xb: Vec<Vec<f64>> = wants.iter().map(|w| full(w)).collect();
                    p.add(
                        format!("potri {}: ‖X·A − I‖", uplo as char),
                        residual(m, &xh, &af),
                        worst(&xb, |b| residual(m, b, &af)),
                    );
                    p.add(
                        format!("potri {}: ‖A·X − I‖", uplo as char),
                        residual(m, &af, &xh),
                        worst(&xb, |b| residual(m, &af, b)),
                    );
                }
                // GETRI on a random and a graded matrix.
                let gr = if single { 1e-2 } else { 1e-4 };
                let gm: Vec<T> = (0..n * n)
                    .map(|x| {
                        let (re, im) = parts(r[x]);
                        let s = grade(gr, (x % n) as f64) * grade(gr, (x / n) as f64);
                        T::from_parts(re * s, im * s)
                    })
                    .collect();
                for (name, a) in [("random", r.clone()), ("graded", gm)] {
                    let (f, ipiv2, info) = tu::reference_getrf(n, n, &a, n);
                    assert_eq!(info, 0);
                    let (mut x, mut p1) = (f.clone(), ipiv2.clone());
                    let mut w1 = vec![T::zero(); 64 * n];
                    let l = (64 * n) as i32;
                    let wants = by_references(&f, |w| {
                        let (mut p2, mut w2) = (ipiv2.clone(), vec![T::zero(); 64 * n]);
                        forward::getri(n as i32, raw(w), n as i32, raw(&mut p2), raw(&mut w2), l)
                    });
                    assert_eq!(
                        getri(&host(nb), n as i32, raw(&mut x), n as i32, raw(&mut p1), raw(&mut w1), l),
                        Ok(())
                    );
                    let dense = |v: &[T]| {
                        let v = v.to_vec();
                        real_form::<T>(n, &move |i, j| Some(v[i + j * n]))
                    };
                    let (af, xh) = (dense(&a), dense(&x));
                    let xb: Vec<Vec<f64>> = wants.iter().map(|w| dense(w)).collect();
                    p.add(
                        format!("getri {name}: ‖X·A − I‖"),
                        residual(m, &xh, &af),
                        worst(&xb, |b| residual(m, b, &af)),
                    );
                    p.add(
                        format!("getri {name}: ‖A·X − I‖"),
                        residual(m, &af, &xh),
                        worst(&xb, |b| residual(m, &af, b)),
                    );
                }
            }
            p.check();
        }

        #[test]
        fn residuals_within_twice_the_backends_in_every_type() {
            parity::<f32>();
            parity::<c32>();
            parity::<c64>();
        }
    }
}
