//! One file per routine family: LAPACK's argument checks in LAPACK's order, quick returns,
//! the forward-or-run decision, the tile layout, and the verbose report. Nothing here touches raw
//! memory: pointers arrive as [`crate::tile::Raw`] from `abi`.

pub mod bt;
pub mod gels;
pub mod gemm;
pub mod geqrf;
pub mod getrf;
pub mod inverse;
pub mod orgqr;
pub mod potrf;
pub mod scalapack;
pub mod tune;
pub mod workspace;

use crate::backend::BlasThreadsGuard;
use crate::config::{Config, Pivoting};
use crate::device::{self, DevStats, Plan, Work};
use crate::error::Error;
use crate::runtime::alloc::{Pattern, UpdatePolicy, UpdateShape};
use crate::runtime::{placement, Seq};
use crate::tile::Part;
use std::cell::RefCell;
use std::time::Instant;

thread_local! {
    /// What the devices moved during the current call on this thread, for its verbose line.
    static DEV_STATS: RefCell<Vec<DevStats>> = const { RefCell::new(Vec::new()) };
    /// The hybrid partition of the current call's device sequence, for its verbose line.
    static TILES: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Fields a routine adds to its verbose line after the path (a product's `alloc=`, ...).
    static FIELDS: RefCell<Option<String>> = const { RefCell::new(None) };
    /// hetla entry points running on this thread, outermost first (see [`Entered`]).
    static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// The path of the last call that finished on this thread (see [`last_path`]).
    static LAST: std::cell::Cell<Option<(Path, Reason)>> = const { std::cell::Cell::new(None) };
}

/// The path the last hetla call that finished on this thread took: `tiles` (`tiles:host` when
/// the learner kept it off the devices, `tune::host_only`), `solver` (whole on a device's
/// solver), `forward:<reason>` (`forward` without one), or `none` before any call. A call the backend makes back into hetla
/// finishes before the call that forwarded it, so after a call returns this is that call's path.
pub fn last_path() -> String {
    match LAST.with(|l| l.get()) {
        None => "none".to_string(),
        Some((Path::Tiles, r)) if r.len == 0 => "tiles".to_string(),
        Some((Path::Tiles, r)) => format!("tiles:{}", String::from_utf8_lossy(&r.bytes[..r.len as usize])),
        Some((Path::Solver, _)) => "solver".to_string(),
        Some((Path::Forward, r)) if r.len == 0 => "forward".to_string(),
        Some((Path::Forward, r)) => {
            format!("forward:{}", String::from_utf8_lossy(&r.bytes[..r.len as usize]))
        }
    }
}

/// The first word of a forward's reason, kept without allocating (every call stores one).
#[derive(Clone, Copy)]
struct Reason {
    bytes: [u8; 24],
    len: u8,
}

impl Reason {
    fn of(why: Option<&str>) -> Self {
        let word = why.and_then(|w| w.split_whitespace().next()).unwrap_or("").as_bytes();
        let len = word.len().min(24);
        let mut bytes = [0u8; 24];
        bytes[..len].copy_from_slice(&word[..len]);
        Reason { bytes, len: len as u8 }
    }
}

/// Adds `fields` to the current call's verbose line, after its path (after those added before).
pub(crate) fn set_fields(fields: String) {
    FIELDS.with(|f| {
        let mut f = f.borrow_mut();
        *f = Some(match f.take() {
            Some(old) => format!("{old} {fields}"),
            None => fields,
        });
    });
}

/// Marks an exported entry point as running on this thread until dropped (`abi::guard`). An
/// entry point entered while another runs on the same thread was called by the backend from
/// inside a forwarded call (OpenBLAS's DPOTRI calls DTRTRI, reference PDPOTRI calls PDTRTRI,
/// both by their exported names): it forwards too ([`forward_reason`]: `nested`), so that a call
/// hetla hands to the backend is the backend's all the way down, as the decision meant.
pub(crate) struct Entered;

impl Entered {
    pub(crate) fn new() -> Self {
        DEPTH.with(|d| d.set(d.get() + 1));
        Entered
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// True inside an entry point that another entry point on this thread is running (see
/// [`Entered`]).
fn called_back() -> bool {
    DEPTH.with(|d| d.get() > 1)
}

/// True while an exported entry point runs on this thread: a DGEMM reaching `dgemm_` then was
/// called by the backend inside a forwarded call (or by hetla's own code) and is forwarded.
pub(crate) fn inside_entry_point() -> bool {
    DEPTH.with(|d| d.get() > 0)
}

/// How a call was executed, for `HETLA_VERBOSE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    Tiles,
    /// Whole on one device by its vendor solver (`solve_whole`).
    Solver,
    Forward,
}

/// Why a call goes to the backend, if it does.
/// Without `HETLA_MIN_N`, a LAPACK call's size decision is learned on this machine
/// ([`tune`]); distributed calls use the built-in sizes.
pub(crate) fn forward_reason(cfg: &Config, routine: &'static str, size: usize) -> Option<&'static str> {
    if crate::runtime::in_task() || called_back() {
        Some("nested")
    } else if cfg.is_disabled(routine) {
        Some("disabled")
    } else if cfg.min_n.is_some() || routine.starts_with('p') {
        (size < cfg.min_n_for(routine)).then_some("small")
    } else {
        tune::decide(cfg, routine, size)
    }
}

/// Whether a LAPACK call of `routine` on a problem of `size` is first to decide its class by
/// the learner's trials on copies of its arrays ([`tune::trials`]): not where
/// [`forward_reason`] forwards before learning (nested calls, `HETLA_DISABLE`, `HETLA_MIN_N`),
/// nor once the class is decided. Workspace queries never ask.
pub(crate) fn learns(cfg: &Config, routine: &'static str, size: usize) -> bool {
    !(crate::runtime::in_task() || called_back() || cfg.is_disabled(routine) || cfg.min_n.is_some())
        && tune::wants_trials(cfg, routine, size)
}

/// The whole factorization `f` of the m×n matrix at `a` (leading dimension `ld`) on the first
/// device with a solver, where the learner chose that way for this call ([`tune::solver`]) or
/// `HETLA_SOLVER=force` asks for it: `Some(Ok(()))` when it ran (A and `aux`, the pivots or tau,
/// hold LAPACK's output with INFO 0); `None` when it did not, A and `aux` untouched (no device
/// took it, no room, INFO > 0 or a non-finite diagonal, which LAPACK answers its own way): the
/// call then runs on tiles as it would have. `Some(Err(_))`: the device failed while A was
/// being copied back, and part of A is overwritten.
///
/// # Safety
/// `a` must be readable and writable for m×n with leading dimension `ld`, and `aux` writable for
/// `min(m, n)` elements of the factorization's auxiliary output, both unshared during the call.
pub(crate) unsafe fn solve_whole<T: crate::tile::Elem>(
    cfg: &Config,
    f: device::Factor,
    (m, n, ld): (usize, usize, usize),
    a: *mut T,
    aux: *mut u8,
) -> Option<Result<(), Error>> {
    let asked = match cfg.solver {
        crate::config::Solver::Off => false,
        crate::config::Solver::Force => true,
        crate::config::Solver::Auto => tune::solver().is_some(),
    };
    if !asked {
        return None;
    }
    let devices = device::open(cfg);
    let Some(dev) = devices.iter().find(|d| d.has_solver()) else {
        set_fields("solver=declined(no-device)".to_string());
        return None;
    };
    let blk = device::HostBlock { ptr: a as *mut u8, m, n, ld, elem: T::KIND };
    // SAFETY: the caller's guarantees, passed on. The factorization is the caller's numerical
    // work (`fenv::numeric`), wherever the device runs its host side.
    match crate::fenv::numeric(|| unsafe { dev.factor(f, &blk, aux) }) {
        device::Solve::Done => {
            set_fields(format!("dev={}", dev.name()));
            Some(Ok(()))
        }
        device::Solve::Declined(why) => {
            set_fields(format!("solver=declined({why})"));
            None
        }
        device::Solve::Broken(e) => Some(Err(e)),
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

/// The big tile B of the hybrid partition for `routine` on `devices`: the routine's GPU default
/// ([`crate::config::default_device_nb`], at least the host tile), or for emulated devices only,
/// whose kernels are host BLAS on small test problems, twice the host tile.
fn device_tile(
    cfg: &Config,
    routine: &str,
    nb_host: usize,
    devices: &[std::sync::Arc<dyn device::Device>],
) -> usize {
    if devices.iter().all(|d| d.name().starts_with("emu")) {
        2 * nb_host
    } else {
        cfg.device_nb.unwrap_or_else(|| crate::config::default_device_nb(routine)).max(nb_host)
    }
}

/// The hybrid partition a call of `routine` with host tiles of `nb` cuts its matrices by when it
/// runs on `devices` (big tiles from `device_tile`, the host's share of each from
/// [`device::host_share`]), or `None` when the host would keep every column. `hetla-sim` asks
/// this too, so that it simulates the library's own choice.
pub fn device_part(
    cfg: &Config,
    routine: &str,
    nb: usize,
    devices: &[std::sync::Arc<dyn device::Device>],
) -> Option<Part> {
    placement::hybrid_part(device_tile(cfg, routine, nb, devices), nb, device::host_share(cfg, devices))
}

/// Like [`run_tiles`] with tiles of `nb` (the caller chose it with [`Config::nb_for`]), but on the host and the configured devices when the cost model of
/// [`device::worth_using`] says `work` pays for its transfers (or `cfg.device_force`).
///
/// `generate` receives the partition to cut square matrices by (rows and columns alike): the
/// uniform `nb` tiles of `routine` on the host alone, or with devices the hybrid partition of
/// seeds 001 §3.1 / 000 ([`crate::runtime::placement::hybrid_part`]): big tiles B, each s thin
/// tile columns of b for the host (s·b ≈ B_h, the host's share from the measured rates) and one
/// wide column of B − s·b for a device, wide columns 1-D cyclic over the devices. Whatever
/// `generate` returns (a workspace its tasks use) is kept until the sequence has drained.
pub(crate) fn run_tiles_on_devices<R>(
    cfg: &Config,
    routine: &str,
    nb: usize,
    work: Work,
    generate: impl FnMut(&Seq, Part) -> R,
) -> Result<(), Error> {
    run_on_devices(cfg, routine, nb, work, None, generate)
}

/// [`run_tiles_on_devices`] for a factorization whose trailing updates write `shape`: with
/// `HETLA_UPDATE_ALLOC=nrrp` (`cfg.update_alloc`) and devices in use, the matrix is cut into
/// uniform device tiles and the tiles of the matrix `generate` names with
/// [`Seq::allocate`] belong to the nodes by a [`Pattern`] of NRRP zones over the nodes' speeds
/// (host first, [`gemm::node_speeds`]), repeated over the matrix; otherwise exactly
/// [`run_tiles_on_devices`]'s hybrid partition and column placement.
pub(crate) fn run_factorization_on_devices<R>(
    cfg: &Config,
    routine: &str,
    nb: usize,
    work: Work,
    shape: UpdateShape,
    generate: impl FnMut(&Seq, Part) -> R,
) -> Result<(), Error> {
    run_on_devices(cfg, routine, nb, work, Some(shape), generate)
}

fn run_on_devices<R>(
    cfg: &Config,
    routine: &str,
    nb: usize,
    work: Work,
    shape: Option<UpdateShape>,
    mut generate: impl FnMut(&Seq, Part) -> R,
) -> Result<(), Error> {
    let _blas = BlasThreadsGuard::new();
    // A device that fails takes itself out of service, and the memory manager puts the caller's
    // arrays back as they were (`device::memory::Directory::flush`): the call is then redone
    // with the devices left (at worst on the host alone), so it returns what it would have
    // returned without the failed device. Each redo has at least one device fewer.
    let mut attempts = 0;
    loop {
        let devices = device::open(cfg);
        let had_devices = !devices.is_empty();
        let mut part = Part::uniform(nb);
        let mut plan = None;
        if attempts > 0 {
            TILES.with(|t| *t.borrow_mut() = None);
            FIELDS.with(|f| *f.borrow_mut() = None);
        }
        // The learner may have found this class faster on the host alone ([`tune::Way::Host`]).
        let host_only = tune::host_only().filter(|_| had_devices);
        if let Some(why) = host_only {
            set_fields(format!("devices=off({why})"));
        }
        if had_devices
            && host_only.is_none()
            && (cfg.device_force || device::worth_using(cfg, &devices, work))
        {
            if cfg.lu == Pivoting::Calu && matches!(routine.get(1..), Some("getrf" | "gesv")) {
                // CALU's split (seed 004): uniform device-sized tiles, the host keeping d of
                // them from the panel on (d/N = its share of the combined rate), the devices
                // the rest; one updated column comes back each step.
                let big = device_tile(cfg, routine, nb, &devices);
                let h = device::host_share(cfg, &devices);
                let d = placement::Placement::sliding_width(work.cols.div_ceil(big), h);
                part = Part::uniform(big);
                plan = Some(Plan { devices, host_share: h, window: Some(d), alloc: None, pattern: None });
                TILES.with(|t| *t.borrow_mut() = Some(format!("B{big}/sliding{d}")));
            } else if let (Some(shape), UpdatePolicy::Nrrp) = (shape, cfg.update_alloc) {
                // The updates by a repeated pattern of NRRP zones over uniform device tiles.
                let big = device_tile(cfg, routine, nb, &devices);
                let speeds = gemm::node_speeds(cfg, &devices);
                let pattern = Pattern::for_updates(&speeds, work.cols.div_ceil(big), shape);
                if pattern.uses_devices() {
                    part = Part::uniform(big);
                    let h = speeds[0] / speeds.iter().sum::<f64>();
                    TILES.with(|t| *t.borrow_mut() = Some(format!("B{big}")));
                    set_fields(format!("update=nrrp owners={}", pattern.picture()));
                    plan = Some(Plan {
                        devices,
                        host_share: if h.is_finite() { h } else { 1.0 },
                        window: None,
                        alloc: None,
                        pattern: Some(std::sync::Arc::new(pattern)),
                    });
                }
            } else if let Some(p) = device_part(cfg, routine, nb, &devices) {
                part = p;
                if shape.is_some() {
                    set_fields("update=cyclic".to_string());
                }
                plan = Some(Plan {
                    devices,
                    host_share: placement::column_share(&p),
                    window: None,
                    alloc: None,
                    pattern: None,
                });
                TILES.with(|t| *t.borrow_mut() = Some(p.describe()));
            }
        }
        let on_devices = plan.is_some();
        let seq = Seq::with_plan(cfg, plan);
        let keep = generate(&seq, part);
        let (r, stats) = seq.wait_stats();
        drop(keep);
        record_device_stats(&stats);
        attempts += 1;
        match r {
            Err(e) if on_devices && device::is_device_failure(&e) && attempts <= 8 => continue,
            r => return r,
        }
    }
}

/// Adds what devices moved and ran to the current call's verbose line (a call running several
/// sequences, DPOSV's for instance, reports the sum per device).
pub(crate) fn record_device_stats(stats: &[DevStats]) {
    DEV_STATS.with(|s| {
        let mut s = s.borrow_mut();
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
                    x.steals += st.steals;
                }
                None => s.push(st.clone()),
            }
        }
    });
}

/// Times a call and prints its `HETLA_VERBOSE` line.
pub(crate) struct Report<'a> {
    cfg: &'a Config,
    t0: Instant,
    /// The break-even trial of the call this one runs inside, if any ([`tune::set_aside`]).
    outer: tune::Pending,
}

impl<'a> Report<'a> {
    pub fn start(cfg: &'a Config) -> Self {
        DEV_STATS.with(|s| s.borrow_mut().clear());
        TILES.with(|t| t.borrow_mut().take());
        FIELDS.with(|f| f.borrow_mut().take());
        let outer = tune::set_aside();
        tune::arm();
        Report { cfg, t0: Instant::now(), outer }
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
        let t = self.t0.elapsed().as_secs_f64();
        // A tile call the learner kept off the devices is `tiles:host`.
        let why = why.or((path == Path::Tiles && tune::host_only().is_some()).then_some("host"));
        LAST.with(|l| l.set(Some((path, Reason::of(why)))));
        let took = match path {
            Path::Solver => tune::Way::Solver,
            _ => tune::way_taken(path == Path::Tiles),
        };
        tune::record(routine, took, flops, t);
        if path == Path::Forward {
            tune::forward_ended();
        }
        tune::restore(self.outer);
        if !self.cfg.verbose {
            return;
        }
        // Once per process: which LAPACK the calls forward to and whose thread count the tiles set.
        static BACKEND: std::sync::Once = std::sync::Once::new();
        BACKEND.call_once(|| {
            let threads = crate::backend::threads::flavor().map_or("none", |f| f.name());
            crate::error::say(format_args!(
                "hetla: backend {} (thread control: {threads})",
                crate::backend::describe()
            ));
        });
        let gf = if t > 0.0 { flops / t * 1e-9 } else { 0.0 };
        let path = match (path, why) {
            (Path::Tiles, _) => format!("path=tiles threads={}", self.cfg.threads),
            (Path::Solver, _) => "path=solver".to_string(),
            (Path::Forward, Some(w)) => format!("path=forward reason={w}"),
            (Path::Forward, None) => "path=forward".to_string(),
        };
        // A trial of the learner's, on copies of a call's arrays, is no call of the caller's.
        let trial = if tune::in_trial() { "trial " } else { "" };
        crate::error::say(format_args!(
            "hetla: {trial}{routine} {desc} {path}{} time={t:.6}s gflops={gf:.2}",
            device_fields()
        ));
    }
}

/// ` tiles=B512/b128x3 dev=emu0:...` for a call that used devices (taken: the next call starts
/// afresh), empty otherwise.
fn device_fields() -> String {
    let fields = FIELDS.with(|f| f.borrow_mut().take()).map(|f| format!(" {f}")).unwrap_or_default();
    let tiles = TILES.with(|t| t.borrow_mut().take()).map(|t| format!(" tiles={t}")).unwrap_or_default();
    let devs: String =
        DEV_STATS.with(|s| s.borrow_mut().drain(..).map(|d| format!(" {}", d.verbose())).collect());
    fields + &tiles + &devs
}

/// LAPACK's argument checks: the position of the first failing check, in the order given
/// (LAPACK reports only the first bad argument, so the order is part of the interface).
pub(crate) fn check_args(checks: &[(bool, i32)]) -> Result<(), Error> {
    match checks.iter().find(|c| c.0) {
        Some(&(_, pos)) => Err(Error::Arg(pos)),
        None => Ok(()),
    }
}

/// LAPACK's LSAME for one character flag.
pub(crate) fn flag(c: u8, want: u8) -> bool {
    c.eq_ignore_ascii_case(&want)
}

#[cfg(test)]
mod accuracy_tests;
#[cfg(test)]
mod solver_tests;
#[cfg(test)]
mod update_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::kernels::Uplo;
    use crate::tile::{Raw, TiledMatrix};

    /// Runs a lower tile Cholesky through `run_tiles_on_devices`; returns the device counters,
    /// the `tiles=` verbose field and the partition used.
    fn chol_part(cfg: &Config, n: usize, work: Work) -> (Vec<DevStats>, String, Part) {
        let a0 = Rng::new(3).spd(n, n);
        let mut a = a0.clone();
        let t = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), n, n, n, 8, 8) };
        DEV_STATS.with(|s| s.borrow_mut().clear());
        TILES.with(|t| t.borrow_mut().take());
        let mut used = None;
        run_tiles_on_devices(cfg, "dpotrf", cfg.nb_for("dpotrf", n), work, |seq, p| {
            used = Some(p);
            crate::algo::potrf::potrf(seq, Uplo::Lower, &t.repartitioned(p, p))
        })
        .unwrap();
        assert!(chol_residual(Uplo::Lower, n, &a0, &a, n) < 10.0);
        let stats = DEV_STATS.with(|s| s.borrow().clone());
        (stats, device_fields(), used.unwrap())
    }

    fn chol(cfg: &Config, n: usize, work: Work) -> Vec<DevStats> {
        chol_part(cfg, n, work).0
    }

    #[test]
    fn the_cost_model_keeps_small_calls_on_the_host_unless_forced() {
        let n = 40;
        let work = Work { flops: (n * n * n) as f64 / 3.0, bytes: (8 * n * n) as f64, cols: n };
        let mut c = Config::with_threads(2).with_emulated(2, 1 << 20);
        c.host_share = Some(0.0);
        c.nb = Some(8);
        assert!(chol(&c, n, work).is_empty(), "a 40×40 Cholesky must not pay for transfers");
        c.device_force = true;
        let s = chol(&c, n, work);
        assert_eq!(s.len(), 2);
        assert!(s.iter().all(|d| d.tasks > 0 && d.bytes_in > 0 && d.bytes_out > 0), "{s:?}");
        // A call the model says pays (as if it were huge) uses the devices without forcing.
        c.device_force = false;
        let big = Work { flops: 1e15, bytes: 8e6, cols: 1000 };
        assert_eq!(chol(&c, n, big).len(), 2);
    }

    #[test]
    fn a_class_learned_for_the_host_alone_leaves_the_devices_out() {
        let n = 40;
        let big = Work { flops: 1e15, bytes: 8e6, cols: 1000 };
        let mut c = Config::with_threads(2).with_emulated(2, 1 << 20);
        c.host_share = Some(0.0);
        c.nb = Some(8);
        // A call the cost model sends to the devices ...
        let (stats, fields, _) = chol_part(&c, n, big);
        assert!(!stats.is_empty() && !fields.contains("devices=off"), "{fields}");
        // ... stays on the host when its class learned that the host alone is faster.
        tune::set_host_only(Some("learned"));
        let (stats, fields, part) = chol_part(&c, n, big);
        tune::set_host_only(None);
        assert!(stats.is_empty(), "{stats:?}");
        assert_eq!(fields.trim(), "devices=off(learned)");
        assert_eq!(part, Part::uniform(8));
        // And such a call's path is `tiles:host`; the next call starts with the devices allowed.
        let rep = Report::start(&c);
        tune::set_host_only(Some("learned"));
        rep.finish("dpotrf", format_args!("n={n}"), Path::Tiles, None, 1.0);
        assert_eq!(last_path(), "tiles:host");
        let rep = Report::start(&c);
        assert_eq!(tune::host_only(), None);
        rep.finish("dpotrf", format_args!("n={n}"), Path::Tiles, None, 1.0);
        assert_eq!(last_path(), "tiles");
    }

    #[test]
    fn device_calls_cut_hybrid_tiles_and_say_so_host_calls_keep_uniform_tiles() {
        let n = 61;
        let work = Work { flops: (n * n * n) as f64 / 3.0, bytes: (8 * n * n) as f64, cols: n };
        // Host only: uniform nb tiles, no device fields, whatever the devices would have done.
        let mut c = Config::with_threads(2);
        c.nb = Some(8);
        let (stats, fields, part) = chol_part(&c, n, work);
        assert!(stats.is_empty() && fields.is_empty());
        assert_eq!((part, part.describe()), (Part::uniform(8), "nb8".to_string()));
        // Devices present but the cost model declines: the same.
        let mut c = c.with_emulated(2, 1 << 20);
        c.host_share = Some(0.5);
        let (stats, fields, part) = chol_part(&c, n, work);
        assert!(stats.is_empty() && fields.is_empty() && part == Part::uniform(8));
        // Forced: B = 2·nb = 16 for emulated devices, half of it thin (one host tile of 8).
        c.device_force = true;
        c.host_share = Some(0.6);
        let (stats, fields, part) = chol_part(&c, n, work);
        assert_eq!(part, Part::hybrid(16, 1, 10));
        assert!(fields.starts_with(" tiles=B16/b10x1 dev=emu0:"), "{fields}");
        assert!(stats.iter().all(|s| s.tasks > 0 && s.host_fallbacks == 0), "{stats:?}");
        // A host share too small for a thin tile: every column on the devices, B-wide.
        c.host_share = Some(0.1);
        let (stats, fields, part) = chol_part(&c, n, work);
        assert_eq!(part, Part::uniform(16));
        assert!(fields.starts_with(" tiles=nb16 dev="), "{fields}");
        assert!(stats.iter().all(|s| s.tasks > 0), "{stats:?}");
    }

    /// CALU on devices takes seed 004's split: uniform device-sized tiles, the host keeping d of
    /// them from the panel on (d/N = its share), the devices the rest; each step exactly one
    /// updated column comes back, so the bytes copied out are those N − d columns, once each.
    #[test]
    fn calu_on_devices_moves_one_column_back_per_step() {
        let (m, n, nb) = (300, 300, 16);
        let mut c = Config::with_threads(2).with_emulated(2, 64 << 20);
        c.device_force = true;
        c.host_share = Some(0.25);
        c.nb = Some(nb);
        c.min_n = Some(0);
        c.lu = Pivoting::Calu;
        let a0 = Rng::new(5).matrix(m, n, m);
        let mut a = a0.clone();
        let mut piv = vec![0i32; n];
        // SAFETY: a is m×n with leading dimension m, piv holds min(m, n) entries.
        let r = crate::api::getrf::dgetrf(
            &c,
            m as i32,
            n as i32,
            unsafe { Raw::new(a.as_mut_ptr()) },
            m as i32,
            unsafe { Raw::new(piv.as_mut_ptr()) },
        );
        assert_eq!(r, Ok(()));
        assert!(lu_backward_error(m, n, &a0, &a, m, &piv) < 10.0);
        // Emulated devices: B = 2·nb = 32, N = 10 tile columns, d = round(0.25·10) = 3 (rounding
        // 2.5 up).
        let (big, cols) = (2 * nb, n.div_ceil(2 * nb));
        let d = placement::Placement::sliding_width(cols, 0.25);
        assert_eq!(TILES.with(|t| t.borrow_mut().take()), Some(format!("B{big}/sliding{d}")));
        let stats = DEV_STATS.with(|s| s.borrow().clone());
        assert_eq!(stats.len(), 2);
        assert!(stats.iter().all(|s| s.tasks > 0 && s.evictions == 0), "{stats:?}");
        let out: u64 = stats.iter().map(|s| s.bytes_out).sum();
        let want: u64 = (d..cols).map(|j| (m * big.min(n - j * big) * 8) as u64).sum();
        assert_eq!(
            out,
            want,
            "bytes copied out: the {} columns right of the first window, once each",
            cols - d
        );
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
