//! The simulated runtime: a task generator's real task graph ([`crate::graph::Graph`]) scheduled
//! on a modelled machine (the idea of StarPU-SimGrid), for machines we do not have.
//!
//! [`Recorder`] is the third implementation of `Graph`: it keeps the tasks. [`simulate`] then
//! replays them with the runtimes' own policies: dependencies per tile in program order (RAW,
//! WAR, WAW, as `runtime::deps`), ready tasks by priority then program order, owner-computes
//! over a P×Q grid of ranks (tile (i, j) on rank (i mod P)·Q + j mod Q, as `dist` deals them;
//! a remote input is one message per tile version and destination, sent when produced, through
//! one queue per rank: latency + bytes / bandwidth), and on each rank the placement of
//! [`crate::runtime::placement`] (host share of the tile columns, the others 1-D cyclic over the
//! GPUs) with the coherence rules of `device::memory` (a tile is host-valid or held by one
//! device; copies in and out over each GPU's link; least recently used tiles evicted when a
//! GPU's memory is full, written back when the device holds the only copy).
//!
//! Kernel times are flops / rate, the rate read from the machine's table for the kernel at the
//! task's tile edge (its smallest dimension), plus the runtime's measured cost per task on the
//! host. A message also costs CPU time: the sender packs it (with the task that produced the
//! tile) and the receiving rank's master takes it in between the tasks it runs, before it picks
//! the next one, or after half its bounded idle sleep (`runtime::POLL_SLEEP`) when it had been
//! idle longer than it polls without sleeping (`runtime::POLL_SPIN`) (or a communication thread
//! does, `Setup::comm_thread`). Emulated GPUs are threads sharing the rank's cores with the host workers (processor sharing); their copies, and the first touch of
//! the arena memory they fill, are work of their threads. What is not modelled: copies
//! overlapping the kernels of the same GPU (a device task's copies are on its critical path),
//! memory bandwidth shared between cores beyond what the calibration measured with all cores
//! busy, and contention inside the network.

pub mod machine;

use crate::graph::{Graph, Op, Spec, TileId, Tiling};
use crate::runtime::placement::Placement;
use machine::{rate, Machine};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// One recorded task.
#[derive(Clone, Debug)]
pub struct SimTask {
    pub op: Op,
    pub prio: i64,
    pub dims: [usize; 3],
    pub writes: Vec<TileId>,
    pub reads: Vec<TileId>,
}

/// The graph a generator produced, kept for simulation.
pub struct Recorder {
    pub tiling: Tiling,
    pub tasks: Vec<SimTask>,
    /// The buffers the generator asked for (ids from mt·nt on): rows, columns, and the matrix
    /// tile each is kept with (on that tile's rank, as `dist` keeps them).
    pub buffers: Vec<(usize, usize, TileId)>,
    /// The P×Q grid of ranks the tiles are dealt over ((1, 1): one place); [`Graph::place`]
    /// answers with the rank, so that a generator cuts its work by rank as on `dist`.
    pub grid: (usize, usize),
}

impl Recorder {
    /// A recorder for one place (shared memory).
    pub fn new(tiling: Tiling) -> Self {
        Recorder::on_grid(tiling, (1, 1))
    }
    /// A recorder for a P×Q grid of ranks: tile (i, j) on rank (i mod P)·Q + j mod Q.
    pub fn on_grid(tiling: Tiling, grid: (usize, usize)) -> Self {
        assert!(grid.0 > 0 && grid.1 > 0, "an empty grid");
        Recorder { tiling, tasks: Vec::new(), buffers: Vec::new(), grid }
    }
    /// The rank holding tile or buffer `id`.
    pub fn rank(&self, id: TileId) -> usize {
        let (p, q) = self.grid;
        let mt = self.tiling.mt();
        let main = mt * self.tiling.nt();
        let id = if id < main { id } else { self.buffers[id - main].2 };
        ((id % mt) % p) * q + (id / mt) % q
    }
    /// Bytes of tile or buffer `id`.
    pub fn bytes(&self, id: TileId) -> f64 {
        let mt = self.tiling.mt();
        let main = mt * self.tiling.nt();
        let (r, c) = if id < main {
            (self.tiling.rows(id % mt), self.tiling.cols(id / mt))
        } else {
            let b = self.buffers[id - main];
            (b.0, b.1)
        };
        (r * c * 8) as f64
    }
}

impl Graph for Recorder {
    fn tiling(&self) -> &Tiling {
        &self.tiling
    }
    fn submit(&mut self, t: Spec) {
        self.tasks.push(SimTask {
            op: t.op,
            prio: t.prio,
            dims: t.dims,
            writes: t.writes.to_vec(),
            reads: t.reads.to_vec(),
        });
    }
    fn buffer(&mut self, rows: usize, cols: usize, with: TileId) -> TileId {
        assert!(with < self.tiling.mt() * self.tiling.nt(), "a buffer is kept with a matrix tile");
        self.buffers.push((rows, cols, with));
        self.tiling.mt() * self.tiling.nt() + self.buffers.len() - 1
    }
    fn place(&self, id: TileId) -> usize {
        self.rank(id)
    }
}

/// How the run is laid out on the machine.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Process grid (P, Q); one rank per node.
    pub grid: (usize, usize),
    /// Cores per rank.
    pub cores: usize,
    /// GPUs per rank.
    pub gpus: usize,
    /// Fraction of a rank's tile columns its host keeps when it has GPUs.
    pub host_share: f64,
    /// The distributed runtime's rules (POTRF stays on the host, device kernels per tile only).
    pub distributed: bool,
    /// What-if: a thread of its own drives the network on every rank (the papers' design; one
    /// core fewer computes), instead of hetla's master between the tasks it runs itself.
    pub comm_thread: bool,
    /// The GPUs are emulated accelerators (`device::emulated`): each is a thread that runs its
    /// kernels (the host's BLAS) and its copies on the same `cores` as the host workers; when
    /// more threads are busy than there are cores, each runs at cores/busy of its speed.
    pub emulated_gpus: bool,
}

/// What a simulated run predicts.
#[derive(Debug, Default)]
pub struct Prediction {
    pub time_s: f64,
    pub tasks: usize,
    pub flops: f64,
    pub messages: usize,
    pub net_bytes: f64,
    pub link_bytes: f64,
    pub evictions: usize,
    /// Every task as it ran.
    pub events: Vec<Event>,
}

/// One task's run in the simulation.
#[derive(Clone, Debug)]
pub struct Event {
    pub task: usize,
    pub name: &'static str,
    pub rank: usize,
    /// Core index, or `cores + d` for GPU d.
    pub resource: usize,
    pub start: f64,
    pub dur: f64,
    pub dims: [usize; 3],
}

impl Prediction {
    /// The events as a Chrome trace (the format of `HETLA_TRACE`: one process per rank, thread 0..
    /// the cores, then the GPUs).
    pub fn chrome_trace(&self) -> String {
        let mut s = String::from("{\"traceEvents\":[\n");
        for (i, e) in self.events.iter().enumerate() {
            s += &format!(
                "{{\"name\":\"{}\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":{},\"tid\":{},\"args\":{{\"m\":{},\"n\":{},\"k\":{}}}}}{}\n",
                e.name,
                e.start * 1e6,
                e.dur * 1e6,
                e.rank,
                e.resource,
                e.dims[0],
                e.dims[1],
                e.dims[2],
                if i + 1 < self.events.len() { "," } else { "" }
            );
        }
        s + "]}\n"
    }
}

/// Where a task runs: host cores of a rank, or one of its GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Res {
    Host(usize),
    Gpu(usize, usize),
}

/// A tile's copies on one rank's devices.
#[derive(Clone, Default)]
struct TileState {
    /// Device holding the only valid copy (host invalid), if any.
    holder: Option<usize>,
    /// Devices with a valid copy (read copies and the holder).
    on: Vec<usize>,
}

/// Time-ordered events; f64 times as ordered bits (all non-negative).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// Task i ends (the number tells a superseded end time from the current one).
    Done(usize, u32),
    /// Message id is at its destination, to be taken in by the master (or the comm thread).
    Arrive(usize),
    /// Rank r's master has taken in the messages it was receiving.
    Taken(usize),
    /// Message id has been taken in by rank's communication thread (`--comm-thread`).
    Received(usize),
}

fn key(t: f64) -> u64 {
    t.to_bits()
}

/// The smallest nonzero dimension: the tile edge a kernel's rate depends on.
fn edge(dims: [usize; 3]) -> usize {
    dims.iter().copied().filter(|&d| d > 0).min().unwrap_or(1)
}

/// The rate of `op` with `dims` from `table`: the kernel at the task's tile edge (its smallest
/// dimension), from the `_tall` table when the block is at least 4 edges tall (its largest
/// dimension: the rows of a tile column's update or panel, the height summed by QR-VTC) and the
/// machine has one (a tile column's update is one tall kernel, faster than a tile's).
fn op_rate(table: &std::collections::BTreeMap<String, machine::RateTable>, op: &Op, dims: [usize; 3]) -> f64 {
    let e = edge(dims);
    let name = op.name();
    if dims.iter().copied().max().unwrap_or(0) >= 4 * e {
        let tall = format!("{name}_tall");
        if table.contains_key(&tall) {
            return rate(table, &tall, e);
        }
    }
    rate(table, name, e)
}

/// Simulates the graph `rec` recorded on `m` laid out as `setup` (whose grid must be the
/// recorder's).
pub fn simulate(m: &Machine, rec: &Recorder, setup: &Setup) -> Prediction {
    assert_eq!(setup.grid, rec.grid, "hetla-sim: the graph was recorded for another grid");
    let tasks = &rec.tasks[..];
    let tiling = &rec.tiling;
    let (p, q) = setup.grid;
    let ranks = p * q;
    let mt = tiling.mt();
    let main = mt * tiling.nt();
    let tile_rank = |id: TileId| rec.rank(id);
    let tile_bytes = |id: TileId| rec.bytes(id);
    let place = Placement::new(setup.host_share, setup.gpus);
    let res_of = |t: &SimTask| -> Res {
        let w = t.writes[0];
        let r = tile_rank(w);
        let device_ok = setup.gpus > 0
            && t.op.on_device()
            && !(setup.distributed
                && (matches!(t.op, Op::Potrf { .. }) || t.op.operands().iter().any(|o| o.count > 1)));
        if device_ok && w < main {
            if let Some(d) = place.owner((w / mt) / q) {
                return Res::Gpu(r, d);
            }
        }
        Res::Host(r)
    };

    // Dependencies and messages, in program order.
    let n = tasks.len();
    let mut deps = vec![0usize; n];
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    // Messages: (src rank, dst rank, bytes, producer task), and the tasks waiting for each.
    let mut msgs: Vec<(usize, usize, f64, Option<usize>)> = Vec::new();
    let mut msg_waiters: Vec<Vec<usize>> = Vec::new();
    let mut sent: HashMap<(TileId, Option<usize>, usize), usize> = HashMap::new();
    let mut writer: HashMap<TileId, usize> = HashMap::new();
    let mut readers: HashMap<TileId, Vec<usize>> = HashMap::new();
    let mut msgs_from: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut initial_msgs = Vec::new();
    let res: Vec<Res> = tasks.iter().map(res_of).collect();
    let rank_of = |r: Res| match r {
        Res::Host(r) | Res::Gpu(r, _) => r,
    };
    for (i, t) in tasks.iter().enumerate() {
        let me = rank_of(res[i]);
        let need = |d: usize, deps: &mut Vec<usize>, after: &mut Vec<Vec<usize>>| {
            if !after[d].contains(&i) {
                after[d].push(i);
                deps[i] += 1;
            }
        };
        for &r in &t.reads {
            let w = writer.get(&r).copied();
            let owner = tile_rank(r);
            if owner != me {
                let k = *sent.entry((r, w, me)).or_insert_with(|| {
                    msgs.push((owner, me, tile_bytes(r), w));
                    msg_waiters.push(Vec::new());
                    let id = msgs.len() - 1;
                    match w {
                        Some(w) => msgs_from[w].push(id),
                        None => initial_msgs.push(id),
                    }
                    id
                });
                msg_waiters[k].push(i);
                deps[i] += 1;
            } else if let Some(w) = w {
                need(w, &mut deps, &mut after);
            }
            readers.entry(r).or_default().push(i);
        }
        for &wt in &t.writes {
            if let Some(&w) = writer.get(&wt) {
                need(w, &mut deps, &mut after);
            }
            for &rd in readers.get(&wt).map(|v| v.as_slice()).unwrap_or(&[]) {
                // Remote readers hold their own copies; only this rank's readers must finish.
                if rd != i && rank_of(res[rd]) == me {
                    need(rd, &mut deps, &mut after);
                }
            }
            writer.insert(wt, i);
            readers.remove(&wt);
        }
    }

    // Event loop.
    let mut pred = Prediction { tasks: n, messages: msgs.len(), ..Default::default() };
    let mut events: BinaryHeap<Reverse<(u64, Ev)>> = BinaryHeap::new();
    let mut host_ready: Vec<BinaryHeap<(i64, Reverse<usize>)>> = vec![BinaryHeap::new(); ranks];
    let mut gpu_ready: Vec<BinaryHeap<(i64, Reverse<usize>)>> =
        vec![BinaryHeap::new(); ranks * setup.gpus.max(1)];
    let compute_cores = if setup.comm_thread { setup.cores.saturating_sub(1).max(1) } else { setup.cores };
    let mut free_cores = vec![compute_cores; ranks];
    let mut core_free_list: Vec<Vec<usize>> =
        (0..ranks).map(|_| (0..compute_cores).rev().collect()).collect();
    let mut core_of = vec![usize::MAX; n];
    let mut gpu_busy = vec![false; ranks * setup.gpus.max(1)];
    let mut link_free = vec![0.0f64; ranks * setup.gpus.max(1)];
    let mut net_free = vec![0.0f64; ranks];
    // Each rank's master thread (core 0) is the only one that talks to the network, between the
    // tasks it runs itself: a message leaves and is taken in only when the master is between tasks.
    let mut master_until = vec![0.0f64; ranks];
    let mut tiles: HashMap<(usize, TileId), TileState> = HashMap::new();
    let mut resident: Vec<HashMap<TileId, f64>> = vec![HashMap::new(); ranks * setup.gpus.max(1)];
    let mut used = vec![0.0f64; ranks * setup.gpus.max(1)];
    // The most an emulated GPU's arena has held: memory beyond it is touched for the first time.
    let mut peak = vec![0.0f64; ranks * setup.gpus.max(1)];
    let mut last_use: u64 = 0;
    let mut lru: Vec<HashMap<TileId, u64>> = vec![HashMap::new(); ranks * setup.gpus.max(1)];
    let mut left = deps.clone();
    // Emulated GPUs: the threads running tasks (host workers and device threads) share the
    // rank's cores, each at cores/busy of its speed when more are busy than there are cores
    // (processor sharing). `running` holds each rank's running tasks, `work` what is left of a
    // task in seconds at full speed, updated whenever the number running changes; `gen` tells a
    // task's current completion event from the superseded ones.
    let mut running: Vec<Vec<usize>> = vec![Vec::new(); ranks];
    let mut work = vec![0.0f64; n];
    let mut gen = vec![0u32; n];
    let mut shared_since = vec![0.0f64; ranks];
    let mut event_of = vec![usize::MAX; n];
    let speed = |busy: usize| (setup.cores as f64 / busy.max(1) as f64).min(1.0);
    // Brings the tasks running on `r` up to `now` at their current speed.
    let advance = |r: usize, now: f64, running: &[Vec<usize>], work: &mut Vec<f64>, since: &mut Vec<f64>| {
        let s = speed(running[r].len());
        for &i in &running[r] {
            work[i] = (work[i] - (now - since[r]) * s).max(0.0);
        }
        since[r] = now;
    };
    // New completion events for every task running on `r`, at the speed they now run at.
    let reschedule = |r: usize,
                      now: f64,
                      running: &[Vec<usize>],
                      work: &[f64],
                      gen: &mut Vec<u32>,
                      events: &mut BinaryHeap<Reverse<(u64, Ev)>>| {
        let s = speed(running[r].len());
        for &i in &running[r] {
            gen[i] += 1;
            events.push(Reverse((key(now + work[i] / s), Ev::Done(i, gen[i]))));
        }
    };
    let push_ready =
        |i: usize,
         host_ready: &mut Vec<BinaryHeap<(i64, Reverse<usize>)>>,
         gpu_ready: &mut Vec<BinaryHeap<(i64, Reverse<usize>)>>| match res[i] {
            Res::Host(r) => host_ready[r].push((tasks[i].prio, Reverse(i))),
            Res::Gpu(r, d) => gpu_ready[r * setup.gpus + d].push((tasks[i].prio, Reverse(i))),
        };
    for (i, _) in left.iter().enumerate().filter(|(_, &l)| l == 0) {
        push_ready(i, &mut host_ready, &mut gpu_ready);
    }
    let send = |id: usize,
                t: f64,
                net_free: &mut Vec<f64>,
                master_until: &[f64],
                events: &mut BinaryHeap<Reverse<(u64, Ev)>>| {
        let (src, _, bytes, _) = msgs[id];
        let start = t.max(net_free[src]).max(if ranks > 1 { master_until[src] } else { 0.0 });
        net_free[src] = start + bytes / m.net_bw;
        events.push(Reverse((key(start + bytes / m.net_bw + m.net_latency_s), Ev::Arrive(id))));
    };
    for &id in &initial_msgs {
        send(id, 0.0, &mut net_free, &master_until, &mut events);
        pred.net_bytes += msgs[id].2;
    }
    let shared = setup.emulated_gpus;
    // Messages cost the ranks' cores: the sender packs (with the task that produced the tile),
    // the receiving master takes them in between its tasks (`recv_copies` passes each), after
    // its bounded idle sleep when it was idle (`runtime::POLL_SLEEP`; half of it on average)
    // longer than it polls without sleeping (`runtime::POLL_SPIN`).
    let pass = |bytes: f64| bytes / m.memcpy_bw;
    let mut inbox: Vec<Vec<usize>> = vec![Vec::new(); ranks];
    let mut taking: Vec<Vec<usize>> = vec![Vec::new(); ranks];
    let mut comm_free = vec![0.0f64; ranks];
    let poll_delay = crate::runtime::POLL_SLEEP.as_secs_f64() / 2.0;
    let spin = crate::runtime::POLL_SPIN.as_secs_f64();
    // The master of rank r takes in what has arrived, if it is between tasks (core 0 free).
    let take = |r: usize,
                now: f64,
                idle: bool,
                inbox: &mut Vec<Vec<usize>>,
                taking: &mut Vec<Vec<usize>>,
                free_cores: &mut Vec<usize>,
                core_free_list: &mut Vec<Vec<usize>>,
                master_until: &mut Vec<f64>,
                events: &mut BinaryHeap<Reverse<(u64, Ev)>>| {
        if inbox[r].is_empty() || !taking[r].is_empty() {
            return;
        }
        let Some(pos) = core_free_list[r].iter().position(|&c| c == 0) else { return };
        core_free_list[r].remove(pos);
        free_cores[r] -= 1;
        let cost: f64 = inbox[r].iter().map(|&id| m.recv_copies * pass(msgs[id].2)).sum();
        // A master idle for less than `runtime::POLL_SPIN` is still polling: no delay.
        let asleep = idle && now - master_until[r] >= spin;
        let end = now + if asleep { poll_delay } else { 0.0 } + cost;
        master_until[r] = end;
        taking[r] = std::mem::take(&mut inbox[r]);
        events.push(Reverse((key(end), Ev::Taken(r))));
    };
    // A copy over a GPU's link: on the link's timeline, or for an emulated GPU as work of the
    // thread that makes it (`extra`, seconds at full speed).
    let copy = |l: usize, at: f64, bytes: f64, link_free: &mut Vec<f64>, extra: &mut f64| -> f64 {
        let t = m.link_latency_s + bytes / m.link_bw;
        if shared {
            *extra += t;
            at
        } else {
            link_free[l] = at.max(link_free[l]) + t;
            link_free[l]
        }
    };
    let mut now = 0.0f64;
    loop {
        // Dispatch whatever can start now.
        for r in 0..ranks {
            let mut started = false;
            if shared {
                advance(r, now, &running, &mut work, &mut shared_since);
            }
            while free_cores[r] > 0 {
                let Some((_, Reverse(i))) = host_ready[r].pop() else { break };
                let t = &tasks[i];
                // Tiles a device holds come back first (over that device's link).
                let mut start = now;
                let mut extra = 0.0;
                for &id in t.writes.iter().chain(&t.reads) {
                    let st = tiles.entry((r, id)).or_default();
                    if let Some(d) = st.holder {
                        start = copy(r * setup.gpus + d, start, tile_bytes(id), &mut link_free, &mut extra);
                        pred.link_bytes += tile_bytes(id);
                        st.holder = None;
                    }
                    if t.writes.contains(&id) {
                        for d in std::mem::take(&mut st.on) {
                            let g = r * setup.gpus + d;
                            if resident[g].remove(&id).is_some() {
                                used[g] -= tile_bytes(id);
                                lru[g].remove(&id);
                            }
                        }
                    }
                }
                let pack: f64 = msgs_from[i].iter().map(|&id| m.send_copies * pass(msgs[id].2)).sum();
                let dur =
                    extra + pack + m.task_overhead_s + t.op.flops(t.dims) / op_rate(&m.host, &t.op, t.dims);
                free_cores[r] -= 1;
                let core = core_free_list[r].pop().expect("a free core");
                core_of[i] = core;
                if core == 0 && !setup.comm_thread {
                    master_until[r] = start + dur;
                }
                pred.flops += t.op.flops(t.dims);
                event_of[i] = pred.events.len();
                pred.events.push(Event {
                    task: i,
                    name: t.op.name(),
                    rank: r,
                    resource: core,
                    start,
                    dur,
                    dims: t.dims,
                });
                if shared {
                    work[i] = dur;
                    running[r].push(i);
                    started = true;
                } else {
                    events.push(Reverse((key(start + dur), Ev::Done(i, 0))));
                }
            }
            for d in 0..setup.gpus {
                let g = r * setup.gpus + d;
                if gpu_busy[g] {
                    continue;
                }
                let Some((_, Reverse(i))) = gpu_ready[g].pop() else { continue };
                let t = &tasks[i];
                let mut ready_at = now;
                let mut extra = 0.0;
                for &id in t.writes.iter().chain(&t.reads) {
                    let b = tile_bytes(id);
                    last_use += 1;
                    lru[g].insert(id, last_use);
                    if resident[g].contains_key(&id) {
                        continue;
                    }
                    // Make room: evict the least recently used tiles not used by this task.
                    while used[g] + b > m.gpu_memory && !resident[g].is_empty() {
                        let victim = *lru[g]
                            .iter()
                            .filter(|(v, _)| {
                                !t.writes.contains(v) && !t.reads.contains(v) && resident[g].contains_key(v)
                            })
                            .min_by_key(|(_, &u)| u)
                            .map(|(v, _)| v)
                            .unwrap_or(&usize::MAX);
                        if victim == usize::MAX {
                            break;
                        }
                        let vb = resident[g].remove(&victim).unwrap_or(0.0);
                        lru[g].remove(&victim);
                        used[g] -= vb;
                        pred.evictions += 1;
                        let st = tiles.entry((r, victim)).or_default();
                        st.on.retain(|&x| x != d);
                        if st.holder == Some(d) {
                            st.holder = None;
                            ready_at = copy(g, ready_at, vb, &mut link_free, &mut extra);
                            pred.link_bytes += vb;
                        }
                    }
                    let st = tiles.entry((r, id)).or_default();
                    if let Some(h) = st.holder.filter(|&h| h != d) {
                        // Through the host from the device holding it.
                        ready_at = copy(r * setup.gpus + h, ready_at, b, &mut link_free, &mut extra);
                        pred.link_bytes += b;
                        st.holder = None;
                    }
                    ready_at = ready_at.max(copy(g, ready_at, b, &mut link_free, &mut extra));
                    pred.link_bytes += b;
                    st.on.push(d);
                    resident[g].insert(id, b);
                    used[g] += b;
                    if shared && used[g] > peak[g] {
                        extra += m.first_touch_passes * pass(used[g] - peak[g]);
                        peak[g] = used[g];
                    }
                }
                for &id in &t.writes {
                    let st = tiles.entry((r, id)).or_default();
                    for other in std::mem::take(&mut st.on) {
                        if other != d {
                            let o = r * setup.gpus + other;
                            if let Some(ob) = resident[o].remove(&id) {
                                used[o] -= ob;
                                lru[o].remove(&id);
                            }
                        }
                    }
                    st.on = vec![d];
                    st.holder = Some(d);
                }
                // An emulated GPU's thread does the runtime's work per task as a host worker does.
                let overhead = if shared { m.task_overhead_s } else { 0.0 };
                let dur = extra + overhead + t.op.flops(t.dims) / op_rate(&m.gpu, &t.op, t.dims);
                gpu_busy[g] = true;
                pred.flops += t.op.flops(t.dims);
                event_of[i] = pred.events.len();
                pred.events.push(Event {
                    task: i,
                    name: t.op.name(),
                    rank: r,
                    resource: setup.cores + d,
                    start: ready_at,
                    dur,
                    dims: t.dims,
                });
                if shared {
                    work[i] = dur;
                    running[r].push(i);
                    started = true;
                } else {
                    events.push(Reverse((key(ready_at + dur), Ev::Done(i, 0))));
                }
            }
            if started {
                reschedule(r, now, &running, &work, &mut gen, &mut events);
            }
        }
        let Some(Reverse((tk, ev))) = events.pop() else { break };
        if matches!(ev, Ev::Done(i, g) if g != gen[i]) {
            continue; // superseded: the task's speed changed since
        }
        now = f64::from_bits(tk);
        let mut wake: Vec<usize> = Vec::new();
        match ev {
            Ev::Done(i, _) => {
                let r = rank_of(res[i]);
                if shared {
                    advance(r, now, &running, &mut work, &mut shared_since);
                    running[r].retain(|&x| x != i);
                    let e = &mut pred.events[event_of[i]];
                    e.dur = now - e.start;
                    reschedule(r, now, &running, &work, &mut gen, &mut events);
                }
                for &id in &msgs_from[i] {
                    pred.net_bytes += msgs[id].2;
                    send(id, now, &mut net_free, &master_until, &mut events);
                }
                match res[i] {
                    Res::Host(r) => {
                        free_cores[r] += 1;
                        core_free_list[r].push(core_of[i]);
                        if core_of[i] == 0 && !setup.comm_thread {
                            // Between tasks the master polls first.
                            take(
                                r,
                                now,
                                false,
                                &mut inbox,
                                &mut taking,
                                &mut free_cores,
                                &mut core_free_list,
                                &mut master_until,
                                &mut events,
                            );
                        }
                    }
                    Res::Gpu(r, d) => gpu_busy[r * setup.gpus + d] = false,
                }
                wake.extend(after[i].iter().copied());
            }
            Ev::Arrive(id) => {
                let dst = msgs[id].1;
                let cost = m.recv_copies * pass(msgs[id].2);
                if setup.comm_thread {
                    // A thread of its own takes messages in, one after the other.
                    comm_free[dst] = comm_free[dst].max(now) + cost;
                    events.push(Reverse((key(comm_free[dst]), Ev::Received(id))));
                } else {
                    inbox[dst].push(id);
                    take(
                        dst,
                        now,
                        true,
                        &mut inbox,
                        &mut taking,
                        &mut free_cores,
                        &mut core_free_list,
                        &mut master_until,
                        &mut events,
                    );
                }
            }
            Ev::Received(id) => wake.extend(msg_waiters[id].iter().copied()),
            Ev::Taken(r) => {
                for id in std::mem::take(&mut taking[r]) {
                    wake.extend(msg_waiters[id].iter().copied());
                }
                free_cores[r] += 1;
                core_free_list[r].push(0);
                take(
                    r,
                    now,
                    false,
                    &mut inbox,
                    &mut taking,
                    &mut free_cores,
                    &mut core_free_list,
                    &mut master_until,
                    &mut events,
                );
            }
        }
        for j in wake {
            left[j] -= 1;
            if left[j] == 0 {
                push_ready(j, &mut host_ready, &mut gpu_ready);
            }
        }
    }
    // Everything a device holds goes back to the host at the end.
    let mut end = now;
    for ((r, id), st) in &tiles {
        if let Some(d) = st.holder {
            let l = r * setup.gpus + d;
            link_free[l] = link_free[l].max(now) + m.link_latency_s + tile_bytes(*id) / m.link_bw;
            pred.link_bytes += tile_bytes(*id);
            end = end.max(link_free[l]);
        }
    }
    assert!(left.iter().all(|&l| l == 0), "hetla-sim: tasks left waiting (a dependency cycle)");
    pred.time_s = end;
    pred
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Tiles;
    use std::collections::BTreeMap;

    /// A machine where a 1×1×1 "gemm" (2 flops) takes 1 s on a core and 0.5 s on a GPU, links
    /// move 8 bytes (one 1×1 tile) in 1 s, messages take 1 s + 8 bytes per s.
    fn toy() -> Machine {
        let mut host = BTreeMap::new();
        host.insert("gemm".to_string(), vec![(1, 2e-9)]);
        let mut gpu = BTreeMap::new();
        gpu.insert("gemm".to_string(), vec![(1, 4e-9)]);
        Machine {
            name: "toy".into(),
            source: "test".into(),
            cores: 1,
            host,
            task_overhead_s: 0.0,
            gpus: 0,
            gpu,
            gpu_memory: 16.0,
            link_bw: 8.0,
            link_latency_s: 0.0,
            net_bw: 8.0,
            net_latency_s: 1.0,
            memcpy_bw: 1e9,
            send_copies: 0.0,
            recv_copies: 0.0,
            first_touch_passes: 0.0,
        }
    }

    fn gemm(w: TileId, r: &[TileId], prio: i64) -> SimTask {
        let op = Op::Gemm {
            ta: crate::kernels::Trans::No,
            tb: crate::kernels::Trans::No,
            alpha: 1.0.into(),
            a: Tiles::one(1),
            b: Tiles::one(1),
            beta: 1.0.into(),
            c: Tiles::one(0),
            k: 1,
        };
        SimTask { op, prio, dims: [1, 1, 1], writes: vec![w], reads: r.to_vec() }
    }

    /// Simulates `tasks` over `t`, recorded for the setup's grid (no buffers).
    fn sim(m: &Machine, t: &Tiling, tasks: &[SimTask], s: &Setup) -> Prediction {
        let mut rec = Recorder::on_grid(t.clone(), s.grid);
        rec.tasks = tasks.to_vec();
        simulate(m, &rec, s)
    }

    /// Half the idle master's bounded sleep: the mean delay before it sees an arrival.
    fn poll() -> f64 {
        crate::runtime::POLL_SLEEP.as_secs_f64() / 2.0
    }

    fn near(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }

    fn setup(grid: (usize, usize), cores: usize, gpus: usize, host_share: f64) -> Setup {
        Setup {
            grid,
            cores,
            gpus,
            host_share,
            distributed: grid != (1, 1),
            comm_thread: false,
            emulated_gpus: false,
        }
    }

    #[test]
    fn event_queue_runs_a_chain_in_order_and_independent_tasks_side_by_side() {
        // 4×1 tiles of 1×1: tasks on tiles 0,1,2,3; task 1 reads tile 0 (after task 0).
        let t = Tiling::uniform(4, 1, 1, 1);
        let tasks = vec![gemm(0, &[], 0), gemm(1, &[0], 0), gemm(2, &[], 0), gemm(3, &[], 0)];
        // One core: 4 s in a row.
        assert_eq!(sim(&toy(), &t, &tasks, &setup((1, 1), 1, 0, 1.0)).time_s, 4.0);
        // Two cores: tasks 0 and 2 at t=0, then 1 (needs 0) and 3: 2 s.
        assert_eq!(sim(&toy(), &t, &tasks, &setup((1, 1), 2, 0, 1.0)).time_s, 2.0);
        // Priorities: with one core, the urgent independent task runs first.
        let tasks = vec![gemm(0, &[], 0), gemm(1, &[], 5)];
        let p = sim(&toy(), &Tiling::uniform(2, 1, 1, 1), &tasks, &setup((1, 1), 1, 0, 1.0));
        let start = |task: usize| p.events.iter().find(|e| e.task == task).map(|e| e.start);
        assert_eq!((start(1), start(0)), (Some(0.0), Some(1.0)));
    }

    #[test]
    fn a_remote_read_costs_one_message_per_version_and_destination() {
        // 1×2 tiles on a 1×2 grid: tile 0 on rank 0, tile 1 on rank 1. Task 0 writes tile 0
        // (1 s); tasks 1 and 2 on rank 1 both read it: one message, 1 s latency + 1 s transfer;
        // then they run one after the other on rank 1's core: 1 + 2 + 1 + 1 = 5 s.
        let t = Tiling::uniform(1, 1, 2, 1);
        let tasks = vec![gemm(0, &[], 0), gemm(1, &[0], 0), gemm(1, &[0], 0)];
        let p = sim(&toy(), &t, &tasks, &setup((1, 2), 1, 0, 1.0));
        assert_eq!(p.messages, 1);
        assert_eq!(p.net_bytes, 8.0);
        // Rank 1's master was idle: it sees the message after half its bounded sleep.
        near(p.time_s, 5.0 + poll());
    }

    #[test]
    fn messages_wait_for_the_master_unless_a_thread_drives_the_network() {
        // 1×3 tiles on a 1×2 grid: tiles 0 and 2 on rank 0, tile 1 on rank 1. Rank 0 runs a long
        // urgent task on tile 2 (3 s, taken first: core 0, the master) and task A on tile 0 (1 s,
        // core 1); rank 1 then reads tile 0. The message leaves when the master is free (3 s):
        // arrival 3 + 1 + 1 = 5, the reader runs 5 → 6.
        let t = Tiling::uniform(1, 1, 3, 1);
        let mut long = gemm(2, &[], 9);
        long.dims = [1, 1, 3];
        let tasks = vec![long, gemm(0, &[], 0), gemm(1, &[0], 0)];
        near(sim(&toy(), &t, &tasks, &setup((1, 2), 2, 0, 1.0)).time_s, 6.0 + poll());
        // With a communication thread (and one more core so two still compute) it leaves at 1 s:
        // the reader runs 3 → 4 while the long task ends at 3.
        let mut s = setup((1, 2), 3, 0, 1.0);
        s.comm_thread = true;
        assert_eq!(sim(&toy(), &t, &tasks, &s).time_s, 4.0);
    }

    #[test]
    fn device_tasks_copy_in_and_back_and_evict_when_full() {
        // One rank, one GPU owning every column (host share 0); 1×3 tiles. Task i writes tile i
        // and reads nothing: copy in (1 s) + kernel (0.5 s) each, on one link and one GPU:
        // 4.5 s, then each tile goes back (1 s each): 7.5 s.
        let t = Tiling::uniform(1, 1, 3, 1);
        let tasks = vec![gemm(0, &[], 0), gemm(1, &[], 0), gemm(2, &[], 0)];
        let mut m = toy();
        m.gpu_memory = 24.0;
        let p = sim(&m, &t, &tasks, &setup((1, 1), 1, 1, 0.0));
        assert_eq!(p.evictions, 0);
        assert_eq!(p.time_s, 7.5);
        let start = |p: &Prediction, task: usize| p.events.iter().find(|e| e.task == task).map(|e| e.start);
        assert_eq!(start(&p, 2), Some(4.0));
        // Room for two tiles: the third task evicts the least recently used tile (0), which the
        // device holds, so it is written back (3 → 4 s) before tile 2 comes in (4 → 5 s); at the
        // end tiles 1 and 2 go back (5.5 → 7.5 s). The same bytes cross the link.
        m.gpu_memory = 16.0;
        let q = sim(&m, &t, &tasks, &setup((1, 1), 1, 1, 0.0));
        assert_eq!(q.evictions, 1);
        assert_eq!(start(&q, 2), Some(5.0));
        assert_eq!(q.time_s, 7.5);
        assert_eq!((p.link_bytes, q.link_bytes), (48.0, 48.0));
    }

    #[test]
    fn emulated_gpus_share_the_cores_with_the_host_workers() {
        // 1×2 tiles; host share 0.5 with one GPU: column 0 is the host's, column 1 the GPU's.
        // Each task is 1 s of kernel at host and GPU rates alike; a copy takes 1 s.
        let t = Tiling::uniform(1, 1, 2, 1);
        let tasks = vec![gemm(0, &[], 0), gemm(1, &[], 0)];
        let mut m = toy();
        m.gpu = m.host.clone();
        // A real GPU: the host task 0 → 1 s; copy in 0 → 1, kernel 1 → 2, written back 2 → 3.
        let real = setup((1, 1), 1, 1, 0.5);
        assert_eq!(sim(&m, &t, &tasks, &real).time_s, 3.0);
        // Emulated on one core: the host task (1 s of work) and the device thread (2 s: its copy
        // and its kernel) share the core at half speed until 2 s, when the host task ends; the
        // device thread's last 1 s runs at full speed (2 → 3), the write-back 3 → 4.
        let mut emu = real;
        emu.emulated_gpus = true;
        let p = sim(&m, &t, &tasks, &emu);
        assert_eq!(p.time_s, 4.0);
        let dur = |task: usize| p.events.iter().find(|e| e.task == task).map(|e| (e.start, e.dur));
        assert_eq!((dur(0), dur(1)), (Some((0.0, 2.0)), Some((0.0, 3.0))));
        // With two cores each thread has its own: as fast as the real GPU here.
        emu.cores = 2;
        assert_eq!(sim(&m, &t, &tasks, &emu).time_s, 3.0);
        // Filling the fresh arena costs its first touch once: one more pass over the tile (1 s).
        m.memcpy_bw = 8.0;
        m.first_touch_passes = 1.0;
        assert_eq!(sim(&m, &t, &tasks, &emu).time_s, 4.0);
        // A second task on the same tile finds it resident: no copy, no first touch (+1 s).
        let again = vec![gemm(0, &[], 0), gemm(1, &[], 0), gemm(1, &[], 0)];
        assert_eq!(sim(&m, &t, &again, &emu).time_s, 5.0);
    }

    #[test]
    fn buffers_are_kept_on_their_tiles_rank_and_move_with_their_size() {
        // 1×2 tiles of 1×1 on a 1×2 grid: tile 0 on rank 0, tile 1 on rank 1. A 3×2 buffer kept
        // with tile 1 is on rank 1; a task on rank 0 reading it receives one 48-byte message.
        let mut rec = Recorder::on_grid(Tiling::uniform(1, 1, 2, 1), (1, 2));
        let b = rec.buffer(3, 2, 1);
        assert_eq!((b, rec.place(b), rec.place(0), rec.bytes(b)), (2, 1, 0, 48.0));
        rec.tasks = vec![gemm(b, &[], 0), gemm(0, &[b], 0)];
        let p = simulate(&toy(), &rec, &setup((1, 2), 1, 0, 1.0));
        assert_eq!((p.messages, p.net_bytes), (1, 48.0));
        // 1 s on rank 1, then 1 s + 48 bytes at 8 per s, then 1 s on rank 0.
        near(p.time_s, 9.0 + poll());
    }

    #[test]
    fn the_qr_generator_splits_updates_by_rank_on_a_recorded_grid() {
        use crate::algo::geqrf::{generate, Fuse, Panel};
        let count = |grid: (usize, usize)| {
            let mut rec = Recorder::on_grid(Tiling::uniform(40, 8, 40, 8), grid);
            generate(&mut rec, Panel::Gathered, Fuse::ONE);
            let n = |name: &str| rec.tasks.iter().filter(|t| t.op.name() == name).count();
            (n("larfb"), n("qr-vtc"), n("qr-vw"))
        };
        // One place, or one process row: one DLARFB per panel and later tile column (4+3+2+1).
        assert_eq!(count((1, 1)), (10, 0, 0));
        assert_eq!(count((1, 2)), (10, 0, 0));
        // Two process rows: tile rows alternate between the ranks, so every update spans both
        // and is split (a partial sum per rank and column, C −= V·W per tile); no DLARFB is left.
        let (larfb, vtc, vw) = count((2, 1));
        assert_eq!(larfb, 0);
        assert_eq!(vtc, 2 * 10);
        assert_eq!(vw, 5 * 4 + 4 * 3 + 3 * 2 + 2);
    }

    #[test]
    fn message_copies_cost_the_sender_and_the_receiving_master_between_its_tasks() {
        // 1×3 tiles on a 1×2 grid, one core per rank, a pass over a tile takes 1 s; the sender
        // makes one pass, the receiver two. Rank 0: A writes tile 0 (1 s) and packs it (1 s);
        // the message leaves at 2 and arrives at 4. Rank 1: B (tile 1, 5 s) keeps the master
        // busy until 5; it then takes the message in (2 s, no task meanwhile) and C, reading tile
        // 0, runs 7 → 8.
        let t = Tiling::uniform(1, 1, 3, 1);
        let mut long = gemm(1, &[], 9);
        long.dims = [1, 1, 5];
        let tasks = vec![gemm(0, &[], 0), long, gemm(1, &[0], 0)];
        let mut m = toy();
        m.memcpy_bw = 8.0;
        m.send_copies = 1.0;
        m.recv_copies = 2.0;
        let p = sim(&m, &t, &tasks, &setup((1, 2), 1, 0, 1.0));
        assert_eq!(p.time_s, 8.0);
        let start = |task: usize| p.events.iter().find(|e| e.task == task).map(|e| (e.start, e.dur));
        assert_eq!((start(0), start(2)), (Some((0.0, 2.0)), Some((7.0, 1.0))));
        // A thread of its own (a second core) takes it in while B runs (4 → 6): C, after B and
        // the message, runs 6 → 7.
        let mut s = setup((1, 2), 2, 0, 1.0);
        s.comm_thread = true;
        assert_eq!(sim(&m, &t, &tasks, &s).time_s, 7.0);
    }
}
