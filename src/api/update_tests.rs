//! `HETLA_UPDATE_ALLOC=nrrp`: DPOTRF, DGETRF and DGEQRF with their updates placed by a pattern of
//! NRRP zones, against the backend, on 1 to 3 emulated accelerators (declared speeds 1, 2, 4),
//! with and without a host share, in memory large enough and so small that tiles are evicted;
//! and the placement itself: each task runs on the pattern's owner of the tile it writes.

use super::*;
use crate::algo::testutil::*;
use crate::backend::{forward, lapack as bk};
use crate::kernels::Uplo;
use crate::runtime::alloc::{Pattern, UpdatePolicy};
use crate::tile::{Raw, TiledMatrix};

/// Every call on tiles of `nb` (device tiles of 2·nb), on `devices` emulated accelerators of
/// `mem` bytes, the host owning `host_share` of the speed, updates by the NRRP pattern.
fn nrrp_cfg(devices: usize, mem: usize, host_share: f64, nb: usize) -> Config {
    let mut c = Config::with_threads(3);
    c.emulate_gpus = devices;
    c.emulate_gpu_mem = mem;
    c.emulate_gpu_speed = [1.0, 2.0, 4.0][..devices].to_vec();
    c.host_share = Some(host_share);
    c.device_force = true;
    c.min_n = Some(0);
    c.nb = Some(nb);
    c.update_alloc = UpdatePolicy::Nrrp;
    c
}

/// 1, 2, 3 devices × host share 0 and 0.3 × 16 MiB and 24 KiB of device memory.
fn setups() -> Vec<(usize, f64, usize)> {
    let mut v = Vec::new();
    for devices in 1..=3 {
        for host_share in [0.0, 0.3] {
            for mem in [16 << 20, 24 << 10] {
                v.push((devices, host_share, mem));
            }
        }
    }
    v
}

/// What the last call reported: its `update=` field, tasks run on the devices, evictions.
fn last_call() -> (Option<String>, u64, u64) {
    let fields = FIELDS.with(|f| f.borrow_mut().take());
    let stats = DEV_STATS.with(|s| s.borrow().clone());
    (fields, stats.iter().map(|s| s.tasks).sum(), stats.iter().map(|s| s.evictions).sum())
}

fn max_diff(a: &[f64], b: &[f64], m: usize, n: usize, ld: usize, keep: impl Fn(usize, usize) -> bool) -> f64 {
    let mut d: f64 = 0.0;
    for j in 0..n {
        for i in 0..m {
            if keep(i, j) {
                d = d.max((a[i + j * ld] - b[i + j * ld]).abs());
            }
        }
    }
    d
}

#[test]
fn dpotrf_with_nrrp_updates_matches_the_backend() {
    let mut evicted = false;
    for (devices, host_share, mem) in setups() {
        for (uplo, n, nb) in [(b'L', 100, 4), (b'U', 77, 5), (b'L', 37, 3)] {
            let lda = n + 3;
            let a0 = Rng::new(n as u64 + devices as u64).spd(n, lda);
            let (mut want, mut info) = (a0.clone(), 0);
            // SAFETY: an n×n matrix with leading dimension lda.
            unsafe { bk::dpotrf(bk::ch(uplo), &(n as i32), want.as_mut_ptr(), &(lda as i32), &mut info, 1) };
            assert_eq!(info, 0);
            let mut a = a0.clone();
            let cfg = nrrp_cfg(devices, mem, host_share, nb);
            // SAFETY: `a` holds lda·n elements.
            potrf::dpotrf(&cfg, uplo, n as i32, unsafe { Raw::new(a.as_mut_ptr()) }, lda as i32).unwrap();
            let (fields, tasks, evictions) = last_call();
            let setup = format!("{} n {n}, {devices} devices, host {host_share}, {mem} bytes", uplo as char);
            assert!(
                fields.as_deref().is_some_and(|f| f.starts_with("update=nrrp owners=")),
                "{setup}: {fields:?}"
            );
            assert!(tasks > 0, "{setup}: nothing ran on the devices");
            evicted |= evictions > 0;
            let lower = uplo == b'L';
            let d = max_diff(&a, &want, n, n, lda, |i, j| (lower && i >= j) || (!lower && i <= j));
            assert!(d < 10.0 * n as f64 * eps() * fnorm(&a0, n, n, lda), "{setup}: factor differs by {d}");
            let ul = if lower { Uplo::Lower } else { Uplo::Upper };
            assert_untouched_outside(&a0, &a, n, n, lda, Some(ul));
        }
        // Not positive definite at column 53: the backend's INFO.
        let (n, lda) = (90, 91);
        let mut a0 = Rng::new(5).spd(n, lda);
        a0[52 + 52 * lda] = -1e3;
        let (mut want, mut info) = (a0.clone(), 0);
        // SAFETY: as above.
        unsafe { bk::dpotrf(bk::ch(b'L'), &(n as i32), want.as_mut_ptr(), &(lda as i32), &mut info, 1) };
        let mut a = a0.clone();
        let cfg = nrrp_cfg(devices, mem, host_share, 4);
        // SAFETY: as above.
        let r = potrf::dpotrf(&cfg, b'L', n as i32, unsafe { Raw::new(a.as_mut_ptr()) }, lda as i32);
        assert_eq!(r, Err(Error::Numerical(info)), "{devices} devices, host {host_share}, {mem} bytes");
    }
    assert!(evicted, "the small devices never evicted a tile");
}

#[test]
fn dgetrf_with_nrrp_updates_matches_the_backend() {
    for (devices, host_share, mem) in setups() {
        for (m, n, nb) in [(90, 90, 4), (101, 47, 5), (47, 90, 4)] {
            let lda = m + 2;
            let a0 = Rng::new((m * n + devices) as u64).matrix(m, n, lda);
            let k = m.min(n);
            let (mut want, mut piv_want, mut info) = (a0.clone(), vec![0i32; k], 0);
            // SAFETY: an m×n matrix with leading dimension lda and k pivots.
            unsafe {
                bk::dgetrf(
                    &(m as i32),
                    &(n as i32),
                    want.as_mut_ptr(),
                    &(lda as i32),
                    piv_want.as_mut_ptr(),
                    &mut info,
                )
            };
            let (mut a, mut piv) = (a0.clone(), vec![0i32; k]);
            let cfg = nrrp_cfg(devices, mem, host_share, nb);
            // SAFETY: the arrays have the sizes DGETRF documents for these arguments.
            let r = getrf::dgetrf(
                &cfg,
                m as i32,
                n as i32,
                unsafe { Raw::new(a.as_mut_ptr()) },
                lda as i32,
                unsafe { Raw::new(piv.as_mut_ptr()) },
            );
            let (fields, tasks, _) = last_call();
            let setup = format!("{m}×{n}, {devices} devices, host {host_share}, {mem} bytes");
            assert!(
                fields.as_deref().is_some_and(|f| f.starts_with("update=nrrp owners=")),
                "{setup}: {fields:?}"
            );
            assert!(tasks > 0, "{setup}: nothing ran on the devices");
            assert_eq!((r, info), (Ok(()), 0), "{setup}");
            assert_eq!(piv, piv_want, "{setup}");
            // Same pivots, so the factors agree to rounding relative to their largest entry.
            let d = max_diff(&a, &want, m, n, lda, |_, _| true);
            let big = max_diff(&want, &vec![0.0; want.len()], m, n, lda, |_, _| true);
            assert!(d < 20.0 * m.max(n) as f64 * eps() * big.max(1.0), "{setup}: factors differ by {d}");
            assert_untouched_outside(&a0, &a, m, n, lda, None);
        }
    }
}

#[test]
fn dgeqrf_with_nrrp_updates_matches_the_backend() {
    for (devices, host_share, mem) in setups() {
        for (m, n, nb) in [(90, 90, 4), (101, 47, 5), (47, 90, 4)] {
            let lda = m + 2;
            let k = m.min(n);
            let a0 = Rng::new((m + n * devices) as u64).matrix(m, n, lda);
            let (mut a, mut want) = (a0.clone(), a0.clone());
            let (mut tau, mut tau_want) = (vec![GUARD; k + 1], vec![GUARD; k + 1]);
            let lwork = 64 * n as i32;
            let (mut w, mut w_want) = (vec![0.0; lwork as usize], vec![0.0; lwork as usize]);
            // SAFETY: every array is as large as the arguments say.
            let (ra, rt, rw) = unsafe {
                (Raw::new(want.as_mut_ptr()), Raw::new(tau_want.as_mut_ptr()), Raw::new(w_want.as_mut_ptr()))
            };
            assert_eq!(forward::dgeqrf(m as i32, n as i32, ra, lda as i32, rt, rw, lwork), 0);
            let cfg = nrrp_cfg(devices, mem, host_share, nb);
            // SAFETY: as above.
            let (oa, ot, ow) =
                unsafe { (Raw::new(a.as_mut_ptr()), Raw::new(tau.as_mut_ptr()), Raw::new(w.as_mut_ptr())) };
            geqrf::dgeqrf(&cfg, m as i32, n as i32, oa, lda as i32, ot, ow, lwork).unwrap();
            let (fields, tasks, _) = last_call();
            let setup = format!("{m}×{n}, {devices} devices, host {host_share}, {mem} bytes");
            assert!(
                fields.as_deref().is_some_and(|f| f.starts_with("update=nrrp owners=")),
                "{setup}: {fields:?}"
            );
            assert!(tasks > 0, "{setup}: nothing ran on the devices");
            let tol = 10.0 * m.max(n) as f64 * eps();
            let d = max_diff(&a, &want, m, n, lda, |_, _| true);
            assert!(d < tol, "{setup}: A differs by {d}");
            let dt = (0..k).map(|i| (tau[i] - tau_want[i]).abs()).fold(0.0, f64::max);
            assert!(dt < tol && tau[k] == GUARD, "{setup}: tau differs by {dt}");
            assert_untouched_outside(&a0, &a, m, n, lda, None);
        }
    }
}

/// Every task of a tile Cholesky runs on the pattern's owner of the tile it writes: tile (i, j)
/// of the lower triangle is written by j updates and its POTRF or TRSM, so device d runs
/// Σ (j + 1) over its tiles; without `Seq::allocate` the pattern places nothing.
#[test]
fn each_cholesky_task_runs_on_the_owner_of_its_tile() {
    let (n, nb): (usize, usize) = (43, 5);
    let nt = n.div_ceil(nb);
    // A 2×3 period: host, devices 0, 1, 2.
    let pattern = Pattern { rows: 2, cols: 3, owner: vec![1, 0, 2, 3, 0, 1] };
    for bind in [true, false] {
        let cfg = Config::with_threads(3).with_emulated(3, 16 << 20);
        let devices = device::open(&cfg);
        let plan = Plan {
            devices,
            host_share: 0.5,
            window: None,
            alloc: None,
            pattern: Some(std::sync::Arc::new(pattern.clone())),
        };
        let a0 = Rng::new(3).spd(n, n);
        let mut a = a0.clone();
        // SAFETY: an n×n matrix with leading dimension n, alive until the sequence has drained.
        let t = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), n, n, n, nb, nb) };
        let seq = Seq::with_plan(&cfg, Some(plan));
        if bind {
            seq.allocate(&t);
        }
        crate::algo::potrf::potrf(&seq, Uplo::Lower, &t);
        let (r, stats) = seq.wait_stats();
        r.unwrap();
        assert!(chol_residual(Uplo::Lower, n, &a0, &a, n) < 10.0);
        let mut want = [0u64; 3];
        for j in 0..nt {
            for i in j..nt {
                let o = if bind {
                    pattern.owner(i, j)
                } else {
                    crate::runtime::placement::Placement::new(0.5, 3).owner(j).map_or(0, |d| d + 1)
                };
                if o > 0 {
                    want[o - 1] += j as u64 + 1;
                }
            }
        }
        let got: Vec<u64> = stats.iter().map(|s| s.tasks).collect();
        assert_eq!(got, want, "bound {bind}");
        assert!(stats.iter().all(|s| s.host_fallbacks == 0), "{stats:?}");
    }
}
