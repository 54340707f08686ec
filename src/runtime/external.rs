//! Hooks for work that completes outside the pool: the distributed runtime's messages.
//!
//! Two things are added to the shared-memory runtime, and nothing else in it changes:
//!
//! * **Held tasks.** [`Seq::submit_held`] submits a task with one extra, external dependency: it
//!   becomes ready only once its tile dependencies are granted *and* [`Releaser::release`] has been
//!   called for it. The distributed layer uses one per received tile (version): the task declares
//!   a write of the local copy, its readers queue behind it as usual (APPEND/FIRE), and the master
//!   releases it when the message has arrived and been copied in.
//! * **A progress callback** run by the master ([`Seq::with_progress`]). While it is installed,
//!   the master calls it (with the pool's lock released) before each of its scheduling steps, and
//!   when it has nothing to run it sleeps on the pool's condition variable for at most
//!   [`POLL_SLEEP`] instead of indefinitely, because a message arriving from another process does
//!   not signal the condition variable. Workers never run it: it lives in a thread-local of the
//!   thread that installed it, which is how MPI calls stay on the calling thread
//!   (`MPI_THREAD_FUNNELED`, ARCHITECTURE.md, decision 3).
//!
//! This file is a child module of `pool` so that it can reach the pool's private state; `pool.rs`
//! itself only calls [`poll`] and [`idle_wait`] from the master's step.

use super::{lock, Pool, Shared};
use crate::error::Error;
use crate::runtime::{Ctx, Seq, Task};
use std::cell::Cell;
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

/// Longest sleep of a master that has a progress callback and nothing ready to run.
pub const POLL_SLEEP: Duration = Duration::from_micros(200);

/// How long a master with a progress callback that has just run out of work polls without
/// sleeping (yielding the core between polls): a reply to a message it has just sent, the next
/// pivot candidate of a split LU panel for instance, is usually that close, and a sleep would
/// add up to [`POLL_SLEEP`] to every such round trip.
pub const POLL_SPIN: Duration = Duration::from_micros(1000);

type Hook = *mut (dyn FnMut() + 'static);

thread_local! {
    static PROGRESS: Cell<Option<Hook>> = const { Cell::new(None) };
    /// When this master last ran out of work (`None` while it has work).
    static IDLE_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// A task submitted with [`Seq::submit_held`], waiting for [`Releaser::release`].
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Held(u64);

impl Seq {
    /// Like [`Seq::submit`], but the task also waits for [`Releaser::release`] of the returned handle.
    pub fn submit_held(
        &self,
        task: Task,
        job: impl FnOnce(&Ctx) -> Result<(), Error> + Send + 'static,
    ) -> Held {
        // The external dependency counts as one more pending grant, so the task can reach the
        // ready queue only through the grant `release` gives.
        Held(self.inner.submit_pending(task, Box::new(job), 1))
    }

    /// A handle that releases this sequence's held tasks (see [`Releaser`]).
    pub fn releaser(&self) -> Releaser {
        Releaser { pool: self.inner.pool, id: self.inner.id }
    }

    /// Runs `f` (which submits to and waits on this sequence, handed over by value so that it can
    /// call [`Seq::wait`]) with `progress` installed as the calling thread's progress callback.
    /// Only this thread ever calls it.
    pub fn with_progress<R>(self, progress: &mut dyn FnMut(), f: impl FnOnce(Seq) -> R) -> R {
        struct Restore(Option<Hook>);
        impl Drop for Restore {
            fn drop(&mut self) {
                PROGRESS.with(|p| p.set(self.0));
            }
        }
        // SAFETY: only the lifetime is erased. The pointer is stored in this thread's slot for
        // the duration of `f` and the previous value is put back by `Restore` before `progress`'s
        // borrow ends (also when `f` unwinds), so it is never used after the borrow.
        let hook: Hook = unsafe { std::mem::transmute::<&mut dyn FnMut(), Hook>(progress) };
        let _restore = Restore(PROGRESS.with(|p| p.replace(Some(hook))));
        f(self)
    }
}

/// Releases held tasks of one sequence; `Copy`, so the progress callback can own one while the
/// sequence itself is being waited on.
#[derive(Clone, Copy)]
pub struct Releaser {
    pool: &'static Pool,
    id: u64,
}

impl Releaser {
    /// Gives a held task its external dependency; it runs once its tile dependencies allow.
    pub fn release(&self, held: Held) {
        let mut g = lock(self.pool);
        let st = g.seqs.get_mut(&self.id).expect("a held task's sequence is alive");
        st.grant(held.0);
        self.pool.cv.notify_all();
    }

    /// The sequence's failure so far, if a task has failed (or the sequence is gone: `None`).
    pub fn failure(&self) -> Option<Error> {
        lock(self.pool).seqs.get(&self.id).and_then(|st| st.failed.clone())
    }
}

/// Runs this thread's progress callback, if it has one, with the lock released.
pub(super) fn poll<'a>(p: &'a Pool, g: MutexGuard<'a, Shared>) -> MutexGuard<'a, Shared> {
    let Some(hook) = PROGRESS.with(|c| c.get()) else { return g };
    drop(g);
    // The slot is emptied while the callback runs, so a callback that (wrongly) ends up in a
    // scheduling step cannot re-enter itself.
    PROGRESS.with(|c| c.set(None));
    // SAFETY: the pointer was installed by `with_progress` on this thread and stays valid until
    // that call returns, which cannot happen while this thread is inside the callback.
    unsafe { (*hook)() };
    PROGRESS.with(|c| c.set(Some(hook)));
    lock(p)
}

/// The master found a task to run: its next idle wait starts with [`POLL_SPIN`] again.
pub(super) fn busy() {
    IDLE_SINCE.with(|c| c.set(None));
}

/// The master's wait when it has nothing to run: while a progress callback is installed, a yield
/// of the core for the first [`POLL_SPIN`] of idleness, then sleeps of at most [`POLL_SLEEP`];
/// without one, until woken.
pub(super) fn idle_wait<'a>(p: &'a Pool, g: MutexGuard<'a, Shared>) -> MutexGuard<'a, Shared> {
    if PROGRESS.with(|c| c.get()).is_some() {
        let since = IDLE_SINCE.with(|c| {
            let t = c.get().unwrap_or_else(Instant::now);
            c.set(Some(t));
            t
        });
        if since.elapsed() < POLL_SPIN {
            drop(g);
            std::thread::yield_now();
            return lock(p);
        }
        p.cv.wait_timeout(g, POLL_SLEEP).map(|r| r.0).unwrap_or_else(|e| e.into_inner().0)
    } else {
        p.cv.wait(g).unwrap_or_else(|e| e.into_inner())
    }
}
