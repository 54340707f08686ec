//! Break-even sizes learned on the machine the library runs on, from the caller's own calls.
//!
//! Below some size a LAPACK routine is faster in the backend than on tiles (task overheads, too
//! few tiles per core); where that size lies depends on the machine (core count, AVX2 or
//! AVX-512, the backend), so it is not a constant. Without `HETLA_MIN_N`:
//!
//! * sizes below a quarter of the routine's built-in break-even
//!   ([`crate::config::default_min_n`]) are forwarded;
//! * the other sizes fall into classes of ratio √2 (class `c` = round(2·log2 n)). A class is
//!   decided *before its first call is answered*, by trials on data of the learner's own: the
//!   call's arrays are copied ([`crate::tile::Snapshot`]) and the routine runs on the copies,
//!   once per trial, each way in turn; the caller's own call then runs the decided way on its
//!   own arrays. Once each way has [`SAMPLES`] timings (three: the best of them skips a cold
//!   first run, which pays for fresh buffers and threads, and runs slowed by other work), the
//!   class takes the tile path if its best rate (flop/s: sizes within a class differ) over its
//!   last [`KEEP`] timings beats the backend's by [`MARGIN`], else the backend. Where the two
//!   best ways' best rates are within [`CLOSE`] (25%) of each other, each of those ways is first
//!   timed [`CLOSE_SAMPLES`] (five) times, alternating.
//!   There is no upper end: where tiles lose even at large sizes, the call is forwarded (a
//!   drop-in must not be slower than what it replaces).
//!   A class that settled on the backend says `reason=learned` in the verbose line; a trial's
//!   own line starts `hetla: trial <routine>`.
//! * **The same bits on every call.** Different ways round differently, so a class's way never
//!   changes once a call of it has been answered: the decision comes before the first answer and
//!   is kept (in memory, and in the cache file for later processes, which start from it). A
//!   class that could not be decided (a trial failed: INFO > 0 on the copy, say) runs the
//!   built-in break-even ([`crate::config::default_min_n`]), as learning off does. Identical
//!   calls therefore return identical bits within a process and across processes that share
//!   the cache, from the first call. Before, the trials were the caller's own calls and
//!   alternated between the ways, and the same call on the same input returned other bits from
//!   call to call (dgetrf n = 2000: 3 of 10 calls).
//! * With accelerators (CUDA GPUs or emulated ones, not forced by `HETLA_DEVICE_FORCE`) there is
//!   a third path, [`Way::Host`]: tiles on the host's cores alone. The trials go tiles with the
//!   devices, then tiles on the host, then forwarded, and the fastest of the three wins (tiles of
//!   either kind still need [`MARGIN`] over the backend). On one H100 with 16 cores, hetla with
//!   the GPU ran dgetrf at n = 8000 at 0.54× OpenBLAS and hetla on the cores alone at 1.29×: a
//!   GPU must never make a call slower than the machine without it. A call on the host path says
//!   `devices=off(probe)` (a trial) or `devices=off(learned)` in the verbose line.
//! * For DPOTRF, DGETRF and DGEQRF a device with a solver adds a fourth way, [`Way::Solver`]: the
//!   whole call on that device's vendor library (`crate::device::Device::factor`), tried third
//!   (`HETLA_SOLVER=off` leaves it out). On one H200 it was the fastest way at n = 4000 for all
//!   three (1.9-9.7× OpenBLAS), where hetla's tiles with the GPU were slower than the cores alone.
//!   A solver trial the device declined (INFO > 0, a non-finite diagonal: the tiles then run the
//!   call from its untouched input) counts as the solver's, with its whole time.
//! * A tile trial does not start within `SPIN_AFTER` (0.2 s) of a forwarded run's end on the same
//!   thread: the backend's threads may still be spinning for work and take cores from the
//!   tiles, which they would not once the class runs on tiles. Tile trials come first, and a
//!   tile trial after a forwarded one waits out the rest of that time.
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
//!
//! Not deciding by the caller's own calls costs the trials' runs, once per class and machine:
//! the first call of a class in a fresh cache takes about [`SAMPLES`] runs per way longer.

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
/// Tiles win a class only when their best rate beats the backend's by this fraction: where
/// the two are within a few percent, which one measures faster is noise (dtrtri at n = 4000 took
/// the tile path on three trials each and then ran at 0.94x), and forwarding is never slower
/// than the library hetla replaces.
pub const MARGIN: f64 = 0.03;
/// Sizes below default / BAND are forwarded unlearned; every size above is learned (no upper end).
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
    /// Whole on one device by its vendor solver (?POTRF, ?GETRF, ?GEQRF of any type; `Device::factor`).
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
    /// The trial the next decision of its class on this thread runs ([`trials`]).
    static FORCED: std::cell::Cell<Option<Probe>> = const { std::cell::Cell::new(None) };
    /// Whether this thread is running the learner's trials ([`trials`]): calls made meanwhile
    /// start no trials of their own, and their verbose lines say `trial`.
    static IN_TRIAL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set while a distributed call that has just run its trials runs for the caller
    /// ([`without_trials`]): it starts none, decided or not.
    static NO_TRIALS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` as one of the learner's trials on this thread (a process of a grid whose trials
/// process (0, 0) leads, [`dist_trials_root`]).
pub(crate) fn as_trial<R>(f: impl FnOnce() -> R) -> R {
    let was = IN_TRIAL.with(|t| t.replace(true));
    let r = f();
    IN_TRIAL.with(|t| t.set(was));
    r
}

/// Runs `f`, a call whose trials have just run, without starting trials again: where they could
/// not decide its class (a trial stopped early), it takes the built-in break-even.
pub(crate) fn without_trials<R>(f: impl FnOnce() -> R) -> R {
    let was = NO_TRIALS.with(|t| t.replace(true));
    let r = f();
    NO_TRIALS.with(|t| t.set(was));
    r
}

/// [`trials`] for a distributed class, on process (0, 0) of a `grid` whose caller blocks are
/// `caller_nb`: `run` tells the other processes to run the next trial with it, then runs it
/// (the trial's plan, which process (0, 0) makes, carries the way to every process).
pub(crate) fn dist_trials_root(
    cfg: &Config,
    routine: &'static str,
    size: usize,
    grid: (i32, i32),
    caller_nb: i32,
    run: &mut dyn FnMut() -> bool,
) {
    let key = dist_key(routine, grid, caller_nb);
    run_trials(cfg, key, size, Ways::Plain, &mut |probe| {
        FORCED.with(|f| f.set(Some(probe)));
        let ok = run();
        FORCED.with(|f| f.set(None));
        ok
    });
}

/// Whether this thread is running one of the learner's trials (on copies of a call's arrays).
pub(crate) fn in_trial() -> bool {
    IN_TRIAL.with(|t| t.get())
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
const SOLVED: &[&str] = &[
    "spotrf", "dpotrf", "cpotrf", "zpotrf", "sgetrf", "dgetrf", "cgetrf", "zgetrf", "sgeqrf", "dgeqrf",
    "cgeqrf", "zgeqrf",
];

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

/// The class key of a LAPACK routine: CALU's LU is another algorithm than partial pivoting, and
/// learns its break-even apart.
fn key(cfg: &Config, routine: &'static str) -> &'static str {
    if cfg.lu != crate::config::Pivoting::Calu {
        return routine;
    }
    match routine {
        "sgetrf" => "sgetrf-calu",
        "dgetrf" => "dgetrf-calu",
        "cgetrf" => "cgetrf-calu",
        "zgetrf" => "zgetrf-calu",
        "sgesv" => "sgesv-calu",
        "dgesv" => "dgesv-calu",
        "cgesv" => "cgesv-calu",
        "zgesv" => "zgesv-calu",
        _ => routine,
    }
}

/// The decision for a LAPACK call of `routine` (a `'static` name) on a problem of `size`:
/// `Some(reason)` to forward, `None` to run on tiles. Marks the call as a probe when it is one
/// of the learner's trials ([`trials`]).
pub(crate) fn decide(cfg: &Config, routine: &'static str, size: usize) -> Option<&'static str> {
    PROBE.with(|p| p.set(None));
    HOST.with(|h| h.set(None));
    SOLVER.with(|h| h.set(None));
    let routine = key(cfg, routine);
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
    let key = dist_key(routine, (p, q), caller_nb);
    // Distributed tile calls learn tiles against the backend only.
    let pick = choose(cfg, key, default_min_n(routine), size, false);
    (pick.why, pick.probe)
}

/// The class key of a distributed routine on a `p`×`q` grid with the caller's blocks of
/// `caller_nb` (`pdgetrf:1x2:nb32`).
fn dist_key(routine: &'static str, (p, q): (i32, i32), caller_nb: i32) -> &'static str {
    intern(format!("{routine}:{p}x{q}:nb{caller_nb}"))
}

/// Whether the class of a call of `routine` on a problem of `size` still has to be decided by
/// trials before the call is answered ([`trials`]); never inside a trial. The caller has ruled
/// out what `api::forward_reason` forwards before asking (nested calls, `HETLA_DISABLE`,
/// `HETLA_MIN_N`), and workspace queries.
pub(crate) fn wants_trials(cfg: &Config, routine: &'static str, size: usize) -> bool {
    let routine = key(cfg, routine);
    undecided(cfg, routine, default_min_n(routine), size, true)
}

/// [`wants_trials`] for a distributed class (asked by process (0, 0), whose answer the grid takes).
pub(crate) fn wants_dist_trials(
    cfg: &Config,
    routine: &'static str,
    size: usize,
    grid: (i32, i32),
    caller_nb: i32,
) -> bool {
    undecided(cfg, dist_key(routine, grid, caller_nb), default_min_n(routine), size, false)
}

fn undecided(cfg: &Config, routine: &'static str, base: usize, size: usize, device_ways: bool) -> bool {
    if matches!(cfg.learn, Learn::Off) || size < base / BAND || in_trial() || NO_TRIALS.with(|t| t.get()) {
        return false;
    }
    decided(cfg, routine, size, device_ways).is_none()
}

/// The way the class of `size` of class key `routine` has decided on, if it has (the devices'
/// ways are learned only with `device_ways`). Asked only above the band: calls forwarded as
/// small never start the CUDA driver.
fn decided(cfg: &Config, routine: &'static str, size: usize, device_ways: bool) -> Option<Way> {
    let set = if device_ways { ways_for(cfg, routine) } else { Ways::Plain };
    let guard = state(cfg);
    let st = guard.as_ref().expect("state() fills the state");
    st.learned.routines.get(routine).and_then(|r| r.get(&class_of(size))).and_then(|k| k.decision(set))
}

/// The most trials one class runs before it is answered: every way to [`CLOSE_SAMPLES`], and a
/// few that were not timed.
const MAX_TRIALS: usize = 4 * CLOSE_SAMPLES + 4;

/// Decides the class of a call of `routine` on a problem of `size` by trials: `run` runs the
/// call once on copies of its arrays (the caller's stay untouched) and says whether it finished
/// (INFO = 0); each run takes the way the learner asks for next ([`Class::next_trial`]) and is
/// timed by its report. Stops when the class is decided, or when a run did not finish (its
/// timing is dropped: a factorization stopped early says nothing of the way's speed); the class
/// then stays undecided and the call runs the built-in break-even.
pub(crate) fn trials(cfg: &Config, routine: &'static str, size: usize, run: &mut dyn FnMut() -> bool) {
    let routine = key(cfg, routine);
    let set = ways_for(cfg, routine);
    run_trials(cfg, routine, size, set, &mut |probe| {
        FORCED.with(|f| f.set(Some(probe)));
        let ok = run();
        FORCED.with(|f| f.set(None));
        ok
    });
}

/// The loop of [`trials`] for class key `routine` learning between the ways of `set`: `run`
/// runs one trial of the way its probe names.
fn run_trials(
    cfg: &Config,
    routine: &'static str,
    size: usize,
    set: Ways,
    run: &mut dyn FnMut(Probe) -> bool,
) {
    let c = class_of(size);
    let was = IN_TRIAL.with(|t| t.replace(true));
    for _ in 0..MAX_TRIALS {
        let (way, before) = {
            let mut guard = state(cfg);
            let st = guard.as_mut().expect("state() fills the state");
            let k = st.learned.routines.entry(routine.to_string()).or_default().entry(c).or_default();
            if k.decision(set).is_some() {
                break;
            }
            (k.next_trial(set), k.clone())
        };
        if way != Way::Forward {
            wait_for_spinning_backend();
        }
        if !run((routine, c, way)) {
            let mut guard = state(cfg);
            let st = guard.as_mut().expect("state() fills the state");
            st.learned.routines.entry(routine.to_string()).or_default().insert(c, before);
            break;
        }
    }
    IN_TRIAL.with(|t| t.set(was));
}

/// Sleeps out the rest of [`SPIN_AFTER`] after this thread's last forwarded call, so that a tile
/// trial does not share the cores with the backend's spinning threads.
fn wait_for_spinning_backend() {
    if let Some(end) = FORWARD_END.with(|f| f.get()) {
        let until = end + SPIN_AFTER;
        let now = Instant::now();
        if now < until {
            std::thread::sleep(until - now);
        }
    }
}

/// The learner's state, loaded from the cache file on first use.
fn state(cfg: &Config) -> std::sync::MutexGuard<'static, Option<State>> {
    // Files are read outside the lock (a fork in another thread must not find it held for long).
    if lock().is_none() {
        let loaded = load(cfg);
        lock().get_or_insert(loaded);
    }
    let mut guard = lock();
    guard.get_or_insert_with(|| State { learned: Learned::default(), file: None });
    guard
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
/// ways are learned when devices are there: the host alone, a device's solver). A class's way
/// is its trial's while [`trials`] runs one, then its decision, or the built-in break-even where
/// it has none.
fn choose(cfg: &Config, routine: &'static str, base: usize, size: usize, device_ways: bool) -> Pick {
    let prior = Pick { why: (size < base).then_some("small"), ..Pick::default() };
    if matches!(cfg.learn, Learn::Off) {
        return prior;
    }
    if size < base / BAND {
        return Pick { why: Some("small"), ..Pick::default() };
    }
    if let Some(probe) = FORCED.with(|f| f.get()).filter(|p| p.0 == routine && p.1 == class_of(size)) {
        FORCED.with(|f| f.set(None));
        return pick(probe.2, Some(probe), "probe");
    }
    match decided(cfg, routine, size, device_ways) {
        Some(best) => pick(best, None, "learned"),
        None => prior,
    }
}

/// The [`Pick`] of a call that takes `way`, marked `mark` (`probe`, `learned`).
fn pick(way: Way, probe: Option<Probe>, mark: &'static str) -> Pick {
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
        FORWARD_END.with(|f| f.set(None));
        let mut c = Config::with_threads(2);
        // The host alone, whatever devices the test run gives every configuration.
        c.gpus = crate::config::GpuSelect::None;
        c.emulate_gpus = 0;
        c.device_force = false;
        c.learn = learn;
        c
    }

    /// The way a call that `decide` has just marked takes.
    fn marked_way(forward: bool) -> Way {
        match (forward, solver(), host_only()) {
            (true, None, None) => Way::Forward,
            (false, Some(_), None) => Way::Solver,
            (false, None, Some(_)) => Way::Host,
            (false, None, None) => Way::Tiles,
            marks => panic!("contradictory marks {marks:?}"),
        }
    }

    /// A call of `routine` on size `n` as an api function makes it: its report sets the outer
    /// call's marks aside, it decides, and records its rate, `rate(way)` flop/s. Returns the
    /// way it took.
    fn call(cfg: &Config, routine: &'static str, n: usize, rate: &dyn Fn(Way) -> f64) -> Way {
        let outer = set_aside();
        let way = marked_way(decide(cfg, routine, n).is_some());
        record(routine, way, 1e9, 1e9 / rate(way));
        restore(outer);
        way
    }

    /// `calls` calls of `routine` on size `n`, as the api makes them: the learner's trials
    /// first where the class is undecided, then the caller's calls, which must carry no probe.
    /// Returns the ways of the trials and of the calls.
    fn drive_ways(
        cfg: &Config,
        routine: &'static str,
        n: usize,
        calls: usize,
        rate: &dyn Fn(Way) -> f64,
    ) -> (Vec<Way>, Vec<Way>) {
        let mut tried = Vec::new();
        if wants_trials(cfg, routine, n) {
            trials(cfg, routine, n, &mut || {
                tried.push(call(cfg, routine, n, rate));
                true
            });
        }
        let paths = (0..calls)
            .map(|_| {
                let w = call(cfg, routine, n, rate);
                assert!(PROBE.with(|p| p.get()).is_none(), "a caller's call is no trial");
                w
            })
            .collect();
        (tried, paths)
    }

    /// [`drive_ways`] of dgetrf with tiles `speedup` times as fast as the backend, as booleans
    /// (true = tiles).
    fn drive(cfg: &Config, n: usize, calls: usize, speedup: f64) -> (Vec<bool>, Vec<bool>) {
        let rate = |w: Way| if w == Way::Forward { 1e9 } else { speedup * 1e9 };
        let (t, c) = drive_ways(cfg, "dgetrf", n, calls, &rate);
        let tiles = |v: Vec<Way>| v.into_iter().map(|w| w != Way::Forward).collect();
        (tiles(t), tiles(c))
    }

    const T: bool = true;
    const F: bool = false;

    #[test]
    fn outside_the_band_nothing_is_tried() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        let base = default_min_n("dgetrf");
        assert!(!wants_trials(&cfg, "dgetrf", base / BAND - 1));
        assert_eq!(decide(&cfg, "dgetrf", base / BAND - 1), Some("small"));
        // With the host alone large sizes are learned too.
        assert!(wants_trials(&cfg, "dgetrf", base * BAND * 4));
        // Before its trials an undecided class takes the built-in break-even, and no call of
        // the caller's is a probe.
        assert_eq!(decide(&cfg, "dgetrf", base * BAND * 4), None);
        assert_eq!(decide(&cfg, "dgetrf", base - 1), Some("small"));
        assert!(PROBE.with(|p| p.get()).is_none());
        let off = fresh(Learn::Off);
        assert!(!wants_trials(&off, "dgetrf", base));
        assert_eq!(decide(&off, "dgetrf", base - 1), Some("small"));
        assert_eq!(decide(&off, "dgetrf", base), None);
    }

    #[test]
    fn trials_try_tiles_then_forward_and_every_call_takes_the_faster() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Tiles faster: trials T, T, T, F, F, F; every call then on tiles.
        assert_eq!(drive(&cfg, 1000, 4, 1.5), (vec![T, T, T, F, F, F], vec![T; 4]));
        // Decided: no more trials.
        assert_eq!(drive(&cfg, 1000, 2, 0.1), (vec![], vec![T; 2]));
        // Another class of the same routine learns on its own: forward faster.
        assert_eq!(drive(&cfg, 600, 3, 0.5), (vec![T, T, T, F, F, F], vec![F; 3]));
        // And so does every other class, whatever its neighbours chose.
        assert_eq!(drive(&cfg, 2000, 2, 0.5).1, [F, F]);
    }

    #[test]
    fn a_decided_class_keeps_its_way_whatever_the_machine_does_next() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Tiles looked slower while the class was learned (a busy machine) ...
        assert_eq!(drive(&cfg, 1000, 1, 0.5).1, [F]);
        // ... and faster now: the class stays on the backend, so that identical calls keep
        // returning identical bits.
        assert_eq!(drive(&cfg, 1000, 100, 2.0), (vec![], vec![F; 100]));
    }

    #[test]
    fn a_tile_trial_waits_for_the_backends_spinning_threads() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let _cfg = fresh(Learn::Memory);
        FORWARD_END.with(|f| f.set(Some(Instant::now() - Duration::from_millis(50))));
        let t0 = Instant::now();
        wait_for_spinning_backend();
        assert!(t0.elapsed() >= SPIN_AFTER - Duration::from_millis(60), "waited {:?}", t0.elapsed());
        FORWARD_END.with(|f| f.set(Some(Instant::now() - Duration::from_secs(10))));
        let t0 = Instant::now();
        wait_for_spinning_backend();
        assert!(t0.elapsed() < Duration::from_millis(50), "no wait long after: {:?}", t0.elapsed());
        FORWARD_END.with(|f| f.set(None));
    }

    #[test]
    fn near_ties_go_to_the_backend() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Tiles 2% faster: within the margin, so the backend keeps the class.
        assert_eq!(drive(&cfg, 1000, 1, 1.02).1, [F]);
        // Tiles 5% faster: beyond it.
        assert_eq!(drive(&cfg, 2000, 1, 1.05).1, [T]);
    }

    #[test]
    fn close_classes_take_five_timings_a_way() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Tiles 5% faster, close: after three of each, the ways alternate (tiles first)
        // until each has five.
        assert_eq!(drive(&cfg, 1000, 2, 1.05), (vec![T, T, T, F, F, F, T, F, T, F], vec![T, T]));
        // Far apart (tiles half as fast): decided after three each, as before.
        assert_eq!(drive(&cfg, 2000, 2, 0.5), (vec![T, T, T, F, F, F], vec![F, F]));
        // A noisy first three: one slow tile trial and a fast forward one make a close class,
        // which the later trials decide. Each trial's rate in GFLOP/s, whichever way it took.
        let rates = [0.8, 1.2, 1.2, 1.1, 1.1, 1.15, 1.2, 1.1, 1.25, 1.05];
        let mut k = 0;
        let mut tried = Vec::new();
        trials(&cfg, "dgetrf", 4000, &mut || {
            let outer = set_aside();
            let tiles = decide(&cfg, "dgetrf", 4000).is_none();
            tried.push(tiles);
            record_path("dgetrf", tiles, 1e9, 1.0 / rates[k]);
            k += 1;
            restore(outer);
            true
        });
        assert_eq!(tried, [T, T, T, F, F, F, T, F, T, F]);
        assert_eq!(decide(&cfg, "dgetrf", 4000), None, "tiles (best 1.25 against 1.15) win");
    }

    #[test]
    fn a_timing_counts_only_for_the_routine_and_way_it_tried() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        let timings = || {
            let g = lock();
            let k = &g.as_ref().unwrap().learned.routines["dgetrf"][&class_of(1000)];
            (k.tiles.len(), k.forward.len())
        };
        // Trials that report another way (a tile trial that ran forwarded after all) or another
        // routine: nothing kept, the class stays undecided after a bounded number of runs.
        let mut runs = 0;
        trials(&cfg, "dgetrf", 1000, &mut || {
            let outer = set_aside();
            let tiles = decide(&cfg, "dgetrf", 1000).is_none();
            record_path(if runs % 2 == 0 { "dgels" } else { "dgetrf" }, !tiles, 1e9, 1.0);
            restore(outer);
            runs += 1;
            true
        });
        assert_eq!(runs, MAX_TRIALS);
        assert_eq!(timings(), (0, 0));
        assert!(wants_trials(&cfg, "dgetrf", 1000), "still undecided");
        assert_eq!(decide(&cfg, "dgetrf", 1000), Some("small"), "the built-in break-even meanwhile");
    }

    #[test]
    fn a_trial_that_did_not_finish_leaves_the_class_as_it_was() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // The copy is no positive definite matrix, say: the first trial stops early with INFO > 0,
        // its timing (of a factorization that stopped) is dropped and no more trials run.
        let mut runs = 0;
        trials(&cfg, "dgetrf", 1000, &mut || {
            let outer = set_aside();
            let tiles = decide(&cfg, "dgetrf", 1000).is_none();
            record_path("dgetrf", tiles, 1e9, 1e-6);
            restore(outer);
            runs += 1;
            false
        });
        assert_eq!(runs, 1);
        let g = lock();
        let k = &g.as_ref().unwrap().learned.routines["dgetrf"][&class_of(1000)];
        assert!(k.tiles.is_empty() && k.forward.is_empty(), "{k:?}");
    }

    #[test]
    fn distributed_classes_are_per_grid_and_block_size_and_planned_trials_arm_the_report() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        let n = 2000;
        let key = dist_key("pdgetrf", (1, 2), 32);
        // Undecided: the built-in break-even, no probe.
        assert!(wants_dist_trials(&cfg, "pdgetrf", n, (1, 2), 32));
        assert_eq!(decide_dist(&cfg, "pdgetrf", n, (1, 2), 32), (None, None));
        // The grid's trials: process (0, 0) plans each (its plan says the way), the report arms it.
        let mut tried = Vec::new();
        run_trials(&cfg, key, n, Ways::Plain, &mut |probe| {
            FORCED.with(|f| f.set(Some(probe)));
            let (why, p) = decide_dist(&cfg, "pdgetrf", n, (1, 2), 32);
            assert_eq!(p, Some(probe));
            plan(p);
            let outer = set_aside();
            arm();
            let tiles = why.is_none();
            tried.push(tiles);
            record_path("pdgetrf", tiles, 1e9, if tiles { 0.5 } else { 1.0 });
            restore(outer);
            true
        });
        assert_eq!(tried, [T, T, T, F, F, F]);
        assert_eq!(decide_dist(&cfg, "pdgetrf", n, (1, 2), 32), (None, None));
        assert!(!wants_dist_trials(&cfg, "pdgetrf", n, (1, 2), 32));
        // Another grid or block size is another class.
        assert!(wants_dist_trials(&cfg, "pdgetrf", n, (2, 1), 32));
        assert!(wants_dist_trials(&cfg, "pdgetrf", n, (1, 2), 64));
        // A planned trial left unarmed by a call that never reported does not stick to another
        // routine's report.
        plan(Some((dist_key("pdgeqrf", (1, 2), 32), class_of(n), Way::Tiles)));
        arm();
        record_path("dgeqrf", true, 1e9, 1.0);
        let g = lock();
        assert!(!g.as_ref().unwrap().learned.routines.contains_key("pdgeqrf:1x2:nb32"));
    }

    #[test]
    fn calu_learns_apart_from_partial_pivoting() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        // Partial pivoting: tiles faster, learned.
        assert_eq!(drive(&cfg, 1000, 1, 1.5).1, [T]);
        // CALU in the same size class runs its own trials, and here the backend wins.
        let calu = Config { lu: crate::config::Pivoting::Calu, ..cfg.clone() };
        assert_eq!(drive(&calu, 1000, 2, 0.5), (vec![T, T, T, F, F, F], vec![F, F]));
        // Each keeps its own decision.
        assert_eq!(decide(&cfg, "dgetrf", 1000), None);
        assert_eq!(decide(&calu, "dgetrf", 1000), Some("learned"));
    }

    #[test]
    fn a_call_inside_a_trial_runs_no_trial_and_the_trial_keeps_its_timing() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = fresh(Learn::Memory);
        trials(&cfg, "dposv", 2000, &mut || {
            // The trial's DPOSV ...
            let outer = set_aside();
            let posv_tiles = decide(&cfg, "dposv", 2000).is_none();
            // ... runs an inner DPOTRF call through our export: no trials of its own, the
            // built-in break-even, no probe.
            assert!(!wants_trials(&cfg, "dpotrf", 2000));
            let inner = set_aside();
            assert_eq!(decide(&cfg, "dpotrf", 2000), None);
            assert!(PROBE.with(|p| p.get()).is_none());
            record_path("dpotrf", true, 1e9, 1.0);
            restore(inner);
            record_path("dposv", posv_tiles, 1e9, if posv_tiles { 0.5 } else { 1.0 });
            restore(outer);
            true
        });
        let guard = STATE.lock().unwrap();
        let learned = &guard.as_ref().unwrap().learned.routines;
        let k = &learned["dposv"][&class_of(2000)];
        assert_eq!((k.tiles.len(), k.forward.len()), (3, 3), "{k:?}");
        assert!(!learned.contains_key("dpotrf"));
    }

    #[test]
    fn with_devices_the_host_alone_is_a_third_way() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = Config { emulate_gpus: 1, solver: crate::config::Solver::Off, ..fresh(Learn::Memory) };
        let (t, h, f) = (Way::Tiles, Way::Host, Way::Forward);
        let rates = |r: [f64; 3]| move |w: Way| r[ways(Ways::Devices).iter().position(|&x| x == w).unwrap()];
        // The H100 case: the host alone fastest, the devices slower than the backend.
        let (tried, calls) = drive_ways(&cfg, "dgetrf", 3000, 3, &rates([0.5e9, 1.5e9, 1.0e9]));
        assert_eq!(tried, [t, t, t, h, h, h, f, f, f]);
        assert_eq!(calls, [h, h, h]);
        assert_eq!(decide(&cfg, "dgetrf", 3000), None);
        assert_eq!(host_only(), Some("learned"), "the decided class keeps off the devices");
        // Devices fastest: tiles with them.
        assert_eq!(drive_ways(&cfg, "dgetrf", 6000, 2, &rates([3e9, 1.3e9, 1e9])).1, [t, t]);
        // Neither tile way beats the backend.
        assert_eq!(drive_ways(&cfg, "dgetrf", 1000, 2, &rates([0.5e9, 0.6e9, 1e9])).1, [f, f]);
        assert_eq!(decide(&cfg, "dgetrf", 1000), Some("learned"));
        assert_eq!(host_only(), None);
        // Host and devices close (within CLOSE): those two take five timings each, alternating,
        // before the class decides; the backend, far behind, is not timed again.
        let (tried, calls) = drive_ways(&cfg, "dgetrf", 1500, 2, &rates([1.2e9, 1.1e9, 0.5e9]));
        assert_eq!(tried, [t, t, t, h, h, h, f, f, f, t, h, t, h]);
        assert_eq!(calls, [t, t]);
        // Without devices the third way is never tried.
        let host = fresh(Learn::Memory);
        let (tried, calls) = drive_ways(&host, "dgetrf", 3000, 2, &rates([1e9, 1e9, 0.5e9]));
        assert!(tried.iter().chain(&calls).all(|&w| w != h));
    }

    #[test]
    fn with_a_device_solver_the_whole_call_is_a_fourth_way() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = Config { emulate_gpus: 1, ..fresh(Learn::Memory) };
        let (t, h, s, f) = (Way::Tiles, Way::Host, Way::Solver, Way::Forward);
        let rates = |r: [f64; 4]| move |w: Way| r[ways(Ways::Solver).iter().position(|&x| x == w).unwrap()];
        // The H200 case at n = 4000: the solver with its copies 2.5x the backend, the tiles
        // with the GPU half of it, the host alone about even.
        let (tried, calls) = drive_ways(&cfg, "dgetrf", 4000, 3, &rates([0.5e9, 1.0e9, 2.5e9, 1.0e9]));
        assert_eq!(tried, [t, t, t, h, h, h, s, s, s, f, f, f]);
        assert_eq!(calls, [s, s, s]);
        assert_eq!(decide(&cfg, "dgetrf", 4000), None);
        assert_eq!((solver(), host_only()), (Some("learned"), None));
        // A solver no faster than the host alone loses to it; neither beating the backend by
        // the margin forwards.
        assert_eq!(drive_ways(&cfg, "dgetrf", 8000, 2, &rates([0.5e9, 2.0e9, 1.2e9, 1.0e9])).1, [h, h]);
        assert_eq!(drive_ways(&cfg, "dgetrf", 1500, 2, &rates([0.5e9, 0.8e9, 1.01e9, 1.0e9])).1, [f, f]);
        // Only the three routines a solver runs have the fourth way, and HETLA_SOLVER=off
        // leaves it out.
        let off = Config { solver: crate::config::Solver::Off, ..cfg.clone() };
        *lock() = None;
        let (tried, calls) = drive_ways(&off, "dgetrf", 4000, 2, &rates([0.5e9, 1.0e9, 9.0e9, 1.0e9]));
        assert!(tried.iter().chain(&calls).all(|&w| w != s));
        *lock() = None;
        let (tried, calls) = drive_ways(&cfg, "dgesv", 4000, 2, &rates([0.5e9, 1.0e9, 9.0e9, 1.0e9]));
        assert!(tried.iter().chain(&calls).all(|&w| w != s), "dgesv has no whole-call solver way");
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
        let rate = |w: Way| if w == Way::Forward { 0.5e9 } else { 1e9 };
        let (tried, calls) = drive_ways(&cfg, "dgetrf", 3000, 2, &rate);
        assert!(tried.iter().chain(&calls).all(|&w| w != Way::Host), "{tried:?} {calls:?}");
    }

    #[test]
    fn an_inner_call_starts_with_the_devices_allowed_and_the_outer_keeps_its_way() {
        let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let cfg = Config { emulate_gpus: 1, solver: crate::config::Solver::Off, ..fresh(Learn::Memory) };
        let rate = |w: Way| if w == Way::Host { 2e9 } else { 0.5e9 };
        drive_ways(&cfg, "dgetrf", 3000, 1, &rate);
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
        assert_eq!(drive(&cfg, 1000, 1, 0.5), (vec![T, T, T, F, F, F], vec![F]));
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(files.len(), 1, "one cache file, no temporary left: {files:?}");
        // A new process (fresh state) starts from the file: no trial, the same way.
        let cfg = fresh(Learn::Dir(dir.clone()));
        assert_eq!(drive(&cfg, 1000, 2, 10.0), (vec![], vec![F, F]));
        // A damaged file is ignored: learning starts again.
        let f = dir.join(&files[0]);
        std::fs::write(&f, "{ not json").unwrap();
        let cfg = fresh(Learn::Dir(dir.clone()));
        assert_eq!(drive(&cfg, 1000, 1, 2.0), (vec![T, T, T, F, F, F], vec![T]));
        *lock() = None;
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
