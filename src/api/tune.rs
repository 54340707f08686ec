//! Break-even sizes learned on the machine the library runs on, from the caller's own calls.
//!
//! Below some size a LAPACK routine is faster in the backend than on tiles (task overheads, too
//! few tiles per core); where that size lies depends on the machine (core count, AVX2 or
//! AVX-512, the backend), so it is not a constant. Without `HETLA_MIN_N`:
//!
//! * sizes below a quarter of the routine's built-in break-even
//!   ([`crate::config::default_min_n`]) are forwarded;
//! * the other sizes fall into classes of ratio √2 (class `c` = round(2·log2 n)). The first
//!   calls of a class are timed on tiles, then forwarded, whole call included; once each path
//!   has [`SAMPLES`] timings (three: the best of them skips a cold first call, which pays for
//!   fresh buffers and threads, and calls slowed by other work), the class takes the tile path if its best
//!   rate (flop/s: sizes within a class differ) over its last [`KEEP`] timings beats the
//!   backend's by [`MARGIN`], else the backend. Where the two best ways' best rates are within [`CLOSE`]
//!   (25%) of each other, each of those paths is first timed [`CLOSE_SAMPLES`] (five) times, alternating. No extra
//!   work is ever done: the samples are the caller's own calls, each returning what it returns on
//!   either path.
//!   There is no upper end: where tiles lose even at large sizes, the call is forwarded (a
//!   drop-in must not be slower than what it replaces).
//!   A class that settled on the backend says `reason=learned` in the verbose line.
//! * With accelerators (CUDA GPUs or emulated ones, not forced by `HETLA_DEVICE_FORCE`) there is
//!   a third path, [`Way::Host`]: tiles on the host's cores alone. The trials go tiles with the
//!   devices, then tiles on the host, then forwarded, and the fastest of the three wins (tiles of
//!   either kind still need [`MARGIN`] over the backend). On one H100 with 16 cores, hetla with
//!   the GPU ran dgetrf at n = 8000 at 0.54× OpenBLAS and hetla on the cores alone at 1.29×: a
//!   GPU must never make a call slower than the machine without it. A call on the host path says
//!   `devices=off(probe)` or `devices=off(learned)` in the verbose line.
//! * For DPOTRF, DGETRF and DGEQRF a device with a solver adds a fourth way, [`Way::Solver`]: the
//!   whole call on that device's vendor library (`crate::device::Device::factor`), tried third
//!   (`HETLA_SOLVER=off` leaves it out). On one H200 it was the fastest way at n = 4000 for all
//!   three (1.9-9.7× OpenBLAS), where hetla's tiles with the GPU were slower than the cores alone.
//!   A solver trial the device declined (INFO > 0, a non-finite diagonal: the tiles then run the
//!   call from its untouched input) counts as the solver's, with its whole time.
//! * A tile call that starts within `SPIN_AFTER` (0.2 s) of a forwarded call's end on the same
//!   thread is not timed: the backend's threads may still be spinning for work and take cores
//!   from the tiles, which they would not once the class runs on tiles. Hence tiles are tried
//!   first (a forwarded trial would spoil the next tile trial); a trial that is not timed is
//!   asked for again by the next call of the class.
//! * A decision is checked again as the caller goes on: every [`RECHECK`]th call of a decided
//!   class takes the other path once, so a decision made while the machine was busy (a neighbour
//!   process slows the two paths differently) does not stay wrong. At most one call in
//!   [`RECHECK`] runs on the slower path.
//!
//! Decisions are kept per user and per machine in `<cache>/breakeven-<key>.json` (`<cache>`:
//! `HETLA_CACHE_DIR`, else `$XDG_CACHE_HOME/hetla`, else `$HOME/.cache/hetla`; `<key>` hashes the
//! CPU model, the core count, the worker count, the backend library, hetla's own sources and whether devices are there), so
//! later processes of the same build start from them. Another build of hetla learns afresh: its
//! tile code, or what its forwarded calls do, may differ (a forwarded DGELS once ran hetla's
//! tile DGEQRF inside, and the decisions learned then outlived the change). `HETLA_CACHE_DIR=off` turns learning off (the built-in sizes are then used).
//! PDPOTRF, PDGETRF and PDGEQRF learn too, per grid shape and caller block size (`decide_dist`):
//! process (0, 0) decides and times, and its plan is the grid's (`api::scalapack::pchkmat`). The
//! other distributed routines keep the built-in sizes.

use crate::config::{default_min_n, Config, Learn};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

/// Timings per path before a class is decided.
pub const SAMPLES: usize = 3;
/// Timings per path before a close class is decided: where the two best rates of [`SAMPLES`]
/// timings are within [`CLOSE`] of each other, each path is timed this many times first. On a
/// noisy machine three timings a path picked the slower one for classes a few percent apart
/// (dposv n = 6000 settled on tiles and ran at 0.94×, dgetrf n = 6000 on the backend where tiles
/// ran 1.05–1.09×, in one run each).
pub const CLOSE_SAMPLES: usize = 5;
/// Scores within this fraction of the larger are close ([`CLOSE_SAMPLES`]). A quarter: on the
/// 2-core VM, single dpotrf calls of order 1500 on tiles, 250 ms apart, ran at 44–95 GFLOP/s
/// (the backend's at 36–65).
pub const CLOSE: f64 = 0.25;
/// Timings kept per path (the most recent).
pub const KEEP: usize = CLOSE_SAMPLES;
/// A decided class tries the other path once every this many calls.
pub const RECHECK: u32 = 32;
/// Tiles win a class only when their best rate beats the backend's by this fraction: where
/// the two are within a few percent, which one measures faster is noise (dtrtri at n = 4000 took
/// the tile path on three trials each and then ran at 0.94x), and forwarding is never slower
/// than the library hetla replaces.
pub const MARGIN: f64 = 0.03;
/// The band learned in: [default / BAND, default · BAND).
const BAND: usize = 4;
/// How long after a forwarded call a tile trial is not timed: the backend's threads keep
/// spinning for more work after a multithreaded call (OpenBLAS: 2^28 cycles by default, about
/// 0.1 s), and a tile call started meanwhile shares the cores with them. Measured with dgetrf at
/// n = 1500 on 2 cores, trials back to back and alternating: the tile trials ran at 30-40
/// GFLOP/s in five fresh processes of six, against 50-69 with 0.25 s between calls, where tiles
/// always won; once a class runs on tiles its calls follow tile calls and run at the faster
/// rate, so such a trial would misjudge it.
const SPIN_AFTER: std::time::Duration = std::time::Duration::from_millis(200);

/// The ways a call can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// On tiles, with the devices where the cost model sends work to them.
    Tiles,
    /// On tiles on the host's cores alone, although devices are there.
    Host,
    /// Whole on one device by its vendor solver (DPOTRF, DGETRF, DGEQRF; `Device::factor`).
    Solver,
    /// In the backend.
    Forward,
}

/// Which ways a class learns between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ways {
    /// Tiles and the backend (no devices, or a distributed call).
    Plain,
    /// Tiles with the devices, on the host alone, and the backend.
    Devices,
    /// As [`Ways::Devices`], and the whole call on a device's solver.
    Solver,
}

/// The ways learned between, in trial order: tiles first (a tile call right after a forwarded
/// one is not timed, [`SPIN_AFTER`]), the backend last.
fn ways(set: Ways) -> &'static [Way] {
    match set {
        Ways::Plain => &[Way::Tiles, Way::Forward],
        Ways::Devices => &[Way::Tiles, Way::Host, Way::Forward],
        Ways::Solver => &[Way::Tiles, Way::Host, Way::Solver, Way::Forward],
    }
}

/// Rates (flop/s) measured in one size class of one routine.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Class {
    forward: Vec<f64>,
    tiles: Vec<f64>,
    /// Tiles on the host alone, where devices are there (empty without them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    host: Vec<f64>,
    /// The whole call on a device's solver, where one is there (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    solver: Vec<f64>,
    /// Calls since the last recheck (not kept in the file).
    #[serde(skip)]
    since: u32,
    /// Rechecks so far, to take the other ways in turn (not kept in the file).
    #[serde(skip)]
    turn: u32,
}

/// What a way's kept timings say of it: the best rate. Another process on the machine, or the
/// backend's threads still spinning, only ever slow a call down, and a cold first call is slow
/// too, so the fastest timing is the nearest to what the way does on a quiet machine. The median
/// (used before) followed the noise: on the 2-core VM three dpotrf tile timings of order 1500 at
/// 27, 95 and 49 GFLOP/s against forwarded ones at 55, 63 and 59 settled the class on the
/// backend, which ran 1.36× slower than the tiles; dpotrf 1500 settled there again in two of the
/// day's sweeps (0.77× and 0.89×, the forwarded calls' own scatter).
fn score(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

impl Class {
    fn rates(&self, way: Way) -> &Vec<f64> {
        match way {
            Way::Tiles => &self.tiles,
            Way::Host => &self.host,
            Way::Solver => &self.solver,
            Way::Forward => &self.forward,
        }
    }

    /// The two ways of the best scores, best first (ties: the earlier in trial order).
    fn leaders(&self, set: Ways) -> (Way, Way) {
        let mut w: Vec<(Way, f64)> = ways(set).iter().map(|&w| (w, score(self.rates(w)))).collect();
        w.sort_by(|a, b| b.1.total_cmp(&a.1));
        (w[0].0, w[1].0)
    }

    /// The way this class runs, `None` while samples are missing: every way has [`SAMPLES`]
    /// timings, and where the two best scores are close, those two have [`CLOSE_SAMPLES`].
    fn decision(&self, set: Ways) -> Option<Way> {
        if ways(set).iter().any(|&w| self.rates(w).len() < SAMPLES) {
            return None;
        }
        let (a, b) = self.leaders(set);
        let (ma, mb) = (score(self.rates(a)), score(self.rates(b)));
        let few = self.rates(a).len() < CLOSE_SAMPLES || self.rates(b).len() < CLOSE_SAMPLES;
        if few && (ma - mb).abs() < CLOSE * ma.max(mb) {
            return None;
        }
        // The fastest of hetla's ways, which must beat the backend by the margin.
        let best = ways(set)
            .iter()
            .copied()
            .filter(|&w| w != Way::Forward)
            .max_by(|&x, &y| score(self.rates(x)).total_cmp(&score(self.rates(y))).then(Ordering::Greater))
            .expect("every set has a way besides the backend");
        Some(if score(self.rates(best)) >= (1.0 + MARGIN) * score(&self.forward) {
            best
        } else {
            Way::Forward
        })
    }

    /// The way of the next trial while undecided: each way in trial order until it has
    /// [`SAMPLES`] timings; in a close class, then, the one of the two leaders with fewer timings
    /// (the earlier in trial order on a tie).
    fn next_trial(&self, set: Ways) -> Way {
        if let Some(&w) = ways(set).iter().find(|&&w| self.rates(w).len() < SAMPLES) {
            return w;
        }
        let (a, b) = self.leaders(set);
        let order = |w: Way| ways(set).iter().position(|&x| x == w);
        let (na, nb) = (self.rates(a).len(), self.rates(b).len());
        if na < nb || (na == nb && order(a) < order(b)) {
            a
        } else {
            b
        }
    }

    /// The way a recheck of a class decided for `best` takes: the others in turn.
    fn recheck(&mut self, set: Ways, best: Way) -> Way {
        let others: Vec<Way> = ways(set).iter().copied().filter(|&w| w != best).collect();
        let w = others[self.turn as usize % others.len()];
        self.turn = self.turn.wrapping_add(1);
        w
    }

    fn push(&mut self, way: Way, rate: f64) {
        let v = match way {
            Way::Tiles => &mut self.tiles,
            Way::Host => &mut self.host,
            Way::Solver => &mut self.solver,
            Way::Forward => &mut self.forward,
        };
        v.push(rate);
        if v.len() > KEEP {
            v.remove(0);
        }
    }
}

/// What has been learned: routine → class → rates.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Learned {
    routines: BTreeMap<String, BTreeMap<i32, Class>>,
}

pub(crate) struct State {
    learned: Learned,
    file: Option<PathBuf>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// The learner's lock (also taken around a fork, by [`crate::fork`]).
pub(crate) fn lock() -> std::sync::MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A break-even trial: (class key, size class, the way it tries). The key is the routine's
/// name, for a distributed routine with its grid and the caller's block size (`pdgetrf:1x2:nb32`).
pub(crate) type Probe = (&'static str, i32, Way);

thread_local! {
    /// The probe this thread's current call is, taken by [`record`].
    static PROBE: std::cell::Cell<Option<Probe>> = const { std::cell::Cell::new(None) };
    /// A distributed call's trial, agreed over the grid before the call's timing starts
    /// ([`plan`]); its [`crate::api::Report`] arms it ([`arm`]).
    static PLANNED: std::cell::Cell<Option<Probe>> = const { std::cell::Cell::new(None) };
    /// When this thread's last forwarded call ended ([`forward_ended`]).
    static FORWARD_END: std::cell::Cell<Option<Instant>> = const { std::cell::Cell::new(None) };
    /// Why this thread's current call keeps off the devices (`probe`, `learned`), if it does.
    static HOST: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
    /// Why this thread's current call goes whole to a device's solver (`probe`, `learned`), if
    /// it does.
    static SOLVER: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// Why the current call on this thread goes whole to a device's solver ([`Way::Solver`]: its
/// class learned that way, or it is a trial of it), if it does.
pub(crate) fn solver() -> Option<&'static str> {
    SOLVER.with(|h| h.get())
}

/// Why the current call on this thread runs on the host alone although devices are there (its
/// class learned that way, or it is a trial of it), if it does: [`crate::api`]'s device runs
/// then leave the devices out.
pub(crate) fn host_only() -> Option<&'static str> {
    HOST.with(|h| h.get())
}

/// Sets [`host_only`] for this thread (tests of the device runs that honour it).
#[cfg(test)]
pub(crate) fn set_host_only(why: Option<&'static str>) {
    HOST.with(|h| h.set(why));
}

/// A forwarded call has just ended on this thread: a tile trial starting within [`SPIN_AFTER`]
/// is not timed.
pub(crate) fn forward_ended() {
    FORWARD_END.with(|f| f.set(Some(Instant::now())));
}

/// Whether a call that started at `start` ran while the backend's threads may still have been
/// spinning after this thread's last forwarded call.
fn after_forward(start: Instant) -> bool {
    FORWARD_END.with(|f| f.get()).is_some_and(|end| start < end + SPIN_AFTER)
}

/// Whether tile calls may run on accelerators, by the cost model's choice: then the host alone
/// is a way of its own ([`Way::Host`]). Not where the devices are forced on every call.
fn has_devices(cfg: &Config) -> bool {
    !cfg.device_force && (cfg.emulate_gpus > 0 || !crate::device::cuda::open(cfg).is_empty())
}

/// The routines a device's solver runs whole ([`crate::device::Factor`]).
const SOLVED: &[&str] = &["dpotrf", "dgetrf", "dgeqrf"];

/// The ways a LAPACK call of `routine` learns between on this machine. Every device kind has a
/// solver (CUDA's cuSOLVER; an emulated device runs the host's LAPACK on its copy), so devices
/// being there is enough; one that had none would decline each solver trial, which then counts
/// the tiles' time after it, and the class would settle elsewhere.
fn ways_for(cfg: &Config, routine: &str) -> Ways {
    if !has_devices(cfg) {
        Ways::Plain
    } else if cfg.solver == crate::config::Solver::Auto && SOLVED.contains(&routine) {
        Ways::Solver
    } else {
        Ways::Devices
    }
}

fn class_of(size: usize) -> i32 {
    (2.0 * (size.max(1) as f64).log2()).round() as i32
}

/// The decision for a LAPACK call of `routine` (a `'static` name) on a problem of `size`:
/// `Some(reason)` to forward, `None` to run on tiles. Marks the call as a probe when it is one.
pub(crate) fn decide(cfg: &Config, routine: &'static str, size: usize) -> Option<&'static str> {
    PROBE.with(|p| p.set(None));
    HOST.with(|h| h.set(None));
    SOLVER.with(|h| h.set(None));
    // CALU's LU is another algorithm than partial pivoting: it learns its break-even apart.
    let routine = match (cfg.lu, routine) {
        (crate::config::Pivoting::Calu, "dgetrf") => "dgetrf-calu",
        (crate::config::Pivoting::Calu, "dgesv") => "dgesv-calu",
        _ => routine,
    };
    let pick = choose(cfg, routine, default_min_n(routine), size, true);
    PROBE.with(|p| p.set(pick.probe));
    HOST.with(|h| h.set(pick.host));
    SOLVER.with(|h| h.set(pick.solver));
    pick.why
}

/// The decision for a distributed call of `routine` on a problem of `size` on a `p`×`q` grid with
/// the caller's blocks of `caller_nb`, learned like a LAPACK call's but per grid and block size
/// (each makes a different problem of the reference's). Every rank may ask; only process (0, 0)'s
/// answer counts (the call's plan is its), and only it records the trial: [`plan`] after the
/// grid has agreed, then the call's report arms it.
pub(crate) fn decide_dist(
    cfg: &Config,
    routine: &'static str,
    size: usize,
    (p, q): (i32, i32),
    caller_nb: i32,
) -> (Option<&'static str>, Option<Probe>) {
    let key = intern(format!("{routine}:{p}x{q}:nb{caller_nb}"));
    // Distributed tile calls learn tiles against the backend only.
    let pick = choose(cfg, key, default_min_n(routine), size, false);
    (pick.why, pick.probe)
}

/// This thread's next call (its report) is the distributed trial `probe`, if any.
pub(crate) fn plan(probe: Option<Probe>) {
    PLANNED.with(|p| p.set(probe));
}

/// A call's timing starts: a planned distributed trial becomes its probe.
pub(crate) fn arm() {
    if let Some(p) = PLANNED.with(|p| p.take()) {
        PROBE.with(|q| q.set(Some(p)));
    }
}

/// A `'static` copy of a class key (a handful per process: routines × grids × block sizes).
fn intern(key: String) -> &'static str {
    static KEYS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut keys = KEYS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = keys.iter().find(|k| **k == key) {
        return k;
    }
    let k: &'static str = Box::leak(key.into_boxed_str());
    keys.push(k);
    k
}

/// What [`choose`] picked for one call.
#[derive(Clone, Copy, Debug, Default)]
struct Pick {
    /// Forward, and why; `None`: hetla runs it.
    why: Option<&'static str>,
    /// The trial the call is, if it is one.
    probe: Option<Probe>,
    /// Why a tile call leaves the devices out, if it does.
    host: Option<&'static str>,
    /// Why the call goes whole to a device's solver, if it does.
    solver: Option<&'static str>,
}

/// Forward or not for class key `routine` whose built-in break-even is `base`, the trial the
/// call is, if it is one, and where hetla runs it (only with `device_ways`, where the devices'
/// ways are learned when devices are there: the host alone, a device's solver).
fn choose(cfg: &Config, routine: &'static str, base: usize, size: usize, device_ways: bool) -> Pick {
    if matches!(cfg.learn, Learn::Off) {
        return Pick { why: (size < base).then_some("small"), ..Pick::default() };
    }
    if size < base / BAND {
        return Pick { why: Some("small"), ..Pick::default() };
    }
    // Asked only here: calls forwarded as small never start the CUDA driver.
    let set = if device_ways { ways_for(cfg, routine) } else { Ways::Plain };
    let c = class_of(size);
    // Files are read and written outside the lock (a fork in another thread must not find it
    // held for long).
    if lock().is_none() {
        let loaded = load(cfg);
        lock().get_or_insert(loaded);
    }
    let mut guard = lock();
    let st = guard.get_or_insert_with(|| State { learned: Learned::default(), file: None });
    let k = st.learned.routines.entry(routine.to_string()).or_default().entry(c).or_default();
    let (way, probe, mark) = match k.decision(set) {
        Some(best) if k.since + 1 < RECHECK => {
            k.since += 1;
            (best, None, "learned")
        }
        Some(best) => {
            k.since = 0;
            let w = k.recheck(set, best);
            (w, Some((routine, c, w)), "probe")
        }
        // Tile trials first: a tile call right after a forwarded one is not timed
        // ([`SPIN_AFTER`]), so forward trials come last.
        None => {
            let w = k.next_trial(set);
            (w, Some((routine, c, w)), "probe")
        }
    };
    match way {
        Way::Tiles => Pick { probe, ..Pick::default() },
        Way::Host => Pick { probe, host: Some(mark), ..Pick::default() },
        Way::Solver => Pick { probe, solver: Some(mark), ..Pick::default() },
        Way::Forward => Pick { why: Some(mark), probe, ..Pick::default() },
    }
}

/// A call's probe mark and host-only reason, set aside while another call runs inside it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pending(Option<Probe>, Option<&'static str>, Option<&'static str>);

/// A call starts: takes the marks of the call it runs inside, if any (a forwarded DPOSV's backend
/// calls our DPOTRF), so that the inner call neither records nor loses the outer one's trial,
/// and starts with the devices allowed.
pub(crate) fn set_aside() -> Pending {
    Pending(PROBE.with(|p| p.take()), HOST.with(|h| h.take()), SOLVER.with(|h| h.take()))
}

/// A call has finished and recorded its own trial: the outer call's marks are back.
pub(crate) fn restore(outer: Pending) {
    PROBE.with(|p| p.set(outer.0));
    HOST.with(|h| h.set(outer.1));
    SOLVER.with(|h| h.set(outer.2));
}

/// The way a call that ran on tiles (`on_tiles`) or in the backend took, by this thread's marks:
/// a tile call marked for the solver is a solver trial the device declined (it counts as the
/// solver's, [`record`]), one marked for the host alone ran there.
pub(crate) fn way_taken(on_tiles: bool) -> Way {
    match (on_tiles, solver().is_some(), host_only().is_some()) {
        (false, _, _) => Way::Forward,
        (true, true, _) => Way::Solver,
        (true, false, true) => Way::Host,
        (true, false, false) => Way::Tiles,
    }
}

/// Records the rate of the call of `name` that just finished on this thread, if it was a probe
/// of that routine and took the way the probe tried (`took`): a call that went another way after
/// all (a LAPACK call whose workspace was too small for the tiles, say) is no timing of the way
/// it was to try. A solver trial that the device declined and the tiles then ran counts as the
/// solver's, with its whole time: that is what the way costs such calls.
pub(crate) fn record(name: &str, took: Way, flops: f64, seconds: f64) {
    let Some((routine, c, way)) = PROBE.with(|p| p.take()) else {
        return;
    };
    if seconds <= 0.0 || flops <= 0.0 || way != took || !routine.starts_with(name) {
        return;
    }
    let tiles = way != Way::Forward;
    let snapshot = {
        let mut guard = lock();
        let Some(st) = guard.as_mut() else {
            return;
        };
        let k = st.learned.routines.entry(routine.to_string()).or_default().entry(c).or_default();
        let start = Instant::now().checked_sub(std::time::Duration::from_secs_f64(seconds));
        if tiles && start.is_none_or(after_forward) {
            // Not timed: a trial is asked for again by the class's next call (it still lacks a
            // tile timing); a recheck of a decided class waits for the next one, RECHECK calls
            // on (retrying at once could put a tight loop of calls on the slower path).
            return;
        }
        k.push(way, flops / seconds);
        // Host and solver timings exist only where devices are (and the cache file is per that).
        let set = if !k.solver.is_empty() {
            Ways::Solver
        } else if !k.host.is_empty() {
            Ways::Devices
        } else {
            Ways::Plain
        };
        let decided = k.decision(set).is_some();
        match (&st.file, decided) {
            (Some(f), true) => Some((f.clone(), st.learned.clone())),
            _ => None,
        }
    };
    if let Some((file, learned)) = snapshot {
        save(&file, &learned);
    }
}

/// The cache file for this machine, or `None` when learning stays in memory.
fn cache_file(cfg: &Config) -> Option<PathBuf> {
    let Learn::Dir(dir) = &cfg.learn else {
        return None;
    };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(str::to_string))
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let backend = crate::backend::describe();
    let source = env!("HETLA_SOURCE_ID");
    // With devices the tile timings are the devices' too: another file than the host's alone.
    let devices = if has_devices(cfg) { "|devices" } else { "" };
    let key = fnv(format!("{cpu}|{cores}|{}|{backend}|{source}{devices}", cfg.threads).as_bytes());
    Some(dir.join(format!("breakeven-{key:016x}.json")))
}

/// FNV-1a, 64 bits: a stable short key (std's hasher is not stable across releases).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

fn load(cfg: &Config) -> State {
    let file = cache_file(cfg);
    let learned = file
        .as_ref()
        .and_then(|f| std::fs::read_to_string(f).ok())
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    State { learned, file }
}

/// Writes the decisions (a temporary file renamed over the old one, so a reader never sees half
/// a file); a cache that cannot be written only means learning again next time.
fn save(f: &std::path::Path, learned: &Learned) {
    let Some(dir) = f.parent() else {
        return;
    };
    let Ok(text) = serde_json::to_string_pretty(learned) else {
        return;
    };
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = f.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.{seq}", std::process::id()));
    let ok = std::fs::create_dir_all(dir).is_ok() && std::fs::write(&tmp, text).is_ok();
    if !ok || std::fs::rename(&tmp, f).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The learner is process-wide: these tests take turns.
    static SERIAL: Mutex<()> = Mutex::new(());

    /// [`record`] for a call that ran on tiles (`on_tiles`) or forwarded, the way its marks say.
    fn record_path(name: &str, on_tiles: bool, flops: f64, seconds: f64) {
        record(name, way_taken(on_tiles), flops, seconds)
    }

    fn fresh(learn: Learn) -> Config {
        *lock() = None;
        let mut c = Config::with_threads(2);
        // The host alone, whatever devices the test run gives every configuration.
        c.gpus = crate::config::GpuSelect::None;
        c.emulate_gpus = 0;
        c.device_force = false;
        c.learn = learn;
        c
    }

    /// Runs `calls` calls of size `n` in the learner, with the tile path `speedup` times as
    /// fast as the forward path; returns the paths taken (true = tiles).
    fn drive(cfg: &Config, n: usize, calls: usize, speedup: f64) -> Vec<bool> {
        (0..calls)
            .map(|_| {
                let tiles = decide(cfg, "dgetrf", n).is_none();
                let secs = if tiles { 1.0 / speedup } else { 1.0 };
                record_path("dgetrf", tiles, 1e9, secs);
                tiles
            })
            .collect()
    }

    #[test]
    fn outside_the_band_nothing_is_probed() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        let base = default_min_n("dgetrf");
        assert_eq!(decide(&cfg, "dgetrf", base / BAND - 1), Some("small"));
        assert!(PROBE.with(|p| p.get()).is_none());
        // With the host alone large sizes are learned too (a trial marks the call; tiles first).
        assert_eq!(decide(&cfg, "dgetrf", base * BAND * 4), None);
        assert!(PROBE.with(|p| p.get()).is_some());
        // With accelerators too (they can be slower than the host alone): a trial.
        let dev = Config { emulate_gpus: 1, solver: crate::config::Solver::Off, ..fresh(Learn::Memory) };
        assert_eq!(decide(&dev, "dgetrf", base * BAND * 4), None);
        assert_eq!(PROBE.with(|p| p.get()).map(|p| p.2), Some(Way::Tiles));
        let off = fresh(Learn::Off);
        assert_eq!(decide(&off, "dgetrf", base - 1), Some("small"));
        assert_eq!(decide(&off, "dgetrf", base), None);
    }

    #[test]
    fn probes_try_tiles_then_forward_then_the_faster_path_stays() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Tiles faster: T, T, T, F, F, F, then tiles.
        assert_eq!(drive(&cfg, 1000, 9, 1.5), [true, true, true, false, false, false, true, true, true]);
        // Another class of the same routine learns on its own: forward faster.
        assert_eq!(drive(&cfg, 600, 9, 0.5), [true, true, true, false, false, false, false, false, false]);
        // And so does every other class, whatever its neighbours chose.
        assert_eq!(drive(&cfg, 2000, 7, 0.5), [true, true, true, false, false, false, false]);
    }

    #[test]
    fn tile_trials_right_after_a_forwarded_call_are_not_timed() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        let long_ago = Instant::now() - Duration::from_secs(10);
        let call = |ended: Instant| {
            FORWARD_END.with(|f| f.set(Some(ended)));
            let tiles = decide(&cfg, "dgetrf", 1000).is_none();
            record_path("dgetrf", tiles, 1e9, 0.001);
            tiles
        };
        let count = |f: fn(&Class) -> usize| {
            let g = lock();
            f(&g.as_ref().unwrap().learned.routines["dgetrf"][&class_of(1000)])
        };
        // Tile trials come first; one that starts while the backend's threads may still spin
        // after a forwarded call (of any class) is not timed, so the class asks for it again.
        assert!(call(Instant::now()));
        assert!(call(Instant::now()));
        assert_eq!(count(|c| c.tiles.len()), 0, "no tile timing taken right after a forwarded call");
        assert!(call(long_ago));
        assert!(call(long_ago));
        assert!(call(long_ago));
        assert_eq!(count(|c| c.tiles.len()), 3);
        // Then the forward trials, timed whenever they come.
        assert!(!call(Instant::now()));
        assert_eq!(count(|c| c.forward.len()), 1);
        FORWARD_END.with(|f| f.set(None));
    }

    #[test]
    fn a_recheck_right_after_a_forwarded_call_is_not_timed() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        FORWARD_END.with(|f| f.set(None));
        assert_eq!(drive(&cfg, 1000, 6, 0.5), [true, true, true, false, false, false]);
        // Decided for the backend: calls 1 .. RECHECK − 1 are forwarded, each just after the
        // last; call RECHECK tries tiles, right after a forwarded call, so it is not timed, and
        // the class goes on forwarding until the next recheck.
        let call = |ended: Instant| {
            FORWARD_END.with(|f| f.set(Some(ended)));
            let tiles = decide(&cfg, "dgetrf", 1000).is_none();
            record_path("dgetrf", tiles, 1e9, 0.001);
            tiles
        };
        let r = RECHECK as usize;
        let paths: Vec<bool> = (0..2 * r).map(|_| call(Instant::now())).collect();
        let tried: Vec<usize> = (0..2 * r).filter(|&i| paths[i]).collect();
        assert_eq!(tried, [r - 1, 2 * r - 1], "{paths:?}");
        let tiles = |g: &State| g.learned.routines["dgetrf"][&class_of(1000)].tiles.clone();
        assert_eq!(tiles(lock().as_ref().unwrap()), [0.5e9; 3], "no recheck was timed");
        // A recheck that starts long after a forwarded call counts.
        let paths: Vec<bool> = (0..r).map(|_| call(Instant::now() - Duration::from_secs(10))).collect();
        assert!(paths[r - 1], "{paths:?}");
        assert_eq!(tiles(lock().as_ref().unwrap()).last(), Some(&1e12));
        FORWARD_END.with(|f| f.set(None));
    }

    #[test]
    fn near_ties_go_to_the_backend() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Tiles 2% faster: within the margin, so the backend keeps the class.
        assert_eq!(drive(&cfg, 1000, 12, 1.02).last(), Some(&false));
        // Tiles 5% faster: beyond it.
        assert_eq!(drive(&cfg, 2000, 12, 1.05).last(), Some(&true));
    }

    #[test]
    fn close_classes_take_five_timings_a_path() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Tiles 5% faster, close: after three of each, the paths alternate (tiles first)
        // until each has five, then tiles stay.
        let (t, f) = (true, false);
        assert_eq!(drive(&cfg, 1000, 12, 1.05), [t, t, t, f, f, f, t, f, t, f, t, t]);
        // Far apart (tiles half as fast): decided after three each, as before.
        assert_eq!(drive(&cfg, 2000, 8, 0.5), [t, t, t, f, f, f, f, f]);
        // A noisy first three: one slow tile trial and a fast forward one make a close class,
        // which the later trials decide.
        // Each call's rate in GFLOP/s, whichever path it took.
        let rates = [0.8, 1.2, 1.2, 1.1, 1.1, 1.15, 1.2, 1.1, 1.25, 1.05];
        let mut paths = Vec::new();
        for &r in &rates {
            let tiles = decide(&cfg, "dgetrf", 4000).is_none();
            paths.push(tiles);
            record_path("dgetrf", tiles, 1e9, 1.0 / r);
        }
        assert_eq!(paths, [t, t, t, f, f, f, t, f, t, f]);
        assert_eq!(decide(&cfg, "dgetrf", 4000), None, "tiles (best 1.25 against 1.15) win");
    }

    #[test]
    fn a_timing_counts_only_for_the_routine_and_path_it_tried() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        let tiles_timings =
            || lock().as_ref().unwrap().learned.routines["dgetrf"][&class_of(1000)].tiles.len();
        // A tile trial that ran forwarded after all, or another routine's report: not kept.
        assert!(decide(&cfg, "dgetrf", 1000).is_none());
        record_path("dgetrf", false, 1e9, 1.0);
        assert_eq!(tiles_timings(), 0);
        assert!(decide(&cfg, "dgetrf", 1000).is_none());
        record_path("dgels", true, 1e9, 1.0);
        assert_eq!(tiles_timings(), 0);
        assert!(decide(&cfg, "dgetrf", 1000).is_none());
        record_path("dgetrf", true, 1e9, 1.0);
        assert_eq!(tiles_timings(), 1);
    }

    #[test]
    fn distributed_classes_are_per_grid_and_block_size_and_planned_trials_arm_the_report() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        let n = 2000;
        // A distributed class learns like a LAPACK one, but only through plan and arm.
        let mut paths = Vec::new();
        for _ in 0..8 {
            let (why, probe) = decide_dist(&cfg, "pdgetrf", n, (1, 2), 32);
            assert_eq!(why.is_none(), probe.is_none_or(|p| p.2 != Way::Forward), "reason and probe agree");
            plan(probe);
            let outer = set_aside();
            arm();
            let tiles = why.is_none();
            paths.push(tiles);
            record_path("pdgetrf", tiles, 1e9, if tiles { 0.5 } else { 1.0 });
            restore(outer);
        }
        let (t, f) = (true, false);
        assert_eq!(paths, [t, t, t, f, f, f, t, t]);
        // Another grid or block size is another class: trials again.
        assert_eq!(decide_dist(&cfg, "pdgetrf", n, (2, 1), 32).1.map(|p| p.2), Some(Way::Tiles));
        assert_eq!(decide_dist(&cfg, "pdgetrf", n, (1, 2), 64).1.map(|p| p.2), Some(Way::Tiles));
        // The decided class gives no probe; a planned trial left unarmed by a call that never
        // reported does not stick to another routine's report.
        assert_eq!(decide_dist(&cfg, "pdgetrf", n, (1, 2), 32), (None, None));
        plan(decide_dist(&cfg, "pdgeqrf", n, (1, 2), 32).1);
        arm();
        record_path("dgeqrf", true, 1e9, 1.0);
        let g = lock();
        assert!(g.as_ref().unwrap().learned.routines["pdgeqrf:1x2:nb32"][&class_of(n)].tiles.is_empty());
    }

    #[test]
    fn calu_learns_apart_from_partial_pivoting() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Partial pivoting: tiles faster, learned.
        assert_eq!(drive(&cfg, 1000, 7, 1.5).last(), Some(&true));
        // CALU in the same size class starts its own trials, and here the backend wins.
        let calu = Config { lu: crate::config::Pivoting::Calu, ..cfg.clone() };
        assert_eq!(drive(&calu, 1000, 9, 0.5), [true, true, true, false, false, false, false, false, false]);
        // Each keeps its own decision.
        assert_eq!(decide(&cfg, "dgetrf", 1000), None);
        assert_eq!(decide(&calu, "dgetrf", 1000), Some("learned"));
    }

    #[test]
    fn a_call_inside_a_trial_keeps_both_trials() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        for _ in 0..4 {
            // The outer call (a forwarded or tiled DPOSV) ...
            let outer = set_aside();
            let posv_tiles = decide(&cfg, "dposv", 2000).is_none();
            // ... runs an inner DPOTRF call through our export.
            let inner = set_aside();
            let potrf_tiles = decide(&cfg, "dpotrf", 2000).is_none();
            record_path("dpotrf", potrf_tiles, 1e9, 1.0);
            restore(inner);
            record_path("dposv", posv_tiles, 1e9, 1.0);
            restore(outer);
        }
        let guard = STATE.lock().unwrap();
        let learned = &guard.as_ref().unwrap().learned.routines;
        for r in ["dposv", "dpotrf"] {
            let k = &learned[r][&class_of(2000)];
            // Three tile trials, then the first forward one.
            assert_eq!((k.forward.len(), k.tiles.len()), (1, 3), "{r}: {k:?}");
        }
    }

    #[test]
    fn a_decided_class_is_rechecked_and_can_change() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Tiles looked slower while the class was learned (a busy machine).
        assert_eq!(drive(&cfg, 1000, 6, 0.5), [true, true, true, false, false, false]);
        // Now tiles are twice as fast: every RECHECK-th call tries tiles once, and the first
        // such timing beats the backend's best, so the class switches.
        let paths = drive(&cfg, 1000, 4 * RECHECK as usize, 2.0);
        let first_tiles = paths.iter().position(|&t| t).unwrap();
        assert_eq!(first_tiles, RECHECK as usize - 1, "the first recheck comes at call {RECHECK}");
        let r = RECHECK as usize;
        assert!(paths[r - 1..2 * r - 1].iter().all(|&t| t), "switched to tiles: {paths:?}");
        // The backend is checked again RECHECK calls later, and the class stays on tiles.
        assert!(!paths[2 * r - 1], "forward is checked again: {paths:?}");
        assert!(paths[2 * r..3 * r - 1].iter().all(|&t| t), "still tiles: {paths:?}");
        let slow = paths.iter().filter(|&&t| !t).count();
        assert!(slow <= RECHECK as usize + 2, "{slow} calls on the slower path");
    }

    /// Like [`drive`] with devices: `rates` are the flop/s of tiles with the devices, tiles on
    /// the host alone and the backend; returns the ways taken, as the calls saw them.
    fn drive3(cfg: &Config, n: usize, calls: usize, rates: [f64; 3]) -> Vec<Way> {
        (0..calls)
            .map(|_| {
                let tiles = decide(cfg, "dgetrf", n).is_none();
                let way = match (tiles, host_only()) {
                    (false, h) => {
                        assert_eq!(h, None, "a forwarded call has no host-only reason");
                        Way::Forward
                    }
                    (true, None) => Way::Tiles,
                    (true, Some(_)) => Way::Host,
                };
                let rate = rates[ways(Ways::Devices).iter().position(|&w| w == way).unwrap()];
                record_path("dgetrf", tiles, 1e9, 1e9 / rate);
                way
            })
            .collect()
    }

    #[test]
    fn with_devices_the_host_alone_is_a_third_way() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = Config { emulate_gpus: 1, solver: crate::config::Solver::Off, ..fresh(Learn::Memory) };
        let (t, h, f) = (Way::Tiles, Way::Host, Way::Forward);
        // The H100 case: the host alone fastest, the devices slower than the backend.
        let paths = drive3(&cfg, 3000, 12, [0.5e9, 1.5e9, 1.0e9]);
        assert_eq!(paths, [t, t, t, h, h, h, f, f, f, h, h, h]);
        assert_eq!(decide(&cfg, "dgetrf", 3000), None);
        assert_eq!(host_only(), Some("learned"), "the decided class keeps off the devices");
        // Devices fastest: tiles with them.
        assert_eq!(drive3(&cfg, 6000, 12, [3e9, 1.3e9, 1e9])[9..], [t, t, t]);
        // Neither tile way beats the backend.
        assert_eq!(drive3(&cfg, 1000, 12, [0.5e9, 0.6e9, 1e9])[9..], [f, f, f]);
        assert_eq!(host_only(), None);
        // Host and devices close (within CLOSE): those two take five timings each, alternating,
        // before the class decides; the backend, far behind, is not timed again.
        let paths = drive3(&cfg, 1500, 16, [1.2e9, 1.1e9, 0.5e9]);
        assert_eq!(paths, [t, t, t, h, h, h, f, f, f, t, h, t, h, t, t, t]);
        // Without devices the third way is never tried.
        let host = fresh(Learn::Memory);
        assert!(drive3(&host, 3000, 8, [1e9, 1e9, 0.5e9]).iter().all(|&w| w != h));
    }

    /// Like [`drive3`] with a device's solver as a fourth way: `rates` are the flop/s of tiles
    /// with the devices, the host alone, the solver and the backend.
    fn drive4(cfg: &Config, n: usize, calls: usize, rates: [f64; 4]) -> Vec<Way> {
        (0..calls)
            .map(|_| {
                let forward = decide(cfg, "dgetrf", n).is_some();
                let way = match (forward, solver(), host_only()) {
                    (true, None, None) => Way::Forward,
                    (false, Some(_), None) => Way::Solver,
                    (false, None, Some(_)) => Way::Host,
                    (false, None, None) => Way::Tiles,
                    marks => panic!("contradictory marks {marks:?}"),
                };
                let rate = rates[ways(Ways::Solver).iter().position(|&w| w == way).unwrap()];
                record("dgetrf", way, 1e9, 1e9 / rate);
                way
            })
            .collect()
    }

    #[test]
    fn with_a_device_solver_the_whole_call_is_a_fourth_way() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = Config { emulate_gpus: 1, ..fresh(Learn::Memory) };
        let (t, h, s, f) = (Way::Tiles, Way::Host, Way::Solver, Way::Forward);
        // The H200 case at n = 4000: the solver with its copies 2.5x the backend, the tiles
        // with the GPU half of it, the host alone about even.
        let paths = drive4(&cfg, 4000, 15, [0.5e9, 1.0e9, 2.5e9, 1.0e9]);
        assert_eq!(paths, [t, t, t, h, h, h, s, s, s, f, f, f, s, s, s]);
        assert_eq!(decide(&cfg, "dgetrf", 4000), None);
        assert_eq!((solver(), host_only()), (Some("learned"), None));
        // Its rechecks take the three others in turn, every RECHECK calls (four calls of the
        // class have passed since it was decided).
        let r = RECHECK as usize;
        let paths = drive4(&cfg, 4000, 3 * r, [0.5e9, 1.0e9, 2.5e9, 1.0e9]);
        let tried: Vec<(usize, Way)> =
            paths.iter().enumerate().filter(|(_, &w)| w != s).map(|(i, &w)| (i, w)).collect();
        assert_eq!(tried, [(r - 5, t), (2 * r - 5, h), (3 * r - 5, f)], "{paths:?}");
        // A solver no faster than the host alone loses to it; neither beating the backend by
        // the margin forwards.
        assert_eq!(drive4(&cfg, 8000, 15, [0.5e9, 2.0e9, 1.2e9, 1.0e9])[12..], [h, h, h]);
        assert_eq!(drive4(&cfg, 1500, 20, [0.5e9, 0.8e9, 1.01e9, 1.0e9])[17..], [f, f, f]);
        // Only the three routines a solver runs have the fourth way, and HETLA_SOLVER=off
        // leaves it out.
        let off = Config { solver: crate::config::Solver::Off, ..cfg.clone() };
        *lock() = None;
        assert!(drive4(&off, 4000, 12, [0.5e9, 1.0e9, 9.0e9, 1.0e9]).iter().all(|&w| w != s));
        *lock() = None;
        let outer = set_aside();
        for _ in 0..12 {
            decide(&cfg, "dgesv", 4000);
            assert_eq!(solver(), None, "dgesv has no whole-call solver way");
        }
        restore(outer);
    }

    #[test]
    fn a_class_decided_for_the_host_rechecks_the_other_ways_in_turn() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = Config { emulate_gpus: 1, solver: crate::config::Solver::Off, ..fresh(Learn::Memory) };
        drive3(&cfg, 3000, 9, [0.5e9, 2e9, 1e9]);
        let r = RECHECK as usize;
        let paths = drive3(&cfg, 3000, 2 * r, [0.5e9, 2e9, 1e9]);
        let tried: Vec<(usize, Way)> =
            paths.iter().enumerate().filter(|(_, &w)| w != Way::Host).map(|(i, &w)| (i, w)).collect();
        assert_eq!(tried, [(r - 1, Way::Tiles), (2 * r - 1, Way::Forward)]);
    }

    #[test]
    fn forced_devices_learn_tiles_against_the_backend_only() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = Config {
            emulate_gpus: 1,
            device_force: true,
            solver: crate::config::Solver::Off,
            ..fresh(Learn::Memory)
        };
        let paths = drive3(&cfg, 3000, 8, [1e9, 3e9, 0.5e9]);
        assert!(paths.iter().all(|&w| w != Way::Host), "{paths:?}");
    }

    #[test]
    fn an_inner_call_starts_with_the_devices_allowed_and_the_outer_keeps_its_way() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = Config { emulate_gpus: 1, solver: crate::config::Solver::Off, ..fresh(Learn::Memory) };
        drive3(&cfg, 3000, 9, [0.5e9, 2e9, 1e9]);
        let outer = set_aside();
        assert_eq!(decide(&cfg, "dgetrf", 3000), None);
        assert_eq!(host_only(), Some("learned"));
        let inner = set_aside();
        assert_eq!(host_only(), None);
        restore(inner);
        assert_eq!(host_only(), Some("learned"));
        restore(outer);
        assert_eq!(host_only(), None);
    }

    #[test]
    fn decisions_survive_in_the_cache_file() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let dir = std::env::temp_dir().join(format!("hetla-tune-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cfg = fresh(Learn::Dir(dir.clone()));
        assert_eq!(drive(&cfg, 1000, 7, 0.5), [true, true, true, false, false, false, false]);
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(files.len(), 1, "one cache file, no temporary left: {files:?}");
        // A new process (fresh state) starts from the file: no probe.
        let cfg = fresh(Learn::Dir(dir.clone()));
        assert_eq!(drive(&cfg, 1000, 2, 10.0), [false, false]);
        // A damaged file is ignored: learning starts again (a tile trial first).
        let f = dir.join(&files[0]);
        std::fs::write(&f, "{ not json").unwrap();
        let cfg = fresh(Learn::Dir(dir.clone()));
        assert_eq!(drive(&cfg, 1000, 1, 1.0), [true]);
        *lock() = None;
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
