//! Tile messages between ranks, driven by the calling thread only.
//!
//! A message carries one tile version: MPI tag = the tile's index in the tile grid, payload =
//! `[version, tile values column by column]`, so it names both the tile and the version it holds;
//! the receiver checks the version against the one its task generator expects. Between two ranks
//! a given tile travels at most once per version, and MPI keeps messages of one (source, tag) in
//! order, so the pair (source, tag) finds the waiting local copy.
//!
//! Send tasks run on any worker: they copy the tile into a buffer and queue it in the [`Outbox`].
//! The master's progress callback ([`Engine::progress`]) posts queued sends through a
//! [`Transport`] (MPI: `MPI_Isend`, completed with `MPI_Test`), and takes arrivals; an arrival is received,
//! copied into the local copy the generator allocated for it and releases the held task that
//! stands for it (`runtime::Releaser`); a message that arrives before the generator got there
//! waits in `early`.

use crate::runtime::{Held, Releaser};
use crate::tile::{TiledMatrix, Workspace};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// How tile messages travel: MPI between processes ([`MpiTransport`]), or channels between
/// threads standing for ranks in one process ([`LocalTransport`], for tests of the distributed
/// algorithms without MPI). Messages of one (source, tag) arrive in the order sent.
pub trait Transport {
    /// Starts sending `data` to rank `dest` with tag `tag`.
    fn send(&mut self, dest: usize, tag: i32, data: Vec<f64>);
    /// Retires finished sends.
    fn poll_sends(&mut self);
    /// A message that has arrived: (source, tag, data).
    fn try_recv(&mut self) -> Option<(usize, i32, Vec<f64>)>;
    /// Waits until every send has completed.
    fn wait_sends(&mut self);
    /// Ends every rank of the world after this rank failed in a way it cannot recover from,
    /// having said `why` on stderr (one line): the other ranks may be waiting for messages it
    /// will never send, and a hang is the one outcome a failure must never have.
    fn abort(&mut self, why: &str) -> !;
}

/// MPI point-to-point on a communicator, with non-blocking sends.
pub struct MpiTransport<'c> {
    comm: &'c SimpleCommunicator,
    inflight: Vec<(mpi::ffi::MPI_Request, Vec<f64>)>,
}

impl<'c> MpiTransport<'c> {
    pub fn new(comm: &'c SimpleCommunicator) -> Self {
        MpiTransport { comm, inflight: Vec::new() }
    }
}

impl Transport for MpiTransport<'_> {
    fn send(&mut self, dest: usize, tag: i32, data: Vec<f64>) {
        // SAFETY: a null request is a valid initial value that MPI_Isend overwrites.
        let mut req = unsafe { mpi::ffi::RSMPI_REQUEST_NULL };
        // SAFETY: the buffer is a live heap allocation of `data.len()` doubles that is kept in
        // `inflight` (moving the Vec does not move its heap buffer) until MPI_Test or
        // MPI_Waitall reports the send complete; the communicator is our live duplicate.
        unsafe {
            mpi::ffi::MPI_Isend(
                data.as_ptr() as *const std::ffi::c_void,
                data.len() as i32,
                mpi::ffi::RSMPI_DOUBLE,
                dest as i32,
                tag,
                self.comm.as_raw(),
                &mut req,
            );
        }
        self.inflight.push((req, data));
    }

    fn poll_sends(&mut self) {
        self.inflight.retain_mut(|(req, _)| {
            let mut done = 0;
            // SAFETY: `req` is an active request from MPI_Isend; STATUS_IGNORE is allowed.
            unsafe { mpi::ffi::MPI_Test(req, &mut done, mpi::ffi::RSMPI_STATUS_IGNORE) };
            done == 0
        });
    }

    fn try_recv(&mut self) -> Option<(usize, i32, Vec<f64>)> {
        let st = self.comm.any_process().immediate_probe()?;
        let src = st.source_rank();
        let (data, _) = self.comm.process_at_rank(src).receive_vec_with_tag::<f64>(st.tag());
        Some((src as usize, st.tag(), data))
    }

    fn wait_sends(&mut self) {
        let mut reqs: Vec<mpi::ffi::MPI_Request> = self.inflight.iter().map(|r| r.0).collect();
        // SAFETY: `reqs` holds active requests whose buffers stay in `inflight` until this returns.
        unsafe {
            mpi::ffi::MPI_Waitall(reqs.len() as i32, reqs.as_mut_ptr(), mpi::ffi::RSMPI_STATUSES_IGNORE);
        }
        self.inflight.clear();
    }

    fn abort(&mut self, why: &str) -> ! {
        crate::error::say(format_args!("{why}"));
        self.comm.abort(1)
    }
}

/// Ranks as threads of one process: one channel per rank, sends complete at once.
pub struct LocalTransport {
    me: usize,
    to: Vec<Sender<(usize, i32, Vec<f64>)>>,
    from: Receiver<(usize, i32, Vec<f64>)>,
}

impl LocalTransport {
    /// One transport per rank of an `n`-rank world, element r for rank r.
    pub fn world(n: usize) -> Vec<LocalTransport> {
        let (tx, rx): (Vec<_>, Vec<_>) = (0..n).map(|_| channel()).unzip();
        rx.into_iter().enumerate().map(|(me, from)| LocalTransport { me, to: tx.clone(), from }).collect()
    }
}

impl Transport for LocalTransport {
    fn send(&mut self, dest: usize, tag: i32, data: Vec<f64>) {
        // A rank that has finished keeps its receiver until the whole world is dropped.
        self.to[dest].send((self.me, tag, data)).expect("hetla: a local rank's channel closed");
    }
    fn poll_sends(&mut self) {}
    fn try_recv(&mut self) -> Option<(usize, i32, Vec<f64>)> {
        self.from.try_recv().ok()
    }
    fn wait_sends(&mut self) {}
    /// The world is this process: ended as `MPI_Abort` ends an MPI job.
    fn abort(&mut self, why: &str) -> ! {
        crate::error::say(format_args!("{why}"));
        std::process::abort()
    }
}

/// A tile queued for sending.
pub struct Outgoing {
    pub dest: usize,
    pub tag: i32,
    pub data: Vec<f64>,
}

/// Sends queued by tasks, posted by the master.
pub type Outbox = Arc<Mutex<Vec<Outgoing>>>;

/// Key of a local copy of a remote tile: (tile index, version).
pub type CopyKey = (usize, u32);

struct Expect {
    key: CopyKey,
    held: Held,
}

/// The front of queue `k`, dropping the queue when it empties (so that an empty map means
/// nothing is pending).
fn pop<T>(map: &mut HashMap<(usize, i32), VecDeque<T>>, k: (usize, i32)) -> Option<T> {
    let q = map.get_mut(&k)?;
    let v = q.pop_front();
    if q.is_empty() {
        map.remove(&k);
    }
    v
}

/// The master's message state for one distributed call.
pub struct Engine {
    outbox: Outbox,
    expected: HashMap<(usize, i32), VecDeque<Expect>>,
    early: HashMap<(usize, i32), VecDeque<Vec<f64>>>,
    copies: HashMap<CopyKey, Workspace<f64>>,
    /// Tiles sent and received by this rank (for the verbose line and tests).
    pub sent: usize,
    pub received: usize,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    pub fn new() -> Self {
        Engine {
            outbox: Arc::new(Mutex::new(Vec::new())),
            expected: HashMap::new(),
            early: HashMap::new(),
            copies: HashMap::new(),
            sent: 0,
            received: 0,
        }
    }

    pub fn outbox(&self) -> Outbox {
        self.outbox.clone()
    }

    /// Storage for the local copy `key` of a remote `rows`×`cols` tile; its handle for tasks.
    pub fn add_copy(&mut self, key: CopyKey, rows: usize, cols: usize) -> TiledMatrix<f64> {
        let w = Workspace::new(rows, cols, rows.max(1), cols.max(1));
        let t = w.tiles();
        self.copies.insert(key, w);
        t
    }

    /// The copy `key` will arrive from rank `src` with tag `tag`; `held` is released when it has.
    pub fn expect(&mut self, rel: &Releaser, src: usize, tag: i32, key: CopyKey, held: Held) {
        if let Some(data) = pop(&mut self.early, (src, tag)) {
            self.fill(key, &data);
            rel.release(held);
        } else {
            self.expected.entry((src, tag)).or_default().push_back(Expect { key, held });
        }
    }

    fn fill(&mut self, key: CopyKey, data: &[f64]) {
        assert_eq!(
            data[0] as u32, key.1,
            "hetla: tile {} arrived in version {}, expected {}",
            key.0, data[0], key.1
        );
        let w = self.copies.get_mut(&key).expect("a copy is allocated before it is expected");
        let dst = w.as_mut_slice();
        dst[..data.len() - 1].copy_from_slice(&data[1..]);
        self.received += 1;
    }

    fn post_sends(&mut self, tr: &mut dyn Transport) {
        let queued = std::mem::take(&mut *self.outbox.lock().unwrap_or_else(|e| e.into_inner()));
        for m in queued {
            tr.send(m.dest, m.tag, m.data);
            self.sent += 1;
        }
    }

    /// One round of communication: post queued sends, retire finished ones, take every message
    /// that has arrived. Called by the master only.
    pub fn progress(&mut self, tr: &mut dyn Transport, rel: &Releaser) {
        self.post_sends(tr);
        tr.poll_sends();
        while let Some((src, tag, data)) = tr.try_recv() {
            let k = (src, tag);
            if let Some(e) = pop(&mut self.expected, k) {
                self.fill(e.key, &data);
                rel.release(e.held);
            } else {
                self.early.entry(k).or_default().push_back(data);
            }
        }
    }

    /// After the sequence has drained: posts what is still queued and waits for every send.
    pub fn flush(&mut self, tr: &mut dyn Transport) {
        self.post_sends(tr);
        tr.wait_sends();
        assert!(self.expected.is_empty() && self.early.is_empty(), "hetla: tile messages left unmatched");
    }
}
