//! Large buffers kept from one call to the next.
//!
//! A distributed call allocates big buffers (the rank's tile matrix, the send and receive
//! buffers of each conversion, each as large as the rank's part of the matrix, and the copies of
//! the tiles and panels it receives) and frees them when it returns. The C allocator hands buffers that large straight back to the kernel, so
//! the next call gets fresh pages and pays one page fault for every 4 KiB it touches. Measured on
//! the 2-core development VM (pdgetrf N = 4000, caller NB = 32, 1×2 grid): converting in and
//! out took 0.3-0.55 s on fresh pages against 0.04-0.05 s on reused ones, out of a 0.62 s
//! factorization; the reference ScaLAPACK works in the caller's arrays and pays none of it.
//!
//! [`take`] returns a zero-filled buffer, from this cache when it holds one large enough, and
//! [`give`] keeps a buffer for later. What the cache keeps is bounded: buffers from
//! `MIN_BYTES` up, at most `MAX_BUFFERS` of them, together at most an eighth of the
//! machine's memory (`HETLA_KEEP_MEMORY` sets that bound in bytes, with K, M or G; 0 keeps
//! nothing). The program's own allocations are not affected (no allocator setting changes).

use std::sync::Mutex;

/// Smaller buffers go to and come from the allocator directly.
pub(crate) const MIN_BYTES: usize = 1 << 20;
/// At most this many buffers are kept.
pub(crate) const MAX_BUFFERS: usize = 64;

static KEPT: Mutex<Vec<Vec<f64>>> = Mutex::new(Vec::new());

/// The cache's lock (also taken around a fork, by [`crate::fork`]).
pub(crate) fn lock() -> std::sync::MutexGuard<'static, Vec<Vec<f64>>> {
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// The most bytes the cache keeps.
pub(crate) fn budget() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        if let Ok(v) = std::env::var("HETLA_KEEP_MEMORY") {
            if let Some(b) = crate::config::parse_bytes(&v) {
                return b;
            }
            crate::error::say(format_args!(
                "hetla: HETLA_KEEP_MEMORY={v} is not a size; keeping the default"
            ));
        }
        // SAFETY: sysconf only reads system constants.
        let (pages, size) =
            unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
        if pages > 0 && size > 0 {
            (pages as usize).saturating_mul(size as usize) / 8
        } else {
            0
        }
    })
}

/// A zero-filled buffer of `len` values: a kept one when one is large enough (the smallest such),
/// else a new one.
pub fn take(len: usize) -> Vec<f64> {
    match kept(len) {
        Some(mut v) => {
            v.fill(0.0);
            v
        }
        None => vec![0.0; len],
    }
}

/// A buffer of `len` values for storage its user writes before reading (DBTSV's AF): a kept one
/// as it was left (no zero fill, which costs a pass over the memory: about 5 ms for the 33 MB AF
/// of 512 block rows of 64×64), else a new zero-filled one.
///
/// `HETLA_TEST_POISON_SCRATCH=1` (a test hook) fills every such buffer with NaN, whatever its
/// size, so that a test shows no scratch value is read before it is written: with it on, a read
/// of stale storage turns the result into NaN.
pub fn take_scratch(len: usize) -> Vec<f64> {
    let mut v = kept(len).unwrap_or_else(|| vec![0.0; len]);
    if poison() {
        v.fill(f64::NAN);
    }
    v
}

/// Whether `HETLA_TEST_POISON_SCRATCH=1` is set.
pub(crate) fn poison() -> bool {
    static POISON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *POISON.get_or_init(|| std::env::var("HETLA_TEST_POISON_SCRATCH").is_ok_and(|v| v == "1"))
}

/// The smallest kept buffer of at least `len` values, cut to `len` (its old contents), if any.
fn kept(len: usize) -> Option<Vec<f64>> {
    if len * 8 < MIN_BYTES {
        return None;
    }
    let mut kept = lock();
    let best = (0..kept.len()).filter(|&i| kept[i].capacity() >= len).min_by_key(|&i| kept[i].capacity())?;
    let mut v = kept.swap_remove(best);
    drop(kept);
    v.truncate(len);
    v.resize(len, 0.0);
    Some(v)
}

/// Keeps `v` for a later [`take`] when it is large and there is room; otherwise frees it. When
/// the cache is full, the smallest buffers make room for a larger one.
pub fn give(v: Vec<f64>) {
    let bytes = v.capacity() * 8;
    let budget = budget();
    if bytes < MIN_BYTES || bytes > budget {
        return;
    }
    let mut kept = lock();
    kept.push(v);
    kept.sort_by_key(|b| std::cmp::Reverse(b.capacity()));
    let mut total = 0;
    let keep = kept
        .iter()
        .take(MAX_BUFFERS)
        .take_while(|b| {
            total += b.capacity() * 8;
            total <= budget
        })
        .count();
    let dropped: Vec<Vec<f64>> = kept.drain(keep..).collect();
    drop(kept);
    drop(dropped);
}

/// Bytes the cache holds now.
pub fn kept_bytes() -> usize {
    KEPT.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|b| b.capacity() * 8).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_buffer_comes_back_zeroed_and_small_ones_are_not_kept() {
        // The cache is process-wide: use sizes no other test asks for.
        let len = (MIN_BYTES / 8) * 3 + 17;
        let mut v = take(len);
        assert_eq!(v.len(), len);
        v.iter_mut().for_each(|x| *x = 7.0);
        let ptr = v.as_ptr();
        give(v);
        let w = take(len - 5);
        assert_eq!(w.as_ptr(), ptr, "the kept buffer is reused");
        assert_eq!(w.len(), len - 5);
        assert!(w.iter().all(|&x| x == 0.0), "a reused buffer is zero-filled");
        give(w);

        let small = vec![1.0; 100];
        let before = kept_bytes();
        give(small);
        assert_eq!(kept_bytes(), before, "buffers under MIN_BYTES are freed");
    }

    #[test]
    fn the_cache_stays_within_its_count() {
        let base = (MIN_BYTES / 8) * 5;
        let bufs: Vec<Vec<f64>> = (0..MAX_BUFFERS + 3).map(|i| take(base + i)).collect();
        for b in bufs {
            give(b);
        }
        let n = KEPT.lock().unwrap().len();
        assert!(n <= MAX_BUFFERS, "{n} buffers kept");
        assert!(kept_bytes() <= budget());
    }
}
