//! xGEQRF (Householder QR in LAPACK's format) in the four types (S, D, C, Z), with LAPACK 3.11's
//! checks and workspace rules. The complex types' reflectors are ZGEQRF's (H = I − tau·v·vᴴ, tau
//! complex, ZLARFG's conventions); WORK(1) of a complex call is its real part.
//!
//! LAPACK 3.11 checks M, N, LDA, then LWORK: LWORK ≤ 0, or LWORK < max(1, N) when M > 0, is
//! error 7 (an M = 0 call needs only LWORK ≥ 1). A workspace query (LWORK = −1) returns N·NB in
//! WORK(1), NB from ILAENV, or 1 when min(M, N) = 0; a call with min(M, N) = 0 returns at once
//! with WORK(1) = 1. On exit WORK(1) holds what LAPACK's blocked code would have used: N·NB when
//! it runs blocked (1 < NB < K and the ILAENV crossover below K), N otherwise. A rejected call
//! leaves WORK(1) as LAPACK 3.12 does (it stores N·NB, or 1 when min(M, N) = 0, before checking;
//! 3.11 leaves WORK alone), so a caller reading WORK(1) after an error never reads garbage.
//!
//! The tile path (`algo::geqrf`) allocates its T factors itself, so it needs nothing from WORK
//! beyond LAPACK's minimum and leaves it untouched apart from WORK(1).

use super::{check_args, forward_reason, learns, run_factorization_on_devices, tune, Path, Report};
use crate::algo;
use crate::backend::forward;
use crate::config::Config;
use crate::device::{Factor, Work};
use crate::error::Error;
use crate::graph::op::OpElem;
use crate::runtime::alloc::UpdateShape;
use crate::scalar::{self, Scalar};
use crate::tile::{span, Part, Raw};

/// The routine's name as LAPACK's ILAENV and XERBLA spell it (`"ZGEQRF"`).
fn upper<T: Scalar>() -> String {
    scalar::name::<T>("geqrf").to_ascii_uppercase()
}

/// LAPACK's block size for xGEQRF on an m×n matrix, from the backend's ILAENV.
fn lapack_nb<T: Scalar>(m: i32, n: i32) -> i32 {
    forward::ilaenv(1, &upper::<T>(), m, n, -1, -1)
}

/// The WORK(1) that LAPACK 3.11's DGEQRF leaves on a successful return with min(m, n) > 0.
fn lapack_final_work<T: Scalar>(m: i32, n: i32) -> i32 {
    let k = m.min(n);
    let nb = lapack_nb::<T>(m, n);
    let nx = forward::ilaenv(3, &upper::<T>(), m, n, -1, -1).max(0);
    if nb > 1 && nb < k && nx < k {
        n * nb
    } else {
        n
    }
}

/// The WORK(1) that LAPACK 3.12's DGEQRF leaves after rejecting an argument: it stores its
/// optimal LWORK before checking (N·NB, or 1 when min(M, N) = 0, whatever the arguments).
fn lapack_3_12_error_work<T: Scalar>(m: i32, n: i32) -> i32 {
    if m.min(n) == 0 {
        1
    } else {
        n.saturating_mul(lapack_nb::<T>(m, n))
    }
}

/// The integer `x` as WORK(1) holds it (in the real part for complex types).
fn work1<T: Scalar>(x: i32) -> T {
    T::from_f64(x as f64)
}

/// DGEQRF: [`geqrf`] in f64.
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
    geqrf(cfg, m, n, a, lda, tau, work, lwork)
}

/// SGEQRF, DGEQRF, CGEQRF, ZGEQRF: A = Q·R with Q's Householder vectors below the diagonal and
/// their scalars in `tau`. One generator for the four types (`algo::geqrf`), on the host's tiles
/// and the process's devices, or whole on a device's solver.
#[allow(clippy::too_many_arguments)]
pub fn geqrf<T: OpElem>(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<T>,
    lda: i32,
    tau: Raw<T>,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("geqrf");
    let query = lwork == -1;
    if let Err(e) = check_args(&[
        (m < 0, 1),
        (n < 0, 2),
        (lda < m.max(1), 4),
        (!query && (lwork <= 0 || (m > 0 && lwork < n.max(1))), 7),
    ]) {
        // WORK has at least one element (its documented size is max(1, LWORK)).
        work.set(0, work1(lapack_3_12_error_work::<T>(m, n)));
        return Err(e);
    }
    let k = m.min(n);
    if query {
        let opt = if k == 0 { 1 } else { n * lapack_nb::<T>(m, n) };
        work.set(0, work1(opt));
        return Ok(());
    }
    if k == 0 {
        work.set(0, T::one());
        return Ok(());
    }
    if learns(cfg, name, k as usize) {
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let (mut ac, mut tc) = (a.snapshot(span(mu, nu, lda as usize)), tau.snapshot(ku));
        let mut wc = work.snapshot(lwork as usize);
        tune::trials(cfg, name, ku, &mut || {
            geqrf(cfg, m, n, ac.fresh(), lda, tc.fresh(), wc.fresh(), lwork).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    // Householder QR: 2·m·n·k − 2k³/3 with k = min(m, n) (LAPACK working note 41).
    let flops = (2.0 * mf * nf * kf - 2.0 * kf * kf * kf / 3.0) * T::FLOPS;
    if let Some(why) = forward_reason(cfg, name, k as usize) {
        // A legacy LWORK = N would send the backend to its unblocked code: it gets the workspace
        // its query asks for instead (the arguments are valid here).
        let call = |w: Raw<T>, l: i32| forward::geqrf(m, n, a, lda, tau, w, l);
        let (_, used) = super::workspace::with_workspace(
            cfg,
            name,
            true,
            work,
            lwork,
            || super::workspace::query_with(call),
            call,
        );
        let why = super::workspace::grown(why, lwork, used);
        rep.finish(name, format_args!("m={m} n={n}"), Path::Forward, Some(&why), flops);
        return Ok(());
    }
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    // SAFETY: A is the caller's m×n array with leading dimension lda (checked) and TAU its
    // min(m, n) scalars, which LAPACK's contract gives this call alone.
    let whole = unsafe {
        super::solve_whole(cfg, Factor::Geqrf, (mu, nu, lda as usize), a.ptr(), tau.ptr() as *mut u8)
    };
    if let Some(r) = whole {
        work.set(0, work1(lapack_final_work::<T>(m, n)));
        rep.finish(name, format_args!("m={m} n={n}"), Path::Solver, None, flops);
        return r;
    }
    let nb = cfg.nb_for(name, n as usize);
    let (a, tau) = (a.matrix(mu, nu, lda as usize), tau.matrix(ku, 1, ku));
    let bytes = (std::mem::size_of::<T>() * mu * nu) as f64;
    let cost = Work { flops, bytes, cols: nu };
    let r = run_factorization_on_devices(cfg, name, nb, cost, UpdateShape::Columns, |seq, p| {
        let store = crate::runtime::shared::Buffers::default();
        let t = a.tiled_parts(p, p);
        seq.allocate(&t);
        algo::geqrf::geqrf(seq, &t, Some(&tau.tiled_parts(p, Part::uniform(1))), &store);
        // The T factors must outlive the sequence: returned, kept until it has drained.
        store
    });
    work.set(0, work1(lapack_final_work::<T>(m, n)));
    rep.finish(name, format_args!("m={m} n={n} nb={nb}"), Path::Tiles, None, flops);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;

    fn tiles_cfg(nb: usize) -> Config {
        let mut c = with_test_devices(Config::with_threads(3));
        c.min_n = Some(0);
        c.nb = Some(nb);
        c
    }

    /// The backend's DGEQRF with the same arguments: (INFO, WORK(1)).
    #[allow(clippy::too_many_arguments)]
    fn backend(
        m: i32,
        n: i32,
        a: &mut [f64],
        lda: i32,
        tau: &mut [f64],
        work: &mut [f64],
        lwork: i32,
    ) -> i32 {
        // SAFETY: the test's arrays are as large as the arguments say.
        let (a, tau, work) =
            unsafe { (Raw::new(a.as_mut_ptr()), Raw::new(tau.as_mut_ptr()), Raw::new(work.as_mut_ptr())) };
        forward::dgeqrf(m, n, a, lda, tau, work, lwork)
    }

    #[allow(clippy::too_many_arguments)]
    fn ours(
        cfg: &Config,
        m: i32,
        n: i32,
        a: &mut [f64],
        lda: i32,
        tau: &mut [f64],
        work: &mut [f64],
        lwork: i32,
    ) -> i32 {
        // SAFETY: as above.
        let (a, tau, work) =
            unsafe { (Raw::new(a.as_mut_ptr()), Raw::new(tau.as_mut_ptr()), Raw::new(work.as_mut_ptr())) };
        crate::error::info_of(&dgeqrf(cfg, m, n, a, lda, tau, work, lwork))
    }

    #[test]
    fn tile_path_matches_the_backend_and_sets_work1_like_lapack() {
        let cfg = tiles_cfg(6);
        for &(m, n) in &[(1, 1), (31, 31), (40, 19), (19, 40), (150, 140), (140, 150)] {
            let lda = m + 2;
            let k = m.min(n) as usize;
            let a0 = Rng::new(m as u64 * 7 + n as u64).matrix(m as usize, n as usize, lda as usize);
            let (mut a, mut r) = (a0.clone(), a0.clone());
            let (mut tau, mut rtau) = (vec![GUARD; k + 2], vec![GUARD; k + 2]);
            let lwork = n.max(1);
            let (mut w, mut rw) = (vec![GUARD; lwork as usize], vec![0.0; (n * 64) as usize]);
            assert_eq!(ours(&cfg, m, n, &mut a, lda, &mut tau, &mut w, lwork), 0);
            // The backend gets ample workspace, so WORK(1) reports its blocked workspace.
            assert_eq!(backend(m, n, &mut r, lda, &mut rtau, &mut rw, n * 64), 0);
            assert_eq!(w[0], rw[0], "WORK(1) for m {m} n {n}");
            // The minimal LWORK is enough: nothing beyond WORK(1) is used.
            assert!(w[1..].iter().all(|&x| x == GUARD));
            assert!(tau[k..].iter().all(|&x| x == GUARD));
            assert_untouched_outside(&a0, &a, m as usize, n as usize, lda as usize, None);
            let (mu, nu, ld) = (m as usize, n as usize, lda as usize);
            let tol = 10.0 * mu.max(nu) as f64 * eps();
            for j in 0..nu {
                for i in 0..mu {
                    let d = (a[i + j * ld] - r[i + j * ld]).abs();
                    assert!(d < tol, "m {m} n {n}: A({i},{j}) differs by {d}");
                }
            }
            for i in 0..k {
                assert!((tau[i] - rtau[i]).abs() < tol, "tau[{i}]");
            }
            let (res, orth) = qr_residuals(mu, nu, &a0, &a, ld, &tau[..k]);
            assert!(res < 10.0 && orth < 10.0, "m {m} n {n}: residuals {res} {orth}");
        }
    }

    #[test]
    fn workspace_query_and_quick_return_match_the_backend() {
        let cfg = tiles_cfg(4);
        for &(m, n) in &[(0, 5), (5, 0), (0, 0), (3, 4), (200, 300), (300, 200), (129, 129)] {
            let lda = m.max(1);
            let mut a = vec![GUARD; (lda * n.max(1)) as usize];
            let mut tau = vec![GUARD; 1];
            let (mut w, mut rw) = (vec![GUARD; 2], vec![GUARD; 2]);
            assert_eq!(ours(&cfg, m, n, &mut a, lda, &mut tau, &mut w, -1), 0);
            assert_eq!(backend(m, n, &mut a.clone(), lda, &mut tau.clone(), &mut rw, -1), 0);
            assert_eq!(w[0], rw[0], "query for m {m} n {n}");
            assert!(a.iter().all(|&x| x == GUARD) && tau[0] == GUARD, "a query touched A or tau");
            if m.min(n) == 0 {
                // Quick return: minimal LWORK (1 when M = 0), WORK(1) = 1, nothing else touched.
                let lwork = if m == 0 { 1 } else { n.max(1) };
                let mut w = vec![GUARD; lwork as usize];
                assert_eq!(ours(&cfg, m, n, &mut a, lda, &mut tau, &mut w, lwork), 0);
                assert_eq!(w[0], 1.0);
                assert!(a.iter().all(|&x| x == GUARD) && tau[0] == GUARD);
            }
        }
    }

    #[test]
    fn argument_errors_match_lapack() {
        let cfg = tiles_cfg(4);
        // DERRQR's cases, then the LWORK rules' corners (M = 0 needs LWORK ≥ 1 only).
        let cases: &[(i32, i32, i32, i32)] = &[
            (-1, 0, 1, 1),
            (0, -1, 1, 1),
            (2, 1, 1, 1),
            (1, 2, 1, 1),
            (0, 5, 0, 1),
            (3, 4, 2, -1),
            (3, 4, 3, 0),
            (3, 4, 3, 3),
            (0, 5, 1, 0),
            (5, 0, 5, 0),
            (0, 5, 1, 1),
        ];
        for &(m, n, lda, lwork) in cases {
            let mut a = vec![0.5; 64];
            let mut tau = vec![0.0; 8];
            let (mut w, mut rw) = (vec![GUARD; 8], vec![GUARD; 8]);
            let want = backend(m, n, &mut a.clone(), lda, &mut tau.clone(), &mut rw, lwork);
            let got = ours(&cfg, m, n, &mut a, lda, &mut tau, &mut w, lwork);
            assert_eq!(got, want, "m {m} n {n} lda {lda} lwork {lwork}");
            if got < 0 {
                // Rejected: WORK(1) as LAPACK 3.12 leaves it (the installed 3.11 leaves it alone).
                let nb = lapack_nb::<f64>(m, n);
                let opt = if m.min(n) == 0 { 1 } else { n * nb };
                assert_eq!(w[0], opt as f64, "WORK(1) after error {got} for m {m} n {n}");
            } else {
                assert_eq!(w[0], rw[0], "WORK(1) for m {m} n {n} lda {lda} lwork {lwork}");
            }
        }
    }

    #[test]
    fn forwarded_calls_still_work() {
        // Default min_n forwards a small call; the result is the backend's own.
        let cfg = Config::with_threads(2);
        let (m, n) = (12, 9);
        let a0 = Rng::new(1).matrix(m, n, m);
        let (mut a, mut r) = (a0.clone(), a0.clone());
        let (mut tau, mut rtau) = (vec![0.0; n], vec![0.0; n]);
        let (mut w, mut rw) = (vec![0.0; n * 64], vec![0.0; n * 64]);
        let lw = (n * 64) as i32;
        assert_eq!(ours(&cfg, m as i32, n as i32, &mut a, m as i32, &mut tau, &mut w, lw), 0);
        assert_eq!(backend(m as i32, n as i32, &mut r, m as i32, &mut rtau, &mut rw, lw), 0);
        assert_eq!(a, r);
        assert_eq!(tau, rtau);
    }

    #[test]
    fn entries_on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            tile_path_matches_the_backend_and_sets_work1_like_lapack();
            workspace_query_and_quick_return_match_the_backend();
            argument_errors_match_lapack();
            forwarded_calls_still_work();
        });
    }
}

/// xGEQRF in the four types through the generic entry, against the backend's routine.
#[cfg(test)]
mod typed_tests {
    use super::*;
    use crate::algo::testutil::{rand, raw, rel, same_outside, Rng};
    use crate::error::info_of;
    use crate::scalar::{c32, c64};

    fn host(nb: usize) -> Config {
        let mut c = Config::with_threads(3);
        c.min_n = Some(0);
        c.nb = Some(nb);
        c
    }

    /// ‖A − Q·R‖_F / ‖A‖_F of the factorization `f` (R above the diagonal, reflectors below,
    /// `tau`) of `a0`, Q applied by the backend's xORMQR/xUNMQR.
    pub(crate) fn qr_backward<T: Scalar>(m: usize, n: usize, a0: &[T], f: &[T], ld: usize, tau: &[T]) -> f64 {
        let k = m.min(n);
        let mut r = vec![T::zero(); m.max(1) * n];
        for j in 0..n {
            for i in 0..=j.min(m - 1) {
                r[i + j * m] = f[i + j * ld];
            }
        }
        let (mut fc, mut tc) = (f.to_vec(), tau.to_vec());
        let mut w = vec![T::zero(); 64 * n.max(1)];
        let (mi, ni, ki, ldi) = (m as i32, n as i32, k as i32, ld as i32);
        let lw = w.len() as i32;
        let info = forward::ormqr(
            b'L',
            b'N',
            mi,
            ni,
            ki,
            raw(&mut fc),
            ldi,
            raw(&mut tc),
            raw(&mut r),
            mi,
            raw(&mut w),
            lw,
        );
        assert_eq!(info, 0);
        let a: Vec<T> =
            (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).map(|(i, j)| a0[i + j * ld]).collect();
        rel(&r, &a)
    }

    /// Tiles not dividing the matrix and of order 1, wide and tall: A and tau within a few
    /// n·ε of the backend's, ‖A − QR‖ as small as the backend's, WORK(1) as LAPACK leaves it,
    /// nothing written outside A, tau's K entries or WORK(1), the same bits on a second call;
    /// workspace queries, quick returns and argument errors (in LAPACK's order) as the
    /// backend's.
    fn geqrf_entries<T: OpElem>() {
        let _blas = crate::backend::BlasThreadsGuard::new();
        let name = std::any::type_name::<T>();
        let pad = T::from_parts(-321.25, 4.5);
        for (m, n, nb) in
            [(45usize, 30usize, 8usize), (30, 45, 7), (23, 23, 3), (10, 7, 1), (1, 1, 1), (67, 9, 4)]
        {
            let what = format!("{name} m {m} n {n} nb {nb}");
            let lda = m + 3;
            let k = m.min(n);
            let (mi, ni, li) = (m as i32, n as i32, lda as i32);
            let a0 = rand::<T>(&mut Rng::new((m * 13 + n) as u64), m, n, lda, pad);
            let (mut fa, mut ft) = (a0.clone(), vec![pad; k + 2]);
            let mut fw = vec![T::zero(); 64 * n];
            assert_eq!(forward::geqrf(mi, ni, raw(&mut fa), li, raw(&mut ft), raw(&mut fw), 64 * ni), 0);
            let mut runs = Vec::new();
            for _ in 0..2 {
                let (mut a, mut tau, mut w) = (a0.clone(), vec![pad; k + 2], vec![pad; n + 2]);
                let r = geqrf(&host(nb), mi, ni, raw(&mut a), li, raw(&mut tau), raw(&mut w), ni);
                assert_eq!(r, Ok(()), "{what}");
                assert_eq!(crate::api::last_path(), "tiles");
                assert_eq!(w[0], fw[0], "{what}: WORK(1)");
                assert!(w[1..] == vec![pad; n + 1][..], "{what}: WORK past its first element written");
                runs.push((a, tau));
            }
            assert!(runs[0] == runs[1], "{what}: the bits differ between two calls");
            let (a, tau) = &runs[0];
            let tol = 20.0 * m.max(n) as f64 * T::eps();
            assert!(rel(a, &fa) <= tol, "{what}: A differs from the backend's by {}", rel(a, &fa));
            assert!(rel(&tau[..k], &ft[..k]) <= tol, "{what}: tau differs by {}", rel(&tau[..k], &ft[..k]));
            assert!(tau[k..] == [pad, pad], "{what}: tau written past K");
            assert!(same_outside(&a0, a, m, n, lda, None), "{what}: written outside A");
            let (ours, theirs) = (qr_backward(m, n, &a0, a, lda, tau), qr_backward(m, n, &a0, &fa, lda, &ft));
            assert!(
                ours <= 10.0 * theirs.max(T::eps()),
                "{what}: ‖A − QR‖ {ours} against the backend's {theirs}"
            );
            if T::COMPLEX {
                assert!(tau[..k].iter().any(|t| t.im() != T::Real::zero()), "{what}: real tau only");
            }
        }
        // Queries, quick returns and argument errors as the backend's.
        let cases: &[(i32, i32, i32, i32)] = &[
            (-1, 0, 1, 1),
            (0, -1, 1, 1),
            (2, 1, 1, 1),
            (1, 2, 1, 1),
            (3, 4, 3, 3),
            (0, 5, 1, 0),
            (0, 5, 1, 1),
            (5, 0, 5, 1),
            (300, 200, 300, -1),
            (3, 4, 3, -1),
            (0, 0, 1, -1),
        ];
        for &(m, n, lda, lwork) in cases {
            let what = format!("{name} m {m} n {n} lda {lda} lwork {lwork}");
            let len = (lda.max(1) * n.max(1)) as usize;
            let (mut a, mut tau, mut w) = (vec![pad; len], vec![pad; 2], vec![pad; 2]);
            let (mut ra, mut rt, mut rw) = (a.clone(), tau.clone(), w.clone());
            let want = forward::geqrf(m, n, raw(&mut ra), lda, raw(&mut rt), raw(&mut rw), lwork);
            let got = info_of(&geqrf(&host(4), m, n, raw(&mut a), lda, raw(&mut tau), raw(&mut w), lwork));
            assert_eq!(got, want, "{what}: INFO");
            assert!(a == ra && tau == rt, "{what}: A or tau touched");
            if want == 0 {
                assert_eq!(w[0], rw[0], "{what}: WORK(1)");
            }
        }
    }

    #[test]
    fn geqrf_in_every_type_matches_the_backend() {
        geqrf_entries::<f32>();
        geqrf_entries::<f64>();
        geqrf_entries::<c32>();
        geqrf_entries::<c64>();
    }

    /// Every type runs on tiles beside a device, half the columns on it: R and the reflectors
    /// within rounding of the backend's, as on the host.
    #[test]
    fn every_type_on_tiles_beside_a_device() {
        fn run<T: OpElem>(cfg: &Config) {
            let (m, n) = (41usize, 29usize);
            let a0 = rand::<T>(&mut Rng::new(3), m, n, m, T::zero());
            let (mut a, mut tau, mut w) = (a0.clone(), vec![T::zero(); n], vec![T::zero(); n]);
            geqrf(cfg, m as i32, n as i32, raw(&mut a), m as i32, raw(&mut tau), raw(&mut w), n as i32)
                .unwrap();
            assert_eq!(crate::api::last_path(), "tiles");
            let (mut ra, mut rtau) = (a0.clone(), vec![T::zero(); n]);
            let mut q = vec![T::zero(); 1];
            forward::geqrf(m as i32, n as i32, raw(&mut ra), m as i32, raw(&mut rtau), raw(&mut q), -1);
            let lw = q[0].re().into() as usize;
            let mut rw = vec![T::zero(); lw.max(1)];
            forward::geqrf(
                m as i32,
                n as i32,
                raw(&mut ra),
                m as i32,
                raw(&mut rtau),
                raw(&mut rw),
                lw as i32,
            );
            let tol = 50.0 * T::eps() * m as f64;
            assert!(rel(&a, &ra) <= tol, "{}: {}", std::any::type_name::<T>(), rel(&a, &ra));
            assert!(rel(&tau, &rtau) <= tol, "{}: tau {}", std::any::type_name::<T>(), rel(&tau, &rtau));
        }
        let mut cfg = host(4);
        (cfg.emulate_gpus, cfg.device_force, cfg.host_share) = (1, true, Some(0.5));
        run::<f32>(&cfg);
        run::<c32>(&cfg);
        run::<c64>(&cfg);
    }
}
