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

use super::placement::{key_column, Placement};
use super::pool::{finish, lock, panic_error, run_job, tid, Pool, Ready, Shared};
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
        }
    }

    /// Where a task of algorithm step `step` with device kernel `op` runs: the owner of the tile
    /// column of its output's first tile, `None` for the host.
    pub fn place(&self, op: &DeviceOp, accesses: &[TileUse], step: Option<usize>) -> Option<usize> {
        let writes: Vec<bool> = accesses.iter().map(|u| u.mode.writes()).collect();
        op.validate(&writes);
        self.placement.owner_at(key_column(accesses[op.output().first].key), step)
    }

    /// Queues a ready task on device `d` and wakes its thread.
    pub fn push(&mut self, d: usize, r: Ready) {
        self.queues[d].push(r);
        self.cvs[d].notify_one();
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
        let Some(dev) = g.seqs.get_mut(&sid).and_then(|s| s.dev.as_mut()) else { return };
        if let Some(r) = dev.queues[d].pop() {
            g = run_on_device(p, g, sid, r.id, d);
        } else if dev.closing {
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
) -> MutexGuard<'a, Shared> {
    let st = g.seqs.get_mut(&sid).expect("sequence of a ready task is alive");
    let node = st.nodes.get_mut(&id).expect("ready task exists");
    let job = node.job.take();
    let op = node.op.take().expect("a device task has a device op");
    let accesses = std::mem::take(&mut node.accesses);
    let (name, dims, step) = (node.name, node.dims, node.step);
    let skip = st.skips(step);
    let tracing = st.events.is_some();
    let dev = st.dev.as_ref().expect("a sequence with devices");
    let (dir, device) = (dev.dir.clone(), dev.devices[d].clone());
    drop(g);

    let mut result = Ok(());
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
                        let r = catch_unwind(AssertUnwindSafe(|| {
                            let info = device.execute(&op, &tiles)?;
                            device.sync()?;
                            Ok::<i32, Error>(info)
                        }));
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
                result = run_job(job, &accesses, name);
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
    finish(p, sid, id, &accesses, result, ev)
}
