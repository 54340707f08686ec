//! Fork safety: what a `fork()` in another thread of the program must not break.
//!
//! A forked child has one thread, a copy of the one that called `fork`. Any lock that another
//! thread held at that moment stays held in the child forever, and the child's next hetla call
//! that needs it waits without end. The library's process-wide locks are few (the saved BLAS
//! thread count, the kept large buffers, the learned break-even sizes, the trace files started,
//! the distributed tiles' shared memory),
//! so one set of `pthread_atfork` handlers takes them all before the fork and releases them after
//! it, in the parent and in the child, the way the C library treats its allocator's locks. The
//! child then also forgets what belonged to the parent's threads: the worker pool (its threads do
//! not exist there) and the calls in flight that had set the BLAS to one thread.
//!
//! The verbose lines need no lock ([`crate::error::say`] writes each line with one `write`).

use std::cell::RefCell;
use std::sync::{MutexGuard, Once};

/// The locks held from the prepare handler to the parent or child handler, in the forking thread.
struct Held {
    /// Also reset in the child.
    blas: MutexGuard<'static, crate::backend::threads::Saved>,
    // Held only, to be released after the fork.
    _kept: MutexGuard<'static, Vec<Vec<f64>>>,
    _learned: MutexGuard<'static, Option<crate::api::tune::State>>,
    _traces: MutexGuard<'static, Vec<String>>,
    /// Also reset in the child.
    shared: MutexGuard<'static, crate::dist::shm::State>,
}

thread_local! {
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// Registers the handlers, once per process. Every exported entry point and the worker pool call
/// it before they take any of the locks, so no lock is used before the handlers exist.
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers three plain extern "C" functions without arguments; they touch only
        // this library's statics and the forking thread's own thread-local slot.
        unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
    });
}

/// Before the fork: take every lock, always in this order (no code path holds one of them while
/// taking another, so the order cannot deadlock against a running call).
extern "C" fn prepare() {
    let held = Held {
        blas: crate::backend::threads::lock(),
        _kept: crate::tile::recycle::lock(),
        _learned: crate::api::tune::lock(),
        _traces: crate::runtime::trace::lock(),
        shared: crate::dist::shm::lock(),
    };
    HELD.with(|h| *h.borrow_mut() = Some(held));
}

/// After the fork, in the parent: release them.
extern "C" fn parent() {
    HELD.with(|h| drop(h.borrow_mut().take()));
}

/// After the fork, in the child: forget the parent's threads' state, then release the locks (the
/// child's thread is the one that took them, so releasing them there is sound).
extern "C" fn child() {
    if let Some(mut held) = HELD.with(|h| h.borrow_mut().take()) {
        crate::backend::threads::after_fork_in_child(&mut held.blas);
        crate::dist::shm::after_fork_in_child(&mut held.shared);
    }
    crate::runtime::after_fork_in_child();
}
