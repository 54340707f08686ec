//! xORGQR/xUNGQR and xORMQR/xUNMQR in the four types (SORGQR, DORGQR, CUNGQR, ZUNGQR; SORMQR,
//! DORMQR, CUNMQR, ZUNMQR: TRANS 'T' for the real types, 'C' for the complex ones), with LAPACK
//! 3.11's checks, run as the tile algorithms of
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
use crate::graph::op::OpElem;
use crate::kernels::{Side, Trans};
use crate::runtime::shared::Buffers;
use crate::scalar::{self, Scalar};
use crate::tile::{span, Part, Raw};

/// The size class a call's learned break-even is kept under: the cube root of m·n·k.
fn size_of(m: i32, n: i32, k: i32) -> usize {
    (m as f64 * n as f64 * k as f64).cbrt().round() as usize
}

/// `tau`'s first k scalars.
fn scalars<T: Scalar>(tau: Raw<T>, k: usize) -> Vec<T> {
    let t = tau.matrix(k, 1, k.max(1));
    (0..k).map(|i| t.get(i, 0)).collect()
}

/// ILAENV(ispec, 'DORGQR', ' ', m, n, k, −1) as LAPACK's DORGQR asks it (with its own name:
/// 'ZUNGQR', ...).
fn ilaenv_orgqr<T: Scalar>(ispec: i32, m: i32, n: i32, k: i32) -> i32 {
    let upper = scalar::name::<T>("orgqr").to_ascii_uppercase();
    let name = upper.as_bytes();
    // SAFETY: ILAENV reads its scalars and the two strings of the given lengths.
    unsafe { bk::ilaenv(&ispec, name.as_ptr().cast(), ch(b' '), &m, &n, &k, &-1, name.len(), 1) }
}

/// DORGQR: [`orgqr`] in f64.
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
    orgqr(cfg, m, n, k, a, lda, tau, work, lwork)
}

/// SORGQR, DORGQR, CUNGQR, ZUNGQR: the m×n matrix Q with orthonormal columns from K reflectors;
/// every type on tiles and the process's devices.
#[allow(clippy::too_many_arguments)]
pub fn orgqr<T: OpElem>(
    cfg: &Config,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<T>,
    lda: i32,
    tau: Raw<T>,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("orgqr");
    let valid = workspace::dorgqr_valid(m, n, k, lda, lwork);
    if valid && n > 0 && learns(cfg, name, size_of(m, n, k)) {
        let mut ac = a.snapshot(span(m as usize, n as usize, lda as usize));
        let mut wc = work.snapshot(lwork as usize);
        tune::trials(cfg, name, size_of(m, n, k), &mut || {
            orgqr(cfg, m, n, k, ac.fresh(), lda, tau, wc.fresh(), lwork).is_ok()
        });
    }
    let rep = Report::start(cfg);
    if !valid || n == 0 {
        return workspace::dorgqr(cfg, &rep, "untiled", m, n, k, a, lda, tau, work, lwork);
    }
    if let Some(why) = forward_reason(cfg, name, size_of(m, n, k)) {
        return workspace::dorgqr(cfg, &rep, why, m, n, k, a, lda, tau, work, lwork);
    }
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let taus = scalars(tau, ku);
    let nb = cfg.nb_for(name, nu);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let flops = (4.0 * mf * nf * kf - 2.0 * (mf + nf) * kf * kf + 4.0 * kf * kf * kf / 3.0) * T::FLOPS;
    let a = a.matrix(mu, nu, lda as usize);
    let store = Buffers::default();
    let wk = Work { flops, bytes: (std::mem::size_of::<T>() * mu * nu) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, name, nb, wk, |seq, p| {
        algo::ormqr::orgqr(seq, &a.tiled_parts(p, p), &taus, &store)
    });
    // LAPACK's DORGQR ends with WORK(1) = the workspace its blocked code used: N·NB when it
    // blocks (1 < NB < K and the crossover NX < K), else N.
    let lnb = ilaenv_orgqr::<T>(1, m, n, k);
    let blocked = lnb > 1 && lnb < k && ilaenv_orgqr::<T>(3, m, n, k).max(0) < k;
    work.set(0, T::from_f64(if blocked { (n * lnb) as f64 } else { n as f64 }));
    rep.finish(name, format_args!("m={m} n={n} k={k} nb={nb}"), Path::Tiles, None, flops);
    r
}

/// DORMQR: [`ormqr`] in f64.
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
    ormqr(cfg, side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork)
}

/// SORMQR, DORMQR, CUNMQR, ZUNMQR: C ← op(Q)·C or C·op(Q) with Q from K reflectors, op(Q) = Q
/// or (TRANS = 'T' real, 'C' complex) Qᴴ; the types other than f64 forward where the process
/// has devices.
#[allow(clippy::too_many_arguments)]
pub fn ormqr<T: OpElem>(
    cfg: &Config,
    side: u8,
    trans: u8,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<T>,
    lda: i32,
    tau: Raw<T>,
    c: Raw<T>,
    ldc: i32,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("ormqr");
    let left = flag(side, b'L');
    let nq = if left { m } else { n };
    let valid = workspace::dormqr_valid(T::ADJOINT, side, trans, m, n, k, lda, ldc, lwork);
    if valid && m > 0 && n > 0 && k > 0 && learns(cfg, name, size_of(m, n, k)) {
        // A too: the reference writes ones on its diagonal while it works (and puts them back).
        let mut ac = a.snapshot(span(nq as usize, k as usize, lda as usize));
        let mut cc = c.snapshot(span(m as usize, n as usize, ldc as usize));
        let mut wc = work.snapshot(lwork as usize);
        tune::trials(cfg, name, size_of(m, n, k), &mut || {
            let (a, c, w) = (ac.fresh(), cc.fresh(), wc.fresh());
            ormqr(cfg, side, trans, m, n, k, a, lda, tau, c, ldc, w, lwork).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let fwd = |rep: &Report, why: &str| {
        workspace::dormqr(cfg, rep, why, side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork)
    };
    if !valid || m == 0 || n == 0 || k == 0 {
        return fwd(&rep, "untiled");
    }
    if let Some(why) = forward_reason(cfg, name, size_of(m, n, k)) {
        return fwd(&rep, why);
    }
    // WORK(1) as LAPACK's DORMQR leaves it: its optimal LWORK.
    let opt = query_with(|w, l| forward::ormqr(side, trans, m, n, k, a, lda, tau, c, ldc, w, l));
    let (mu, nu, ku, nqu) = (m as usize, n as usize, k as usize, nq as usize);
    let taus = scalars(tau, ku);
    let sd = if left { Side::Left } else { Side::Right };
    let tr = if flag(trans, T::ADJOINT) { Trans::Yes } else { Trans::No };
    let nb = cfg.nb_for(name, nqu);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let flops = T::FLOPS
        * if left {
            4.0 * nf * mf * kf - 2.0 * nf * kf * kf
        } else {
            4.0 * mf * nf * kf - 2.0 * mf * kf * kf
        };
    let (a, c) = (a.matrix(nqu, ku, lda as usize), c.matrix(mu, nu, ldc as usize));
    let store = Buffers::default();
    let wk = Work { flops, bytes: (std::mem::size_of::<T>() * (mu * nu + nqu * ku)) as f64, cols: nu };
    let r = run_tiles_on_devices(cfg, name, nb, wk, |seq, p| {
        let cp = if left { c.tiled_parts(p, Part::uniform(nb)) } else { c.tiled_parts(Part::uniform(nb), p) };
        algo::ormqr::ormqr(seq, sd, tr, &a.tiled_parts(p, p), &taus, &cp, &store)
    });
    work.set(0, T::from_f64(opt as f64));
    let (sc, tc) = (side.to_ascii_uppercase() as char, trans.to_ascii_uppercase() as char);
    rep.finish(
        name,
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

/// xORGQR/xUNGQR and xORMQR/xUNMQR in the four types through the generic entries, against the
/// backend's routines.
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

    /// The backend's reflectors and tau of a random m×k matrix in an ld array.
    fn reflectors<T: Scalar>(m: usize, k: usize, ld: usize, seed: u64, pad: T) -> (Vec<T>, Vec<T>) {
        let mut a = rand::<T>(&mut Rng::new(seed), m, k, ld, pad);
        let mut tau = vec![T::zero(); k.max(1)];
        let mut w = vec![T::zero(); 64 * k.max(1)];
        let lw = w.len() as i32;
        let info = forward::geqrf(m as i32, k as i32, raw(&mut a), ld as i32, raw(&mut tau), raw(&mut w), lw);
        assert_eq!(info, 0);
        (a, tau)
    }

    /// ‖I − QᴴQ‖_max of the m×n Q in an ld array, in f64.
    fn orthogonality<T: Scalar>(m: usize, n: usize, q: &[T], ld: usize) -> f64 {
        let mut worst = 0.0f64;
        for a in 0..n {
            for b in 0..n {
                let (mut re, mut im) = (if a == b { -1.0 } else { 0.0 }, 0.0);
                for i in 0..m {
                    let (x, y) = (q[i + a * ld], q[i + b * ld]);
                    let (xr, xi, yr, yi): (f64, f64, f64, f64) =
                        (x.re().into(), x.im().into(), y.re().into(), y.im().into());
                    // conj(x)·y
                    re += xr * yr + xi * yi;
                    im += xr * yi - xi * yr;
                }
                worst = worst.max(re.hypot(im));
            }
        }
        worst
    }

    /// ORGQR/UNGQR (tiles not dividing the matrix, of order 1) and ORMQR/UNMQR (both sides,
    /// N and the type's adjoint, lower case too) within a few n·ε of the backend's, ‖I − QᴴQ‖
    /// as the backend's, WORK(1) as LAPACK's, nothing written outside C (or A's m×n), the
    /// reflectors only read by ORMQR, the same bits twice; the other TRANS ('T' for complex,
    /// 'C' for real) refused as argument 2, as the backend refuses it; queries as the
    /// backend's.
    fn q_entries<T: OpElem>() {
        let _blas = crate::backend::BlasThreadsGuard::new();
        let name = std::any::type_name::<T>();
        let pad = T::from_parts(-321.25, 4.5);
        for (m, n, k, nb) in [
            (45usize, 30usize, 30usize, 8usize),
            (37, 23, 11, 5),
            (23, 23, 23, 3),
            (9, 7, 7, 1),
            (1, 1, 1, 1),
        ] {
            let what = format!("{name} m {m} n {n} k {k} nb {nb}");
            let lda = m + 2;
            let (mi, ni, ki, li) = (m as i32, n as i32, k as i32, lda as i32);
            let tol = 30.0 * m as f64 * T::eps();
            // ORGQR: columns k..n arbitrary on entry.
            let (mut a0, tau) = reflectors::<T>(m, k, lda, (m + n + k) as u64, pad);
            a0.resize(lda * (n + 2), pad);
            for j in k..n {
                for i in 0..m {
                    a0[i + j * lda] = T::from_parts(0.5, -0.25);
                }
            }
            let (mut qa, mut qt, mut qw) = (a0.clone(), tau.clone(), vec![T::zero(); 64 * n]);
            let lw = qw.len() as i32;
            assert_eq!(
                forward::orgqr(mi, ni, ki, raw(&mut qa), li, raw(&mut qt), raw(&mut qw), lw),
                0,
                "{what}"
            );
            let mut runs = Vec::new();
            for _ in 0..2 {
                let (mut a, mut t, mut w) = (a0.clone(), tau.clone(), vec![pad; n + 1]);
                orgqr(&host(nb), mi, ni, ki, raw(&mut a), li, raw(&mut t), raw(&mut w), ni).unwrap();
                assert_eq!(crate::api::last_path(), "tiles");
                assert_eq!(w[0], qw[0], "{what}: orgqr's WORK(1)");
                assert!(
                    w[1..].iter().all(|&x| x == pad) && t == tau,
                    "{what}: orgqr wrote WORK past WORK(1), or tau"
                );
                runs.push(a);
            }
            assert!(runs[0] == runs[1], "{what}: orgqr's bits differ between two calls");
            let q = &runs[0];
            assert!(rel(q, &qa) <= tol, "{what}: orgqr differs from the backend's by {}", rel(q, &qa));
            assert!(same_outside(&a0, q, m, n, lda, None), "{what}: orgqr wrote outside A");
            let (ours, theirs) = (orthogonality(m, n, q, lda), orthogonality(m, n, &qa, lda));
            assert!(
                ours <= 10.0 * theirs.max(m as f64 * T::eps()),
                "{what}: ‖I − QᴴQ‖ {ours} against {theirs}"
            );

            // ORMQR on the reflectors of an nq×k matrix.
            for side in [b'L', b'R', b'l'] {
                for tr in [b'N', T::ADJOINT, T::ADJOINT.to_ascii_lowercase()] {
                    let (cm, cn) = if side.eq_ignore_ascii_case(&b'L') { (m, n + 3) } else { (n + 3, m) };
                    let what = format!("{what} side {} trans {}", side as char, tr as char);
                    let ldc = cm + 1;
                    let (cmi, cni, lci) = (cm as i32, cn as i32, ldc as i32);
                    let (ra, rt) = reflectors::<T>(m, k, lda, (3 * m + k) as u64, pad);
                    let c0 = rand::<T>(&mut Rng::new((cm * cn) as u64), cm, cn, ldc, pad);
                    let (mut fa, mut ft, mut fc, mut fw) =
                        (ra.clone(), rt.clone(), c0.clone(), vec![T::zero(); 64 * m.max(cn)]);
                    let lw = fw.len() as i32;
                    let info = forward::ormqr(
                        side,
                        tr,
                        cmi,
                        cni,
                        ki,
                        raw(&mut fa),
                        li,
                        raw(&mut ft),
                        raw(&mut fc),
                        lci,
                        raw(&mut fw),
                        lw,
                    );
                    assert_eq!(info, 0, "{what}");
                    let nw = if side.eq_ignore_ascii_case(&b'L') { cn } else { cm };
                    let mut runs = Vec::new();
                    for _ in 0..2 {
                        let (mut a, mut t, mut c, mut w) =
                            (ra.clone(), rt.clone(), c0.clone(), vec![pad; nw + 1]);
                        let r = ormqr(
                            &host(nb),
                            side,
                            tr,
                            cmi,
                            cni,
                            ki,
                            raw(&mut a),
                            li,
                            raw(&mut t),
                            raw(&mut c),
                            lci,
                            raw(&mut w),
                            nw as i32,
                        );
                        assert_eq!(r, Ok(()), "{what}");
                        assert_eq!(crate::api::last_path(), "tiles");
                        assert!(a == ra && t == rt, "{what}: ormqr wrote A or tau");
                        assert_eq!(w[0], fw[0], "{what}: ormqr's WORK(1)");
                        assert!(w[1..].iter().all(|&x| x == pad), "{what}: WORK past WORK(1) written");
                        runs.push(c);
                    }
                    assert!(runs[0] == runs[1], "{what}: ormqr's bits differ between two calls");
                    assert!(rel(&runs[0], &fc) <= tol, "{what}: ormqr differs by {}", rel(&runs[0], &fc));
                    assert!(same_outside(&c0, &runs[0], cm, cn, ldc, None), "{what}: ormqr wrote outside C");
                }
            }
        }
        // The other TRANS is argument 2 for the backend and for us; queries as the backend's.
        let wrong = if T::COMPLEX { b'T' } else { b'C' };
        let (mut a, tau) = reflectors::<T>(8, 4, 8, 5, pad);
        let c0 = rand::<T>(&mut Rng::new(9), 8, 3, 8, pad);
        for (tr, lwork) in [(wrong, 64), (b'N', -1), (T::ADJOINT, -1)] {
            let what = format!("{name} trans {} lwork {lwork}", tr as char);
            let (mut t1, mut c1, mut w1) = (tau.clone(), c0.clone(), vec![pad; 64]);
            let (mut t2, mut c2, mut w2) = (tau.clone(), c0.clone(), vec![pad; 64]);
            let want = forward::ormqr(
                b'L',
                tr,
                8,
                3,
                4,
                raw(&mut a),
                8,
                raw(&mut t1),
                raw(&mut c1),
                8,
                raw(&mut w1),
                lwork,
            );
            let got = info_of(&ormqr(
                &host(4),
                b'L',
                tr,
                8,
                3,
                4,
                raw(&mut a),
                8,
                raw(&mut t2),
                raw(&mut c2),
                8,
                raw(&mut w2),
                lwork,
            ));
            assert_eq!(got, want, "{what}");
            assert!(c2 == c0, "{what}: C written");
            assert_eq!(w1[0], w2[0], "{what}: WORK(1)");
        }
        assert_eq!(
            info_of(&ormqr(
                &host(4),
                b'L',
                wrong,
                8,
                3,
                4,
                raw(&mut a),
                8,
                raw(&mut tau.clone()),
                raw(&mut c0.clone()),
                8,
                raw(&mut [pad; 64]),
                64
            )),
            -2
        );
        let (mut w1, mut w2) = (vec![pad; 2], vec![pad; 2]);
        let (mut a1, mut a2) = (a.clone(), a.clone());
        let want = forward::orgqr(8, 4, 4, raw(&mut a1), 8, raw(&mut tau.clone()), raw(&mut w1), -1);
        let got =
            info_of(&orgqr(&host(4), 8, 4, 4, raw(&mut a2), 8, raw(&mut tau.clone()), raw(&mut w2), -1));
        assert!(got == want && w1[0] == w2[0] && a1 == a2, "{name}: orgqr's query");
    }

    #[test]
    fn orgqr_and_ormqr_in_every_type_match_the_backend() {
        q_entries::<f32>();
        q_entries::<f64>();
        q_entries::<c32>();
        q_entries::<c64>();
    }
}
