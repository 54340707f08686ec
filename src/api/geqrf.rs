//! DGEQRF (Householder QR in LAPACK's format), with LAPACK 3.11's checks and workspace rules.
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
use crate::runtime::alloc::UpdateShape;
use crate::tile::{span, Part, Raw};

/// LAPACK's block size for DGEQRF on an m×n matrix, from the backend's ILAENV.
fn lapack_nb(m: i32, n: i32) -> i32 {
    forward::ilaenv(1, "DGEQRF", m, n, -1, -1)
}

/// The WORK(1) that LAPACK 3.11's DGEQRF leaves on a successful return with min(m, n) > 0.
fn lapack_final_work(m: i32, n: i32) -> i32 {
    let k = m.min(n);
    let nb = lapack_nb(m, n);
    let nx = forward::ilaenv(3, "DGEQRF", m, n, -1, -1).max(0);
    if nb > 1 && nb < k && nx < k {
        n * nb
    } else {
        n
    }
}

/// The WORK(1) that LAPACK 3.12's DGEQRF leaves after rejecting an argument: it stores its
/// optimal LWORK before checking (N·NB, or 1 when min(M, N) = 0, whatever the arguments).
fn lapack_3_12_error_work(m: i32, n: i32) -> i32 {
    if m.min(n) == 0 {
        1
    } else {
        n.saturating_mul(lapack_nb(m, n))
    }
}

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
    if let Err(e) = check_args(&[
        (m < 0, 1),
        (n < 0, 2),
        (lda < m.max(1), 4),
        (!query && (lwork <= 0 || (m > 0 && lwork < n.max(1))), 7),
    ]) {
        // WORK has at least one element (its documented size is max(1, LWORK)).
        work.set(0, lapack_3_12_error_work(m, n) as f64);
        return Err(e);
    }
    let k = m.min(n);
    if query {
        let opt = if k == 0 { 1 } else { n * lapack_nb(m, n) };
        work.set(0, opt as f64);
        return Ok(());
    }
    if k == 0 {
        work.set(0, 1.0);
        return Ok(());
    }
    if learns(cfg, "dgeqrf", k as usize) {
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let (mut ac, mut tc) = (a.snapshot(span(mu, nu, lda as usize)), tau.snapshot(ku));
        let mut wc = work.snapshot(lwork as usize);
        tune::trials(cfg, "dgeqrf", ku, &mut || {
            dgeqrf(cfg, m, n, ac.fresh(), lda, tc.fresh(), wc.fresh(), lwork).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    // Householder QR: 2·m·n·k − 2k³/3 with k = min(m, n) (LAPACK working note 41).
    let flops = 2.0 * mf * nf * kf - 2.0 * kf * kf * kf / 3.0;
    if let Some(why) = forward_reason(cfg, "dgeqrf", k as usize) {
        // A legacy LWORK = N would send the backend to its unblocked code: it gets the workspace
        // its query asks for instead (the arguments are valid here).
        let call = |w: Raw<f64>, l: i32| forward::dgeqrf(m, n, a, lda, tau, w, l);
        let (_, used) = super::workspace::with_workspace(
            cfg,
            "dgeqrf",
            true,
            work,
            lwork,
            || super::workspace::query_with(call),
            call,
        );
        let why = super::workspace::grown(why, lwork, used);
        rep.finish("dgeqrf", format_args!("m={m} n={n}"), Path::Forward, Some(&why), flops);
        return Ok(());
    }
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    // SAFETY: A is the caller's m×n array with leading dimension lda (checked) and TAU its
    // min(m, n) scalars, which LAPACK's contract gives this call alone.
    let whole = unsafe {
        super::solve_whole(cfg, Factor::Geqrf, (mu, nu, lda as usize), a.ptr(), tau.ptr() as *mut u8)
    };
    if let Some(r) = whole {
        work.set(0, lapack_final_work(m, n) as f64);
        rep.finish("dgeqrf", format_args!("m={m} n={n}"), Path::Solver, None, flops);
        return r;
    }
    let nb = cfg.nb_for("dgeqrf", n as usize);
    let (a, tau) = (a.matrix(mu, nu, lda as usize), tau.matrix(ku, 1, ku));
    let cost = Work { flops, bytes: 8.0 * (mu * nu) as f64, cols: nu };
    let r = run_factorization_on_devices(cfg, "dgeqrf", nb, cost, UpdateShape::Columns, |seq, p| {
        let store = crate::runtime::shared::Buffers::default();
        let t = a.tiled_parts(p, p);
        seq.allocate(&t);
        algo::geqrf::geqrf(seq, &t, Some(&tau.tiled_parts(p, Part::uniform(1))), &store);
        // The T factors must outlive the sequence: returned, kept until it has drained.
        store
    });
    work.set(0, lapack_final_work(m, n) as f64);
    rep.finish("dgeqrf", format_args!("m={m} n={n} nb={nb}"), Path::Tiles, None, flops);
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
                let nb = lapack_nb(m, n);
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
