//! Workers, ready queues and the master's work loop.
//!
//! One process-wide pool: a mutex over every active sequence's state and a condition variable
//! that idle threads sleep on (nothing spins: on a 2-core machine a spinning thread would take
//! half the compute). A worker takes the most urgent ready task of any sequence; a master (an
//! application thread inside a hetla call) only takes tasks of its own sequence, so concurrent
//! calls from several application threads each finish as soon as their own work is done.
//!
//! A sequence with devices also has one ready queue per device, served by that device's
//! management thread ([`super::devwork`]); which queue a ready task enters is fixed at submission
//! by owner-compute placement ([`super::placement`]). Host tasks of such a sequence first make
//! their tiles current in host memory through the sequence's coherence directory
//! ([`crate::device::memory`]). A sequence without devices has none of this: no directory, no
//! device queues, and the host path is the same as before devices existed.
//!
//! Every task body runs under its sequence's floating-point control settings, those of the thread
//! that created the sequence (the caller: its rounding mode, FTZ/DAZ), whichever thread runs it;
//! the exception flags it raises are gathered in the sequence and handed to that thread when the
//! sequence drains ([`crate::fenv`]). A worker's own settings and flags are the same after a task
//! as before it.

use super::deps::TileLists;
use super::devwork::{self, DevState};
use super::trace::{self, Event};
use super::{Ctx, Job, Task};
use crate::config::Config;
use crate::device::memory::{Directory, TileUse};
use crate::device::{DevStats, DeviceOp, Plan};
use crate::error::Error;
use crate::fenv;
use std::cell::Cell;
use std::collections::{BinaryHeap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

#[path = "external.rs"]
pub(crate) mod external;

/// Unfinished tasks a sequence may hold before its master stops generating (the task window).
const WINDOW: usize = 4096;

thread_local! {
    static IN_TASK: Cell<bool> = const { Cell::new(false) };
    static TID: Cell<u32> = const { Cell::new(u32::MAX) };
}

/// True on a thread that is running a hetla task right now (a worker, or a master between
/// tasks of its own is not counted). Exported entry points reached from here must forward to the
/// backend instead of starting a nested sequence.
pub(crate) fn in_task() -> bool {
    IN_TASK.with(|c| c.get())
}

static NEXT_TID: AtomicU64 = AtomicU64::new(0);

/// Trace thread id of the current thread: workers, masters and device threads numbered in order
/// of first use.
pub(crate) fn tid() -> u32 {
    TID.with(|c| {
        if c.get() == u32::MAX {
            c.set(NEXT_TID.fetch_add(1, Ordering::Relaxed) as u32);
        }
        c.get()
    })
}

#[derive(PartialEq, Eq)]
pub(super) struct Ready {
    pub prio: i64,
    pub id: u64,
}
impl Ord for Ready {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Higher priority first; among equals, earlier in program order first.
        self.prio.cmp(&o.prio).then(o.id.cmp(&self.id))
    }
}
impl PartialOrd for Ready {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

pub(super) struct Node {
    pending: usize,
    prio: i64,
    pub name: &'static str,
    pub dims: [usize; 3],
    pub accesses: Vec<TileUse>,
    pub job: Option<Job>,
    pub op: Option<DeviceOp>,
    /// The device whose queue the task enters when ready; `None`: the host queue.
    device: Option<usize>,
    /// The algorithm's step ([`crate::runtime::Task::step`]).
    pub step: Option<usize>,
    /// The task's own failure rule ([`crate::runtime::Task::live_if`]).
    pub live: Option<super::Live>,
}

impl SeqState {
    /// Whether a task of `step` is skipped, by the failure rule of [`crate::runtime::Task::step`].
    pub(super) fn skips(&self, step: Option<usize>) -> bool {
        match (self.failed_step, step) {
            (None, _) => false,
            (Some(f), Some(k)) => k >= f,
            (Some(_), None) => true,
        }
    }
}

pub(super) struct SeqState {
    lists: TileLists,
    pub nodes: HashMap<u64, Node>,
    pub(super) ready: BinaryHeap<Ready>,
    next_id: u64,
    unfinished: usize,
    pub failed: Option<Error>,
    /// The earliest step whose task failed numerically; 0 after any other failure.
    pub failed_step: Option<usize>,
    pub events: Option<Vec<Event>>,
    trace_path: Option<String>,
    /// Device queues and the coherence directory; `None` for a host-only sequence.
    pub dev: Option<DevState>,
    /// The floating-point control settings every task runs under: the creating thread's.
    pub control: fenv::Control,
    /// The floating-point exception flags the sequence's tasks have raised so far.
    raised: fenv::Flags,
}

impl SeqState {
    fn grant(&mut self, id: u64) {
        let n = self.nodes.get_mut(&id).expect("granted task exists");
        n.pending -= 1;
        if n.pending == 0 {
            let r = Ready { prio: n.prio, id };
            match (n.device, self.dev.as_mut()) {
                (Some(d), Some(dev)) => dev.push(d, r),
                (_, dev) => {
                    if let Some(dev) = dev {
                        dev.wake_all();
                    }
                    self.ready.push(r)
                }
            }
        }
    }
}

pub(super) struct Shared {
    pub seqs: HashMap<u64, SeqState>,
}

pub(super) struct Pool {
    state: Mutex<Shared>,
    pub cv: Condvar,
    /// Threads that run host tasks (the workers and a master).
    workers: usize,
}

impl Pool {
    /// Threads that run host tasks.
    pub(super) fn workers(&self) -> usize {
        self.workers
    }
}

/// The process's pool (null until first use). A forked child starts with a null pool again
/// ([`after_fork_in_child`]): the parent's workers do not exist in the child, and the parent's pool
/// lock may have been held by one of them at the moment of the fork.
static POOL: AtomicPtr<Pool> = AtomicPtr::new(std::ptr::null_mut());
static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);

fn pool(threads: usize) -> &'static Pool {
    let cur = POOL.load(Ordering::Acquire);
    if !cur.is_null() {
        // SAFETY: a published pool is leaked (never freed), so it lives for the process.
        return unsafe { &*cur };
    }
    crate::fork::install();
    let fresh: &'static Pool = Box::leak(Box::new(Pool {
        state: Mutex::new(Shared { seqs: HashMap::new() }),
        cv: Condvar::new(),
        workers: threads.max(1),
    }));
    match POOL.compare_exchange(
        std::ptr::null_mut(),
        fresh as *const Pool as *mut Pool,
        Ordering::AcqRel,
        Ordering::Acquire,
    ) {
        Ok(_) => {
            // Workers start after the pool is published, so each can be handed the 'static
            // reference.
            for w in 1..threads {
                std::thread::Builder::new()
                    .name(format!("hetla-worker-{w}"))
                    .spawn(move || worker_loop(fresh))
                    .expect("hetla: cannot start a worker thread");
            }
            fresh
        }
        // Another thread published one first: use it (ours, never shared, stays leaked: a few
        // bytes, once).
        // SAFETY: as above, a published pool is never freed.
        Err(other) => unsafe { &*other },
    }
}

/// In a forked child ([`crate::fork`]): forget the parent's pool (leaked: its memory is the
/// child's copy, its threads are gone), so that the child's first tile call starts a pool of its
/// own.
pub(crate) fn after_fork_in_child() {
    POOL.store(std::ptr::null_mut(), Ordering::Release);
}

pub(super) fn lock(p: &Pool) -> MutexGuard<'_, Shared> {
    // A panic never happens while the lock is held (task bodies run unlocked and are caught), so
    // poisoning can only come from a bug; carry on with the data as it is.
    p.state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Pops the most urgent ready task: of sequence `only`, or of any sequence.
fn pop(sh: &mut Shared, only: Option<u64>) -> Option<(u64, u64)> {
    match only {
        Some(s) => sh.seqs.get_mut(&s)?.ready.pop().map(|r| (s, r.id)),
        None => {
            let best = sh.seqs.iter().filter_map(|(&s, st)| st.ready.peek().map(|r| (r.prio, s))).max()?;
            let st = sh.seqs.get_mut(&best.1)?;
            st.ready.pop().map(|r| (best.1, r.id))
        }
    }
}

/// A host worker whose queues are empty takes a task of a device's queue (EffectiveSteal) of a
/// sequence that allows it: of sequence `only`, or of any.
fn steal_for_host(p: &Pool, sh: &mut Shared, only: Option<u64>) -> Option<(u64, u64)> {
    let workers = p.workers.max(1);
    let ids: Vec<u64> = match only {
        Some(s) => vec![s],
        None => sh.seqs.keys().copied().collect(),
    };
    ids.into_iter().find_map(|s| {
        let st = sh.seqs.get_mut(&s)?;
        st.dev.as_ref().filter(|d| d.steals_enabled())?;
        devwork::steal(st, 0, workers).map(|id| (s, id))
    })
}

/// Runs a task body with the tracing, panic catching and in-task flag every host execution gets,
/// under the floating-point control `ctl` (its sequence's); returns its result and the exception
/// flags it raised ([`fenv::under`]: this thread's own settings and flags are kept).
pub(super) fn run_job(
    job: Job,
    accesses: &[TileUse],
    name: &'static str,
    ctl: fenv::Control,
) -> (Result<(), Error>, fenv::Flags) {
    IN_TASK.with(|c| c.set(true));
    let ctx = Ctx { accesses };
    let (r, raised) = fenv::under(ctl, || catch_unwind(AssertUnwindSafe(|| job(&ctx))));
    let r = r.unwrap_or_else(|e| Err(panic_error(name, e)));
    IN_TASK.with(|c| c.set(false));
    (r, raised)
}

/// A caught panic as the runtime error it becomes.
pub(super) fn panic_error(name: &str, e: Box<dyn std::any::Any + Send>) -> Error {
    let msg = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into());
    Error::Runtime(format!("task {name} panicked: {msg}"))
}

/// Runs host task `id` of sequence `sid` with the lock released, then finishes it. Returns with
/// the lock held again.
fn run_one<'a>(p: &'a Pool, mut g: MutexGuard<'a, Shared>, sid: u64, id: u64) -> MutexGuard<'a, Shared> {
    let st = g.seqs.get_mut(&sid).expect("sequence of a ready task is alive");
    let node = st.nodes.get_mut(&id).expect("ready task exists");
    let job = node.job.take();
    let accesses = std::mem::take(&mut node.accesses);
    let (name, dims, step) = (node.name, node.dims, node.step);
    let skip = st.skips(step);
    let tracing = st.events.is_some();
    let dir: Option<Arc<Directory>> = st.dev.as_ref().map(|d| d.dir.clone());
    let ctl = st.control;
    drop(g);

    let mut result = Ok(());
    let mut raised = fenv::Flags::NONE;
    let mut ev = None;
    if let (Some(job), false) = (job, skip) {
        // With devices, the tiles must be current in host memory before the body runs.
        if let Some(dir) = &dir {
            result = dir.prepare_host(&accesses);
        }
        if result.is_ok() {
            let t0 = trace::now_us();
            (result, raised) = run_job(job, &accesses, name, ctl);
            if tracing {
                ev = Some(Event { name, tid: tid(), ts: t0, dur: trace::now_us() - t0, dims, device: "cpu" });
            }
        }
    }
    finish(p, sid, id, &accesses, (result, raised), ev)
}

/// Records a finished task's result, the floating-point flags it raised and its trace event,
/// releases its tiles (FIRE) and wakes whoever may proceed. Returns with the lock held.
pub(super) fn finish<'a>(
    p: &'a Pool,
    sid: u64,
    id: u64,
    accesses: &[TileUse],
    (result, raised): (Result<(), Error>, fenv::Flags),
    ev: Option<Event>,
) -> MutexGuard<'a, Shared> {
    let mut g = lock(p);
    let st = g.seqs.get_mut(&sid).expect("sequence outlives its tasks");
    st.raised = st.raised.union(raised);
    if let Err(e) = result {
        let step = match (&e, st.nodes.get(&id).and_then(|n| n.step)) {
            (Error::Numerical(_), Some(k)) => k,
            _ => 0,
        };
        st.failed_step = Some(st.failed_step.map_or(step, |f| f.min(step)));
        if st.failed.is_none() {
            st.failed = Some(e);
        }
    }
    if let (Some(ev), Some(evs)) = (ev, st.events.as_mut()) {
        evs.push(ev);
    }
    st.nodes.remove(&id);
    let mut granted = Vec::new();
    for u in accesses {
        st.lists.release(u.key, id, |t| granted.push(t));
    }
    for t in granted {
        st.grant(t);
    }
    st.unfinished -= 1;
    p.cv.notify_all();
    g
}

fn worker_loop(p: &'static Pool) {
    let _ = tid();
    // A worker's own floating-point environment is the default one, not whatever the thread that
    // happened to start the pool had set; tasks run under their own sequence's ([`run_job`]).
    fenv::reset_thread();
    let mut g = lock(p);
    loop {
        if let Some((sid, id)) = pop(&mut g, None).or_else(|| steal_for_host(p, &mut g, None)) {
            g = run_one(p, g, sid, id);
        } else {
            g = p.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// What a drained sequence leaves: its first failure, its trace (file and events), and what its
/// devices moved.
type Drained = (Option<Error>, Option<(String, Vec<Event>)>, Vec<DevStats>, u64);

/// The master's handle on its sequence.
pub(crate) struct SeqHandle {
    id: u64,
    pool: &'static Pool,
    done: bool,
    /// Device management threads of this sequence (empty without devices).
    dev_threads: Vec<std::thread::JoinHandle<()>>,
}

impl SeqHandle {
    pub fn new(cfg: &Config, plan: Option<Plan>) -> Self {
        let pool = pool(cfg.threads);
        let id = NEXT_SEQ.fetch_add(1, Ordering::Relaxed);
        let dev = plan.map(|p| DevState::new(p, trace::enabled(cfg)));
        let ndev = dev.as_ref().map_or(0, |d| d.devices.len());
        let st = SeqState {
            lists: TileLists::default(),
            nodes: HashMap::new(),
            ready: BinaryHeap::new(),
            next_id: 0,
            unfinished: 0,
            failed: None,
            failed_step: None,
            events: trace::enabled(cfg).then(Vec::new),
            trace_path: cfg.trace.clone(),
            dev,
            control: fenv::control(),
            raised: fenv::Flags::NONE,
        };
        lock(pool).seqs.insert(id, st);
        let dev_threads = (0..ndev).map(|d| devwork::spawn(pool, id, d)).collect();
        SeqHandle { id, pool, done: false, dev_threads }
    }

    pub fn submit(&self, task: Task, job: Job) {
        self.submit_pending(task, job, 0);
    }

    /// Threads that run this sequence's host tasks.
    pub fn workers(&self) -> usize {
        self.pool.workers()
    }

    /// Whether this sequence has devices (management threads).
    pub fn has_devices(&self) -> bool {
        !self.dev_threads.is_empty()
    }

    /// Makes the tiles of matrix `id` placed by the plan's update pattern, if it has one.
    pub fn bind_pattern(&self, id: u32) {
        let mut g = lock(self.pool);
        if let Some(dev) = g.seqs.get_mut(&self.id).and_then(|st| st.dev.as_mut()) {
            dev.bound = Some(id);
        }
    }

    /// Appends a task that, besides its tile dependencies, waits for `external` more grants
    /// (messages, see `external.rs`); returns its id.
    pub(super) fn submit_pending(&self, task: Task, job: Job, external: usize) -> u64 {
        let mut g = lock(self.pool);
        // The window is full: work on our own ready tasks (or sleep until one is done).
        while g.seqs[&self.id].unfinished >= WINDOW {
            g = self.step(g);
        }
        let st = g.seqs.get_mut(&self.id).expect("own sequence");
        let id = st.next_id;
        st.next_id += 1;
        let mut pending = external;
        for u in &task.accesses {
            if !st.lists.append(u.key, id, u.mode) {
                pending += 1;
            }
        }
        let device = match (&st.dev, &task.op) {
            (Some(dev), Some(op)) => dev.place(op, &task.accesses, task.step),
            _ => None,
        };
        st.nodes.insert(
            id,
            Node {
                pending,
                prio: task.prio,
                name: task.name,
                dims: task.dims,
                accesses: task.accesses,
                job: Some(job),
                op: task.op,
                device,
                step: task.step,
                live: task.live,
            },
        );
        st.unfinished += 1;
        if pending == 0 {
            let r = Ready { prio: task.prio, id };
            match (device, st.dev.as_mut()) {
                (Some(d), Some(dev)) => dev.push(d, r),
                (_, dev) => {
                    if let Some(dev) = dev {
                        dev.wake_all();
                    }
                    st.ready.push(r);
                    self.pool.cv.notify_one();
                }
            }
            if st.dev.as_ref().is_some_and(|d| d.steals_enabled()) {
                // An idle host worker may take a device's task.
                self.pool.cv.notify_all();
            }
        }
        id
    }

    /// One step of the master: run one of our ready tasks, or sleep until something changes.
    fn step(&self, g: MutexGuard<'static, Shared>) -> MutexGuard<'static, Shared> {
        let mut g = external::poll(self.pool, g);
        if let Some((sid, id)) =
            pop(&mut g, Some(self.id)).or_else(|| steal_for_host(self.pool, &mut g, Some(self.id)))
        {
            external::busy();
            run_one(self.pool, g, sid, id)
        } else {
            external::idle_wait(self.pool, g)
        }
    }

    pub fn failed(&self) -> bool {
        lock(self.pool).seqs[&self.id].failed.is_some()
    }

    fn drain(&mut self) -> Drained {
        let mut g = lock(self.pool);
        while g.seqs[&self.id].unfinished > 0 {
            g = self.step(g);
        }
        // Devices: stop their threads, then bring every tile home and free the buffers.
        let (dir, steals) = match g.seqs.get_mut(&self.id).expect("own sequence").dev.as_mut() {
            Some(d) => (Some(d.close()), d.steals.clone()),
            None => (None, Vec::new()),
        };
        drop(g);
        for t in self.dev_threads.drain(..) {
            let _ = t.join();
        }
        let mut stats = Vec::new();
        let mut flush_err = None;
        let mut dev_events = Vec::new();
        if let Some(dir) = dir {
            flush_err = dir.flush().err();
            stats = dir.stats();
            for (d, s) in stats.iter_mut().enumerate() {
                s.steals = steals.get(d + 1).copied().unwrap_or(0);
            }
            dev_events = dir.take_events();
        }
        let mut g = lock(self.pool);
        let st = g.seqs.remove(&self.id).expect("own sequence");
        debug_assert!(st.lists.is_empty() && st.nodes.is_empty());
        self.done = true;
        // The tasks' flags are the call's, as if this thread had done their arithmetic itself.
        fenv::note(st.raised);
        let events = st.events.map(|mut e| {
            e.extend(dev_events);
            e
        });
        // A device failure reported by the write-back means the caller's tiles were put back as
        // they were before the sequence: that is the outcome, whatever a task reported (an INFO
        // found before the device failed belongs to a result that no longer exists).
        let failed = match flush_err {
            Some(e) if crate::device::is_device_failure(&e) => Some(e),
            e => st.failed.or(e),
        };
        (failed, st.trace_path.zip(events), stats, steals.first().copied().unwrap_or(0))
    }

    /// Waits for the sequence; its first failure, what each device moved, and the tasks the
    /// host took from devices' queues.
    pub fn wait(mut self) -> (Result<(), Error>, Vec<DevStats>, u64) {
        let (failed, events, stats, host_steals) = self.drain();
        if let Some((path, evs)) = events {
            trace::record(&path, evs);
        }
        (failed.map_or(Ok(()), Err), stats, host_steals)
    }
}

impl Drop for SeqHandle {
    fn drop(&mut self) {
        // Tasks hold views into memory the caller owns: never return before they have finished,
        // even when the generating code unwinds.
        if !self.done {
            let _ = self.drain();
        }
    }
}
