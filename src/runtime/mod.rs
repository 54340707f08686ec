//! The task runtime: a sequence of tile tasks per call, dependencies by per-tile task lists,
//! ready queues by priority, a persistent pool of sleeping workers.
//!
//! This follows the runtime of Song and Dongarra (seeds 000 §4–5, 001 §4): the calling thread is
//! the *master* that generates tasks in program order into a bounded *task window*; each task is
//! appended to the list of every tile it touches ([`deps`]); a task whose inputs are all granted
//! enters the ready queue; workers take the most urgent ready task, run it, and FIRE its
//! successors. When the window is full the master executes ready tasks itself instead of
//! waiting, and it does the same once generation is over until the sequence has drained.
//!
//! Tasks name their data by tile ([`Task::read`], [`Task::write`], ...) and get views of exactly
//! that data through [`Ctx`] when they run, so an algorithm never touches raw memory and never
//! knows which thread or device runs its tasks.
//!
//! The first failure of any task (a numerical error it returns, or a panic, which is caught) is
//! recorded; later tasks of the sequence are skipped but still release their successors, and the
//! failure becomes the result of [`Seq::wait`].

pub mod alloc;
pub mod deps;
mod devwork;
pub mod inline;
pub mod placement;
mod pool;
pub mod shared;
pub mod trace;

pub use deps::Mode;

use crate::config::Config;
use crate::device::memory::TileUse;
use crate::device::{DevStats, DeviceOp, HostBlock, Plan};
use crate::error::Error;
use crate::tile::{Elem, TiledMatrix, View, ViewMut};
use std::ops::Range;

pub(crate) use pool::after_fork_in_child;
pub use pool::external::{Held, Releaser, POLL_SLEEP, POLL_SPIN};
pub(crate) use pool::in_task;
pub(crate) use pool::tid as trace_tid;

/// Signature of a task body.
pub type Job = Box<dyn FnOnce(&Ctx) -> Result<(), Error> + Send + 'static>;

/// Description of one task before submission: what it is called (for the trace), how urgent it
/// is, what it reads and writes, and optionally the same work as a device kernel.
pub struct Task {
    pub(crate) name: &'static str,
    pub(crate) prio: i64,
    pub(crate) dims: [usize; 3],
    pub(crate) accesses: Vec<TileUse>,
    pub(crate) op: Option<DeviceOp>,
    pub(crate) step: Option<usize>,
    pub(crate) live: Option<Live>,
}

/// Whether a task still computes when it starts ([`Task::live_if`]).
pub type Live = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

impl Task {
    /// A task running kernel `name`. Priorities are relative: larger runs first.
    pub fn new(name: &'static str) -> Self {
        Task { name, prio: 0, dims: [0; 3], accesses: Vec::new(), op: None, step: None, live: None }
    }
    /// The task's work as a device kernel whose operands are this task's declared tiles by
    /// position (see [`crate::device`]). When the runtime has devices and the owner of the
    /// output tile is a device, the task runs there; otherwise the host body runs.
    pub fn device_op(mut self, op: DeviceOp) -> Self {
        self.op = Some(op);
        self
    }
    /// The step of the algorithm the task belongs to. When a task of step k fails with
    /// `Error::Numerical` (a Cholesky pivot that is not positive), tasks of steps before k still
    /// run (they finish the columns before the failure, as LAPACK leaves them) and the others are
    /// skipped; a task without a step is skipped after any failure, as is every task after a
    /// failure of another kind.
    pub fn step(mut self, k: usize) -> Self {
        self.step = Some(k);
        self
    }
    /// A failure rule of the task's own, asked when the task starts: where `live` says no, the
    /// task's work is skipped, on a device as on the host (the distributed runtime's rule,
    /// `graph::Failure`, which failures on other ranks reach by message). A host body still
    /// runs; it asks the same rule itself.
    pub fn live_if(mut self, live: Live) -> Self {
        self.live = Some(live);
        self
    }
    pub fn prio(mut self, p: i64) -> Self {
        self.prio = p;
        self
    }
    /// Sizes (m, n, k) shown in the trace.
    pub fn dims(mut self, m: usize, n: usize, k: usize) -> Self {
        self.dims = [m, n, k];
        self
    }
    fn add<T: Elem>(mut self, a: &TiledMatrix<T>, i: usize, j: usize, mode: Mode) -> Self {
        let key = a.key(i, j);
        if let Some(u) = self.accesses.iter_mut().find(|u| u.key == key) {
            u.mode = u.mode.merge(mode);
        } else {
            let b = a.raw_block(i..i + 1, j..j + 1);
            let loc = HostBlock { ptr: b.ptr as *mut u8, m: b.m, n: b.n, ld: b.ld, elem: T::KIND };
            self.accesses.push(TileUse { key, mode, loc });
        }
        self
    }
    /// The task reads tile (i, j) of `a`.
    pub fn read<T: Elem>(self, a: &TiledMatrix<T>, i: usize, j: usize) -> Self {
        self.add(a, i, j, Mode::Read)
    }
    /// The task overwrites tile (i, j) of `a` without reading it.
    pub fn write<T: Elem>(self, a: &TiledMatrix<T>, i: usize, j: usize) -> Self {
        self.add(a, i, j, Mode::Write)
    }
    /// The task reads and writes tile (i, j) of `a`.
    pub fn rw<T: Elem>(self, a: &TiledMatrix<T>, i: usize, j: usize) -> Self {
        self.add(a, i, j, Mode::ReadWrite)
    }
    /// The task reads every tile in `rows` × `cols` of `a`.
    pub fn read_range<T: Elem>(mut self, a: &TiledMatrix<T>, rows: Range<usize>, cols: Range<usize>) -> Self {
        for j in cols {
            for i in rows.clone() {
                self = self.read(a, i, j);
            }
        }
        self
    }
    /// The task reads and writes every tile in `rows` × `cols` of `a`.
    pub fn rw_range<T: Elem>(mut self, a: &TiledMatrix<T>, rows: Range<usize>, cols: Range<usize>) -> Self {
        for j in cols {
            for i in rows.clone() {
                self = self.rw(a, i, j);
            }
        }
        self
    }
}

/// What a running task may touch: views of the tiles it declared, nothing else.
pub struct Ctx<'a> {
    accesses: &'a [TileUse],
}

impl<'a> Ctx<'a> {
    fn mode_of(&self, key: u64) -> Option<Mode> {
        self.accesses.iter().find(|a| a.key == key).map(|a| a.mode)
    }

    fn check<T: Elem>(&self, a: &TiledMatrix<T>, rows: &Range<usize>, cols: &Range<usize>, write: bool) {
        for j in cols.clone() {
            for i in rows.clone() {
                match self.mode_of(a.key(i, j)) {
                    Some(m) if !write || m.writes() => {}
                    Some(_) => panic!("task writes tile ({i},{j}) it declared read-only"),
                    None => panic!("task touches tile ({i},{j}) it did not declare"),
                }
            }
        }
    }

    /// Read-only view of tile (i, j).
    pub fn tile<T: Elem>(&self, a: &TiledMatrix<T>, i: usize, j: usize) -> View<'a, T> {
        self.region(a, i..i + 1, j..j + 1)
    }
    /// Writable view of tile (i, j).
    pub fn tile_mut<T: Elem>(&self, a: &TiledMatrix<T>, i: usize, j: usize) -> ViewMut<'a, T> {
        self.region_mut(a, i..i + 1, j..j + 1)
    }
    /// Read-only view of the block covering tile rows `rows` and tile columns `cols`.
    pub fn region<T: Elem>(&self, a: &TiledMatrix<T>, rows: Range<usize>, cols: Range<usize>) -> View<'a, T> {
        self.check(a, &rows, &cols, false);
        // SAFETY: the task declared every tile of the block, so the dependency lists guarantee no
        // task writes them while this one runs; the matrix's creator guaranteed the memory is
        // valid while tasks run (TiledMatrix::from_raw).
        unsafe { a.raw_block(rows, cols).view() }
    }
    /// Writable view of the block covering tile rows `rows` and tile columns `cols`.
    ///
    /// A task must not take two writable views of the same tile at once.
    pub fn region_mut<T: Elem>(
        &self,
        a: &TiledMatrix<T>,
        rows: Range<usize>,
        cols: Range<usize>,
    ) -> ViewMut<'a, T> {
        self.check(a, &rows, &cols, true);
        // SAFETY: the task declared write access to every tile of the block, so the dependency
        // lists guarantee no other task reads or writes them while this one runs.
        unsafe { a.raw_block(rows, cols).view_mut() }
    }
}

/// One call's stream of tasks. Dropping it waits for every submitted task to finish.
pub struct Seq {
    inner: pool::SeqHandle,
}

impl Seq {
    /// A new sequence on the process-wide worker pool (created on first use with
    /// `cfg.threads - 1` workers; the calling thread is the last worker), using the devices `cfg`
    /// names (emulated ones included) for every task with a device op, whatever its size.
    pub fn new(cfg: &Config) -> Self {
        let devices = crate::device::open(cfg);
        let plan = (!devices.is_empty()).then(|| {
            let host_share = crate::device::host_share(cfg, &devices);
            Plan { devices, host_share, window: None, alloc: None, pattern: None }
        });
        Seq::with_plan(cfg, plan)
    }

    /// A sequence on the host alone (`None`) or on the host and `plan`'s devices. Without
    /// devices nothing of the device machinery is created or consulted.
    pub fn with_plan(cfg: &Config, plan: Option<Plan>) -> Self {
        Seq { inner: pool::SeqHandle::new(cfg, plan) }
    }

    /// Appends a task; it runs once everything it depends on has finished. Blocks (working on
    /// this sequence's ready tasks) while the task window is full.
    pub fn submit(&self, task: Task, job: impl FnOnce(&Ctx) -> Result<(), Error> + Send + 'static) {
        self.inner.submit(task, Box::new(job));
    }

    /// Threads that run host tasks (the process's pool: its workers and the caller).
    pub fn workers(&self) -> usize {
        self.inner.workers()
    }

    /// Whether tasks with a device op may run on devices in this sequence (algorithms may then
    /// prefer tasks that each carry one kernel).
    pub fn has_devices(&self) -> bool {
        self.inner.has_devices()
    }

    /// Names the matrix whose tiles the plan's update pattern ([`Plan::pattern`]) places: tasks
    /// with a device op whose first output tile is one of `a`'s run on that tile's owner. Call
    /// it before submitting tasks; without a pattern (or devices) it does nothing. This is how
    /// the api layer places a factorization's updates without the algorithm knowing.
    pub fn allocate<T: Elem>(&self, a: &TiledMatrix<T>) {
        self.inner.bind_pattern(a.id());
    }

    /// True once a task has failed; algorithms may stop generating.
    pub fn failed(&self) -> bool {
        self.inner.failed()
    }

    /// Works on this sequence until all its tasks have finished, every tile is back in the
    /// caller's memory and device buffers are freed; returns the first failure.
    pub fn wait(self) -> Result<(), Error> {
        self.wait_stats().0
    }

    /// As [`Seq::wait`], also returning what each device moved (empty without devices).
    pub fn wait_stats(self) -> (Result<(), Error>, Vec<DevStats>) {
        let (r, stats, _) = self.inner.wait();
        (r, stats)
    }

    /// As [`Seq::wait_stats`], also returning how many tasks host workers took from devices'
    /// queues (EffectiveSteal; each device's own steals are in its [`DevStats`]).
    pub fn wait_steals(self) -> (Result<(), Error>, Vec<DevStats>, u64) {
        self.inner.wait()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::Workspace;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn cfg() -> Config {
        Config::with_threads(3)
    }

    #[test]
    fn independent_tasks_run_at_the_same_time() {
        // Two tasks that each wait (bounded, generously: the pool is shared with tests running in
        // parallel, so a worker may be busy for a while) for the other to have started: they can only both
        // see 2 if a worker and the master (or two workers) run them concurrently.
        let w = Workspace::<f64>::new(2, 1, 1, 1);
        let a = w.tiles();
        let started = Arc::new(AtomicUsize::new(0));
        let saw_both = Arc::new(AtomicUsize::new(0));
        let seq = Seq::new(&cfg());
        for i in 0..2 {
            let (s, b) = (started.clone(), saw_both.clone());
            seq.submit(Task::new("wait").rw(&a, i, 0), move |_| {
                s.fetch_add(1, Ordering::SeqCst);
                let t0 = Instant::now();
                while s.load(Ordering::SeqCst) < 2 && t0.elapsed() < Duration::from_secs(60) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if s.load(Ordering::SeqCst) == 2 {
                    b.fetch_add(1, Ordering::SeqCst);
                }
                Ok(())
            });
        }
        seq.wait().unwrap();
        assert_eq!(saw_both.load(Ordering::SeqCst), 2, "tasks did not run concurrently");
    }

    #[test]
    fn program_order_is_kept_for_raw_war_waw() {
        // One tile, a chain of writers and readers: every reader must see the value written by
        // the last writer before it in program order, and no writer may run before earlier
        // readers have finished.
        let w = Workspace::<f64>::new(1, 1, 1, 1);
        let a = w.tiles();
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seq = Seq::new(&cfg());
        for step in 0..50 {
            if step % 5 == 0 {
                seq.submit(Task::new("w").write(&a, 0, 0), move |c| {
                    c.tile_mut(&a, 0, 0).set(0, 0, step as f64);
                    Ok(())
                });
            } else {
                let l = log.clone();
                seq.submit(Task::new("r").read(&a, 0, 0), move |c| {
                    std::thread::sleep(Duration::from_micros(200));
                    l.lock().unwrap().push((step, c.tile(&a, 0, 0).get(0, 0)));
                    Ok(())
                });
            }
        }
        seq.wait().unwrap();
        let log = log.lock().unwrap();
        assert_eq!(log.len(), 40);
        for &(step, seen) in log.iter() {
            assert_eq!(seen, (step - step % 5) as f64, "reader {step} saw {seen}");
        }
    }

    #[test]
    fn first_failure_is_reported_and_later_tasks_skip() {
        let w = Workspace::<f64>::new(1, 1, 1, 1);
        let a = w.tiles();
        let ran = Arc::new(AtomicUsize::new(0));
        let seq = Seq::new(&cfg());
        seq.submit(Task::new("ok").rw(&a, 0, 0), |_| Ok(()));
        seq.submit(Task::new("bad").rw(&a, 0, 0), |_| Err(Error::Numerical(3)));
        seq.submit(Task::new("boom").rw(&a, 0, 0), |_| panic!("must not run"));
        let r = ran.clone();
        seq.submit(Task::new("later").rw(&a, 0, 0), move |_| {
            r.fetch_add(1, Ordering::SeqCst);
            Ok(())
        });
        assert_eq!(seq.wait(), Err(Error::Numerical(3)));
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_panicking_task_becomes_a_runtime_error() {
        let w = Workspace::<f64>::new(1, 1, 1, 1);
        let a = w.tiles();
        let seq = Seq::new(&cfg());
        seq.submit(Task::new("boom").rw(&a, 0, 0), |_| panic!("kernel failed"));
        match seq.wait() {
            Err(Error::Runtime(m)) => assert!(m.contains("kernel failed"), "{m}"),
            r => panic!("expected a runtime error, got {r:?}"),
        }
    }

    #[test]
    #[should_panic(expected = "did not declare")]
    fn undeclared_tiles_are_refused() {
        let w = Workspace::<f64>::new(2, 1, 1, 1);
        let a = w.tiles();
        let loc = HostBlock { ptr: std::ptr::null_mut(), m: 1, n: 1, ld: 1, elem: crate::tile::Kind::F64 };
        let ctx = Ctx { accesses: &[TileUse { key: a.key(0, 0), mode: Mode::Read, loc }] };
        let _ = ctx.tile(&a, 1, 0);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn tasks_run_under_the_callers_fp_control_and_their_flags_reach_the_caller() {
        use crate::fenv;
        // The caller's MXCSR: round toward zero, flush-to-zero, denormals-are-zero, all masked.
        const CALLER: u32 = 0x1f80 | (3 << 13) | 0x8000 | 0x40;
        const PE: u32 = 0x20;
        let saved = fenv::raw_mxcsr();
        let me = std::thread::current().id();
        let w = Workspace::<f64>::new(2, 1, 1, 1);
        let a = w.tiles();
        let started = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        fenv::load_mxcsr(CALLER);
        let boundary = fenv::Boundary::enter();
        let seq = Seq::new(&cfg());
        for i in 0..2 {
            let (s, seen) = (started.clone(), seen.clone());
            seq.submit(Task::new("fp").rw(&a, i, 0), move |c| {
                // Both tasks wait for each other (bounded): two threads run them, one a worker.
                s.fetch_add(1, Ordering::SeqCst);
                let t0 = Instant::now();
                while s.load(Ordering::SeqCst) < 2 && t0.elapsed() < Duration::from_secs(60) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let mx = crate::fenv::raw_mxcsr();
                // INEXACT, raised on a worker only.
                let worker = std::thread::current().id() != me;
                let x = if worker { std::hint::black_box(1.0) / std::hint::black_box(3.0) } else { 0.0 };
                c.tile_mut(&a, i, 0).set(0, 0, x);
                seen.lock().unwrap().push((worker, mx));
                Ok(())
            });
        }
        seq.wait().unwrap();
        drop(boundary);
        let after = fenv::raw_mxcsr();
        fenv::load_mxcsr(saved);
        let seen = seen.lock().unwrap();
        assert!(seen.iter().any(|&(worker, _)| worker), "no task ran on a worker: {seen:?}");
        for &(worker, mx) in seen.iter() {
            assert_eq!(
                mx & !0x3f,
                CALLER,
                "a task (worker: {worker}) ran under MXCSR {mx:#x}, not {CALLER:#x}"
            );
        }
        assert_eq!(after & !0x3f, CALLER, "the caller's control settings changed");
        assert_eq!(after & 0x3f, PE, "the caller's flags are not exactly the worker's INEXACT");
    }

    #[test]
    fn window_bound_holds_with_many_tasks() {
        // More tasks than the window on one chain: the master must work while generating.
        let w = Workspace::<f64>::new(1, 1, 1, 1);
        let a = w.tiles();
        let seq = Seq::new(&cfg());
        for _ in 0..10_000 {
            seq.submit(Task::new("inc").rw(&a, 0, 0), move |c| {
                let mut t = c.tile_mut(&a, 0, 0);
                let v = t.get(0, 0);
                t.set(0, 0, v + 1.0);
                Ok(())
            });
        }
        seq.wait().unwrap();
        let seq = Seq::new(&cfg());
        let out = Arc::new(std::sync::Mutex::new(0.0));
        let o = out.clone();
        seq.submit(Task::new("get").read(&a, 0, 0), move |c| {
            *o.lock().unwrap() = c.tile(&a, 0, 0).get(0, 0);
            Ok(())
        });
        seq.wait().unwrap();
        assert_eq!(*out.lock().unwrap(), 10_000.0);
    }
}
