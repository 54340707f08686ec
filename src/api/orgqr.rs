//! DORGQR and DORMQR, with LAPACK 3.11's checks, run as the tile algorithms of
//! [`crate::algo::ormqr`] on views of the caller's arrays; they read the reflectors and tau as
//! any DGEQRF (hetla's or the backend's) wrote them.
//!
//! Workspace queries, invalid calls and quick returns go to the backend unchanged (its checks
//! are LAPACK's, with its `xerbla`, and it writes WORK(1) as LAPACK does); so do calls below the
//! break-even size, with a grown workspace ([`super::workspace`]). The tile path needs no
//! workspace: any valid LWORK runs at full speed, and WORK(1) receives what LAPACK's routine
//! leaves there.

use super::workspace::{self, query_with};
use super::{flag, forward_reason, learns, run_tiles_on_devices, tune, Path, Report};
use crate::algo;
use crate::backend::forward;
use crate::backend::lapack::{self as bk, ch};
use crate::config::Config;
use crate::device::Work;
use crate::error::Error;
use crate::kernels::{Side, Trans};
use crate::runtime::shared::Buffers;
use crate::tile::{span, Part, Raw};

/// The size class a call's learned break-even is kept under: the cube root of m·n·k.
fn size_of(m: i32, n: i32, k: i32) -> usize {
    (m as f64 * n as f64 * k as f64).cbrt().round() as usize
}

/// `tau`'s first k scalars.
fn scalars(tau: Raw<f64>, k: usize) -> Vec<f64> {
    let t = tau.matrix(k, 1, k.max(1));
    (0..k).map(|i| t.get(i, 0)).collect()
}

/// ILAENV(ispec, 'DORGQR', ' ', m, n, k, −1) as LAPACK's DORGQR asks it.
fn ilaenv_orgqr(ispec: i32, m: i32, n: i32, k: i32) -> i32 {
    let name = b"DORGQR";
    // SAFETY: ILAENV reads its scalars and the two strings of the given lengths.
    unsafe { bk::ilaenv(&ispec, name.as_ptr().cast(), ch(b' '), &m, &n, &k, &-1, name.len(), 1) }
}

/// DORGQR: the m×n matrix Q with orthonormal columns from K reflectors.
#[allow(clippy::too_many_arguments)]
pub fn dorgqr(
    cfg: &Config,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<f64>,
    lda: i32,
    tau: Raw<f64>,
    work: Raw<f64>,
    lwork: i32,
) -> Result<(), Error> {
    let valid = workspace::dorgqr_valid(m, n, k, lda, lwork);
    if valid && n > 0 && learns(cfg, "dorgqr", size_of(m, n, k)) {
        let mut ac = a.snapshot(span(m as usize, n as usize, lda as usize));
        let mut wc = work.snapshot(lwork as usize);
        tune::trials(cfg, "dorgqr", size_of(m, n, k), &mut || {
            dorgqr(cfg, m, n, k, ac.fresh(), lda, tau, wc.fresh(), lwork).is_ok()
        });
    }
    let rep = Report::start(cfg);
    if !valid || n == 0 {
        return workspace::dorgqr(cfg, &rep, "untiled", m, n, k, a, lda, tau, work, lwork);
    }
    if let Some(why) = forward_reason(cfg, "dorgqr", size_of(m, n, k)) {
        return workspace::dorgqr(cfg, &rep, why, m, n, k, a, lda, tau, work, lwork);
    }
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let taus = scalars(tau, ku);
    let nb = cfg.nb_for("dorgqr", nu);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let flops = 4.0 * mf * nf * kf - 2.0 * (mf + nf) * kf * kf + 4.0 * kf * kf * kf / 3.0;
    let a = a.matrix(mu, nu, lda as usize);
    let store = Buffers::default();
    let wk = Work { flops, bytes: 8.0 * (mu * nu) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, "dorgqr", nb, wk, |seq, p| {
        algo::ormqr::orgqr(seq, &a.tiled_parts(p, p), &taus, &store)
    });
    // LAPACK's DORGQR ends with WORK(1) = the workspace its blocked code used: N·NB when it
    // blocks (1 < NB < K and the crossover NX < K), else N.
    let lnb = ilaenv_orgqr(1, m, n, k);
    let blocked = lnb > 1 && lnb < k && ilaenv_orgqr(3, m, n, k).max(0) < k;
    work.set(0, if blocked { (n * lnb) as f64 } else { n as f64 });
    rep.finish("dorgqr", format_args!("m={m} n={n} k={k} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DORMQR: C ← op(Q)·C or C·op(Q) with Q from K reflectors.
#[allow(clippy::too_many_arguments)]
pub fn dormqr(
    cfg: &Config,
    side: u8,
    trans: u8,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<f64>,
    lda: i32,
    tau: Raw<f64>,
    c: Raw<f64>,
    ldc: i32,
    work: Raw<f64>,
    lwork: i32,
) -> Result<(), Error> {
    let left = flag(side, b'L');
    let nq = if left { m } else { n };
    let valid = workspace::dormqr_valid(side, trans, m, n, k, lda, ldc, lwork);
    if valid && m > 0 && n > 0 && k > 0 && learns(cfg, "dormqr", size_of(m, n, k)) {
        // A too: the reference writes ones on its diagonal while it works (and puts them back).
        let mut ac = a.snapshot(span(nq as usize, k as usize, lda as usize));
        let mut cc = c.snapshot(span(m as usize, n as usize, ldc as usize));
        let mut wc = work.snapshot(lwork as usize);
        tune::trials(cfg, "dormqr", size_of(m, n, k), &mut || {
            let (a, c, w) = (ac.fresh(), cc.fresh(), wc.fresh());
            dormqr(cfg, side, trans, m, n, k, a, lda, tau, c, ldc, w, lwork).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let fwd = |rep: &Report, why: &str| {
        workspace::dormqr(cfg, rep, why, side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork)
    };
    if !valid || m == 0 || n == 0 || k == 0 {
        return fwd(&rep, "untiled");
    }
    if let Some(why) = forward_reason(cfg, "dormqr", size_of(m, n, k)) {
        return fwd(&rep, why);
    }
    // WORK(1) as LAPACK's DORMQR leaves it: its optimal LWORK.
    let opt = query_with(|w, l| forward::dormqr(side, trans, m, n, k, a, lda, tau, c, ldc, w, l));
    let (mu, nu, ku, nqu) = (m as usize, n as usize, k as usize, nq as usize);
    let taus = scalars(tau, ku);
    let sd = if left { Side::Left } else { Side::Right };
    let tr = if flag(trans, b'T') { Trans::Yes } else { Trans::No };
    let nb = cfg.nb_for("dormqr", nqu);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let flops =
        if left { 4.0 * nf * mf * kf - 2.0 * nf * kf * kf } else { 4.0 * mf * nf * kf - 2.0 * mf * kf * kf };
    let (a, c) = (a.matrix(nqu, ku, lda as usize), c.matrix(mu, nu, ldc as usize));
    let store = Buffers::default();
    let wk = Work { flops, bytes: 8.0 * (mu * nu + nqu * ku) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, "dormqr", nb, wk, |seq, p| {
        let cp = if left { c.tiled_parts(p, Part::uniform(nb)) } else { c.tiled_parts(Part::uniform(nb), p) };
        algo::ormqr::ormqr(seq, sd, tr, &a.tiled_parts(p, p), &taus, &cp, &store)
    });
    work.set(0, opt as f64);
    let (sc, tc) = (side.to_ascii_uppercase() as char, trans.to_ascii_uppercase() as char);
    rep.finish(
        "dormqr",
        format_args!("side={sc} trans={tc} m={m} n={n} k={k} nb={nb}"),
        Path::Tiles,
        None,
        flops,
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::{self as tu, Rng};

    fn tiles_cfg() -> Config {
        let mut c = tu::cfg(2);
        c.min_n = Some(0);
        c.nb = Some(6);
        c
    }

    fn raw(v: &mut [f64]) -> Raw<f64> {
        // SAFETY: the tests pass arrays as large as the routine reads for their arguments.
        unsafe { Raw::new(v.as_mut_ptr()) }
    }

    fn info_of(r: Result<(), Error>) -> i32 {
        crate::error::info_of(&r)
    }

    /// Reflectors of a random m×k matrix by the backend's DGEQRF.
    fn reflectors(m: usize, k: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut a = Rng::new(seed).matrix(m, k, m);
        let mut tau = vec![0.0; k.max(1)];
        tu::reference_geqrf(m, k, &mut a, m, &mut tau);
        (a, tau)
    }

    /// With the minimum LWORK, the optimal one and a query: the backend's results (with its
    /// optimal workspace) and its WORK(1).
    #[test]
    fn dorgqr_any_lwork_and_query_match_the_backend() {
        let c = tiles_cfg();
        for (m, n, k) in [(1i32, 1i32, 1i32), (30, 20, 20), (40, 25, 9), (150, 140, 140)] {
            let (mut a0, mut tau) = reflectors(m as usize, k as usize, m as u64);
            a0.resize((m * n) as usize, 0.25);
            let big = 64 * n;
            let (mut want, mut w0) = (a0.clone(), vec![0.0; big as usize]);
            let r = forward::dorgqr(m, n, k, raw(&mut want), m, raw(&mut tau), raw(&mut w0), big);
            assert_eq!(r, 0);
            let (mut q, mut q0) = ([0.0], [0.0]);
            let mut a = a0.clone();
            assert_eq!(forward::dorgqr(m, n, k, raw(&mut a), m, raw(&mut tau), raw(&mut q0), -1), 0);
            assert_eq!(dorgqr(&c, m, n, k, raw(&mut a), m, raw(&mut tau), raw(&mut q), -1), Ok(()));
            assert_eq!((q[0], &a), (q0[0], &a0), "a query answers the backend's and touches nothing");
            for lwork in [n, big] {
                let mut a = a0.clone();
                let mut w = vec![0.0; lwork as usize];
                assert_eq!(dorgqr(&c, m, n, k, raw(&mut a), m, raw(&mut tau), raw(&mut w), lwork), Ok(()));
                assert_eq!(w[0], w0[0], "WORK(1), m {m} n {n} k {k}");
                let d = a.iter().zip(&want).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                assert!(d < 1e-12, "m {m} n {n} k {k} lwork {lwork}: difference {d}");
            }
        }
        // Invalid calls reach the backend's own checks (and its xerbla).
        let (mut a, mut t, mut w) = (vec![0.0; 16], vec![0.0; 4], vec![0.0; 16]);
        assert_eq!(info_of(dorgqr(&c, -1, 1, 1, raw(&mut a), 1, raw(&mut t), raw(&mut w), 16)), -1);
        assert_eq!(info_of(dorgqr(&c, 2, 3, 1, raw(&mut a), 2, raw(&mut t), raw(&mut w), 16)), -2);
        assert_eq!(info_of(dorgqr(&c, 3, 2, 3, raw(&mut a), 3, raw(&mut t), raw(&mut w), 16)), -3);
        assert_eq!(info_of(dorgqr(&c, 3, 2, 2, raw(&mut a), 2, raw(&mut t), raw(&mut w), 16)), -5);
        assert_eq!(info_of(dorgqr(&c, 3, 2, 2, raw(&mut a), 3, raw(&mut t), raw(&mut w), 1)), -8);
    }

    #[test]
    fn dormqr_both_sides_any_lwork_match_the_backend() {
        let c = tiles_cfg();
        for (side, trans) in [(b'L', b'T'), (b'L', b'N'), (b'R', b'N'), (b'R', b'T')] {
            for (m, n, k) in [(1i32, 1i32, 1i32), (30, 17, 12), (25, 41, 20)] {
                let nq = if side == b'L' { m } else { n };
                let k = k.min(nq);
                let (a, mut tau) = reflectors(nq as usize, k as usize, (m + n) as u64);
                let mut a = a;
                let c0 = Rng::new(7).matrix(m as usize, n as usize, m as usize);
                let nw = if side == b'L' { n } else { m };
                let big = 64 * nw + 65 * 64;
                let (mut want, mut w0) = (c0.clone(), vec![0.0; big as usize]);
                let r = forward::dormqr(
                    side,
                    trans,
                    m,
                    n,
                    k,
                    raw(&mut a),
                    nq,
                    raw(&mut tau),
                    raw(&mut want),
                    m,
                    raw(&mut w0),
                    big,
                );
                assert_eq!(r, 0);
                for lwork in [nw, big] {
                    let mut cc = c0.clone();
                    let mut w = vec![0.0; lwork as usize];
                    let r = dormqr(
                        &c,
                        side,
                        trans,
                        m,
                        n,
                        k,
                        raw(&mut a),
                        nq,
                        raw(&mut tau),
                        raw(&mut cc),
                        m,
                        raw(&mut w),
                        lwork,
                    );
                    assert_eq!(r, Ok(()));
                    assert_eq!(w[0], w0[0], "WORK(1)");
                    let d = cc.iter().zip(&want).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                    let s = want.iter().fold(0.0f64, |s, x| s.max(x.abs()));
                    let (sc, tc) = (side as char, trans as char);
                    assert!(d < 1e-12 * s, "{sc}{tc} m {m} n {n} k {k} lwork {lwork}: difference {d}");
                }
            }
        }
        let (mut a, mut t, mut cc, mut w) = (vec![0.0; 16], vec![0.0; 4], vec![0.0; 16], vec![0.0; 16]);
        let mut bad = |s: u8, tr: u8, m: i32, n: i32, k: i32, lda: i32, ldc: i32, lw: i32| {
            info_of(dormqr(
                &c,
                s,
                tr,
                m,
                n,
                k,
                raw(&mut a),
                lda,
                raw(&mut t),
                raw(&mut cc),
                ldc,
                raw(&mut w),
                lw,
            ))
        };
        assert_eq!(bad(b'X', b'N', 2, 2, 1, 2, 2, 16), -1);
        assert_eq!(bad(b'L', b'C', 2, 2, 1, 2, 2, 16), -2);
        assert_eq!(bad(b'L', b'N', -1, 2, 1, 2, 2, 16), -3);
        assert_eq!(bad(b'L', b'N', 2, -1, 1, 2, 2, 16), -4);
        assert_eq!(bad(b'L', b'N', 2, 2, 3, 2, 2, 16), -5);
        assert_eq!(bad(b'R', b'N', 2, 3, 1, 2, 2, 16), -7);
        assert_eq!(bad(b'L', b'N', 3, 2, 1, 3, 2, 16), -10);
        assert_eq!(bad(b'L', b'N', 2, 3, 1, 2, 2, 2), -12);
    }

    #[test]
    fn on_two_emulated_devices() {
        tu::on_devices(tu::TestDevices { count: 2, mem: 16 << 20, host_share: 0.5 }, || {
            dorgqr_any_lwork_and_query_match_the_backend();
            dormqr_both_sides_any_lwork_match_the_backend();
        });
    }
}
