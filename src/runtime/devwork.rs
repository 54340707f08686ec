//! Device queues and management threads (seeds 000 §5: one ready queue per GPU, served by one
//! thread that manages the GPU; owner-compute, no stealing between host and devices).
//!
//! A sequence with devices owns one management thread per device for its lifetime. The thread
//! sleeps on its own condition variable until its queue holds a task; it then makes the task's
//! tiles current on the device and locks them (the memory manager, [`crate::device::memory`]),
//! runs the kernel, synchronises, unlocks, and finishes the task like a host worker does (FIRE).
//! A task whose tiles cannot fit in the device's memory even after evicting everything unlocked,
//! or whose kernel the device does not implement, runs its host body on this thread instead,
//! after its tiles are fetched home: correct, slower, and counted (`host_fallbacks`).

use super::alloc::{Allocation, Pattern};
use super::placement::{key_column, Placement};
use super::pool::{finish, lock, panic_error, run_job, tid, Pool, Ready, SeqState, Shared};
use super::trace::{self, Event};
use crate::device::memory::{Directory, TileUse};
use crate::device::{Device, DeviceOp, Plan};
use crate::error::Error;
use std::collections::BinaryHeap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, MutexGuard};

/// The device side of one sequence.
pub(super) struct DevState {
    pub devices: Vec<Arc<dyn Device>>,
    pub dir: Arc<Directory>,
    placement: Placement,
    queues: Vec<BinaryHeap<Ready>>,
    cvs: Vec<Arc<Condvar>>,
    closing: bool,
    /// A matrix product's allocation of C tiles to nodes (node 0 the host, d + 1 device d).
    alloc: Option<Arc<Allocation>>,
    /// A factorization's update pattern and the dependency-key id of the matrix it places
    /// (bound by `Seq::allocate`; until then the pattern places nothing).
    pattern: Option<Arc<Pattern>>,
    pub bound: Option<u32>,
    /// Tasks each node took from another's queue (node 0 the host).
    pub steals: Vec<u64>,
}

impl DevState {
    pub fn new(plan: Plan, tracing: bool) -> Self {
        let n = plan.devices.len();
        DevState {
            dir: Arc::new(Directory::new(&plan.devices, tracing)),
            placement: match plan.window {
                Some(d) => Placement::sliding(n, d),
                None => Placement::new(plan.host_share, n),
            },
            devices: plan.devices,
            queues: (0..n).map(|_| BinaryHeap::new()).collect(),
            cvs: (0..n).map(|_| Arc::new(Condvar::new())).collect(),
            closing: false,
            alloc: plan.alloc,
            pattern: plan.pattern,
            bound: None,
            steals: vec![0; n + 1],
        }
    }

    /// Whether idle workers of this sequence take other nodes' tasks.
    pub fn steals_enabled(&self) -> bool {
        self.alloc.as_ref().is_some_and(|a| a.steal)
    }

    /// Where a task of algorithm step `step` with device kernel `op` runs: the owner of its
    /// output's first tile (by a product's allocation, a factorization's update pattern, or else
    /// the owner of its tile column), `None` for the host.
    pub fn place(&self, op: &DeviceOp, accesses: &[TileUse], step: Option<usize>) -> Option<usize> {
        let writes: Vec<bool> = accesses.iter().map(|u| u.mode.writes()).collect();
        op.validate(&writes);
        let key = accesses[op.output().first].key;
        if let Some(a) = &self.alloc {
            let (i, j) = ((key & 0xF_FFFF) as usize, key_column(key));
            if key >> 40 == a.matrix as u64 && i < a.mt && j < a.nt {
                return a.owner(i, j).checked_sub(1);
            }
        }
        if let (Some(p), Some(m)) = (&self.pattern, self.bound) {
            if key >> 40 == m as u64 {
                return p.owner((key & 0xF_FFFF) as usize, key_column(key)).checked_sub(1);
            }
        }
        self.placement.owner_at(key_column(key), step)
    }

    /// Queues a ready task on device `d` and wakes its thread (with stealing, every device
    /// thread: an idle one may take it).
    pub fn push(&mut self, d: usize, r: Ready) {
        self.queues[d].push(r);
        if self.steals_enabled() {
            self.cvs.iter().for_each(|cv| cv.notify_one());
        } else {
            self.cvs[d].notify_one();
        }
    }

    /// Wakes every device thread (a host task became ready: with stealing, an idle device may
    /// take it).
    pub fn wake_all(&self) {
        if self.steals_enabled() {
            self.cvs.iter().for_each(|cv| cv.notify_one());
        }
    }

    /// The read-only tiles of the next [`PREFETCH`] tasks in device `d`'s queue, which its
    /// thread copies in ahead (a product's sequences only: their read-only tiles, A and B, are
    /// never written, so a copy taken early stays current).
    fn prefetch_uses(
        &self,
        d: usize,
        nodes: &std::collections::HashMap<u64, super::pool::Node>,
    ) -> Vec<TileUse> {
        if self.alloc.is_none() {
            return Vec::new();
        }
        head(&self.queues[d], PREFETCH)
            .into_iter()
            .filter_map(|id| nodes.get(&id))
            .flat_map(|n| n.accesses.iter().filter(|u| u.mode == crate::runtime::Mode::Read).copied())
            .collect()
    }

    /// Tells the management threads to stop once their queues are empty; returns the directory
    /// for the final write-back.
    pub fn close(&mut self) -> Arc<Directory> {
        self.closing = true;
        for cv in &self.cvs {
            cv.notify_all();
        }
        self.dir.clone()
    }
}

/// Starts the management thread of device `d` for sequence `sid`.
pub(super) fn spawn(p: &'static Pool, sid: u64, d: usize) -> std::thread::JoinHandle<()> {
    let cv = lock(p).seqs[&sid].dev.as_ref().expect("a sequence with devices").cvs[d].clone();
    std::thread::Builder::new()
        .name(format!("hetla-dev{d}-seq{sid}"))
        .spawn(move || device_loop(p, sid, d, &cv))
        .expect("hetla: cannot start a device management thread")
}

fn device_loop(p: &'static Pool, sid: u64, d: usize, cv: &Condvar) {
    let _ = tid();
    let mut g = lock(p);
    loop {
        let Some(st) = g.seqs.get_mut(&sid) else { return };
        let Some(dev) = st.dev.as_mut() else { return };
        if let Some(r) = dev.queues[d].pop() {
            let pre = dev.prefetch_uses(d, &st.nodes);
            g = run_on_device(p, g, sid, r.id, d, pre);
        } else if let Some(id) = steal(st, d + 1, p.workers()) {
            g = run_on_device(p, g, sid, id, d, Vec::new());
        } else if st.dev.as_ref().is_some_and(|dev| dev.closing) {
            return;
        } else {
            g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Runs device task `id` with the pool lock released; returns with it held again.
fn run_on_device<'a>(
    p: &'a Pool,
    mut g: MutexGuard<'a, Shared>,
    sid: u64,
    id: u64,
    d: usize,
    prefetch: Vec<TileUse>,
) -> MutexGuard<'a, Shared> {
    let st = g.seqs.get_mut(&sid).expect("sequence of a ready task is alive");
    let node = st.nodes.get_mut(&id).expect("ready task exists");
    let job = node.job.take();
    let op = node.op.take().expect("a device task has a device op");
    let accesses = std::mem::take(&mut node.accesses);
    let (name, dims, step) = (node.name, node.dims, node.step);
    let live = node.live.clone();
    let skip = st.skips(step);
    let tracing = st.events.is_some();
    let dev = st.dev.as_ref().expect("a sequence with devices");
    let (dir, device) = (dev.dir.clone(), dev.devices[d].clone());
    let ctl = st.control;
    drop(g);
    // The task's own rule, asked now that it starts (it may read state other threads change).
    let skip = skip || live.is_some_and(|f| !f());

    let mut result = Ok(());
    // The floating-point flags of the task's arithmetic (an emulated device's host kernels, a
    // host body), under the sequence's control settings as on any host worker.
    let mut raised = crate::fenv::Flags::NONE;
    let mut ev = None;
    if !skip {
        let t0 = trace::now_us();
        let mut on_device = false;
        if device.supports(&op) {
            // A kernel that finds no device memory for its workspace has changed nothing: its
            // tiles are unlocked, every other buffer of the device is evicted, and it runs once
            // more; if memory is still short, the task runs on the host (below).
            for attempt in 0..2 {
                // A panic in the device code (copies run inside `acquire`) fails the task like an
                // error does, instead of unwinding this thread and leaving the drain waiting.
                let acquired =
                    catch_unwind(AssertUnwindSafe(|| dir.acquire(d, &accesses))).unwrap_or_else(|e| {
                        Err(crate::device::device_failure(&panic_error(name, e).to_string()))
                    });
                match acquired {
                    Ok(Some(tiles)) => {
                        if attempt == 0 && !prefetch.is_empty() {
                            // The next tasks' inputs go in while this kernel runs (a real
                            // device's copies are asynchronous); only into free memory.
                            if let Err(e) = dir.prefetch(d, &prefetch) {
                                dir.release(d, &accesses);
                                result = Err(e);
                                break;
                            }
                        }
                        let (r, fl) = crate::fenv::under(ctl, || {
                            catch_unwind(AssertUnwindSafe(|| {
                                let info = device.execute(&op, &tiles)?;
                                device.sync()?;
                                Ok::<i32, Error>(info)
                            }))
                        });
                        raised = raised.union(fl);
                        dir.release(d, &accesses);
                        if let Ok(Err(e)) = &r {
                            if crate::device::is_out_of_memory(e) {
                                if attempt == 0 {
                                    result = dir.evict_unlocked(d);
                                    if result.is_ok() {
                                        continue;
                                    }
                                }
                                break;
                            }
                        }
                        on_device = true;
                        let r =
                            r.map_err(|e| crate::device::device_failure(&panic_error(name, e).to_string()));
                        result = match r {
                            Ok(Ok(0)) => Ok(()),
                            Ok(Ok(info)) => match op {
                                DeviceOp::Potrf { info_base, .. } => Err(Error::Numerical(info_base + info)),
                                _ => Err(Error::Runtime(format!(
                                    "{name} on {} returned {info}",
                                    device.name()
                                ))),
                            },
                            Ok(Err(e)) | Err(e) => Err(e),
                        };
                    }
                    Ok(None) => {}
                    Err(e) => result = Err(e),
                }
                break;
            }
        }
        if !on_device && result.is_ok() {
            result = dir.prepare_host(&accesses);
            if let (Ok(()), Some(job)) = (&result, job) {
                let fl;
                (result, fl) = run_job(job, &accesses, name, ctl);
                raised = raised.union(fl);
            }
        }
        // Whatever path a device failure took (the copies in `acquire`, the kernel, a panic),
        // the directory learns of it, so that the write-back puts the caller's tiles back.
        if let Err(e) = &result {
            dir.note_failure(e);
        }
        dir.count_task(d, on_device);
        if tracing {
            let device = if on_device { device.name() } else { "cpu" };
            ev = Some(Event { name, tid: tid(), ts: t0, dur: trace::now_us() - t0, dims, device });
        }
    }
    finish(p, sid, id, &accesses, (result, raised), ev)
}

/// Tasks at the head of each worker's queue that count as prefetched (their inputs are on their
/// way): a thief never takes them.
pub(super) const PREFETCH: usize = 2;

/// Queued tasks of one victim that a thief considers (the last ones in its order).
const STEAL_SCAN: usize = 64;

/// The ids of the first `n` tasks `q` would hand out, in that order.
fn head(q: &BinaryHeap<Ready>, n: usize) -> Vec<u64> {
    let mut v: Vec<&Ready> = q.iter().collect();
    v.sort_by(|a, b| b.cmp(a));
    v.into_iter().take(n).map(|r| r.id).collect()
}

/// EffectiveSteal (seed 002) for node `thief` (0 the host, d + 1 device d) of a sequence whose
/// allocation allows stealing, its own queue being empty: among the tasks of the other nodes'
/// queues beyond their prefetched heads ([`PREFETCH`] per worker; the host has `host_workers`
/// workers), the one with the fewest input tiles missing in the thief's memory, from a victim
/// whose queued work (flops over its speed) exceeds what the task costs the thief (among the
/// last [`STEAL_SCAN`] tasks of each victim); among equals,
/// from the most loaded victim, the task it would run last. The task leaves the victim's queue;
/// the caller runs it. Called with the pool lock held.
pub(super) fn steal(st: &mut SeqState, thief: usize, host_workers: usize) -> Option<u64> {
    let dev = st.dev.as_ref()?;
    let alloc = dev.alloc.clone()?;
    if !alloc.steal {
        return None;
    }
    let flops =
        |id: &u64| st.nodes.get(id).map_or(1.0, |n| (2 * n.dims[0] * n.dims[1] * n.dims[2]).max(1) as f64);
    let speed = |k: usize| alloc.speeds.get(k).copied().unwrap_or(1.0).max(1e-12);
    // (missing tiles, −victim load, −position) of the best candidate, its node and id.
    let mut best: Option<((usize, f64, usize), usize, u64)> = None;
    for v in (0..=dev.queues.len()).filter(|&v| v != thief) {
        let (q, workers) = if v == 0 { (&st.ready, host_workers.max(1)) } else { (&dev.queues[v - 1], 1) };
        let order = head(q, usize::MAX);
        if order.len() <= PREFETCH * workers {
            continue;
        }
        let load: f64 = order.iter().map(flops).sum::<f64>() / speed(v);
        // The tasks the victim would run last, at most STEAL_SCAN of them (the scan runs under
        // the pool's lock).
        let from = (PREFETCH * workers).max(order.len().saturating_sub(STEAL_SCAN));
        for (pos, id) in order.iter().enumerate().skip(from) {
            let Some(n) = st.nodes.get(id) else { continue };
            // A device runs only tasks with a device op it can take.
            if thief > 0 && !n.op.as_ref().is_some_and(|o| o.on_device()) {
                continue;
            }
            if load <= flops(id) / speed(thief) {
                continue;
            }
            let missing = dev.dir.missing(thief.checked_sub(1), &n.accesses);
            let key = (missing, -load, usize::MAX - pos);
            let better = match &best {
                None => true,
                Some((k, _, _)) => {
                    key.0 < k.0 || (key.0 == k.0 && (key.1 < k.1 || (key.1 == k.1 && key.2 < k.2)))
                }
            };
            if better {
                best = Some((key, v, *id));
            }
        }
    }
    let (_, v, id) = best?;
    let dev = st.dev.as_mut()?;
    if v == 0 {
        st.ready.retain(|r| r.id != id);
    } else {
        dev.queues[v - 1].retain(|r| r.id != id);
    }
    dev.steals[thief] += 1;
    Some(id)
}
