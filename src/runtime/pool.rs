//! Workers, ready queues and the master's work loop.
//!
//! One process-wide pool: a mutex over every active sequence's state and a condition variable
//! that idle threads sleep on (nothing spins: on a 2-core machine a spinning thread would take
//! half the compute). A worker takes the most urgent ready task of any sequence; a master (an
//! application thread inside a hetla call) only takes tasks of its own sequence, so concurrent
//! calls from several application threads each finish as soon as their own work is done.

use super::deps::TileLists;
use super::trace::{self, Event};
use super::{Ctx, Job, Mode, Task};
use crate::config::Config;
use crate::error::Error;
use std::cell::Cell;
use std::collections::{BinaryHeap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

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

/// Trace thread id of the current thread: workers and masters numbered in order of first use.
fn tid() -> u32 {
    TID.with(|c| {
        if c.get() == u32::MAX {
            c.set(NEXT_TID.fetch_add(1, Ordering::Relaxed) as u32);
        }
        c.get()
    })
}

#[derive(PartialEq, Eq)]
struct Ready {
    prio: i64,
    id: u64,
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

struct Node {
    pending: usize,
    prio: i64,
    name: &'static str,
    dims: [usize; 3],
    accesses: Vec<(u64, Mode)>,
    job: Option<Job>,
}

struct SeqState {
    lists: TileLists,
    nodes: HashMap<u64, Node>,
    ready: BinaryHeap<Ready>,
    next_id: u64,
    unfinished: usize,
    failed: Option<Error>,
    events: Option<Vec<Event>>,
    trace_path: Option<String>,
}

impl SeqState {
    fn grant(&mut self, id: u64) {
        let n = self.nodes.get_mut(&id).expect("granted task exists");
        n.pending -= 1;
        if n.pending == 0 {
            self.ready.push(Ready { prio: n.prio, id });
        }
    }
}

struct Shared {
    seqs: HashMap<u64, SeqState>,
}

struct Pool {
    state: Mutex<Shared>,
    cv: Condvar,
}

static POOL: OnceLock<Pool> = OnceLock::new();
static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);

fn pool(threads: usize) -> &'static Pool {
    let p =
        POOL.get_or_init(|| Pool { state: Mutex::new(Shared { seqs: HashMap::new() }), cv: Condvar::new() });
    // Workers start after the pool is published, so each can be handed the 'static reference.
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        for w in 1..threads {
            std::thread::Builder::new()
                .name(format!("hetla-worker-{w}"))
                .spawn(move || worker_loop(p))
                .expect("hetla: cannot start a worker thread");
        }
    });
    p
}

fn lock(p: &Pool) -> MutexGuard<'_, Shared> {
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

/// Runs task `id` of sequence `sid` with the lock released, then finishes it. Returns with the
/// lock held again.
fn run_one<'a>(p: &'a Pool, mut g: MutexGuard<'a, Shared>, sid: u64, id: u64) -> MutexGuard<'a, Shared> {
    let st = g.seqs.get_mut(&sid).expect("sequence of a ready task is alive");
    let node = st.nodes.get_mut(&id).expect("ready task exists");
    let job = node.job.take();
    let accesses = std::mem::take(&mut node.accesses);
    let (name, dims) = (node.name, node.dims);
    let skip = st.failed.is_some();
    let tracing = st.events.is_some();
    drop(g);

    let mut result = Ok(());
    let mut ev = None;
    if let (Some(job), false) = (job, skip) {
        let t0 = trace::now_us();
        IN_TASK.with(|c| c.set(true));
        let ctx = Ctx { accesses: &accesses };
        result = match catch_unwind(AssertUnwindSafe(|| job(&ctx))) {
            Ok(r) => r,
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panic".into());
                Err(Error::Runtime(format!("task {name} panicked: {msg}")))
            }
        };
        IN_TASK.with(|c| c.set(false));
        if tracing {
            ev = Some(Event { name, tid: tid(), ts: t0, dur: trace::now_us() - t0, dims, device: "cpu" });
        }
    }

    let mut g = lock(p);
    let st = g.seqs.get_mut(&sid).expect("sequence outlives its tasks");
    if let (Err(e), None) = (result, &st.failed) {
        st.failed = Some(e);
    }
    if let (Some(ev), Some(evs)) = (ev, st.events.as_mut()) {
        evs.push(ev);
    }
    st.nodes.remove(&id);
    let mut granted = Vec::new();
    for (key, _) in &accesses {
        st.lists.release(*key, id, |t| granted.push(t));
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
    let mut g = lock(p);
    loop {
        if let Some((sid, id)) = pop(&mut g, None) {
            g = run_one(p, g, sid, id);
        } else {
            g = p.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The master's handle on its sequence.
pub(crate) struct SeqHandle {
    id: u64,
    pool: &'static Pool,
    done: bool,
}

impl SeqHandle {
    pub fn new(cfg: &Config) -> Self {
        let pool = pool(cfg.threads);
        let id = NEXT_SEQ.fetch_add(1, Ordering::Relaxed);
        let st = SeqState {
            lists: TileLists::default(),
            nodes: HashMap::new(),
            ready: BinaryHeap::new(),
            next_id: 0,
            unfinished: 0,
            failed: None,
            events: trace::enabled(cfg).then(Vec::new),
            trace_path: cfg.trace.clone(),
        };
        lock(pool).seqs.insert(id, st);
        SeqHandle { id, pool, done: false }
    }

    pub fn submit(&self, task: Task, job: Job) {
        let mut g = lock(self.pool);
        // The window is full: work on our own ready tasks (or sleep until one is done).
        while g.seqs[&self.id].unfinished >= WINDOW {
            g = self.step(g);
        }
        let st = g.seqs.get_mut(&self.id).expect("own sequence");
        let id = st.next_id;
        st.next_id += 1;
        let mut pending = 0;
        for &(key, mode) in &task.accesses {
            if !st.lists.append(key, id, mode) {
                pending += 1;
            }
        }
        st.nodes.insert(
            id,
            Node {
                pending,
                prio: task.prio,
                name: task.name,
                dims: task.dims,
                accesses: task.accesses,
                job: Some(job),
            },
        );
        st.unfinished += 1;
        if pending == 0 {
            st.ready.push(Ready { prio: task.prio, id });
            self.pool.cv.notify_one();
        }
    }

    /// One step of the master: run one of our ready tasks, or sleep until something changes.
    fn step(&self, g: MutexGuard<'static, Shared>) -> MutexGuard<'static, Shared> {
        let mut g = external::poll(self.pool, g);
        if let Some((sid, id)) = pop(&mut g, Some(self.id)) {
            run_one(self.pool, g, sid, id)
        } else {
            external::idle_wait(self.pool, g)
        }
    }

    pub fn failed(&self) -> bool {
        lock(self.pool).seqs[&self.id].failed.is_some()
    }

    fn drain(&mut self) -> (Option<Error>, Option<(String, Vec<Event>)>) {
        let mut g = lock(self.pool);
        while g.seqs[&self.id].unfinished > 0 {
            g = self.step(g);
        }
        let st = g.seqs.remove(&self.id).expect("own sequence");
        debug_assert!(st.lists.is_empty() && st.nodes.is_empty());
        self.done = true;
        (st.failed, st.trace_path.zip(st.events))
    }

    pub fn wait(mut self) -> Result<(), Error> {
        let (failed, events) = self.drain();
        if let Some((path, evs)) = events {
            trace::record(&path, evs);
        }
        failed.map_or(Ok(()), Err)
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
