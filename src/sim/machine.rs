//! The modelled machine: a node (cores, GPUs, their kernel rates, the host↔GPU links) and the
//! network between nodes. Read from and written to JSON machine files (format in
//! docs/simulator.md); [`calibrate`] measures this machine.

use crate::backend::BlasThreadsGuard;
use crate::kernels::{self, Diag, Side, Trans, Uplo};
use crate::tile::{View, ViewMut};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// A kernel's speed by tile size: points (tile edge, GFLOP/s per core or per GPU), increasing
/// edges; between points linear, outside them the nearest point.
pub type RateTable = Vec<(usize, f64)>;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Machine {
    pub name: String,
    /// Where the numbers come from (measured here, or which paper figure).
    pub source: String,
    /// Cores per node.
    pub cores: usize,
    /// Per-core GFLOP/s of each host kernel on e×e tiles, all cores busy, by the name the trace
    /// shows (`graph::Op::name`: `gemm`, `syrk`, `trsm`, `potrf`; the QR's `geqrf` panel,
    /// `larfb`, `qr-vtc`, `qr-tw`, `qr-vw`); `NAME_tall` for blocks of TALL·e rows (a tile
    /// column's update or panel).
    pub host: BTreeMap<String, RateTable>,
    /// Seconds the runtime spends per task besides the kernel (scheduling, dependencies).
    pub task_overhead_s: f64,
    /// GPUs per node.
    pub gpus: usize,
    /// Per-GPU GFLOP/s of each device kernel.
    pub gpu: BTreeMap<String, RateTable>,
    /// Bytes of memory per GPU.
    pub gpu_memory: f64,
    /// Host↔GPU link: bytes per second each way, and latency per copy.
    pub link_bw: f64,
    pub link_latency_s: f64,
    /// Between nodes (or ranks): bytes per second per link, latency per message.
    pub net_bw: f64,
    pub net_latency_s: f64,
    /// Host memory copy rate (bytes per second), for layout conversions.
    pub memcpy_bw: f64,
    /// CPU work of a message, in passes over its bytes at `memcpy_bw`: on the sending rank
    /// (hetla's send task packs the tile into a new buffer) and on the receiving rank's master
    /// (MPI's copy when the ranks share a node's memory, the new receive buffer, the unpack into
    /// the local copy). Absent: free.
    #[serde(default)]
    pub send_copies: f64,
    #[serde(default)]
    pub recv_copies: f64,
    /// Extra passes at `memcpy_bw` that writing host memory costs the first time it is touched
    /// (page faults, the kernel zeroing the page): what an emulated accelerator pays for the
    /// part of its fresh arena a call fills (`device::emulated`). Absent: none.
    #[serde(default)]
    pub first_touch_passes: f64,
}

/// Kernel `name`'s rate at tile edge `s` in `table`, flop/s.
pub fn rate(table: &BTreeMap<String, RateTable>, name: &str, s: usize) -> f64 {
    let t = table
        .get(name)
        .or_else(|| table.get("gemm"))
        .unwrap_or_else(|| panic!("hetla-sim: the machine has no rate for {name} (nor gemm)"));
    assert!(!t.is_empty(), "hetla-sim: empty rate table for {name}");
    let gf = match t.iter().position(|&(e, _)| e >= s) {
        None => t[t.len() - 1].1,
        Some(0) => t[0].1,
        Some(i) => {
            let ((e0, r0), (e1, r1)) = (t[i - 1], t[i]);
            r0 + (r1 - r0) * (s - e0) as f64 / (e1 - e0) as f64
        }
    };
    gf * 1e9
}

impl Machine {
    pub fn load(path: &str) -> Result<Machine, String> {
        let s = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        serde_json::from_str(&s).map_err(|e| format!("{path}: {e}"))
    }
    pub fn save(&self, path: &str) -> Result<(), String> {
        let s = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(path, s + "\n").map_err(|e| format!("{path}: {e}"))
    }
}

/// The kernels [`calibrate`] measures (the `_tall` ones on blocks of `TALL` tiles).
pub const KERNELS: &[&str] = &[
    "gemm",
    "syrk",
    "trsm",
    "potrf",
    "gemm_tall",
    "trsm_tall",
    "geqrf",
    "geqrf_tall",
    "larfb",
    "larfb_tall",
    "qr-vtc",
    "qr-vtc_tall",
    "qr-tw",
    "qr-vw",
    "getrf",
    "getrf_tall",
    "update",
    "update_tall",
    "bt-getrf",
    "bt-getrs",
];

/// Tile edges calibrated.
const EDGES: [usize; 8] = [32, 64, 96, 128, 192, 256, 384, 512];

/// Measures this machine: every host kernel at each tile edge with all `cores` cores running it
/// at once (each on its own tiles, single-threaded BLAS, as the runtime's workers do), the
/// runtime's cost per task, and the memory copy rate. No GPU is measured (`gpus` = 0).
pub fn calibrate(cores: usize) -> Machine {
    calibrate_watched(cores).0
}

/// [`calibrate`], and the share of the machine's CPU time that other work (other processes, the
/// hypervisor's steal) used meanwhile: rates measured beside other work are low, so a share
/// above a few percent means "calibrate again when the machine is quiet". `None` without
/// `/proc`.
pub fn calibrate_watched(cores: usize) -> (Machine, Option<f64>) {
    let before = cpu_ticks();
    let mut m = calibrate_now(cores);
    let other = match (before, cpu_ticks()) {
        (Some((t0, b0, s0)), Some((t1, b1, s1))) if t1 > t0 => {
            Some(((b1 - b0).saturating_sub(s1 - s0)) as f64 / (t1 - t0) as f64)
        }
        _ => None,
    };
    if let Some(o) = other {
        m.source += &format!("; other work used {:.0}% of the CPU time meanwhile", o * 100.0);
    }
    (m, other)
}

/// CPU clock ticks so far: all of the machine's (idle included), its busy ones (steal included),
/// and this process's.
fn cpu_ticks() -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let f: Vec<u64> =
        stat.lines().next()?.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal (guest time is already in user).
    let total: u64 = f.iter().take(8).sum();
    let busy = total - f.get(3)? - f.get(4)?;
    let me = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest: Vec<&str> = me.rsplit_once(')')?.1.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime); `rest` starts at field 3.
    let own = rest.get(11)?.parse::<u64>().ok()? + rest.get(12)?.parse::<u64>().ok()?;
    Some((total, busy, own))
}

fn calibrate_now(cores: usize) -> Machine {
    let _blas = BlasThreadsGuard::new();
    let mut host = BTreeMap::new();
    for &name in KERNELS {
        let table: RateTable = EDGES.iter().map(|&e| (e, concurrent_rate(name, e, cores) / 1e9)).collect();
        host.insert(name.to_string(), table);
    }
    let memcpy_bw = measure_memcpy();
    let (send_copies, recv_copies) = measure_message_copies(memcpy_bw);
    Machine {
        name: "this machine".into(),
        source: format!("hetla-sim calibrate: {cores} cores, measured on this machine"),
        cores,
        host,
        task_overhead_s: measure_task_overhead(cores),
        gpus: 0,
        gpu: BTreeMap::new(),
        gpu_memory: 0.0,
        link_bw: 1.0,
        link_latency_s: 0.0,
        // Ranks on one node exchange tiles through shared memory: MPI moves a message with
        // one copy (Open MPI's vader BTL, single-copy CMA), made by the receiver, which is
        // counted in `recv_copies` too; packing and unpacking are CPU work of the ranks.
        net_bw: memcpy_bw,
        net_latency_s: 5e-6,
        memcpy_bw,
        send_copies,
        recv_copies,
        first_touch_passes: measure_first_touch(memcpy_bw),
    }
}

/// Rows of the blocks `gemm_tall` and `trsm_tall` are calibrated on, in tile edges.
const TALL: usize = 8;

/// flop/s per core of kernel `name` on e×e tiles (TALL·e×e blocks for the `_tall` kernels) with
/// `cores` threads each running it.
fn concurrent_rate(name: &'static str, e: usize, cores: usize) -> f64 {
    let tiles = if name.ends_with("_tall") { TALL } else { 1 };
    concurrent_rate_at(name.trim_end_matches("_tall"), e, tiles, cores)
}

/// flop/s per core of kernel `name` (without `_tall`) on blocks `tiles`·e tall with `cores`
/// threads each running it.
fn concurrent_rate_at(name: &'static str, e: usize, tiles: usize, cores: usize) -> f64 {
    let flops = kernel_flops(name, e, tiles * e);
    let total: f64 = std::thread::scope(|s| {
        let hs: Vec<_> =
            (0..cores).map(|_| s.spawn(move || one_core_rate(name, e, tiles * e, flops))).collect();
        hs.into_iter().map(|h| h.join().expect("calibration thread")).sum()
    });
    total / cores as f64
}

/// Flops of one run of kernel `name` at edge `e` as [`one_core_rate`] runs it. The QR kernels
/// are counted by [`Op::flops`], the count the simulator divides by the rate.
fn kernel_flops(name: &str, e: usize, h: usize) -> f64 {
    use crate::graph::{Op, Tiles};
    let one = Tiles::one(0);
    match name {
        "gemm" => 2.0 * (h * e * e) as f64,
        "trsm" | "syrk" => (h * e * e) as f64,
        "potrf" => (e * e * e) as f64 / 3.0,
        "geqrf" => Op::QrPanel { a: one, kb: e, tt: one }.flops([h, e, 0]),
        "larfb" => Op::Larfb { v: one, k: e, t: one, c: one }.flops([h, e, e]),
        "qr-vtc" => Op::QrVtc { s: one, v: one, k: e, c: one, offs: vec![0] }.flops([e, e, h]),
        "qr-tw" => Op::QrTw { w: one, t: one, k: e, others: one }.flops([e, e, e]),
        "qr-vw" => Op::QrVw { c: one, v: one, k: e, w: one, off: 0 }.flops([h, e, e]),
        "getrf" => Op::LuPanel { a: one, piv: one }.flops([h, e, 0]),
        "update" => Op::LuUpdate { a: one, l: one, piv: one, r: e }.flops([h, e, e]),
        "bt-getrf" => Op::BtLu { a: one, piv: one, info_base: 0 }.flops([e, e, 0]),
        "bt-getrs" => {
            Op::BtSolve { b: one, lu: one, piv: one, trans: crate::kernels::Trans::No }.flops([e, e, 0])
        }
        other => unreachable!("no calibration for {other}"),
    }
}

fn one_core_rate(name: &str, e: usize, m: usize, flops: f64) -> f64 {
    // The tiles live inside a large column-major array, as hetla's tiles live in the caller's
    // matrix (leading dimension LD, not the tile edge).
    const LD: usize = 4096;
    let ld = LD.max(m);
    let mut a = vec![0.0; ld * e];
    let mut b = vec![0.0; ld * e];
    let mut c = vec![0.0; ld * e];
    for i in 0..m {
        for j in 0..e {
            a[i + j * ld] = if i == j { e as f64 + 1.0 } else { 1.0 / (1.0 + (i + j) as f64) };
            b[i + j * ld] = ((i * 7 + j * 3) % 11) as f64 * 0.1;
        }
    }
    // The QR kernels work with real reflectors: V (in `v`, m×e) and T (in `t`) from a panel of A,
    // so that applying them again and again keeps C's size (H is orthogonal).
    let mut v = a.clone();
    let mut t = vec![0.0; ld * e];
    let mut tau = vec![0.0; e];
    kernels::geqrf_panel(
        ViewMut::from_slice(&mut v, m, e, ld),
        e,
        ViewMut::from_slice(&mut tau, e, 1, e),
        ViewMut::from_slice(&mut t, e, e, ld),
    );
    // The LU kernels: a factored panel (L and its pivots) of A.
    let mut lfac = a.clone();
    let mut piv = vec![0i32; e.min(m)];
    kernels::getrf_slice(ViewMut::from_slice(&mut lfac, m, e, ld), &mut piv);
    // Puts back the m×e block a kernel works on (rows 0..m of each of the e columns), not the
    // whole LD-tall array around it: copying that (2 MB at e = 64) cost more than a small
    // kernel itself and made the calibrated rates of the kernels that restore their input
    // (the panels, TRSM, POTRF) several times too low.
    let reset = |dst: &mut [f64], src: &[f64]| {
        for j in 0..e {
            dst[j * ld..j * ld + m].copy_from_slice(&src[j * ld..j * ld + m]);
        }
    };
    let mut run = || match name {
        "bt-getrf" => {
            // The LU of one diagonal block (`Op::BtLu`).
            reset(&mut c, &a);
            let mut p = vec![0i32; e];
            kernels::getrf_slice(ViewMut::from_slice(&mut c, e, e, ld), &mut p);
        }
        "bt-getrs" => {
            // A solve with that LU for e columns (`Op::BtSolve` in the factorization).
            reset(&mut c, &b);
            kernels::getrs(
                Trans::No,
                View::from_slice(&lfac, e, e, ld),
                &piv,
                ViewMut::from_slice(&mut c, e, e, ld),
            );
        }
        "getrf" => {
            reset(&mut c, &a);
            let mut p = vec![0i32; e.min(m)];
            kernels::getrf_slice(ViewMut::from_slice(&mut c, m, e, ld), &mut p);
        }
        "update" => {
            // One column block of an LU step (`Op::LuUpdate`).
            reset(&mut c, &b);
            kernels::lu_update(
                View::from_slice(&lfac, m, e, ld),
                &piv,
                ViewMut::from_slice(&mut c, m, e, ld),
            );
        }
        "geqrf" => {
            reset(&mut c, &a);
            kernels::geqrf_panel(
                ViewMut::from_slice(&mut c, m, e, ld),
                e,
                ViewMut::from_slice(&mut tau, e, 1, e),
                ViewMut::from_slice(&mut b, e, e, ld),
            )
        }
        "larfb" => kernels::larfb(
            View::from_slice(&v, m, e, ld),
            e,
            View::from_slice(&t, e, e, ld),
            ViewMut::from_slice(&mut c, m, e, ld),
        ),
        "qr-vtc" => kernels::vt_c(
            View::from_slice(&v, m, e, ld),
            e,
            true,
            View::from_slice(&b, m, e, ld),
            0.0,
            ViewMut::from_slice(&mut c, e, e, ld),
        ),
        "qr-tw" => {
            reset(&mut c, &b);
            kernels::tt_w(View::from_slice(&t, e, e, ld), ViewMut::from_slice(&mut c, e, e, ld))
        }
        "qr-vw" => kernels::c_minus_vw(
            View::from_slice(&v, m, e, ld),
            e,
            true,
            View::from_slice(&b, e, e, ld),
            ViewMut::from_slice(&mut c, m, e, ld),
        ),
        // Square (m = e) or tall (m = TALL·e) blocks alike.
        "gemm" => kernels::gemm(
            Trans::No,
            Trans::Yes,
            -1.0,
            View::from_slice(&b, m, e, ld),
            View::from_slice(&a, e, e, ld),
            1.0,
            ViewMut::from_slice(&mut c, m, e, ld),
        ),
        "trsm" => {
            reset(&mut c, &b);
            kernels::trsm(
                Side::Right,
                Uplo::Lower,
                Trans::Yes,
                Diag::NonUnit,
                1.0,
                View::from_slice(&a, e, e, ld),
                ViewMut::from_slice(&mut c, m, e, ld),
            )
        }
        "syrk" => kernels::herk(
            Uplo::Lower,
            Trans::No,
            -1.0,
            View::from_slice(&b, e, e, ld),
            1.0,
            ViewMut::from_slice(&mut c, e, e, ld),
        ),
        _ => {
            reset(&mut c, &a);
            let info = kernels::potrf(Uplo::Lower, ViewMut::from_slice(&mut c, e, e, ld));
            assert_eq!(info, 0, "calibration matrix is positive definite");
        }
    };
    run();
    // The median of several short windows, so that a neighbour's burst on a shared machine
    // spoils one window rather than the figure.
    let mut rates: Vec<f64> = (0..7)
        .map(|_| {
            let t0 = Instant::now();
            let mut reps = 0usize;
            while t0.elapsed().as_secs_f64() < 0.04 || reps < 2 {
                run();
                reps += 1;
            }
            flops * reps as f64 / t0.elapsed().as_secs_f64()
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

/// Seconds of runtime work per task: many empty tasks on independent tiles through a sequence,
/// per task, times the cores (each core pays it for its tasks).
fn measure_task_overhead(cores: usize) -> f64 {
    use crate::runtime::{Seq, Task};
    use crate::tile::Workspace;
    let n = 20_000;
    let w = Workspace::<f64>::new(n, 1, 1, 1);
    let a = w.tiles();
    let cfg = crate::config::Config::with_threads(cores);
    let t0 = Instant::now();
    let seq = Seq::new(&cfg);
    for i in 0..n {
        seq.submit(Task::new("empty").rw(&a, i, 0), |_| Ok(()));
    }
    seq.wait().expect("empty tasks");
    t0.elapsed().as_secs_f64() / n as f64 * cores as f64
}

/// What a message of one 256×256 tile costs the two ranks' cores, in passes at `memcpy_bw`, as
/// hetla's distributed runtime handles it (`dist::comm`, `backend::mpi`): the sender packs the
/// tile (columns of a larger array, just written, so in cache) into a new buffer; the receiver
/// allocates a zeroed buffer, MPI copies the message into it from the sender's memory (shared
/// memory: one copy, by the receiver; the source is not in this core's cache, so the sources
/// rotate over more memory than the caches hold) and the runtime unpacks it into the local copy
/// (likewise not in cache). Medians of several windows.
fn measure_message_copies(memcpy_bw: f64) -> (f64, f64) {
    const E: usize = 256;
    const LD: usize = 4096;
    // Sources and destinations of the receive rotate over 128 tiles' worth (64 MiB).
    const ROT: usize = 128;
    let tile = vec![1.0f64; LD * E];
    let remote: Vec<Vec<f64>> = (0..ROT).map(|_| vec![1.0f64; E * E + 1]).collect();
    let mut local: Vec<Vec<f64>> = (0..ROT).map(|_| vec![0.0f64; E * E]).collect();
    let bytes = (E * E * 8) as f64;
    let median = |f: &mut dyn FnMut(usize)| {
        let mut v: Vec<f64> = (0..7)
            .map(|_| {
                let t0 = Instant::now();
                let mut reps = 0usize;
                while t0.elapsed().as_secs_f64() < 0.02 || reps < 2 {
                    f(reps % ROT);
                    reps += 1;
                }
                t0.elapsed().as_secs_f64() / reps as f64
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let send = median(&mut |_| {
        let mut buf = Vec::with_capacity(E * E + 1);
        buf.push(0.0);
        for j in 0..E {
            buf.extend_from_slice(&tile[j * LD..j * LD + E]);
        }
        std::hint::black_box(buf);
    });
    let recv = median(&mut |r| {
        let mut buf = vec![0.0f64; E * E + 1];
        buf.copy_from_slice(&remote[r]);
        local[r].copy_from_slice(&buf[1..]);
        std::hint::black_box(&local[r]);
    });
    let pass = bytes / memcpy_bw;
    (send / pass, recv / pass)
}

/// Extra passes (at `memcpy_bw`) of copying 64 MiB into freshly allocated zeroed memory, as an
/// emulated accelerator's arena is (`std::alloc::alloc_zeroed`: pages mapped on first touch),
/// against copying into memory already touched. Median of 5.
fn measure_first_touch(memcpy_bw: f64) -> f64 {
    let n = 8 << 20;
    let src = vec![1.0f64; n];
    let mut v: Vec<f64> = (0..5)
        .map(|_| {
            let t0 = Instant::now();
            let mut dst = vec![0.0f64; n];
            dst.copy_from_slice(&src);
            std::hint::black_box(&dst);
            let fresh = t0.elapsed().as_secs_f64();
            let t1 = Instant::now();
            dst.copy_from_slice(&src);
            std::hint::black_box(&dst);
            let warm = t1.elapsed().as_secs_f64();
            drop(dst);
            (fresh - warm).max(0.0) / ((n * 8) as f64 / memcpy_bw)
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn measure_memcpy() -> f64 {
    let n = 8 << 20;
    let src = vec![1.0f64; n];
    let mut dst = vec![0.0f64; n];
    let t0 = Instant::now();
    let mut reps = 0;
    while t0.elapsed().as_secs_f64() < 0.2 || reps < 3 {
        dst.copy_from_slice(&src);
        std::hint::black_box(&dst);
        reps += 1;
    }
    (n * 8 * reps) as f64 / t0.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_interpolates_and_clamps() {
        let mut t = BTreeMap::new();
        t.insert("gemm".to_string(), vec![(64, 10.0), (128, 20.0)]);
        assert_eq!(rate(&t, "gemm", 32), 10e9);
        assert_eq!(rate(&t, "gemm", 96), 15e9);
        assert_eq!(rate(&t, "gemm", 512), 20e9);
        // A kernel without its own table runs at the GEMM rate.
        assert_eq!(rate(&t, "syrk", 128), 20e9);
    }
}
