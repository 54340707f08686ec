//! ?GEMM (SGEMM, DGEMM, CGEMM, ZGEMM): C ← α·op(A)·op(B) + β·C, with the reference BLAS's
//! checks.
//!
//! Every ?GEMM in the process reaches hetla's exports once they are loaded: the program's own
//! calls, and those of LAPACK, ScaLAPACK and BLACS routines that call them through the symbol
//! table. Without devices (decided once per process and type, [`tiles_possible`]) an export jumps
//! to the backend's routine, which checks the arguments itself. With devices the export checks
//! them as the reference BLAS does; calls made inside a running task or inside another hetla
//! call (the backend's own LAPACK code, forwarded calls), and calls the cost model keeps on the
//! host, then go to the backend. Only a product large enough to pay for its transfers runs on
//! tiles over the host and the devices, with the allocation of [`crate::runtime::alloc`]
//! (`HETLA_GEMM_ALLOC`).

use super::{check_args, flag, record_device_stats, Path, Report};
use crate::algo::gemm::{generate, Product};
use crate::backend::{forward, BlasThreadsGuard};
use crate::config::Config;
use crate::device::{self, Device, Plan, Work};
use crate::error::Error;
use crate::graph::op::OpElem;
use crate::kernels::Trans;
use crate::runtime::alloc::{self, Allocation, Policy};
use crate::runtime::shared::SharedGraph;
use crate::runtime::Seq;
use crate::scalar::{self, Coef, Scalar};
use crate::tile::Raw;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// ?GEMM's TRANSA/TRANSB for element type `T`: 'N' is op(X) = X; 'C' is the adjoint Xᴴ; 'T' the
/// transpose Xᵀ (the adjoint for the real types).
pub(crate) fn parse_trans<T: Scalar>(c: u8) -> Option<Trans> {
    if flag(c, b'N') {
        Some(Trans::No)
    } else if flag(c, b'C') || (flag(c, b'T') && !T::COMPLEX) {
        Some(Trans::Yes)
    } else if flag(c, b'T') {
        Some(Trans::Transpose)
    } else {
        None
    }
}

/// The reference BLAS's argument checks for ?GEMM of element type `T`, in its order: TRANSA 1,
/// TRANSB 2, M 3, N 4, K 5, LDA 8 (≥ max(1, rows of A)), LDB 10, LDC 13.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn check<T: Scalar>(
    ta: u8,
    tb: u8,
    m: i32,
    n: i32,
    k: i32,
    lda: i32,
    ldb: i32,
    ldc: i32,
) -> Result<(Trans, Trans), Error> {
    let Some(opa) = parse_trans::<T>(ta) else { return Err(Error::Arg(1)) };
    let Some(opb) = parse_trans::<T>(tb) else { return Err(Error::Arg(2)) };
    let nrowa = if opa == Trans::No { m } else { k };
    let nrowb = if opb == Trans::No { k } else { n };
    check_args(&[
        (m < 0, 3),
        (n < 0, 4),
        (k < 0, 5),
        (lda < nrowa.max(1), 8),
        (ldb < nrowb.max(1), 10),
        (ldc < m.max(1), 13),
    ])?;
    Ok((opa, opb))
}

/// The reference's quick return: nothing changes when M or N is 0, or when op(A)·op(B)
/// contributes nothing (α = 0 or K = 0) and β = 1.
#[inline]
pub fn nothing_to_do<T: Scalar>(m: i32, n: i32, k: i32, alpha: T, beta: T) -> bool {
    m == 0 || n == 0 || ((alpha == T::zero() || k == 0) && beta == T::one())
}

/// Whether any ?GEMM of element type `T` in this process may run on tiles: devices are
/// configured (emulated ones, or CUDA devices that opened) and the routine (`dgemm`, `zgemm`, ...)
/// is not in `HETLA_DISABLE`. Decided on the type's first call and kept: its export then sends
/// every later call straight to one place (`abi::blas`).
#[inline]
pub fn tiles_possible<T: Scalar>() -> bool {
    static STATE: [AtomicU8; 4] = [const { AtomicU8::new(0) }; 4];
    let state = &STATE[scalar::type_index::<T>()];
    match state.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let cfg = crate::config::get();
            let yes = !cfg.is_disabled(scalar::name::<T>("gemm"))
                && (cfg.emulate_gpus > 0 || !device::cuda::open(cfg).is_empty());
            state.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
            yes
        }
    }
}

/// The nodes' speeds in flop/s, host first: the host's cores at the measured rate (or the share
/// `HETLA_HOST_SHARE` gives it), each device its measured rate, emulated ones times their
/// declared speed (`HETLA_EMULATE_GPU_SPEED`).
pub fn node_speeds(cfg: &Config, devices: &[Arc<dyn Device>]) -> Vec<f64> {
    let dev: Vec<f64> = devices
        .iter()
        .map(|d| {
            let declared = d
                .name()
                .strip_prefix("emu")
                .and_then(|i| i.parse::<usize>().ok())
                .map_or(1.0, |i| cfg.emulate_gpu_speed.get(i).copied().unwrap_or(1.0));
            d.gemm_rate() * declared
        })
        .collect();
    let total: f64 = dev.iter().sum();
    let host = match cfg.host_share {
        Some(h) if h < 1.0 => h.max(0.0) / (1.0 - h) * total,
        Some(_) => f64::MAX / 4.0,
        None => device::host_core_rate() * cfg.threads as f64,
    };
    std::iter::once(host).chain(dev).collect()
}

/// The C tiles' owners under `policy` for an `mt`×`nt` grid of `tile`-sized tiles of element type
/// `T`, inner size `k`, on nodes of `speeds` (DGEMM flop/s, host first) with links of
/// `bandwidth` bytes/s.
pub fn allocate<T: Scalar>(
    policy: Policy,
    mt: usize,
    nt: usize,
    tile: usize,
    k: usize,
    speeds: &[f64],
    bandwidth: f64,
) -> Vec<u8> {
    match policy {
        Policy::Nrrp => alloc::nrrp(mt, nt, speeds),
        Policy::Cyclic => {
            let h = speeds[0] / speeds.iter().sum::<f64>();
            alloc::cyclic(mt, nt, h, speeds.len() - 1)
        }
        Policy::Dynamic => {
            // In double-real flops (the nodes' speeds are DGEMM rates): a complex product is
            // four times the work, a single one about half the time.
            let part = std::mem::size_of::<T::Real>() as f64 / 8.0;
            let flops = 2.0 * (tile * tile * k) as f64 * T::FLOPS * part;
            let panel = (std::mem::size_of::<T>() * tile * k) as f64;
            alloc::greedy(mt, nt, speeds, flops, panel, panel, bandwidth)
        }
    }
}

/// Tile edge of C for a tiled product: `HETLA_DEVICE_NB`, else the GPU default (512), or for
/// emulated devices twice the host tile; at least max(m, n)/64, so the allocation's grid stays
/// small.
fn tile_edge(cfg: &Config, name: &str, devices: &[Arc<dyn Device>], m: usize, n: usize) -> usize {
    let t = match cfg.device_nb {
        Some(t) => t,
        None if devices.iter().all(|d| d.name().starts_with("emu")) => 2 * cfg.nb_for(name, m.min(n)),
        None => crate::config::default_device_nb(name),
    };
    t.max(m.max(n).div_ceil(64)).max(1)
}

/// Widths of the inner dimension's chunks: all of k at once unless a task's three tiles (t×kc of
/// A, kc×t of B, t×t of C, elements of `elem` bytes) would take more than a quarter of the
/// smallest device's memory.
fn chunks(k: usize, t: usize, elem: usize, devices: &[Arc<dyn Device>]) -> Vec<usize> {
    let cap =
        devices.iter().map(|d| d.memory() - device::memory::reserve(d.memory())).min().unwrap_or(usize::MAX);
    let elems = cap / 4 / elem;
    let kc = if elems > t * t + 2 * t { ((elems - t * t) / (2 * t)).max(1) } else { 1 };
    // Chunks as even as tiles of one width allow (the tiles of A and B are cut by the first).
    let kc = k.div_ceil(k.div_ceil(kc.min(k).max(1))).max(1);
    (0..k.div_ceil(kc)).map(|c| kc.min(k - c * kc)).collect()
}

/// SGEMM, DGEMM, CGEMM, ZGEMM: C ← α·op(A)·op(B) + β·C.
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: OpElem>(
    cfg: &Config,
    ta: u8,
    tb: u8,
    m: i32,
    n: i32,
    k: i32,
    alpha: T,
    a: Raw<T>,
    lda: i32,
    b: Raw<T>,
    ldb: i32,
    beta: T,
    c: Raw<T>,
    ldc: i32,
) -> Result<(), Error> {
    let (opa, opb) = check::<T>(ta, tb, m, n, k, lda, ldb, ldc)?;
    if nothing_to_do(m, n, k, alpha, beta) {
        return Ok(());
    }
    let name = scalar::name::<T>("gemm");
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let flops = 2.0 * mu as f64 * nu as f64 * ku as f64 * T::FLOPS;
    let fwd = || forward::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    // Nested calls forward silently: LAPACK's own code calls ?GEMM thousands of times. (Calls the
    // backend makes under another hetla call never get here: the exports forward them
    // themselves.)
    if crate::runtime::in_task() {
        fwd();
        return Ok(());
    }
    // Small products forward at once, silently: no device is opened for them.
    if mu.saturating_mul(nu).saturating_mul(ku) < cfg.gemm_min_volume {
        fwd();
        return Ok(());
    }
    let rep = Report::start(cfg);
    let (tac, tbc) = (ta.to_ascii_uppercase() as char, tb.to_ascii_uppercase() as char);
    let desc = format!("transa={tac} transb={tbc} m={m} n={n} k={k}");
    let why = if cfg.is_disabled(name) {
        Some("disabled")
    } else if alpha == T::zero() || k == 0 {
        Some("scale")
    } else {
        None
    };
    let devices = if why.is_none() { device::open(cfg) } else { Vec::new() };
    let elem = std::mem::size_of::<T>();
    let work = Work { flops, bytes: (elem * (mu * ku + ku * nu + mu * nu)) as f64, cols: nu };
    let one_tile = !devices.is_empty() && {
        let t = tile_edge(cfg, name, &devices, mu, nu);
        mu <= t && nu <= t
    };
    let why = if why.is_some() {
        why
    } else if devices.is_empty() {
        Some("no-devices")
    } else if one_tile {
        // One C tile: one task, nothing to share between the host and the devices.
        Some("one-tile")
    } else if !cfg.device_force && !device::worth_using(cfg, &devices, work) {
        Some("small")
    } else {
        None
    };
    if let Some(why) = why {
        fwd();
        rep.finish(name, format_args!("{desc}"), Path::Forward, Some(why), flops);
        return Ok(());
    }
    let t = tile_edge(cfg, name, &devices, mu, nu);
    let parts = chunks(ku, t, elem, &devices);
    let kc = parts[0];
    let _blas = BlasThreadsGuard::new();
    let mut devices = devices;
    // A device that fails takes itself out of service and the directory puts C back as it was:
    // the product is redone with the devices left (as the factorizations do).
    let mut attempts = 0;
    let r = loop {
        let speeds = node_speeds(cfg, &devices);
        let bw = devices.iter().map(|d| d.link_bandwidth()).fold(f64::INFINITY, f64::min);
        // SAFETY (the three from_raw): the checks passed, so each array holds its matrix with the
        // leading dimension given (Raw's contract); C is not aliased by A or B (DGEMM's rule).
        let cm = unsafe { crate::tile::TiledMatrix::from_raw(c.ptr(), mu, nu, ldc as usize, t, t) };
        let am = if opa == Trans::No {
            unsafe { crate::tile::TiledMatrix::from_raw(a.ptr(), mu, ku, lda as usize, t, kc) }
        } else {
            unsafe { crate::tile::TiledMatrix::from_raw(a.ptr(), ku, mu, lda as usize, kc, t) }
        };
        let bm = if opb == Trans::No {
            unsafe { crate::tile::TiledMatrix::from_raw(b.ptr(), ku, nu, ldb as usize, kc, t) }
        } else {
            unsafe { crate::tile::TiledMatrix::from_raw(b.ptr(), nu, ku, ldb as usize, t, kc) }
        };
        let (mt, nt) = (cm.mt(), cm.nt());
        let owner = allocate::<T>(cfg.gemm_alloc, mt, nt, t, ku, &speeds, bw);
        let allocation = Allocation {
            matrix: cm.id(),
            mt,
            nt,
            owner,
            steal: cfg.gemm_alloc == Policy::Nrrp && cfg.gemm_steal,
            speeds: speeds.clone(),
        };
        let hp = allocation.device_half_perimeters(speeds.len());
        // The owners row by row (`H` the host, `0`.. the devices) when the grid is small.
        let picture = if mt <= 32 && nt <= 32 && speeds.len() <= 36 {
            format!(" owners={}", allocation.picture().trim_end().replace('\n', "/"))
        } else {
            String::new()
        };
        let h = speeds[0] / speeds.iter().sum::<f64>();
        let plan = Plan {
            devices: devices.clone(),
            host_share: h,
            window: None,
            alloc: Some(Arc::new(allocation)),
            pattern: None,
        };
        let seq = Seq::with_plan(cfg, Some(plan));
        let mut g = SharedGraph::new(&seq, &cm);
        let ida = g.attach(&am);
        let idb = g.attach(&bm);
        let (amt, bmt) = (am.mt(), bm.mt());
        let product =
            Product { ta: opa, tb: opb, alpha: Coef::of(alpha), beta: Coef::of(beta), chunks: parts.clone() };
        generate(
            &mut g,
            &product,
            |i, kk| if opa == Trans::No { ida[i + kk * amt] } else { ida[kk + i * amt] },
            |kk, j| if opb == Trans::No { idb[kk + j * bmt] } else { idb[j + kk * bmt] },
        );
        drop(g);
        let (r, stats, host_steals) = seq.wait_steals();
        record_device_stats(&stats);
        let steals = host_steals + stats.iter().map(|s| s.steals).sum::<u64>();
        super::set_fields(format!(
            "alloc={} steals={steals} hp={hp} nb={t} kb={kc}{picture}",
            cfg.gemm_alloc.name()
        ));
        attempts += 1;
        match r {
            Err(e) if device::is_device_failure(&e) && attempts <= 8 => {
                devices = device::open(cfg);
                if devices.is_empty() {
                    fwd();
                    break Ok(());
                }
            }
            r => break r,
        }
    };
    rep.finish(name, format_args!("{desc}"), Path::Tiles, None, flops);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::{assert_untouched_outside, parts, Rng};
    use crate::backend::lapack as bk;
    use crate::kernels::fi;
    use crate::scalar::{c32, c64};

    /// The backend's ?GEMM on copies, the reference for every comparison.
    #[allow(clippy::too_many_arguments)]
    fn reference<T: Scalar>(
        ta: u8,
        tb: u8,
        m: usize,
        n: usize,
        k: usize,
        alpha: T,
        a: &[T],
        lda: usize,
        b: &[T],
        ldb: usize,
        beta: T,
        c: &mut [T],
        ldc: usize,
    ) {
        // SAFETY: the arrays hold their matrices with the leading dimensions given.
        unsafe {
            bk::gemm::<T>(
                bk::ch(ta),
                bk::ch(tb),
                &fi(m),
                &fi(n),
                &fi(k),
                &alpha,
                a.as_ptr(),
                &fi(lda),
                b.as_ptr(),
                &fi(ldb),
                &beta,
                c.as_mut_ptr(),
                &fi(ldc),
            )
        }
    }

    struct Case {
        ta: u8,
        tb: u8,
        m: usize,
        n: usize,
        k: usize,
        alpha: f64,
        beta: f64,
        pad: usize,
    }

    /// Runs `case` in f64 ([`run_as`]).
    fn run(cfg: &Config, case: &Case, seed: u64, nan_c: bool) -> Vec<device::DevStats> {
        run_as::<f64>(cfg, case, Coef::from(case.alpha), Coef::from(case.beta), seed, nan_c)
    }

    /// Runs `case` in element type `T` with factors `alpha` and `beta` (in place of the case's)
    /// through [`gemm`] with `cfg` and through the backend, compares C (largest difference at
    /// most 1000 ε times the largest |C|), the padding rows untouched; returns the device
    /// counters of the call.
    fn run_as<T: OpElem>(
        cfg: &Config,
        case: &Case,
        alpha: Coef,
        beta: Coef,
        seed: u64,
        nan_c: bool,
    ) -> Vec<device::DevStats> {
        let Case { ta, tb, m, n, k, pad, .. } = *case;
        let (alpha, beta) = (alpha.to::<T>(), beta.to::<T>());
        let (ar, ac) = if ta == b'N' { (m, k) } else { (k, m) };
        let (br, bc) = if tb == b'N' { (k, n) } else { (n, k) };
        let (lda, ldb, ldc) = (ar.max(1) + pad, br.max(1) + pad, m.max(1) + pad);
        let mut rng = Rng::new(seed);
        let a = rng.values::<T>(lda, ac, lda);
        let b = rng.values::<T>(ldb, bc, ldb);
        let mut c0 = rng.values::<T>(ldc, n, ldc);
        if nan_c {
            for j in 0..n {
                for i in 0..m {
                    c0[i + j * ldc] = T::from_parts(f64::NAN, f64::NAN);
                }
            }
        }
        let mut want = c0.clone();
        reference(ta, tb, m, n, k, alpha, &a, lda, &b, ldb, beta, &mut want, ldc);
        let mut got = c0.clone();
        super::super::DEV_STATS.with(|s| s.borrow_mut().clear());
        // SAFETY: the arrays hold their matrices with the leading dimensions given.
        let r = unsafe {
            gemm(
                cfg,
                ta,
                tb,
                fi(m),
                fi(n),
                fi(k),
                alpha,
                Raw::new(a.as_ptr() as *mut T),
                fi(lda),
                Raw::new(b.as_ptr() as *mut T),
                fi(ldb),
                beta,
                Raw::new(got.as_mut_ptr()),
                fi(ldc),
            )
        };
        assert_eq!(r, Ok(()));
        let at = |v: &[T], i: usize, j: usize| parts(v[i + j * ldc]);
        let (mut norm, mut diff) = (0.0f64, 0.0f64);
        for j in 0..n {
            for i in 0..m {
                let ((gr, gi), (wr, wi)) = (at(&got, i, j), at(&want, i, j));
                assert!(!gr.is_nan() && !gi.is_nan(), "NaN at ({i},{j}): {} {}x{}x{}", ta as char, m, n, k);
                norm = norm.max(wr.abs()).max(wi.abs());
                diff = diff.max((gr - wr).abs()).max((gi - wi).abs());
            }
        }
        assert!(
            diff <= 1000.0 * T::eps() * norm.max(f64::MIN_POSITIVE) || (norm == 0.0 && diff == 0.0),
            "{}{}{} m {m} n {n} k {k} alpha {alpha:?} beta {beta:?}: max diff {diff:e}, max |C| {norm:e}",
            T::LETTER as char,
            ta as char,
            tb as char
        );
        assert_untouched_outside(&c0, &got, m, n, ldc, None);
        super::super::DEV_STATS.with(|s| std::mem::take(&mut *s.borrow_mut()))
    }

    /// Exactly `count` emulated devices (no CUDA device, whatever `HETLA_TEST_GPUS` says: these
    /// tests count their devices).
    fn devices_cfg(count: usize, mem: usize, nb: usize, policy: Policy) -> Config {
        let mut c = Config::with_threads(2).with_emulated(count, mem);
        c.gpus = crate::config::GpuSelect::None;
        c.host_share = None;
        c.device_force = true;
        c.device_nb = Some(nb);
        c.gemm_alloc = policy;
        c.emulate_gpu_speed = vec![1.0, 2.0, 4.0];
        c.gemm_min_volume = 0;
        c
    }

    /// On the test run's devices (`HETLA_TEST_EMULATE_GPUS`, or the fake GPUs of
    /// `HETLA_TEST_GPUS`; none in a plain run, where the products are forwarded), in the four
    /// types; the complex ones with complex α and β, and 'T' (transpose) told apart from 'C'
    /// (adjoint).
    #[test]
    fn equal_to_the_backend_on_the_test_devices() {
        let mut cfg = crate::algo::testutil::cfg(2);
        cfg.gemm_min_volume = 0;
        cfg.device_force = true;
        cfg.device_nb.get_or_insert(24);
        let flags = [(b'N', b'N'), (b'T', b'N'), (b'N', b'C'), (b't', b't'), (b'C', b'T')];
        let on_devices = !device::open(&cfg).is_empty();
        let tasks = |stats: Vec<device::DevStats>| stats.iter().map(|s| s.tasks).sum::<u64>();
        // Device tasks per type over the five cases (one case's may all be taken by idle host
        // workers: stealing).
        let mut counts = [0u64; 4];
        for (s, (ta, tb)) in flags.into_iter().enumerate() {
            let case = Case { ta, tb, m: 71, n: 58, k: 33 + s, alpha: -2.5, beta: [0.0, 0.5][s % 2], pad: s };
            let (alpha, beta) =
                (Coef { re: -2.5, im: 0.75 }, Coef { re: case.beta, im: [0.0, -0.25][s % 2] });
            counts[1] += tasks(run(&cfg, &case, 40 + s as u64, s == 0));
            counts[0] += tasks(run_as::<f32>(
                &cfg,
                &case,
                Coef::from(-2.5),
                Coef::from(case.beta),
                50 + s as u64,
                s == 0,
            ));
            counts[2] += tasks(run_as::<c32>(&cfg, &case, alpha, beta, 60 + s as u64, s == 0));
            counts[3] += tasks(run_as::<c64>(&cfg, &case, alpha, beta, 70 + s as u64, s == 0));
        }
        assert!(counts.iter().all(|&t| (t > 0) == on_devices), "{on_devices}: {counts:?}");
    }

    /// SGEMM, CGEMM and ZGEMM on 0 and 2 emulated devices: every TRANSA/TRANSB pair, complex α
    /// and β (and α = 0, β = 0 and 1), K in chunks; the products on devices run tasks there.
    #[test]
    fn other_types_equal_to_the_backend_on_0_and_2_devices() {
        fn sweep<T: OpElem>(devices: usize) {
            let cfg = devices_cfg(devices, 96 << 10, 16, Policy::Nrrp);
            let factors = [
                (Coef { re: -2.5, im: 0.75 }, Coef { re: 0.5, im: -0.25 }),
                (Coef { re: 0.0, im: 1.0 }, Coef::from(0.0)),
                (Coef::from(1.0), Coef::from(1.0)),
                (Coef::from(0.0), Coef { re: 0.0, im: -1.0 }),
            ];
            let (mut seed, mut device_tasks) = (200, 0);
            for &ta in b"NTC" {
                for &tb in b"NTC" {
                    for (s, &(m, n, k)) in [(37, 53, 29), (61, 17, 100)].iter().enumerate() {
                        let (alpha, beta) = factors[(seed as usize + s) % factors.len()];
                        let (alpha, beta) = if T::COMPLEX {
                            (alpha, beta)
                        } else {
                            (Coef::from(alpha.re + alpha.im), Coef::from(beta.re + beta.im))
                        };
                        let case = Case { ta, tb, m, n, k, alpha: 0.0, beta: 0.0, pad: s };
                        let stats = run_as::<T>(&cfg, &case, alpha, beta, seed, false);
                        let tasks: u64 = stats.iter().map(|s| s.tasks).sum();
                        // α = 0 scales C on the host; no device without devices.
                        if devices == 0 || alpha.is_zero() {
                            assert_eq!(tasks, 0, "{} {} {}", T::LETTER as char, ta as char, tb as char);
                        }
                        device_tasks += tasks;
                        seed += 1;
                    }
                }
            }
            // Over the sweep (one case's tasks may all be stolen by idle host workers).
            assert_eq!(device_tasks > 0, devices > 0, "{} on {devices} devices", T::LETTER as char);
        }
        for devices in [0, 2] {
            sweep::<f32>(devices);
            sweep::<c32>(devices);
            sweep::<c64>(devices);
        }
    }

    #[test]
    fn argument_errors_in_the_reference_order() {
        assert_eq!(check::<f64>(b'X', b'N', 1, 1, 1, 1, 1, 1), Err(Error::Arg(1)));
        assert_eq!(check::<f64>(b'n', b'Q', 1, 1, 1, 1, 1, 1), Err(Error::Arg(2)));
        assert_eq!(check::<f64>(b'N', b'N', -1, -1, 1, 1, 1, 1), Err(Error::Arg(3)));
        assert_eq!(check::<f64>(b'N', b'N', 1, -1, -1, 1, 1, 1), Err(Error::Arg(4)));
        assert_eq!(check::<f64>(b'N', b'N', 1, 1, -1, 0, 1, 1), Err(Error::Arg(5)));
        // LDA counts A's rows: M for 'N', K for 'T'/'C'.
        assert_eq!(check::<f64>(b'N', b'N', 5, 2, 3, 4, 3, 5), Err(Error::Arg(8)));
        assert_eq!(check::<f64>(b'T', b'N', 5, 2, 3, 3, 3, 5), Ok((Trans::Yes, Trans::No)));
        assert_eq!(check::<f64>(b'C', b'N', 5, 2, 3, 2, 3, 5), Err(Error::Arg(8)));
        // LDB: K for 'N', N for 'T'.
        assert_eq!(check::<f64>(b'N', b'N', 5, 2, 3, 5, 2, 5), Err(Error::Arg(10)));
        assert_eq!(check::<f64>(b'N', b't', 5, 2, 3, 5, 2, 5), Ok((Trans::No, Trans::Yes)));
        assert_eq!(check::<f64>(b'N', b'N', 5, 2, 3, 5, 3, 4), Err(Error::Arg(13)));
        // Zero sizes still need leading dimensions of at least 1.
        assert_eq!(check::<f64>(b'N', b'N', 0, 0, 0, 0, 1, 1), Err(Error::Arg(8)));
        assert_eq!(check::<f64>(b'N', b'N', 0, 0, 0, 1, 1, 1), Ok((Trans::No, Trans::No)));
        // The complex types tell 'T' (transpose) from 'C' (adjoint); the real ones take both
        // as the transpose.
        assert_eq!(check::<c64>(b't', b'C', 5, 2, 3, 3, 2, 5), Ok((Trans::Transpose, Trans::Yes)));
        assert_eq!(check::<c32>(b'C', b'T', 5, 2, 3, 3, 2, 5), Ok((Trans::Yes, Trans::Transpose)));
        assert_eq!(check::<f32>(b'T', b'c', 5, 2, 3, 3, 2, 5), Ok((Trans::Yes, Trans::Yes)));
        assert_eq!(check::<c64>(b'H', b'N', 5, 2, 3, 3, 2, 5), Err(Error::Arg(1)));
        let (i, one) = (c64::from_parts(0.0, 1.0), c64::one());
        assert!(nothing_to_do(5, 5, 5, c64::zero(), one) && !nothing_to_do(5, 5, 5, c64::zero(), i));
        assert!(!nothing_to_do(5, 5, 5, i, one));
        assert!(nothing_to_do(0, 5, 5, 1.0, 0.5) && nothing_to_do(5, 5, 0, 1.0, 1.0));
        assert!(nothing_to_do(5, 5, 5, 0.0, 1.0) && !nothing_to_do(5, 5, 5, 0.0, 0.5));
    }

    /// Every TRANSA/TRANSB, α ∈ {0, 1, −2.5}, β ∈ {0, 1, 0.5}, odd shapes and padded leading
    /// dimensions, on 0 to 3 emulated accelerators whose memory holds only a few tiles (chunks
    /// of K, evictions), with each allocation policy.
    #[test]
    fn equal_to_the_backend_for_every_case_on_0_to_3_devices() {
        let shapes = [(1, 1, 1), (37, 53, 29), (61, 17, 100), (5, 90, 3), (100, 100, 1)];
        let mut seed = 1;
        for devices in 0..=3 {
            for policy in [Policy::Nrrp, Policy::Cyclic, Policy::Dynamic] {
                if devices == 0 && policy != Policy::Nrrp {
                    continue;
                }
                // 48 KiB devices: tiles of 16, K in chunks (evictions and chains).
                let cfg = devices_cfg(devices, 48 << 10, 16, policy);
                let mut device_tasks = 0;
                for &ta in b"NTC" {
                    for &tb in b"NTc" {
                        for (s, &(m, n, k)) in shapes.iter().enumerate() {
                            let alpha = [1.0, -2.5, 0.0][(s + seed as usize) % 3];
                            let beta = [0.0, 1.0, 0.5][(s + 2 * seed as usize) % 3];
                            let case = Case { ta, tb, m, n, k, alpha, beta, pad: s % 3 };
                            let stats = run(&cfg, &case, seed, false);
                            device_tasks += stats.iter().map(|s| s.tasks).sum::<u64>();
                            seed += 1;
                            if devices > 0 && alpha != 0.0 && (m > 16 || n > 16) {
                                assert_eq!(stats.len(), devices, "{devices} devices, {policy:?}: {stats:?}");
                            }
                        }
                    }
                }
                assert_eq!(device_tasks > 0, devices > 0, "{devices} devices, {policy:?}");
            }
        }
    }

    #[test]
    fn all_alpha_beta_pairs_and_a_large_odd_product_on_devices() {
        let cfg = devices_cfg(3, 4 << 20, 64, Policy::Nrrp);
        let mut seed = 100;
        for alpha in [0.0, 1.0, -2.5] {
            for beta in [0.0, 1.0, 0.5] {
                run(
                    &cfg,
                    &Case { ta: b'N', tb: b'T', m: 131, n: 77, k: 59, alpha, beta, pad: 2 },
                    seed,
                    false,
                );
                seed += 1;
            }
        }
        // One dimension of 1500, not a multiple of the tile; 2 MiB devices chunk K.
        let cfg = devices_cfg(2, 2 << 20, 96, Policy::Nrrp);
        let stats = run(
            &cfg,
            &Case { ta: b'T', tb: b'N', m: 1500, n: 203, k: 301, alpha: -2.5, beta: 0.5, pad: 1 },
            7,
            false,
        );
        assert!(stats.iter().all(|s| s.tasks > 0), "{stats:?}");
        let stats = run(
            &cfg,
            &Case { ta: b'N', tb: b'N', m: 289, n: 301, k: 1500, alpha: 1.0, beta: 1.0, pad: 0 },
            8,
            false,
        );
        assert!(stats.iter().all(|s| s.tasks > 0) && stats.iter().any(|s| s.evictions > 0), "{stats:?}");
    }

    #[test]
    fn beta_zero_ignores_nan_in_c_on_devices_and_forwarded() {
        for devices in [0, 2] {
            let cfg = devices_cfg(devices, 1 << 20, 16, Policy::Nrrp);
            for (ta, tb) in [(b'N', b'N'), (b'T', b'T')] {
                run(&cfg, &Case { ta, tb, m: 45, n: 38, k: 21, alpha: -2.5, beta: 0.0, pad: 1 }, 3, true);
                // α = 0, β = 0: C becomes zero.
                run(&cfg, &Case { ta, tb, m: 45, n: 38, k: 21, alpha: 0.0, beta: 0.0, pad: 1 }, 4, true);
            }
        }
    }

    /// Without stealing and with memory for every panel, each device receives each row panel
    /// of A and column panel of B its C tiles need exactly once (β = 0: C is not read): bytes in
    /// = the allocation's device half-perimeter sum × one panel; `nrrp`'s is below `cyclic`'s.
    #[test]
    fn each_panel_moves_once_and_nrrp_moves_less_than_cyclic() {
        let (t, k) = (32usize, 64usize);
        let panel = (t * k * 8) as u64;
        let mut bytes = Vec::new();
        for policy in [Policy::Nrrp, Policy::Cyclic] {
            let mut cfg = devices_cfg(3, 64 << 20, t, policy);
            cfg.host_share = Some(0.2);
            cfg.gemm_steal = false;
            let case = Case { ta: b'N', tb: b'N', m: 512, n: 512, k, alpha: 1.0, beta: 0.0, pad: 0 };
            let stats = run(&cfg, &case, 9, false);
            assert!(stats.iter().all(|s| s.evictions == 0 && s.steals == 0), "{stats:?}");
            let devs = device::open(&cfg);
            let speeds = node_speeds(&cfg, &devs);
            let own = allocate::<f64>(policy, 16, 16, t, k, &speeds, 8e9);
            let hp = alloc::device_half_perimeters(&own, 16, 16, 4) as u64;
            let moved = stats.iter().map(|s| s.bytes_in).sum::<u64>();
            assert_eq!(moved, hp * panel, "{policy:?}: {stats:?}");
            bytes.push(moved);
        }
        assert!(bytes[0] < bytes[1], "nrrp {} bytes in, cyclic {}", bytes[0], bytes[1]);
    }

    /// Declared speeds that overstate one device (1, 1, 8 while all three compute alike): the
    /// allocation gives it most tiles, and the others, idle, take its queued tasks
    /// (EffectiveSteal); the product is unchanged.
    #[test]
    fn idle_nodes_steal_from_an_overloaded_device() {
        let mut cfg = devices_cfg(3, 64 << 20, 64, Policy::Nrrp);
        cfg.emulate_gpu_speed = vec![1.0, 1.0, 8.0];
        let case = Case { ta: b'N', tb: b'T', m: 512, n: 448, k: 256, alpha: 1.0, beta: 0.5, pad: 1 };
        let stats = run(&cfg, &case, 11, false);
        let fields = super::super::FIELDS.with(|f| f.borrow().clone()).unwrap_or_default();
        let steals: u64 = fields
            .split_whitespace()
            .find_map(|f| f.strip_prefix("steals="))
            .and_then(|v| v.parse().ok())
            .expect("a steals= field");
        let device_steals: u64 = stats.iter().map(|s| s.steals).sum();
        assert!(steals > 0 && steals >= device_steals, "{fields} {stats:?}");
    }

    #[test]
    fn allocation_follows_declared_speeds() {
        let cfg = devices_cfg(3, 1 << 20, 16, Policy::Nrrp);
        let devs = device::open(&cfg);
        let s = node_speeds(&cfg, &devs);
        let r = device::host_core_rate();
        assert_eq!(s.len(), 4);
        for (got, want) in s.iter().zip([2.0 * r, r, 2.0 * r, 4.0 * r]) {
            assert!((got - want).abs() <= 1e-9 * want, "{s:?}");
        }
        let own = allocate::<f64>(Policy::Nrrp, 8, 8, 16, 16, &s, 1e9);
        assert_eq!(alloc::areas(&own, 4), alloc::quotas(64, &[2.0, 1.0, 2.0, 4.0]));
    }
}
