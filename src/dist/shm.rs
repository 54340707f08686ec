//! Tile storage that the other ranks of one node reach directly: the conversions' one-copy path.
//!
//! Through `MPI_Alltoallv` a value that changes rank is copied three times (packed into a send
//! buffer, copied by MPI, unpacked). The conversions are bound by memory bandwidth (every rank
//! copies at once), so each copy counts. When every rank of the grid is on one node, each keeps
//! its local tile matrix in shared memory (a `memfd`, mapped `MAP_SHARED`) and maps the others':
//! converting in, a rank copies each of its caller values straight into the tile storage of the
//! rank that holds it in tiles; converting back, it copies its caller values straight out of
//! the holder's tile storage. Each value is copied once, by plain loads and stores (no system
//! call per run, which is what made reading another process's memory with `process_vm_readv`
//! slow for short runs such as a P×1 grid's blocks of rows).
//!
//! A rank maps another's storage by opening `/proc/<pid>/fd/<fd>`, which Linux allows where it
//! allows reading that process's memory (same user, no ptrace restriction). Every rank checks
//! what it mapped (the file's inode and size, and a token the owner wrote) and all agree with
//! one `MPI_Allreduce`; if any rank cannot, every rank keeps private storage and the
//! conversions use the Alltoallv.
//!
//! The storage and the mappings are kept from one call to the next (page faults cost about as
//! much as the copies on fresh memory): a process has a few *slots*, each holding one region
//! (grown when a call needs more) that one tile matrix of one call uses at a time (PDORMQR
//! converts two), and every rank maps the others' regions by (process id, slot), replacing a
//! mapping when the region in that slot changed. Regions beyond the bound on kept memory
//! (`HETLA_KEEP_MEMORY`, an eighth of the machine's by default) are freed after their call. A
//! call that finds every slot in use (other threads' distributed calls) does not share. A forked
//! child forgets the regions and the mappings (`after_fork_in_child`): they are the parent's.

use super::grid::Grid;
use crate::backend::mpi::SystemOperation;
use crate::tile::Elem;
use std::sync::{Mutex, MutexGuard};

/// A region of this process: memfd, its inode, mapping, size in values, whether a call holds it.
struct Region {
    fd: i32,
    ino: u64,
    ptr: usize,
    values: usize,
    busy: bool,
}

/// Another process's region mapped here.
struct Mapping {
    pid: i32,
    slot: usize,
    ino: u64,
    ptr: usize,
    bytes: usize,
    last_use: u64,
    /// Running calls of this process that use the mapping (it is not unmapped while any does).
    pins: usize,
}

pub(crate) struct State {
    regions: [Option<Region>; SLOTS],
    mapped: Vec<Mapping>,
    uses: u64,
}

static STATE: Mutex<State> =
    Mutex::new(State { regions: [const { None }; SLOTS], mapped: Vec::new(), uses: 0 });

/// Regions per process: tile matrices that calls of one process share at once.
const SLOTS: usize = 4;

/// Ranks in a grid whose storage is shared (each maps the other ranks' regions).
const MAX_RANKS: usize = 16;

/// Mappings of other processes' regions kept at most (beyond it the least recently used one that
/// no running call uses goes).
const MAX_MAPPED: usize = SLOTS * MAX_RANKS;

/// The state's lock (also taken around a fork, by [`crate::fork`]).
pub(crate) fn lock() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// In a forked child: the regions and the mappings are the parent's (shared with it); drop them
/// from this process without touching the parent's memory (the calls that held or pinned them
/// ran in the parent's other threads, which the child does not have).
pub(crate) fn after_fork_in_child(st: &mut State) {
    for slot in 0..SLOTS {
        free_region(st, slot);
    }
    while let Some(m) = st.mapped.pop() {
        unmap(m);
    }
}

/// This rank's tile storage in a shared region, and where every rank's is mapped here: values of
/// the call's element type `T` (a region counts its size in 8-byte words).
pub struct Shared<T: Elem = f64> {
    /// This rank's storage (`values` values).
    pub base: *mut T,
    values: usize,
    slot: usize,
    /// The other ranks' regions this call maps, by (process id, slot).
    pinned: Vec<(i32, usize)>,
    /// Every rank's storage as mapped in this process (this rank's own included) and its leading
    /// dimension.
    peers: Vec<(*mut T, usize)>,
}

/// Values every rank publishes: ok, pid, fd, inode, bytes, ld, token, slot.
const FIELDS: usize = 8;

impl<T: Elem> Shared<T> {
    /// Collective over `grid`: this rank's storage of `values` values with leading dimension
    /// `ld`, in shared memory that every rank of the grid has mapped, or `None` on every rank
    /// (then none holds any). `wanted`: this rank's wish (false declines for all).
    pub fn open(grid: &Grid, values: usize, ld: usize, wanted: bool) -> Option<Shared<T>> {
        let size = grid.comm.size() as usize;
        let me = grid.me();
        let want = wanted && size > 1 && size <= MAX_RANKS && grid.ranks_on_node == size;
        // Every rank takes part in the agreement, with or without a region.
        // Regions count 8-byte words; a value of T takes size_of::<T>() bytes.
        let words = (values * std::mem::size_of::<T>()).div_ceil(8).max(1);
        let mine = if want { take(words) } else { None };
        let token = token();
        let info = match &mine {
            Some(l) => {
                // SAFETY: the region holds at least one value and is this call's alone.
                unsafe { *(l.ptr as *mut u64) = token };
                let pid = std::process::id() as i64;
                [
                    1,
                    pid,
                    l.fd as i64,
                    l.ino as i64,
                    (l.values * 8) as i64,
                    ld as i64,
                    token as i64,
                    l.slot as i64,
                ]
            }
            None => [0; FIELDS],
        };
        let mut all = vec![0i64; FIELDS * size];
        grid.comm.all_gather_into(&info, &mut all);
        let row = |r: usize| &all[FIELDS * r..FIELDS * (r + 1)];
        let mut peers = vec![(std::ptr::null_mut(), 1usize); size];
        let mut pinned = Vec::new();
        let mut ok = (0..size).all(|r| row(r)[0] == 1);
        if ok {
            let mut st = lock();
            for (r, peer) in peers.iter_mut().enumerate() {
                let f = row(r);
                let (pid, slot) = (f[1] as i32, f[7] as usize);
                let at = match &mine {
                    Some(l) if r == me => Some(l.ptr),
                    _ => {
                        let at = map_peer(&mut st, pid, slot, f[2] as i32, f[3] as u64, f[4] as usize);
                        if at.is_some() {
                            pinned.push((pid, slot));
                        }
                        at
                    }
                };
                match at {
                    // SAFETY: the mapping holds `bytes` ≥ 8 bytes; reading the first value, which
                    // its owner wrote before the gather, is how the mapping is checked.
                    Some(p) if unsafe { *(p as *const u64) } == f[6] as u64 => {
                        *peer = (p as *mut T, (f[5] as usize).max(1))
                    }
                    _ => ok = false,
                }
            }
        }
        let mut every = 0i32;
        grid.comm.all_reduce_into(&i32::from(ok), &mut every, SystemOperation::min());
        let shared = mine.map(|l| Shared { base: l.ptr as *mut T, values, slot: l.slot, pinned, peers });
        // Dropping it gives the region and the mappings back.
        shared.filter(|_| every == 1)
    }

    /// This rank's storage as a slice, and every rank's storage as mapped here with its leading
    /// dimension.
    pub fn parts(&mut self) -> (&mut [T], &[(*mut T, usize)]) {
        // SAFETY: the region holds at least `values` values of T (`words` above; a region is
        // page-aligned, so aligned for T) and this call holds it (`take`);
        // nothing else in this process uses it, and other ranks write only during conversions.
        (unsafe { std::slice::from_raw_parts_mut(self.base, self.values) }, &self.peers)
    }
}

impl<T: Elem> Shared<T> {
    /// Every rank's storage as mapped in this process and its leading dimension, by rank.
    pub fn peers(&self) -> &[(*mut T, usize)] {
        &self.peers
    }
}

impl<T: Elem> Drop for Shared<T> {
    fn drop(&mut self) {
        let mut st = lock();
        for &(pid, slot) in &self.pinned {
            if let Some(m) = st.mapped.iter_mut().find(|m| m.pid == pid && m.slot == slot) {
                m.pins -= 1;
            }
        }
        release(&mut st, self.slot);
    }
}

/// A value no other process wrote at that address by chance.
fn token() -> u64 {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    ((std::process::id() as u64) << 32) ^ (nanos as u64) ^ 0x9e37_79b9_7f4a_7c15
}

/// A region's fields a call needs, copied out of the lock.
struct Lease {
    slot: usize,
    fd: i32,
    ino: u64,
    ptr: usize,
    values: usize,
}

/// Takes a region of this process with room for `values` values: the smallest free one large
/// enough, else a free slot's region made anew (replacing a smaller one); `None` when every slot
/// is in use or no region can be made.
fn take(values: usize) -> Option<Lease> {
    let mut st = lock();
    let free = |r: &Option<Region>| r.as_ref().is_none_or(|r| !r.busy);
    let fits = (0..SLOTS)
        .filter(|&s| st.regions[s].as_ref().is_some_and(|r| !r.busy && r.values >= values))
        .min_by_key(|&s| st.regions[s].as_ref().map_or(0, |r| r.values));
    let slot = match fits {
        Some(s) => s,
        None => {
            // An empty slot first, else the largest free region (grown).
            let s = (0..SLOTS).find(|&s| st.regions[s].is_none()).or_else(|| {
                (0..SLOTS)
                    .filter(|&s| free(&st.regions[s]))
                    .max_by_key(|&s| st.regions[s].as_ref().map_or(0, |r| r.values))
            })?;
            free_region(&mut st, s);
            st.regions[s] = Some(create(values)?);
            s
        }
    };
    let r = st.regions[slot].as_mut()?;
    r.busy = true;
    Some(Lease { slot, fd: r.fd, ino: r.ino, ptr: r.ptr, values: r.values })
}

/// Gives slot `slot`'s region back. Beyond the bound on kept memory ([`crate::tile::recycle`],
/// `HETLA_KEEP_MEMORY`) the region is not kept, and neither are the mappings of the other
/// processes' regions in that slot (they are as large).
fn release(st: &mut State, slot: usize) {
    let Some(r) = st.regions[slot].as_mut() else { return };
    r.busy = false;
    let kept: usize = st.regions.iter().flatten().map(|r| r.values * 8).sum();
    if kept > crate::tile::recycle::budget() {
        free_region(st, slot);
        let (gone, keep): (Vec<Mapping>, Vec<Mapping>) =
            st.mapped.drain(..).partition(|m| m.slot == slot && m.pins == 0);
        st.mapped = keep;
        gone.into_iter().for_each(unmap);
    }
}

/// Unmaps and closes slot `slot`'s region, if any (no call may hold it).
fn free_region(st: &mut State, slot: usize) {
    if let Some(r) = st.regions[slot].take() {
        // SAFETY: no call of this process holds the region; other processes keep their own
        // mappings of the memfd until they replace them.
        unsafe {
            libc::munmap(r.ptr as *mut libc::c_void, r.values * 8);
            libc::close(r.fd);
        }
    }
}

/// A new region of `values` values: a memfd of that size mapped shared, its pages made at once
/// (`MAP_POPULATE`: one call instead of a page fault per 4 KiB touched; a pdgetrf of N = 4000 on
/// 2×1 converted in 36 ms instead of 58 on its first call, the call 0.45 s instead of 0.47-0.49).
fn create(values: usize) -> Option<Region> {
    let bytes = values.checked_mul(8)?;
    // SAFETY: plain system calls on a descriptor this function owns; every failure closes it.
    unsafe {
        let fd = libc::memfd_create(c"hetla-tiles".as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let mut st: libc::stat = std::mem::zeroed();
        if libc::ftruncate(fd, bytes as libc::off_t) != 0 || libc::fstat(fd, &mut st) != 0 {
            libc::close(fd);
            return None;
        }
        let p = libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_POPULATE,
            fd,
            0,
        );
        if p == libc::MAP_FAILED {
            libc::close(fd);
            return None;
        }
        Some(Region { fd, ino: st.st_ino, ptr: p as usize, values, busy: false })
    }
}

/// Where process `pid`'s region in slot `slot` (its descriptor `fd`, inode `ino`, at least
/// `bytes` long) is mapped in this process, mapping it if needed (all its pages at once: the
/// owner made them before publishing it).
fn map_peer(st: &mut State, pid: i32, slot: usize, fd: i32, ino: u64, bytes: usize) -> Option<usize> {
    st.uses += 1;
    let uses = st.uses;
    if let Some(i) = st.mapped.iter().position(|m| m.pid == pid && m.slot == slot) {
        let m = &mut st.mapped[i];
        if m.ino == ino && m.bytes >= bytes {
            m.last_use = uses;
            m.pins += 1;
            return Some(m.ptr);
        }
        // The region in that slot changed (it grew): the old one goes, unless a running call
        // still uses it (then this call does not share).
        if m.pins > 0 {
            return None;
        }
        unmap(st.mapped.swap_remove(i));
    }
    while st.mapped.len() >= MAX_MAPPED {
        let oldest = (0..st.mapped.len())
            .filter(|&i| st.mapped[i].pins == 0)
            .min_by_key(|&i| st.mapped[i].last_use)?;
        unmap(st.mapped.swap_remove(oldest));
    }
    let path = std::ffi::CString::new(format!("/proc/{pid}/fd/{fd}")).ok()?;
    // SAFETY: plain system calls on a descriptor this function owns (closed before returning;
    // the mapping stays valid without it).
    let p = unsafe {
        let f = libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if f < 0 {
            return None;
        }
        let mut s: libc::stat = std::mem::zeroed();
        let same = libc::fstat(f, &mut s) == 0 && s.st_ino == ino && s.st_size as usize >= bytes;
        let p = if same {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                f,
                0,
            )
        } else {
            libc::MAP_FAILED
        };
        libc::close(f);
        p
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    st.mapped.push(Mapping { pid, slot, ino, ptr: p as usize, bytes, last_use: uses, pins: 1 });
    Some(p as usize)
}

fn unmap(m: Mapping) {
    // SAFETY: a mapping made by `map_peer` that no running call uses (no pins; every caller
    // checks), so nothing reads or writes through it any more.
    unsafe { libc::munmap(m.ptr as *mut libc::c_void, m.bytes) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state is process-wide: these tests take turns.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn give_back(l: &Lease) {
        release(&mut lock(), l.slot);
    }

    #[test]
    fn each_call_takes_a_region_of_its_own_until_the_slots_run_out() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let leases: Vec<Lease> = (0..SLOTS).map(|k| take(1000 + k).expect("a free slot")).collect();
        let mut slots: Vec<usize> = leases.iter().map(|l| l.slot).collect();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots.len(), SLOTS, "every call its own slot");
        assert!(leases.iter().all(|l| l.values >= 1000));
        assert!(take(10).is_none(), "every slot is in use");
        // A region given back is taken again as it is when it is large enough.
        let (slot, ptr) = (leases[1].slot, leases[1].ptr);
        give_back(&leases[1]);
        let again = take(1001).expect("the region given back");
        assert_eq!((again.slot, again.ptr), (slot, ptr));
        give_back(&again);
        // ... and made anew, larger, when it is not.
        let grown = take(1 << 20).expect("a grown region");
        assert_eq!(grown.slot, slot);
        assert!(grown.values >= 1 << 20);
        // SAFETY: the whole grown region is this test's.
        unsafe { std::slice::from_raw_parts_mut(grown.ptr as *mut f64, 1 << 20).fill(1.5) };
        give_back(&grown);
        for (k, l) in leases.iter().enumerate() {
            if k != 1 {
                give_back(l);
            }
        }
    }

    #[test]
    fn a_mapped_region_is_the_same_memory_and_a_wrong_inode_is_refused() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let l = take(4096).expect("a free slot");
        let pid = std::process::id() as i32;
        let mut st = lock();
        // Another slot number, so this mapping does not stand for the region's own entry.
        let at = map_peer(&mut st, pid, 7, l.fd, l.ino, 4096 * 8).expect("mapped through /proc");
        assert_ne!(at, l.ptr, "a second mapping of the same memfd");
        assert!(map_peer(&mut st, pid, 8, l.fd, l.ino + 1, 8).is_none(), "another file at that descriptor");
        assert!(map_peer(&mut st, pid, 9, l.fd, l.ino, (l.values + 1) * 8).is_none(), "a region too small");
        for m in st.mapped.iter_mut().filter(|m| m.pid == pid) {
            m.pins = 0;
        }
        drop(st);
        // SAFETY: both addresses map the same 4096 values of this test's region.
        unsafe {
            *(l.ptr as *mut f64).add(4095) = 42.0;
            assert_eq!(*(at as *const f64).add(4095), 42.0);
            *(at as *mut f64).add(17) = -3.0;
            assert_eq!(*(l.ptr as *const f64).add(17), -3.0);
        }
        let mut st = lock();
        let mine: Vec<usize> = (0..st.mapped.len()).filter(|&i| st.mapped[i].pid == pid).collect();
        for i in mine.into_iter().rev() {
            unmap(st.mapped.swap_remove(i));
        }
        release(&mut st, l.slot);
    }
}
