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
//!
//! The backend's locks matter too: OpenBLAS 0.3.21 takes a lock of its own in every call that
//! allocates its work buffer (`blas_memory_alloc`), and no fork handler of its own releases it,
//! so a child forked while one of the library's workers was inside such a call waits for it
//! forever (seen in `test_fork`: the child's workers and its calling thread all waiting on that
//! lock). The library's workers make hundreds of backend calls per call, against the caller's
//! one, so the prepare handler first lets the backend calls in flight finish and holds new
//! ones back ([`BackendCall`]) until the fork is done, for at most [`MAX_WAIT`].

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{MutexGuard, Once};
use std::time::{Duration, Instant};

/// Threads inside a backend call made through [`crate::backend::lapack`], and whether a fork is
/// waiting for them.
static IN_BACKEND: AtomicUsize = AtomicUsize::new(0);
static FORKING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's backend calls in progress (the backend's LAPACK calls routines by name, which
    /// may be the library's exports and call the backend again).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// How long the prepare handler waits for the backend calls in flight: tile kernels take
/// milliseconds; a long forwarded call does not hold the fork back longer than this.
pub(crate) const MAX_WAIT: Duration = Duration::from_millis(200);

/// A backend call in progress on this thread, from [`BackendCall::enter`] to its drop. A
/// thread's first one waits while a fork is being prepared.
pub(crate) struct BackendCall(());

impl BackendCall {
    pub(crate) fn enter() -> BackendCall {
        DEPTH.with(|d| {
            if d.get() == 0 {
                loop {
                    while FORKING.load(SeqCst) {
                        std::thread::sleep(Duration::from_micros(50));
                    }
                    IN_BACKEND.fetch_add(1, SeqCst);
                    if !FORKING.load(SeqCst) {
                        break;
                    }
                    IN_BACKEND.fetch_sub(1, SeqCst);
                }
            }
            d.set(d.get() + 1);
        });
        BackendCall(())
    }
}

impl Drop for BackendCall {
    fn drop(&mut self) {
        DEPTH.with(|d| {
            d.set(d.get() - 1);
            if d.get() == 0 {
                IN_BACKEND.fetch_sub(1, SeqCst);
            }
        });
    }
}

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

/// Before the fork: let the backend calls in flight finish and hold new ones back (no thread
/// waiting in [`BackendCall::enter`] holds any of the locks below: none is held across a backend
/// call), then take every lock, always in this order (no code path holds one of them while
/// taking another, so the order cannot deadlock against a running call).
extern "C" fn prepare() {
    FORKING.store(true, SeqCst);
    let mine = usize::from(DEPTH.with(|d| d.get()) > 0);
    let start = Instant::now();
    while IN_BACKEND.load(SeqCst) > mine && start.elapsed() < MAX_WAIT {
        std::thread::sleep(Duration::from_micros(20));
    }
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
    FORKING.store(false, SeqCst);
}

/// After the fork, in the child: forget the parent's threads' state, then release the locks (the
/// child's thread is the one that took them, so releasing them there is sound).
extern "C" fn child() {
    if let Some(mut held) = HELD.with(|h| h.borrow_mut().take()) {
        crate::backend::threads::after_fork_in_child(&mut held.blas);
        crate::dist::shm::after_fork_in_child(&mut held.shared);
    }
    crate::runtime::after_fork_in_child();
    // The child's one thread is the only one that can be inside a backend call.
    IN_BACKEND.store(usize::from(DEPTH.with(|d| d.get()) > 0), SeqCst);
    FORKING.store(false, SeqCst);
}
