//! The device memory manager and the coherence directory, after libaccelmm (Park and Perumalla,
//! seeds 003): per device a table from host tile to device buffer, valid bits on both sides, lazy
//! transfers in the needed direction only, tiles locked while a kernel uses them, LRU eviction
//! with write-back of data only the device holds.
//!
//! State of a tile (identified by its dependency key):
//!
//! * *host-valid*: the caller's memory holds the current value. Every tile starts so.
//! * per device, *resident*: a buffer holds a copy; the copy is current iff it is in the table
//!   (stale copies are freed at once, so "resident" means "device-valid").
//!
//! Invariant: a tile is host-valid, or exactly one device holds it (the one whose kernel wrote it
//! last). Transitions:
//!
//! | event | action |
//! |---|---|
//! | device task on d reads X, X not on d | if no host copy, copy out from the holder first; copy in |
//! | device task on d writes X | after that: host-invalid, copies on other devices freed |
//! | host task reads X, X host-invalid | copy out from the holder (which stays valid) |
//! | host task writes X | fetch as above, then free every device copy |
//! | d needs room | evict its least recently used unlocked buffer, writing it back if it is the only copy |
//! | end of the sequence | write back every host-invalid tile, free everything |
//!
//! Why this is race-free: the runtime's dependency lists give a task exclusive access to the tiles
//! it writes and shared access to those it reads, and every step above for one tile happens under
//! the directory's lock, by the task that accesses the tile (or by an eviction, which only picks
//! buffers no running task has locked; a host task's reads leave device copies valid and writes
//! free them before the task's body runs). So a copy never overlaps a kernel or a host body
//! touching the same tile. Copies happen with the lock held: simple, and cheap for the emulated
//! device; a CUDA device may later release it around copies of locked tiles.
//!
//! Capacity of a device for tiles: its memory minus a reserve ([`reserve`]) for kernel workspace
//! and the allocator's slack.

use super::{DevBuf, DevStats, DevTile, Device, HostBlock};
use crate::error::Error;
use crate::runtime::deps::Mode;
use crate::runtime::trace::{self, Event};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// Bytes of a device's memory kept out of the tile tables: 1/16 of it, for kernel workspace and
/// the allocator's rounding and fragmentation.
pub fn reserve(memory: usize) -> usize {
    memory / 16
}

/// One declared tile of a task, as the memory manager sees it.
#[derive(Clone, Copy, Debug)]
pub struct TileUse {
    pub key: u64,
    pub mode: Mode,
    pub loc: HostBlock,
}

struct Resident {
    buf: DevBuf,
    /// The host tile this copy mirrors (shape and address for copies out).
    loc: HostBlock,
    /// Kernels of running tasks using it (locked while > 0).
    pins: u32,
    /// LRU clock value of the last use.
    stamp: u64,
}

struct Table {
    dev: Arc<dyn Device>,
    bufs: HashMap<u64, Resident>,
    used: usize,
    capacity: usize,
    stats: DevStats,
}

struct Inner {
    /// Tiles that are not host-valid, each with the device holding the only copy.
    held: HashMap<u64, usize>,
    /// The caller's tiles as they were before this sequence first overwrote them (by a host task
    /// that writes, or by a copy out), in the order taken; put back if a device fails.
    backups: Vec<(HostBlock, Vec<u8>)>,
    backed_up: std::collections::HashSet<(usize, usize, usize, usize)>,
    /// A device of this sequence failed ([`super::is_device_failure`]): its tiles are lost.
    failed: Option<Error>,
    tables: Vec<Table>,
    clock: u64,
    events: Option<Vec<Event>>,
}

/// The directory of one sequence: which copies of which tiles are current where.
pub struct Directory {
    inner: Mutex<Inner>,
}

fn tid() -> u32 {
    crate::runtime::trace_tid()
}

impl Directory {
    /// A directory over `devices`; transfer events are recorded when `tracing`.
    pub fn new(devices: &[Arc<dyn Device>], tracing: bool) -> Self {
        let tables = devices
            .iter()
            .map(|d| Table {
                dev: d.clone(),
                bufs: HashMap::new(),
                used: 0,
                capacity: d.memory() - reserve(d.memory()),
                stats: DevStats { device: d.name(), ..Default::default() },
            })
            .collect();
        Directory {
            inner: Mutex::new(Inner {
                held: HashMap::new(),
                backups: Vec::new(),
                backed_up: Default::default(),
                failed: None,
                tables,
                clock: 0,
                events: tracing.then(Vec::new),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Copies and bookkeeping under the lock do not panic on valid state; if one did, the
        // sequence fails anyway and the data is as good as it was.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes every tile of a host task current on the host: fetches tiles only a device holds,
    /// and for tiles the task writes, frees every device copy (they become stale).
    pub fn prepare_host(&self, uses: &[TileUse]) -> Result<(), Error> {
        let mut g = self.lock();
        let inner = &mut *g;
        for u in uses {
            inner.fetch_to_host(u.key).map_err(|e| inner.note(e))?;
            if u.mode.writes() {
                inner.backup(u.loc);
                for d in 0..inner.tables.len() {
                    inner.drop_copy(d, u.key);
                }
            }
        }
        Ok(())
    }

    /// Records that a device failed while running this sequence's task (`e` from
    /// [`Device::execute`]); [`Directory::flush`] then restores the caller's tiles.
    pub fn note_failure(&self, e: &Error) {
        if super::is_device_failure(e) {
            let mut g = self.lock();
            g.failed.get_or_insert_with(|| e.clone());
        }
    }

    /// Makes every tile of a device task current on device `d` and locks it there. Returns the
    /// resident tiles by declared position, or `None` when they cannot all fit even after
    /// evicting every unlocked buffer (the task then runs on the host; nothing stays locked, nor
    /// after an error).
    pub fn acquire(&self, d: usize, uses: &[TileUse]) -> Result<Option<Vec<DevTile>>, Error> {
        let mut g = self.lock();
        let inner = &mut *g;
        let mut pinned = 0;
        let r = inner.acquire(d, uses, &mut pinned);
        if !matches!(r, Ok(Some(_))) {
            for q in &uses[..pinned] {
                inner.unpin(d, q.key);
            }
        }
        r.map_err(|e| inner.note(e))
    }

    /// How many of the tiles that `uses` reads (writes without reading need no copy) are not
    /// current in node `d`'s memory (`None`: the host) and would have to be copied there.
    pub fn missing(&self, d: Option<usize>, uses: &[TileUse]) -> usize {
        let g = self.lock();
        uses.iter()
            .filter(|u| u.mode != Mode::Write)
            .filter(|u| match d {
                None => g.held.contains_key(&u.key),
                Some(d) => g.tables[d].bufs.get(&u.key).is_none_or(|r| r.loc != u.loc),
            })
            .count()
    }

    /// Copies the tiles `uses` in to device `d` ahead of the tasks that will read them, as far
    /// as they fit in its free memory (nothing is evicted for them, nothing is locked). Only for
    /// tiles that no task of the sequence writes (a matrix product's A and B), so that a copy
    /// taken now is still current when it is used.
    pub fn prefetch(&self, d: usize, uses: &[TileUse]) -> Result<(), Error> {
        let mut g = self.lock();
        let inner = &mut *g;
        inner.clock += 1;
        let stamp = inner.clock;
        for u in uses {
            debug_assert_eq!(u.mode, Mode::Read, "only read-only tiles are prefetched");
            if inner.tables[d].bufs.contains_key(&u.key) || inner.held.contains_key(&u.key) {
                continue;
            }
            let t = &inner.tables[d];
            if t.used + u.loc.bytes() > t.capacity {
                return Ok(());
            }
            let Some(buf) = t.dev.alloc(u.loc.bytes()) else { return Ok(()) };
            if let Err(e) = inner.fill(d, u, &buf) {
                inner.tables[d].dev.free(buf);
                return Err(inner.note(e));
            }
            let t = &mut inner.tables[d];
            t.used += buf.bytes;
            t.bufs.insert(u.key, Resident { buf, loc: u.loc, pins: 0, stamp });
        }
        Ok(())
    }

    /// Evicts every unlocked buffer of device `d` (writing back what only it holds), so that a
    /// kernel that ran out of memory for its workspace can retry.
    pub fn evict_unlocked(&self, d: usize) -> Result<(), Error> {
        let mut g = self.lock();
        let inner = &mut *g;
        while inner.evict_one(d).map_err(|e| inner.note(e))? {}
        Ok(())
    }

    /// Unlocks the tiles of a device task after its kernel has completed.
    pub fn release(&self, d: usize, uses: &[TileUse]) {
        let mut g = self.lock();
        for u in uses {
            g.unpin(d, u.key);
        }
    }

    /// End of the sequence: every tile only a device holds goes back to the host, and every
    /// buffer is freed.
    ///
    /// If a device failed during the sequence (or fails now, writing back), what it held is lost:
    /// every tile of the caller's that the sequence overwrote is put back as it was before the
    /// sequence, and the failure is returned, so that the call can be redone without that device.
    pub fn flush(&self) -> Result<(), Error> {
        let mut g = self.lock();
        let inner = &mut *g;
        let keys: Vec<u64> = inner.held.keys().copied().collect();
        let mut first_err = None;
        for k in keys {
            if inner.failed.is_some() {
                break;
            }
            if let Err(e) = inner.fetch_to_host(k) {
                let e = inner.note(e);
                first_err.get_or_insert(e);
            }
        }
        if let Some(e) = inner.failed.clone() {
            inner.held.clear();
            for d in 0..inner.tables.len() {
                let keys: Vec<u64> = inner.tables[d].bufs.keys().copied().collect();
                for k in keys {
                    if let Some(r) = inner.tables[d].bufs.get_mut(&k) {
                        r.pins = 0;
                    }
                    inner.drop_copy(d, k);
                }
            }
            inner.restore();
            return Err(e);
        }
        inner.backups.clear();
        inner.backed_up.clear();
        for d in 0..inner.tables.len() {
            let keys: Vec<u64> = inner.tables[d].bufs.keys().copied().collect();
            for k in keys {
                inner.drop_copy(d, k);
            }
        }
        first_err.map_or(Ok(()), Err)
    }

    /// Counters per device so far.
    pub fn stats(&self) -> Vec<DevStats> {
        self.lock().tables.iter().map(|t| t.stats.clone()).collect()
    }

    /// Counts a device task run on device `d`, or sent back to the host.
    pub fn count_task(&self, d: usize, on_device: bool) {
        let mut g = self.lock();
        let s = &mut g.tables[d].stats;
        if on_device {
            s.tasks += 1;
        } else {
            s.host_fallbacks += 1;
        }
    }

    /// The transfer events recorded so far (empty unless tracing).
    pub(crate) fn take_events(&self) -> Vec<Event> {
        self.lock().events.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

impl Inner {
    /// [`Directory::acquire`]'s work; `pinned` counts the leading uses locked so far.
    fn acquire(
        &mut self,
        d: usize,
        uses: &[TileUse],
        pinned: &mut usize,
    ) -> Result<Option<Vec<DevTile>>, Error> {
        self.clock += 1;
        let stamp = self.clock;
        let mut out = Vec::with_capacity(uses.len());
        for (p, u) in uses.iter().enumerate() {
            // A copy of another shape under the same key (a leading part of the matrix) is
            // written back if needed and replaced.
            if self.tables[d].bufs.get(&u.key).is_some_and(|r| r.loc != u.loc) {
                self.fetch_to_host(u.key)?;
                self.drop_copy(d, u.key);
            }
            if !self.tables[d].bufs.contains_key(&u.key) {
                let bytes = u.loc.bytes();
                let Some(buf) = self.make_room_and_alloc(d, bytes)? else { return Ok(None) };
                if u.mode != Mode::Write {
                    // The buffer is in no table yet: given back to the device if the copy fails.
                    if let Err(e) = self.fill(d, u, &buf) {
                        self.tables[d].dev.free(buf);
                        return Err(e);
                    }
                }
                let t = &mut self.tables[d];
                t.used += buf.bytes;
                t.bufs.insert(u.key, Resident { buf, loc: u.loc, pins: 0, stamp });
            }
            let r = self.tables[d].bufs.get_mut(&u.key).expect("resident now");
            r.pins += 1;
            r.stamp = stamp;
            *pinned = p + 1;
            out.push(DevTile { buf: r.buf, m: u.loc.m, n: u.loc.n, elem: u.loc.elem });
        }
        // Writes: d now holds the only current copy.
        for u in uses.iter().filter(|u| u.mode.writes()) {
            self.held.insert(u.key, d);
            for e in (0..self.tables.len()).filter(|&e| e != d) {
                self.drop_copy(e, u.key);
            }
        }
        Ok(Some(out))
    }

    /// Copies the current value of tile `u` into `buf` on device `d`.
    fn fill(&mut self, d: usize, u: &TileUse, buf: &DevBuf) -> Result<(), Error> {
        // The data must be on the host to come in (device-to-device goes through it).
        self.fetch_to_host(u.key)?;
        let t0 = trace::now_us();
        let t = &mut self.tables[d];
        // SAFETY: this task has the tile declared, so nothing writes the host tile while it
        // runs; the copy completes by the task's `sync`, before it finishes.
        unsafe { t.dev.copy_in(&u.loc, buf)? };
        t.stats.bytes_in += u.loc.bytes() as u64;
        t.stats.copies_in += 1;
        self.event("copy_in", d, t0, u.loc);
        Ok(())
    }

    /// Records the first device failure among errors passing through (other errors unchanged).
    fn note(&mut self, e: Error) -> Error {
        if super::is_device_failure(&e) {
            self.failed.get_or_insert_with(|| e.clone());
        }
        e
    }

    /// Keeps the caller's tile `loc` as it is now, the first time this sequence is about to
    /// overwrite it.
    fn backup(&mut self, loc: HostBlock) {
        if self.backed_up.insert((loc.ptr as usize, loc.m, loc.n, loc.ld)) {
            let mut data = vec![0u8; loc.bytes()];
            for j in 0..loc.n {
                let col = loc.m * loc.elem.bytes();
                // SAFETY: the tile is the caller's live memory of this shape, and the task that
                // is about to overwrite it owns it now (its dependencies).
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        loc.ptr.add(j * loc.ld * loc.elem.bytes()),
                        data.as_mut_ptr().add(j * col),
                        col,
                    )
                };
            }
            self.backups.push((loc, data));
        }
    }

    /// Puts every backed-up tile back, latest first (a region backed up under two shapes ends
    /// with its first, original, contents).
    fn restore(&mut self) {
        for (loc, data) in self.backups.drain(..).rev() {
            let col = loc.m * loc.elem.bytes();
            for j in 0..loc.n {
                // SAFETY: as in `backup`; the sequence has drained, nothing else uses the tile.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        data.as_ptr().add(j * col),
                        loc.ptr.add(j * loc.ld * loc.elem.bytes()),
                        col,
                    )
                };
            }
        }
        self.backed_up.clear();
    }

    fn event(&mut self, name: &'static str, d: usize, t0: f64, loc: HostBlock) {
        let device = self.tables[d].stats.device;
        if let Some(ev) = self.events.as_mut() {
            ev.push(Event {
                name,
                tid: tid(),
                ts: t0,
                dur: trace::now_us() - t0,
                dims: [loc.m, loc.n, 0],
                device,
            });
        }
    }

    /// If only a device holds `key`, copies it back to the host (the device copy stays valid).
    fn fetch_to_host(&mut self, key: u64) -> Result<(), Error> {
        let Some(&d) = self.held.get(&key) else { return Ok(()) };
        let t0 = trace::now_us();
        let loc = self.tables[d].bufs.get(&key).expect("the holder has a resident copy").loc;
        self.backup(loc);
        let t = &mut self.tables[d];
        let r = &t.bufs[&key];
        // SAFETY: the tile's task (or the end of the sequence, or an eviction of an unlocked
        // buffer) owns the host tile now, and no kernel writes the buffer: writers hold it only
        // while they run, and a tile held by a running writer is never fetched (dependencies).
        unsafe { t.dev.copy_out(&r.buf, &loc)? };
        // Host-valid only now that the copy has succeeded.
        self.held.remove(&key);
        let t = &mut self.tables[d];
        t.stats.bytes_out += loc.bytes() as u64;
        t.stats.copies_out += 1;
        self.event("copy_out", d, t0, loc);
        Ok(())
    }

    /// Frees `d`'s copy of `key` if it has one. The caller made sure it is not the only copy.
    fn drop_copy(&mut self, d: usize, key: u64) {
        debug_assert!(self.held.get(&key) != Some(&d), "dropping the only copy of a tile");
        let t = &mut self.tables[d];
        if let Some(r) = t.bufs.remove(&key) {
            debug_assert_eq!(r.pins, 0, "dropping a locked tile");
            t.used -= r.buf.bytes;
            t.dev.free(r.buf);
        }
    }

    fn unpin(&mut self, d: usize, key: u64) {
        if let Some(r) = self.tables[d].bufs.get_mut(&key) {
            r.pins = r.pins.saturating_sub(1);
        }
    }

    /// Evicts the least recently used unlocked buffer of `d`, writing it back when the device
    /// holds the only copy. False when every buffer is locked.
    fn evict_one(&mut self, d: usize) -> Result<bool, Error> {
        let victim = self.tables[d]
            .bufs
            .iter()
            .filter(|(_, r)| r.pins == 0)
            .min_by_key(|(_, r)| r.stamp)
            .map(|(&k, _)| k);
        let Some(key) = victim else { return Ok(false) };
        let t0 = trace::now_us();
        let loc = self.tables[d].bufs[&key].loc;
        if self.held.get(&key) == Some(&d) {
            self.fetch_to_host(key)?;
        }
        self.drop_copy(d, key);
        self.tables[d].stats.evictions += 1;
        self.event("evict", d, t0, loc);
        Ok(true)
    }

    /// A buffer of `bytes` on `d` within its capacity, evicting as needed; `None` if even an
    /// empty table of unlocked buffers cannot make room.
    fn make_room_and_alloc(&mut self, d: usize, bytes: usize) -> Result<Option<DevBuf>, Error> {
        loop {
            let t = &self.tables[d];
            if t.used + bytes <= t.capacity {
                if let Some(b) = t.dev.alloc(bytes) {
                    return Ok(Some(b));
                }
            }
            if !self.evict_one(d)? {
                return Ok(None);
            }
        }
    }
}
