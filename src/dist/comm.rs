//! Tile messages between ranks, driven by the calling thread only.
//!
//! A message carries one tile version: MPI tag = the tile's index in the tile grid, payload =
//! `[version, tile id, tile values column by column]`, so it names both the tile and the version
//! it holds (a message is f64 words: the header's numbers as doubles, then the values' bytes,
//! whatever their type: [`pack`], a complex value two reals, two f32 values one word); the receiver checks the version against the one its task generator expects. Between
//! two ranks a given tile travels at most once per version, and MPI keeps messages of one
//! (source, tag) in order, so the pair (source, tile id) finds the waiting local copy.
//!
//! Where the receiver reads the owner's tile storage in place (ranks of one node, [`super::shm`])
//! the message is a *notice* without values (`[version, tile id]`: that version is ready), and
//! the reader answers with an *acknowledgement* (`[-1 - version, tile id]`) once its tasks have
//! read that version, before the owner may write the next one ([`super::tasks`]).
//!
//! Send tasks run on any worker: they copy the tile into a buffer and queue it in the [`Outbox`].
//! The master's progress callback ([`Engine::progress`]) posts queued sends through a
//! [`Transport`] (MPI: `MPI_Isend`, completed with `MPI_Test`; [`crate::backend::mpi`]), and takes arrivals; an arrival is received,
//! copied into the local copy the generator allocated for it and releases the held task that
//! stands for it (`runtime::Releaser`); a message that arrives before the generator got there
//! waits in `early`.

use crate::backend::mpi::{waitall, Comm, Request};
use crate::graph::Failure;
use crate::runtime::{Held, Releaser};
use crate::scalar::Scalar;
use crate::tile::{TiledMatrix, View, Workspace};
use std::collections::{HashMap, HashSet, VecDeque};
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
    /// Takes a message that has arrived into `buf` (grown when too short, never shrunk, so one
    /// buffer serves every message of a call): (source, tag, number of values).
    fn try_recv(&mut self, buf: &mut Vec<f64>) -> Option<(usize, i32, usize)>;
    /// Waits until every send has completed.
    fn wait_sends(&mut self);
    /// Ends the job after an internal failure on this rank (`why`): the other ranks may be
    /// waiting for messages this one will not send, so waiting on is never an option.
    fn abort(&mut self, why: &str) -> !;
}

/// MPI point-to-point on a communicator, with non-blocking sends.
pub struct MpiTransport<'c> {
    comm: &'c Comm,
    inflight: Vec<(Request, Vec<f64>)>,
}

impl<'c> MpiTransport<'c> {
    pub fn new(comm: &'c Comm) -> Self {
        MpiTransport { comm, inflight: Vec::new() }
    }
}

impl Transport for MpiTransport<'_> {
    fn send(&mut self, dest: usize, tag: i32, data: Vec<f64>) {
        // SAFETY: the buffer is the heap allocation of `data`, which is kept in `inflight`
        // (moving the Vec does not move its heap buffer) until `test` or `waitall` reports the
        // send complete.
        let req = unsafe { self.comm.isend(&data, dest, tag) };
        self.inflight.push((req, data));
    }

    fn poll_sends(&mut self) {
        self.inflight.retain_mut(|(req, _)| !req.test());
    }

    fn try_recv(&mut self, buf: &mut Vec<f64>) -> Option<(usize, i32, usize)> {
        self.comm.try_receive_into(buf)
    }

    fn wait_sends(&mut self) {
        let (mut reqs, bufs): (Vec<Request>, Vec<Vec<f64>>) = self.inflight.drain(..).unzip();
        waitall(&mut reqs);
        drop(bufs);
    }

    fn abort(&mut self, why: &str) -> ! {
        super::abort_job(self.comm, why)
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
    fn try_recv(&mut self, buf: &mut Vec<f64>) -> Option<(usize, i32, usize)> {
        let (src, tag, data) = self.from.try_recv().ok()?;
        if buf.len() < data.len() {
            buf.resize(data.len(), 0.0);
        }
        buf[..data.len()].copy_from_slice(&data);
        Some((src, tag, data.len()))
    }
    fn wait_sends(&mut self) {}
    fn abort(&mut self, why: &str) -> ! {
        // Threads standing for ranks (tests): a panic ends the test instead of a hang.
        panic!("rank {} failed: {why}", self.me)
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

/// Queues `data` for rank `dest` with tag `tag` (a task's side of [`Engine::progress`]).
pub fn post(outbox: &Outbox, dest: usize, tag: i32, data: Vec<f64>) {
    outbox.lock().unwrap_or_else(|e| e.into_inner()).push(Outgoing { dest, tag, data });
}

/// Key of a local copy of a remote tile: (tile index, version).
pub type CopyKey = (usize, u32);

/// The values ahead of a tile's values in its message (and all of a notice): the tile's version
/// and id, then the earliest step whose task failed on the sender (−1: none) and its INFO, so that
/// the receiver's tasks of that step and later ones skip their math as the sender's do (a rank that
/// read a failed Cholesky's diagonal tile would otherwise divide by its zero pivot and spread
/// Inf and NaN where the reference leaves numbers).
pub const HEADER: usize = 4;

/// The header of version `key.1` of tile `key.0` sent by a rank whose failures are `fail`.
pub fn header(key: CopyKey, fail: &Failure) -> Vec<f64> {
    let (step, info) = fail.failed().map_or((-1.0, 0.0), |(s, i)| (s as f64, i as f64));
    vec![key.1 as f64, key.0 as f64, step, info]
}

/// The MPI tag of tile `id`'s messages. A message carries its tile's version and id as its first
/// two values, and the receiver routes it by those, so the tag need not be unique: it is kept
/// below 32768, the smallest `MPI_TAG_UB` the MPI standard allows (tile ids of large problems
/// with small tiles exceed Open MPI's 2²³ − 1). Messages of one tile from one rank still arrive
/// in the order sent (one tag, one source: MPI's non-overtaking rule).
pub fn tag_of(id: usize) -> i32 {
    (id % 32768) as i32
}

struct Expect {
    key: CopyKey,
    held: Held,
}

/// The front of queue `k`, dropping the queue when it empties (so that an empty map means
/// nothing is pending).
fn pop<T>(map: &mut HashMap<(usize, usize), VecDeque<T>>, k: (usize, usize)) -> Option<T> {
    let q = map.get_mut(&k)?;
    let v = q.pop_front();
    if q.is_empty() {
        map.remove(&k);
    }
    v
}

/// Where a local copy lives: `rows` rows from row `row0` of store `store`, whose leading
/// dimension is `ld`.
struct Slot {
    store: usize,
    row0: usize,
    rows: usize,
    cols: usize,
    ld: usize,
}

/// The f64 words `n` values of `T` take in a message (the last one padded).
pub fn words<T: Scalar>(n: usize) -> usize {
    (n * std::mem::size_of::<T>()).div_ceil(8)
}

/// The bytes of `v`.
fn bytes<T: Scalar>(v: &[T]) -> &[u8] {
    // SAFETY: every Scalar is f32, f64 or a repr(C) pair of them: plain bytes without padding,
    // any of which may be read as u8; the slice covers exactly `v`'s memory.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// The bytes of `v`, writable.
fn bytes_mut<T: Scalar>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `bytes`; any bytes written make a valid value of every Scalar (all bit
    // patterns of f32 and f64 are values), and the slice borrows `v` mutably.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, std::mem::size_of_val(v)) }
}

/// Appends tile `t`'s values, column by column, to the message `data` as bytes ([`words`] f64
/// words; for f64 the values themselves).
pub fn pack<T: Scalar>(data: &mut Vec<f64>, t: View<T>) {
    let at = data.len();
    data.resize(at + words::<T>(t.m * t.n), 0.0);
    let out = bytes_mut(&mut data[at..]);
    let col = t.m * std::mem::size_of::<T>();
    for j in 0..t.n {
        out[j * col..(j + 1) * col].copy_from_slice(bytes(t.column(j)));
    }
}

/// The notice that version `key.1` of tile `key.0` is ready in its owner's storage.
pub fn notice(key: CopyKey, fail: &Failure) -> Vec<f64> {
    header(key, fail)
}

/// The acknowledgement that a reader's tasks have read version `key.1` of tile `key.0` in place.
pub fn ack(key: CopyKey) -> Vec<f64> {
    vec![-1.0 - key.1 as f64, key.0 as f64]
}

/// The master's message state for one distributed call.
pub struct Engine<T: Scalar = f64> {
    outbox: Outbox,
    /// By (source rank, tile id).
    expected: HashMap<(usize, usize), VecDeque<Expect>>,
    early: HashMap<(usize, usize), VecDeque<Vec<f64>>>,
    /// Acknowledgements awaited, by (reader rank, tile id, version), and those that came first.
    acks: HashMap<(usize, usize, u32), Held>,
    early_acks: HashSet<(usize, usize, u32)>,
    /// Storage of the local copies: one block per group of copies ([`Engine::add_copies`]).
    stores: Vec<Workspace<T>>,
    slots: HashMap<CopyKey, Slot>,
    /// The buffer every message is received into before its values go to their copy.
    inbox: Vec<f64>,
    /// This rank's failures, which the headers of received tiles add to ([`HEADER`]).
    pub fail: Arc<Failure>,
    /// Tiles sent and received by this rank, values or notices (for the verbose line and tests).
    pub sent: usize,
    pub received: usize,
    /// Of the tiles received, those read in place in their owner's storage (notices).
    pub in_place: usize,
}

impl<T: Scalar> Default for Engine<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Scalar> Engine<T> {
    pub fn new() -> Self {
        Engine {
            outbox: Arc::new(Mutex::new(Vec::new())),
            expected: HashMap::new(),
            early: HashMap::new(),
            acks: HashMap::new(),
            early_acks: HashSet::new(),
            stores: Vec::new(),
            slots: HashMap::new(),
            inbox: Vec::new(),
            fail: Arc::new(Failure::default()),
            sent: 0,
            received: 0,
            in_place: 0,
        }
    }

    pub fn outbox(&self) -> Outbox {
        self.outbox.clone()
    }

    /// Storage for the local copy `key` of a remote `rows`×`cols` tile; its handle for tasks.
    pub fn add_copy(&mut self, key: CopyKey, rows: usize, cols: usize) -> TiledMatrix<T> {
        self.add_copies(&[key], &[rows], cols)
    }

    /// Storage for the local copies `keys` of remote tiles of `rows[d]`×`cols`, stacked in this
    /// order in one column-major block, so that an op reading them together gets one block (as
    /// it would on the rank that owns them); copy d is tile (d, 0) of the returned matrix. Every
    /// tile but the last has `rows[0]` rows, the last at most that. The block is not zero-filled:
    /// each copy is written in full by its message before its held task lets a reader near it.
    pub fn add_copies(&mut self, keys: &[CopyKey], rows: &[usize], cols: usize) -> TiledMatrix<T> {
        assert_eq!(keys.len(), rows.len());
        let mb = rows[0].max(1);
        let last = rows.len() - 1;
        assert!(
            rows[..last].iter().all(|&r| r == rows[0]) && rows[last] <= rows[0],
            "hetla: stacked copies must be tiles of one height (the last may be shorter)"
        );
        let ld = rows.iter().sum::<usize>();
        let w = Workspace::scratch(ld, cols, mb, cols.max(1));
        let t = w.tiles();
        let store = self.stores.len();
        self.stores.push(w);
        let mut row0 = 0;
        for (&key, &r) in keys.iter().zip(rows) {
            self.slots.insert(key, Slot { store, row0, rows: r, cols, ld: ld.max(1) });
            row0 += r;
        }
        t
    }

    /// The copy `key` will arrive from rank `src` (values into the storage [`Engine::add_copy`]
    /// gave it, or, for a copy read in place, which has none, a notice); `held` is released when
    /// it has.
    pub fn expect(&mut self, rel: &Releaser, src: usize, key: CopyKey, held: Held) {
        if let Some(data) = pop(&mut self.early, (src, key.0)) {
            self.fill(key, &data);
            rel.release(held);
        } else {
            self.expected.entry((src, key.0)).or_default().push_back(Expect { key, held });
        }
    }

    /// Rank `reader` acknowledges version `key.1` of tile `key.0` (read in place); `held` is
    /// released when it has.
    pub fn expect_ack(&mut self, rel: &Releaser, reader: usize, key: CopyKey, held: Held) {
        let k = (reader, key.0, key.1);
        if self.early_acks.remove(&k) {
            rel.release(held);
        } else {
            self.acks.insert(k, held);
        }
    }

    fn fill(&mut self, key: CopyKey, data: &[f64]) {
        assert!(
            data[0] as u32 == key.1 && data[1] as usize == key.0,
            "hetla: tile {} version {} arrived where tile {} version {} was expected",
            data[1],
            data[0],
            key.0,
            key.1
        );
        self.received += 1;
        if data[2] >= 0.0 {
            self.fail.record(data[2] as usize, data[3] as i32);
        }
        let Some(s) = self.slots.get(&key) else {
            // Read in place: the values stay in the owner's storage.
            assert_eq!(
                data.len(),
                HEADER,
                "hetla: tile {} arrived with values where a notice was expected",
                key.0
            );
            self.in_place += 1;
            return;
        };
        let dst = self.stores[s.store].as_mut_slice();
        let vals = &data[HEADER..];
        assert!(
            vals.len() == words::<T>(s.rows * s.cols),
            "hetla: tile {} arrived with {} words for {}x{} values",
            key.0,
            vals.len(),
            s.rows,
            s.cols
        );
        let vals = bytes(vals);
        let col = s.rows * std::mem::size_of::<T>();
        if col > 0 {
            for c in 0..s.cols {
                let at = s.row0 + c * s.ld;
                bytes_mut(&mut dst[at..at + s.rows]).copy_from_slice(&vals[c * col..(c + 1) * col]);
            }
        }
    }

    fn post_sends(&mut self, tr: &mut dyn Transport) {
        let queued = std::mem::take(&mut *self.outbox.lock().unwrap_or_else(|e| e.into_inner()));
        for m in queued {
            // Tiles (values or notices) count; acknowledgements do not.
            self.sent += usize::from(m.data[0] >= 0.0);
            tr.send(m.dest, m.tag, m.data);
        }
    }

    /// One round of communication: post queued sends, retire finished ones, take every message
    /// that has arrived. Called by the master only.
    pub fn progress(&mut self, tr: &mut dyn Transport, rel: &Releaser) {
        self.post_sends(tr);
        tr.poll_sends();
        let mut inbox = std::mem::take(&mut self.inbox);
        while let Some((src, _tag, len)) = tr.try_recv(&mut inbox) {
            let data = &inbox[..len];
            let k = (src, data[1] as usize);
            if data[0] < 0.0 {
                let ak = (src, k.1, (-1.0 - data[0]) as u32);
                match self.acks.remove(&ak) {
                    Some(held) => rel.release(held),
                    None => assert!(self.early_acks.insert(ak), "hetla: tile {} acknowledged twice", k.1),
                }
            } else if let Some(e) = pop(&mut self.expected, k) {
                self.fill(e.key, data);
                rel.release(e.held);
            } else {
                self.early.entry(k).or_default().push_back(data.to_vec());
            }
        }
        self.inbox = inbox;
    }

    /// After the sequence has drained: posts what is still queued and waits for every send.
    pub fn flush(&mut self, tr: &mut dyn Transport) {
        self.post_sends(tr);
        tr.wait_sends();
        assert!(
            self.expected.is_empty()
                && self.early.is_empty()
                && self.acks.is_empty()
                && self.early_acks.is_empty(),
            "hetla: tile messages left unmatched"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::runtime::{Seq, Task};

    #[test]
    fn messages_are_routed_by_tile_id_even_when_tags_collide() {
        // Tiles 5 and 5 + 32768 share a tag; rank 1 sends the second one first.
        let (a, b) = (5usize, 5 + 32768usize);
        assert_eq!(tag_of(a), tag_of(b));
        let mut world = LocalTransport::world(2);
        let mut tr1 = world.pop().unwrap();
        let mut tr0 = world.pop().unwrap();
        tr1.send(0, tag_of(b), vec![0.0, b as f64, -1.0, 0.0, 2.0, 2.5]);
        tr1.send(0, tag_of(a), vec![0.0, a as f64, -1.0, 0.0, 1.0, 1.5]);

        let seq = Seq::new(&Config::with_threads(1));
        let rel = seq.releaser();
        let mut engine = Engine::<f64>::new();
        let (ha, hb) = (engine.add_copy((a, 0), 2, 1), engine.add_copy((b, 0), 2, 1));
        let held_a = seq.submit_held(Task::new("recv").write(&ha, 0, 0), |_| Ok(()));
        let held_b = seq.submit_held(Task::new("recv").write(&hb, 0, 0), |_| Ok(()));
        engine.expect(&rel, 1, (a, 0), held_a);
        engine.expect(&rel, 1, (b, 0), held_b);
        engine.progress(&mut tr0, &rel);
        assert_eq!(engine.received, 2);
        assert_eq!(engine.stores[engine.slots[&(a, 0)].store].as_slice(), [1.0, 1.5]);
        assert_eq!(engine.stores[engine.slots[&(b, 0)].store].as_slice(), [2.0, 2.5]);
        seq.wait().unwrap();
        engine.flush(&mut tr0);
    }

    /// A tile of every element type travels as bytes and lands in its copy's place, column by
    /// column (3×3 f32 values are 36 bytes: 4.5 words, the last padded).
    #[test]
    fn tiles_of_every_type_round_trip_through_a_message() {
        fn each<T: Scalar>() {
            let (m, n) = (3usize, 3usize);
            let vals: Vec<T> = (0..m * n).map(|x| T::from_parts(x as f64 + 0.5, -(x as f64))).collect();
            let mut data = header((9, 2), &Failure::default());
            pack(&mut data, View::from_slice(&vals, m, n, m));
            assert_eq!(data.len(), HEADER + words::<T>(m * n));
            let mut world = LocalTransport::world(2);
            let mut tr1 = world.pop().unwrap();
            let mut tr0 = world.pop().unwrap();
            tr1.send(0, tag_of(9), data);
            let seq = Seq::new(&Config::with_threads(1));
            let rel = seq.releaser();
            let mut engine = Engine::<T>::new();
            // The copy is the second of two stacked in one block (leading dimension 6).
            let h = engine.add_copies(&[(8, 0), (9, 2)], &[m, m], n);
            let held = seq.submit_held(Task::new("recv").write(&h, 1, 0), |_| Ok(()));
            engine.expect(&rel, 1, (9, 2), held);
            engine.progress(&mut tr0, &rel);
            seq.wait().unwrap();
            let got = engine.stores[engine.slots[&(9, 2)].store].as_slice();
            for j in 0..n {
                assert_eq!(&got[m + j * 2 * m..2 * m + j * 2 * m], &vals[j * m..(j + 1) * m]);
            }
        }
        each::<f32>();
        each::<f64>();
        each::<crate::scalar::c32>();
        each::<crate::scalar::c64>();
    }
}
