//! DBTTRF, DBTTRS and DBTSV: block tridiagonal systems (hetla's own routines, in LAPACK's
//! style; issue 12). N block rows of M×M blocks, each block column-major with leading
//! dimension M, the blocks of DL, D, DU one after another (`algo::bt` has the math).
//!
//! The factors: DL, D, DU overwritten (`algo::bt`'s storage), IPIV(x·M + t) = x·M + the
//! block-local pivot of row t of D_x (so IPIV holds global row numbers, as DGETRF's would for
//! interchanges inside the diagonal blocks), AF(1 .. 2·N·M²) two blocks per row, and
//! AF(2·N·M² + 1) the elimination used ([`Method::code`]), so that DBTTRS follows the factors.
//! LAF ≥ 2·N·M² + 1.

use super::{check_args, flag, run_tiles_on_devices, Path, Report};
use crate::algo::bt::{self, Blocks, Method};
use crate::config::Config;
use crate::device::Work;
use crate::error::Error;
use crate::kernels::Trans;
use crate::tile::{Part, Raw, TiledMatrix, Workspace};

/// LAF that DBTTRF needs for N block rows of M×M blocks.
pub fn laf_needed(n: i32, m: i32) -> i64 {
    2 * n.max(0) as i64 * (m.max(0) as i64).pow(2) + 1
}

/// The elimination for N block rows of M×M blocks: `HETLA_BT` if set; else block Thomas run
/// inline on the calling thread (the sequential block LU, one BLAS thread) for small
/// blocks or few rows, where the runtime's cost per task outweighs the parallelism; twisted
/// block Thomas on tasks for up to 3 threads (its two chains keep two cores busy with Thomas's
/// flops); block cyclic reduction on tasks with 4 threads or more (the only order with more
/// than two-way parallelism; it costs 2.7× the flops). Thresholds measured by `bench/bt.sh` on
/// the 2-core development machine (docs/speed.md, block tridiagonal table); the 4-thread rule is not
/// measured (no machine with more cores was available).
pub fn method(cfg: &Config, n: usize, m: usize) -> Method {
    cfg.bt.unwrap_or(if m < THOMAS_BELOW_M || n < THOMAS_BELOW_N {
        Method::Thomas
    } else if cfg.threads >= 4 {
        Method::Cyclic
    } else {
        Method::Twisted
    })
}

/// Below this block size a solve runs inline on the calling thread (the same generator, in the
/// factors' elimination order, one BLAS thread) whatever the elimination: its tasks (an M×M
/// block times M×NRHS) are too small to pay for the runtime. Measured with `bench/bt.sh`'s
/// driver forcing either way (2026-11-25 23:30 UTC, the machine loaded by a test run, twisted
/// factors, dbttrs medians of 5): N×M = 512×64, NRHS = 1: inline 7.7, 8.4, 9.1 ms against
/// tasks 12.9, 10.2, 10.8 ms; NRHS = 16: 17.8 against 28.4 ms; 256×128: inline 17.6, 25.1 ms
/// against tasks 14.7, 13.1 ms; 64×256: 12.3 against 7.7 ms.
pub const SOLVE_INLINE_BELOW_M: usize = 128;

/// From this many bytes of factors on, an inline solve of twisted factors runs its two chains on
/// two threads ([`bt::solve_inline_two_chains`]; other orders ignore it): the solve streams
/// the factors from memory, and two cores read faster than one. A thread costs tens of
/// microseconds to start, a solve this size takes milliseconds.
pub const TWO_CHAINS_MIN_BYTES: usize = 4 << 20;

/// Below this many block rows, block Thomas.
pub const THOMAS_BELOW_N: usize = 4;
/// Below this block size, block Thomas.
pub const THOMAS_BELOW_M: usize = 48;

fn flops_factor(method: Method, n: usize, m: usize) -> f64 {
    let m3 = (m as f64).powi(3);
    match method {
        Method::Thomas | Method::Twisted => n as f64 * (2.0 / 3.0 + 4.0) * m3,
        Method::Cyclic => n as f64 * (2.0 / 3.0 + 12.0) * m3,
    }
}

/// The caller's arrays as `algo::bt` works on them (blocks of one tile row) and the pivots as
/// f64 blocks.
struct Arrays {
    blocks: Blocks,
    _piv: Workspace<f64>,
}

/// Blocks of one tile row: k blocks of m×m one after another.
fn row(r: Raw<f64>, m: usize, k: usize) -> TiledMatrix<f64> {
    r.matrix(m, k * m, m).tiled(m, m)
}

fn arrays(
    n: usize,
    m: usize,
    dl: Raw<f64>,
    d: Raw<f64>,
    du: Raw<f64>,
    af: TiledMatrix<f64>,
    piv: Workspace<f64>,
) -> Arrays {
    let blocks = Blocks {
        n,
        m,
        d: row(d, m, n),
        dl: (n > 1).then(|| row(dl, m, n - 1)),
        du: (n > 1).then(|| row(du, m, n - 1)),
        af,
        piv: piv.tiles(),
    };
    Arrays { blocks, _piv: piv }
}

/// The factorization on the caller's DL, D, DU into `af`; returns the pivots (block-local) with
/// the result.
#[allow(clippy::too_many_arguments)]
fn run_factor(
    cfg: &Config,
    meth: Method,
    n: usize,
    m: usize,
    dl: Raw<f64>,
    d: Raw<f64>,
    du: Raw<f64>,
    af: TiledMatrix<f64>,
) -> (Workspace<f64>, Result<(), Error>) {
    let a = arrays(n, m, dl, d, du, af, Workspace::new(m, n, m, 1));
    let work = Work { flops: flops_factor(meth, n, m), bytes: 8.0 * (5 * n * m * m) as f64, cols: n * m };
    let r = if meth == Method::Thomas {
        // The sequential block LU, on this thread. One BLAS thread: OpenBLAS's threaded DGETRF
        // needs a deep stack, which a caller's thread may not have (a crash seen on 2 MiB test
        // threads), and threads gain nothing on blocks this small.
        let _blas = crate::backend::BlasThreadsGuard::new();
        bt::factor_inline(&bt::schedule(meth, n), &a.blocks)
    } else {
        run_tiles_on_devices(cfg, "dbttrf", m, work, |seq, _| {
            bt::factor(seq, &bt::schedule(meth, n), &a.blocks)
        })
    };
    (a._piv, r)
}

/// The solve with the factors on the caller's B.
#[allow(clippy::too_many_arguments)]
fn run_solve(
    cfg: &Config,
    meth: Method,
    tr: Trans,
    (n, m, nrhs): (usize, usize, usize),
    (dl, d, du): (Raw<f64>, Raw<f64>, Raw<f64>),
    af: TiledMatrix<f64>,
    piv: Workspace<f64>,
    b: Raw<f64>,
    ldb: usize,
    flops: f64,
) -> Result<(), Error> {
    let a = arrays(n, m, dl, d, du, af, piv);
    let bt_: TiledMatrix<f64> = b.matrix(n * m, nrhs, ldb).tiled_parts(Part::uniform(m), Part::uniform(nrhs));
    let work = Work { flops, bytes: 8.0 * (5 * n * m * m + n * m * nrhs) as f64, cols: n * m };
    if meth == Method::Thomas || m < SOLVE_INLINE_BELOW_M {
        let _blas = crate::backend::BlasThreadsGuard::new();
        let sch = bt::schedule(meth, n);
        if cfg.threads >= 2 && 8 * 3 * n * m * m >= TWO_CHAINS_MIN_BYTES {
            bt::solve_inline_two_chains(&sch, tr, &a.blocks, &bt_)
        } else {
            bt::solve_inline(&sch, tr, &a.blocks, &bt_)
        }
    } else {
        run_tiles_on_devices(cfg, "dbttrs", m, work, |seq, _| {
            bt::solve(seq, &bt::schedule(meth, n), tr, &a.blocks, &bt_)
        })
    }
}

fn solve_flops(meth: Method, n: usize, m: usize, nrhs: usize) -> f64 {
    2.0 * nrhs as f64 * n as f64 * (m * m) as f64 * if meth == Method::Cyclic { 3.0 } else { 2.0 }
}

/// DBTTRF: factors the block tridiagonal matrix (DL, D, DU).
#[allow(clippy::too_many_arguments)]
pub fn dbttrf(
    cfg: &Config,
    n: i32,
    m: i32,
    dl: Raw<f64>,
    d: Raw<f64>,
    du: Raw<f64>,
    af: Raw<f64>,
    laf: i32,
    ipiv: Raw<i32>,
) -> Result<(), Error> {
    let need = laf_needed(n, m);
    check_args(&[(n < 0, 1), (m < 0, 2), ((laf as i64) < need && laf != -1, 7)])?;
    if laf == -1 {
        af.set(0, need as f64);
        return Ok(());
    }
    if n == 0 || m == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let (nu, mu) = (n as usize, m as usize);
    let meth = method(cfg, nu, mu);
    let flops = flops_factor(meth, nu, mu);
    let (piv, r) = run_factor(cfg, meth, nu, mu, dl, d, du, row(af, mu, 2 * nu));
    // The pivots (also of a failed call: the blocks factored before the failure are complete).
    let pv = piv.as_slice();
    let ip = ipiv.matrix(nu * mu, 1, nu * mu);
    for x in 0..nu {
        for t in 0..mu {
            let p = pv[t + x * mu] as i32;
            ip.set(x * mu + t, 0, if p > 0 { (x * mu) as i32 + p } else { 0 });
        }
    }
    af.set(2 * nu * mu * mu, meth.code());
    let desc = format_args!("n={n} m={m} method={meth:?}");
    rep.finish("dbttrf", desc, Path::Tiles, None, flops);
    r
}

pub(crate) fn parse_trans(c: u8) -> Option<Trans> {
    if flag(c, b'N') {
        Some(Trans::No)
    } else if flag(c, b'T') || flag(c, b'C') {
        Some(Trans::Yes)
    } else {
        None
    }
}

/// DBTTRS: solves op(A)·X = B with DBTTRF's factors.
#[allow(clippy::too_many_arguments)]
pub fn dbttrs(
    cfg: &Config,
    trans: u8,
    n: i32,
    m: i32,
    nrhs: i32,
    dl: Raw<f64>,
    d: Raw<f64>,
    du: Raw<f64>,
    af: Raw<f64>,
    laf: i32,
    ipiv: Raw<i32>,
    b: Raw<f64>,
    ldb: i32,
) -> Result<(), Error> {
    let order = n as i64 * m as i64;
    check_args(&[
        (parse_trans(trans).is_none(), 1),
        (n < 0, 2),
        (m < 0, 3),
        (nrhs < 0, 4),
        ((laf as i64) < laf_needed(n, m), 9),
        ((ldb as i64) < order.max(1), 12),
    ])?;
    if n == 0 || m == 0 || nrhs == 0 {
        return Ok(());
    }
    let tr = parse_trans(trans).expect("checked above");
    let rep = Report::start(cfg);
    let (nu, mu, ru) = (n as usize, m as usize, nrhs as usize);
    let code = af.matrix(2 * nu * mu * mu + 1, 1, 2 * nu * mu * mu + 1).get(2 * nu * mu * mu, 0);
    let Some(meth) = Method::from_code(code) else {
        return Err(Error::Runtime(
            "AF does not hold DBTTRF's factors (its last entry names no method)".into(),
        ));
    };
    // The pivots back to block-local numbers, checked: a wrong IPIV must not reach DGETRS.
    let mut piv = Workspace::new(mu, nu, mu, 1);
    let ip = ipiv.matrix(nu * mu, 1, nu * mu);
    for x in 0..nu {
        for t in 0..mu {
            let p = ip.get(x * mu + t, 0) - (x * mu) as i32;
            if p < 1 || p > mu as i32 {
                return Err(Error::Runtime(format!(
                    "IPIV({}) = {} is not a row of block row {x}",
                    x * mu + t + 1,
                    p
                )));
            }
            piv.as_mut_slice()[t + x * mu] = p as f64;
        }
    }
    let flops = solve_flops(meth, nu, mu, ru);
    let afm = row(af, mu, 2 * nu);
    let r = run_solve(cfg, meth, tr, (nu, mu, ru), (dl, d, du), afm, piv, b, ldb as usize, flops);
    let tc = trans.to_ascii_uppercase() as char;
    rep.finish(
        "dbttrs",
        format_args!("trans={tc} n={n} m={m} nrhs={nrhs} method={meth:?}"),
        Path::Tiles,
        None,
        flops,
    );
    r
}

/// DBTSV: solves A·X = B by DBTTRF and DBTTRS (AF and IPIV in memory of its own).
#[allow(clippy::too_many_arguments)]
pub fn dbtsv(
    cfg: &Config,
    n: i32,
    m: i32,
    nrhs: i32,
    dl: Raw<f64>,
    d: Raw<f64>,
    du: Raw<f64>,
    b: Raw<f64>,
    ldb: i32,
) -> Result<(), Error> {
    let order = n as i64 * m as i64;
    check_args(&[(n < 0, 1), (m < 0, 2), (nrhs < 0, 3), ((ldb as i64) < order.max(1), 8)])?;
    if n == 0 || m == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let (nu, mu, ru) = (n as usize, m as usize, nrhs as usize);
    let meth = method(cfg, nu, mu);
    // AF as DBTTRF's caller would pass it: written before it is read.
    let af = Workspace::scratch(mu, 2 * nu * mu, mu, mu);
    let (piv, r) = run_factor(cfg, meth, nu, mu, dl, d, du, af.tiles());
    let mut flops = flops_factor(meth, nu, mu);
    if r.is_ok() && nrhs > 0 {
        let f = solve_flops(meth, nu, mu, ru);
        flops += f;
        run_solve(cfg, meth, Trans::No, (nu, mu, ru), (dl, d, du), af.tiles(), piv, b, ldb as usize, f)?;
    }
    rep.finish("dbtsv", format_args!("n={n} m={m} nrhs={nrhs} method={meth:?}"), Path::Tiles, None, flops);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::bt::tests::{reference_gbsv, Bt, Kind};
    use crate::algo::testutil::*;

    fn cfg_with(meth: Option<Method>) -> Config {
        let mut c = with_test_devices(Config::with_threads(3));
        c.bt = meth;
        c
    }

    fn raw<T: crate::tile::Elem>(v: &mut [T]) -> Raw<T> {
        // SAFETY: the tests pass each vector with the sizes the routine documents (plus guards).
        unsafe { Raw::new(v.as_mut_ptr()) }
    }

    /// dbttrf once, then dbttrs 'N' and 'T' on the same factors, and dbtsv: all against DGBSV,
    /// nothing written beyond the arrays.
    fn check(n: usize, m: usize, nrhs: usize, kind: Kind, meth: Option<Method>) {
        let cfg = cfg_with(meth);
        let a = Bt::random(n, m, kind, 77 + n as u64 * 3 + m as u64);
        let nn = n * m;
        let ldb = nn + 1;
        let b0 = Rng::new(nn as u64).matrix(nn, nrhs, ldb);
        let (mut dl, mut d, mut du) = (a.dl.clone(), a.d.clone(), a.du.clone());
        let extra = 3;
        dl.extend([GUARD; 3]);
        du.extend([GUARD; 3]);
        d.extend([GUARD; 3]);
        let laf = laf_needed(n as i32, m as i32) as usize;
        let mut af = vec![GUARD; laf + extra];
        let mut ipiv = vec![-7i32; nn + extra];
        let (nn32, m32, n32, r32) = (nn as i32, m as i32, n as i32, nrhs as i32);
        // LAF query.
        let mut q = vec![0.0];
        dbttrf(&cfg, n32, m32, raw(&mut dl), raw(&mut d), raw(&mut du), raw(&mut q), -1, raw(&mut ipiv))
            .unwrap();
        assert_eq!(q[0], laf as f64);
        dbttrf(
            &cfg,
            n32,
            m32,
            raw(&mut dl),
            raw(&mut d),
            raw(&mut du),
            raw(&mut af),
            laf as i32,
            raw(&mut ipiv),
        )
        .unwrap();
        assert!(af[laf..].iter().all(|&v| v == GUARD), "AF beyond LAF written");
        assert!(ipiv[nn..].iter().all(|&v| v == -7), "IPIV beyond N·M written");
        assert!(d[n * m * m..].iter().all(|&v| v == GUARD) && dl[dl.len() - 3..].iter().all(|&v| v == GUARD));
        assert!(du[du.len() - 3..].iter().all(|&v| v == GUARD));
        for (x, blk) in ipiv[..nn].chunks(m).enumerate() {
            assert!(
                blk.iter().all(|&p| p > (x * m) as i32 && p <= ((x + 1) * m) as i32),
                "IPIV of block row {x}"
            );
        }
        for (tc, tr) in [(b'N', Trans::No), (b'T', Trans::Yes)] {
            let mut x = b0.clone();
            dbttrs(
                &cfg,
                tc,
                n32,
                m32,
                r32,
                raw(&mut dl),
                raw(&mut d),
                raw(&mut du),
                raw(&mut af),
                laf as i32,
                raw(&mut ipiv),
                raw(&mut x),
                ldb as i32,
            )
            .unwrap();
            let res = a.residual(tr, &x, &b0, nrhs, ldb);
            assert!(res < 20.0, "n {n} m {m} {kind:?} {meth:?} {tr:?}: residual {res}");
            let (xg, info) = reference_gbsv(&a, tr, &b0, nrhs, ldb);
            assert_eq!(info, 0);
            let scale = xg.iter().map(|v| v.abs()).fold(1.0, f64::max);
            for c in 0..nrhs {
                for i in 0..ldb {
                    let (u, v) = (x[i + c * ldb], xg[i + c * ldb]);
                    assert!((u - v).abs() <= 1e-8 * scale, "x[{i}] {u} vs dgbsv {v}");
                }
            }
        }
        // DBTSV on fresh copies.
        let (mut dl, mut d, mut du) = (a.dl.clone(), a.d.clone(), a.du.clone());
        let mut x = b0.clone();
        dbtsv(&cfg, n32, m32, r32, raw(&mut dl), raw(&mut d), raw(&mut du), raw(&mut x), ldb as i32).unwrap();
        assert!(a.residual(Trans::No, &x, &b0, nrhs, ldb) < 20.0);
        assert!((0..nrhs).all(|c| x[nn + c * ldb] == GUARD));
        let _ = nn32;
    }

    #[test]
    fn bt_routines_against_dgbsv() {
        for meth in [None, Some(Method::Thomas), Some(Method::Twisted), Some(Method::Cyclic)] {
            for &(n, m) in &[(1, 1), (2, 5), (3, 32), (7, 5), (64, 5), (257, 1), (3, 100)] {
                for nrhs in [1, 3] {
                    for kind in [Kind::Dominant, Kind::Pivoting] {
                        check(n, m, nrhs, kind, meth);
                    }
                }
            }
        }
    }

    #[test]
    fn bt_bad_arguments_in_lapack_order() {
        let cfg = cfg_with(None);
        let (mut dl, mut d, mut du, mut af, mut b) =
            (vec![0.0; 64], vec![0.0; 64], vec![0.0; 64], vec![0.0; 64], vec![0.0; 64]);
        let mut ip = vec![0i32; 16];
        let (dl, d, du, af, b, ip) =
            (raw(&mut dl), raw(&mut d), raw(&mut du), raw(&mut af), raw(&mut b), raw(&mut ip));
        let f = |n, m, laf| dbttrf(&cfg, n, m, dl, d, du, af, laf, ip);
        assert_eq!(f(-1, 2, 64), Err(Error::Arg(1)));
        assert_eq!(f(2, -1, 64), Err(Error::Arg(2)));
        assert_eq!(f(2, 2, 16), Err(Error::Arg(7)));
        let s = |t, n, m, r, laf, ldb| dbttrs(&cfg, t, n, m, r, dl, d, du, af, laf, ip, b, ldb);
        assert_eq!(s(b'X', 2, 2, 1, 64, 4), Err(Error::Arg(1)));
        assert_eq!(s(b'N', -1, 2, 1, 64, 4), Err(Error::Arg(2)));
        assert_eq!(s(b'N', 2, -1, 1, 64, 4), Err(Error::Arg(3)));
        assert_eq!(s(b'N', 2, 2, -1, 64, 4), Err(Error::Arg(4)));
        assert_eq!(s(b'N', 2, 2, 1, 16, 4), Err(Error::Arg(9)));
        assert_eq!(s(b'T', 2, 2, 1, 64, 3), Err(Error::Arg(12)));
        let v = |n, m, r, ldb| dbtsv(&cfg, n, m, r, dl, d, du, b, ldb);
        assert_eq!(v(-1, 2, 1, 4), Err(Error::Arg(1)));
        assert_eq!(v(2, -1, 1, 4), Err(Error::Arg(2)));
        assert_eq!(v(2, 2, -1, 4), Err(Error::Arg(3)));
        assert_eq!(v(2, 2, 1, 3), Err(Error::Arg(8)));
        assert_eq!(v(0, 2, 1, 1), Ok(()));
    }

    #[test]
    fn bt_singular_block_gives_info_and_leaves_b() {
        for meth in [Method::Thomas, Method::Twisted, Method::Cyclic] {
            let (n, m) = (5, 4);
            let mut a = Bt::random(n, m, Kind::Dominant, 3);
            // Row 1 is factored as given by both eliminations (Thomas: after row 0's update, so
            // zero that update too: A(1,0) = 0).
            let x = 1;
            for i in 0..m {
                a.d[x * m * m + i + m] = 0.0;
            }
            a.dl[..m * m].fill(0.0);
            let mut b = vec![1.0; n * m];
            let cfg = cfg_with(Some(meth));
            let (mut dl, mut d, mut du) = (a.dl.clone(), a.d.clone(), a.du.clone());
            let r = dbtsv(
                &cfg,
                n as i32,
                m as i32,
                1,
                raw(&mut dl),
                raw(&mut d),
                raw(&mut du),
                raw(&mut b),
                (n * m) as i32,
            );
            assert_eq!(r, Err(Error::Numerical((x * m + 2) as i32)), "{meth:?}");
            assert!(b.iter().all(|&v| v == 1.0));
        }
    }
}
