//! One file per routine family: LAPACK's argument checks in LAPACK's order, quick returns,
//! the forward-or-run decision, the tile layout, and the verbose report. Nothing here touches raw
//! memory: pointers arrive as [`crate::tile::Raw`] from `abi`.

pub mod gels;
pub mod geqrf;
pub mod getrf;
pub mod potrf;
pub mod scalapack;

use crate::backend::BlasThreadsGuard;
use crate::config::Config;
use crate::device::{self, DevStats, Plan, Work};
use crate::error::Error;
use crate::runtime::Seq;
use std::cell::RefCell;
use std::time::Instant;

thread_local! {
    /// What the devices moved during the current call on this thread, for its verbose line.
    static DEV_STATS: RefCell<Vec<DevStats>> = const { RefCell::new(Vec::new()) };
}

/// How a call was executed, for `HETLA_VERBOSE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    Tiles,
    Forward,
}

/// Why a call goes to the backend, if it does.
pub(crate) fn forward_reason(cfg: &Config, routine: &str, size: usize) -> Option<&'static str> {
    if crate::runtime::in_task() {
        Some("nested")
    } else if cfg.is_disabled(routine) {
        Some("disabled")
    } else if size < cfg.min_n_for(routine) {
        Some("small")
    } else {
        None
    }
}

/// Runs one tile algorithm to completion: single-threaded backend BLAS while it runs, a fresh
/// sequence, the generator on this thread (which then works until the sequence drains).
pub(crate) fn run_tiles(cfg: &Config, generate: impl FnOnce(&Seq)) -> Result<(), Error> {
    let _blas = BlasThreadsGuard::new();
    let seq = Seq::with_plan(cfg, None);
    generate(&seq);
    seq.wait()
}

/// Like [`run_tiles`], but on the host and the configured devices when the cost model of
/// [`device::worth_using`] says `work` pays for its transfers (or `cfg.device_force`).
pub(crate) fn run_tiles_on_devices(
    cfg: &Config,
    work: Work,
    generate: impl FnOnce(&Seq),
) -> Result<(), Error> {
    let _blas = BlasThreadsGuard::new();
    let devices = device::open(cfg);
    let plan =
        (!devices.is_empty() && (cfg.device_force || device::worth_using(cfg, &devices, work))).then(|| {
            let host_share = device::host_share(cfg, &devices);
            Plan { devices, host_share }
        });
    let seq = Seq::with_plan(cfg, plan);
    generate(&seq);
    let (r, stats) = seq.wait_stats();
    if !stats.is_empty() {
        DEV_STATS.with(|s| {
            let mut s = s.borrow_mut();
            // A call running several sequences (DPOSV) reports the sum per device.
            for st in stats {
                match s.iter_mut().find(|x| x.device == st.device) {
                    Some(x) => {
                        x.bytes_in += st.bytes_in;
                        x.bytes_out += st.bytes_out;
                        x.copies_in += st.copies_in;
                        x.copies_out += st.copies_out;
                        x.evictions += st.evictions;
                        x.tasks += st.tasks;
                        x.host_fallbacks += st.host_fallbacks;
                    }
                    None => s.push(st),
                }
            }
        });
    }
    r
}

/// Times a call and prints its `HETLA_VERBOSE` line.
pub(crate) struct Report<'a> {
    cfg: &'a Config,
    t0: Instant,
}

impl<'a> Report<'a> {
    pub fn start(cfg: &'a Config) -> Self {
        DEV_STATS.with(|s| s.borrow_mut().clear());
        Report { cfg, t0: Instant::now() }
    }

    /// `desc` holds the routine's sizes (`uplo=L n=4000 nb=256`); `flops` the nominal count.
    pub fn finish(
        &self,
        routine: &str,
        desc: std::fmt::Arguments,
        path: Path,
        why: Option<&str>,
        flops: f64,
    ) {
        if !self.cfg.verbose {
            return;
        }
        let t = self.t0.elapsed().as_secs_f64();
        let gf = if t > 0.0 { flops / t * 1e-9 } else { 0.0 };
        let path = match (path, why) {
            (Path::Tiles, _) => format!("path=tiles threads={}", self.cfg.threads),
            (Path::Forward, Some(w)) => format!("path=forward reason={w}"),
            (Path::Forward, None) => "path=forward".to_string(),
        };
        let devs: String =
            DEV_STATS.with(|s| s.borrow_mut().drain(..).map(|d| format!(" {}", d.verbose())).collect());
        eprintln!("hetla: {routine} {desc} {path}{devs} time={t:.6}s gflops={gf:.2}");
    }
}

/// LAPACK's LSAME for one character flag.
pub(crate) fn flag(c: u8, want: u8) -> bool {
    c.eq_ignore_ascii_case(&want)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::kernels::Uplo;
    use crate::tile::TiledMatrix;

    /// Runs a lower tile Cholesky through `run_tiles_on_devices`; returns the device counters.
    fn chol(cfg: &Config, n: usize, work: Work) -> Vec<DevStats> {
        let mut a = Rng::new(3).spd(n, n);
        let t = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), n, n, n, 8, 8) };
        DEV_STATS.with(|s| s.borrow_mut().clear());
        run_tiles_on_devices(cfg, work, |seq| crate::algo::potrf::potrf(seq, Uplo::Lower, &t)).unwrap();
        DEV_STATS.with(|s| s.borrow_mut().drain(..).collect())
    }

    #[test]
    fn the_cost_model_keeps_small_calls_on_the_host_unless_forced() {
        let n = 40;
        let work = Work { flops: (n * n * n) as f64 / 3.0, bytes: (8 * n * n) as f64 };
        let mut c = Config::with_threads(2).with_emulated(2, 1 << 20);
        c.host_share = Some(0.0);
        assert!(chol(&c, n, work).is_empty(), "a 40×40 Cholesky must not pay for transfers");
        c.device_force = true;
        let s = chol(&c, n, work);
        assert_eq!(s.len(), 2);
        assert!(s.iter().all(|d| d.tasks > 0 && d.bytes_in > 0 && d.bytes_out > 0), "{s:?}");
        // A call the model says pays (as if it were huge) uses the devices without forcing.
        c.device_force = false;
        let big = Work { flops: 1e15, bytes: 8e6 };
        assert_eq!(chol(&c, n, big).len(), 2);
    }

    #[test]
    fn verbose_device_field() {
        let s = DevStats {
            device: "emu0",
            bytes_in: 12_500_000,
            bytes_out: 3_100_000,
            evictions: 4,
            tasks: 9,
            ..Default::default()
        };
        assert_eq!(s.verbose(), "dev=emu0:in=12.5MB,out=3.1MB,evict=4,tasks=9");
    }
}
