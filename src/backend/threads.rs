//! Single-threaded BLAS inside the library's workers.
//!
//! The tile workers run one BLAS kernel each, so the backend must not spawn its own threads
//! underneath them (ARCHITECTURE.md, decision 2). OpenBLAS's thread count is process-wide, so the first
//! concurrent hetla call saves it and sets 1, and the last one to leave restores it: the
//! application sees the same setting after the call as before.

use std::sync::{Mutex, OnceLock};

pub(crate) struct Saved {
    active: usize,
    saved: i32,
}

static STATE: Mutex<Saved> = Mutex::new(Saved { active: 0, saved: 1 });

type GetFn = unsafe extern "C" fn() -> i32;
type SetFn = unsafe extern "C" fn(i32);

fn fns() -> Option<(GetFn, SetFn)> {
    static F: OnceLock<Option<(usize, usize)>> = OnceLock::new();
    let f = F.get_or_init(|| {
        let g = super::lookup("openblas_get_num_threads");
        let s = super::lookup("openblas_set_num_threads");
        (!g.is_null() && !s.is_null()).then_some((g as usize, s as usize))
    });
    // SAFETY: both addresses are OpenBLAS's exported functions with these signatures.
    f.map(|(g, s)| unsafe {
        (std::mem::transmute::<usize, GetFn>(g), std::mem::transmute::<usize, SetFn>(s))
    })
}

/// The saved thread count's lock (also taken around a fork, by [`crate::fork`]).
pub(crate) fn lock() -> std::sync::MutexGuard<'static, Saved> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// In a forked child: the calls that had set the BLAS to one thread ran in the parent's other
/// threads, which the child does not have. Give the program its own setting back and count none.
pub(crate) fn after_fork_in_child(st: &mut Saved) {
    if st.active > 0 {
        if let Some((_, set)) = fns() {
            // SAFETY: as in `BlasThreadsGuard`; the child's one thread runs it.
            unsafe { set(st.saved) };
        }
    }
    st.active = 0;
}

/// While alive, the backend BLAS runs single-threaded; dropping the last guard restores the
/// thread count the application had.
pub struct BlasThreadsGuard(());

impl BlasThreadsGuard {
    pub fn new() -> Self {
        let mut st = lock();
        if st.active == 0 {
            if let Some((get, set)) = fns() {
                // SAFETY: plain calls into OpenBLAS's thread-count API.
                unsafe {
                    st.saved = get();
                    set(1);
                }
            }
        }
        st.active += 1;
        BlasThreadsGuard(())
    }
}

impl Default for BlasThreadsGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for BlasThreadsGuard {
    fn drop(&mut self) {
        let mut st = lock();
        st.active -= 1;
        if st.active == 0 {
            if let Some((_, set)) = fns() {
                // SAFETY: as above.
                unsafe { set(st.saved) };
            }
        }
    }
}
