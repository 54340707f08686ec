//! The conversions' one-copy path: ranks on one node read each other's arrays directly (Linux
//! cross-memory attach, `process_vm_readv`, which MPI's shared-memory transport uses for large
//! messages too).
//!
//! Through `MPI_Alltoallv` a value that changes rank is copied three times: packed into a send
//! buffer, copied by MPI into a receive buffer, unpacked into its place. The conversion is bound
//! by memory bandwidth (both ranks copy at once), so each copy counts: read in place from the
//! rank that holds it, a value is copied once, from its old place to its new one.
//!
//! Every rank publishes its process id and the address and leading dimension of the storage it
//! converts from, and a token at a known address. A rank reads every other rank's token through
//! `process_vm_readv`; only if every rank can (same node, same user, no ptrace restriction: a
//! process id that names another process elsewhere fails the token) do all take this path, agreed
//! with one `MPI_Allreduce`, else all use the Alltoallv. Each run read costs the kernel about a
//! microsecond, so the conversions ask for this path only where the runs are long
//! ([`super::redistribute::exchange`]).

use super::grid::Grid;
use crate::backend::mpi::SystemOperation;

/// What one rank published: process id, base address and leading dimension of its source.
#[derive(Clone, Copy)]
struct Peer {
    pid: i32,
    base: usize,
    ld: usize,
}

/// The grid's ranks, readable in place.
pub struct Peers {
    peers: Vec<Peer>,
}

/// Values published per rank: pid, base, ld, token address, token value.
const FIELDS: usize = 5;

impl Peers {
    /// Collective over `grid`: `Some` on every rank when every rank can read every other's
    /// memory, `None` on every rank otherwise. `base` and `ld` describe this rank's source (its
    /// elements' offsets from `base` follow [`super::redistribute::Placed::offset`]).
    /// `wanted` is this rank's wish (false: it declines); one rank declining is enough.
    pub fn connect(grid: &Grid, base: *const f64, ld: usize, wanted: bool) -> Option<Peers> {
        let size = grid.comm.size() as usize;
        // A value no other process holds at that address by chance.
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let bits = ((std::process::id() as u64) << 32) ^ (nanos as u64) ^ 0x9e37_79b9_7f4a_7c15;
        let token = Box::new(f64::from_bits(bits));
        let mine = [
            std::process::id() as i64,
            base as usize as i64,
            ld as i64,
            &*token as *const f64 as usize as i64,
            bits as i64,
        ];
        let mut all = vec![0i64; FIELDS * size];
        grid.comm.all_gather_into(&mine, &mut all);
        let me = grid.comm.rank() as usize;
        let ok = wanted
            && grid.ranks_on_node == size
            && (0..size).filter(|&r| r != me).all(|r| {
                let f = &all[r * FIELDS..(r + 1) * FIELDS];
                let mut seen = 0.0f64;
                let local = [libc::iovec { iov_base: (&mut seen as *mut f64).cast(), iov_len: 8 }];
                // SAFETY: `seen` is a local of ours, written only by this call.
                let read = unsafe { read_raw(f[0] as i32, &local, &[(f[3] as usize, 1)]) };
                read && seen.to_bits() as i64 == f[4]
            });
        let every = Peers::done(grid, ok);
        drop(token);
        every.then(|| Peers {
            peers: (0..size)
                .map(|r| Peer {
                    pid: all[r * FIELDS] as i32,
                    base: all[r * FIELDS + 1] as usize,
                    ld: all[r * FIELDS + 2] as usize,
                })
                .collect(),
        })
    }

    /// The leading dimension of rank `r`'s source.
    pub fn ld(&self, r: usize) -> usize {
        self.peers[r].ld
    }

    /// Reads from rank `r`'s source, in batches.
    pub fn reader(&self, r: usize) -> Reader {
        Reader { peer: self.peers[r], runs: Vec::new() }
    }

    /// Collective: whether `ok` holds on every rank. After reads, it returns when every rank
    /// has finished reading (a rank's source must not change before).
    pub fn done(grid: &Grid, ok: bool) -> bool {
        let mut every = 0i32;
        grid.comm.all_reduce_into(&i32::from(ok), &mut every, SystemOperation::min());
        every == 1
    }
}

/// Runs of one rank's source queued for reading; [`Reader::flush`] reads them.
pub struct Reader {
    peer: Peer,
    /// (destination, values, source address).
    runs: Vec<(*mut f64, usize, usize)>,
}

/// The most runs one `process_vm_readv` takes (IOV_MAX on Linux).
const BATCH: usize = 1024;

impl Reader {
    /// Queues `len` values from offset `offset` (in values) of the peer's source into `dst`;
    /// returns false when a read failed.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `len` values, and nothing else may access them until
    /// the next [`Reader::flush`] (or the `push` that flushes) has returned.
    pub unsafe fn push(&mut self, dst: *mut f64, len: usize, offset: usize) -> bool {
        let addr = self.peer.base + offset * std::mem::size_of::<f64>();
        self.runs.push((dst, len, addr));
        self.runs.len() < BATCH || self.flush()
    }

    /// Reads every queued run; false when a read failed or came short.
    pub fn flush(&mut self) -> bool {
        let local: Vec<libc::iovec> = self
            .runs
            .iter()
            .map(|&(d, n, _)| libc::iovec { iov_base: d.cast(), iov_len: n * std::mem::size_of::<f64>() })
            .collect();
        let remote: Vec<(usize, usize)> = self.runs.iter().map(|&(_, n, a)| (a, n)).collect();
        self.runs.clear();
        // SAFETY: `push`'s contract makes every local run writable and ours until now.
        unsafe { read_raw(self.peer.pid, &local, &remote) }
    }
}

/// Reads from process `pid` each `remote[k]` = (address, values) into `local[k]`.
///
/// # Safety
/// Every local iovec must be valid for writes of its length and not accessed by anything else
/// during the call.
unsafe fn read_raw(pid: i32, local: &[libc::iovec], remote: &[(usize, usize)]) -> bool {
    if local.is_empty() {
        return true;
    }
    let bytes: usize = local.iter().map(|v| v.iov_len).sum();
    let remote: Vec<libc::iovec> = remote
        .iter()
        .map(|&(a, n)| libc::iovec {
            iov_base: a as *mut libc::c_void,
            iov_len: n * std::mem::size_of::<f64>(),
        })
        .collect();
    // SAFETY: the local iovecs are writable and ours (the caller's contract); the remote ones
    // are only read, by the kernel, in process `pid`, which checks them: a bad address, or a
    // process this one may not read, fails the call without touching this process's memory.
    let n = unsafe {
        libc::process_vm_readv(
            pid,
            local.as_ptr(),
            local.len() as libc::c_ulong,
            remote.as_ptr(),
            remote.len() as libc::c_ulong,
            0,
        )
    };
    n >= 0 && n as usize == bytes
}
