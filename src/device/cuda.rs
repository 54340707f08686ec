//! CUDA devices (`HETLA_GPUS` = `all`, `none` or ordinals) through cudarc with *dynamic loading*:
//! `libcuda`, `libcublas` and `libcusolver` are opened at run time, so one binary runs on GPU
//! nodes and on CPU-only nodes (ARCHITECTURE.md, decision 5). cudarc panics when a library is missing,
//! so start-up first asks `is_culib_present()` of each library and runs inside `catch_unwind`;
//! any failure leaves the process CPU-only, said once under `HETLA_VERBOSE`, never an abort.
//!
//! Structure, after Song and Dongarra (seeds 000 §5, 001 §3): one management thread per GPU (the
//! runtime's, [`crate::runtime`]'s devwork) drives the device through this type, and copies
//! overlap computation by **per-GPU copy streams** (not a copy thread): every session has a
//! compute stream for cuBLAS/cuSOLVER, a copy-in stream and a copy-out stream. `copy_in` packs
//! the host tile into one of two pinned staging slots (so packing the next tile overlaps the DMA
//! of the previous one) and queues the transfer on the copy-in stream, then records an event
//! that the compute stream waits on before the next kernel: copies are ordered before the
//! kernels that need them without blocking the host. A tile larger than a slot goes by one 2-D
//! strided copy (`cuMemcpy2DAsync`, source pitch = the caller's leading dimension) straight from
//! the caller's array into the packed buffer. `copy_out` waits for the last kernel through an
//! event, copies on its own stream into a pinned slot and unpacks (or, for large tiles, one 2-D
//! copy into the strided host tile). Stacked operands are gathered and scattered on the device
//! by 2-D device-to-device copies; the op itself is lowered to cuBLAS/cuSOLVER calls by
//! [`super::lower`], whose parameters are unit-tested without a GPU.
//!
//! Kernels: GEMM, SYRK, TRSM (cuBLAS), POTRF (`cusolverDnDpotrf` with its workspace; devInfo
//! becomes the op's INFO, which the runtime turns into `Error::Numerical(info_base + info)`),
//! LASWP (the interchanges composed into one row permutation, two `cublasDgemmBatched` calls of
//! 1×1 by 1×n products through a scratch block; pivots read back from the device), LARFB (two GEMMs,
//! three TRMMs and a GEAM). All of [`DeviceOp`] is supported.
//!
//! Memory: `cuMemAlloc`/`cuMemFree`, with freed buffers of a size cached per session (freeing
//! synchronises the device, and the memory manager frees and allocates tiles of a few sizes
//! constantly); the session's capacity is the free memory `cuMemGetInfo` reports when it opens.
//! The GEMM rate (a short cuBLAS DGEMM) and the link bandwidth (one pinned 64 MiB copy) are
//! measured once per device per process.
//!
//! **Status:** this module is compiled and its device-independent logic unit-tested on machines
//! without CUDA, and the whole module runs against the fake CUDA of `tests/fakecuda`. It ran on
//! real GPUs twice (one H100, one H200, `tests/gpu/run.sh`): the unit tests, `xlintstd` and the
//! C call sites passed there; LASWP, one `cublasDswap` per interchanged row on the H100, was its
//! slowest op there (hence the batched form, correct on the H200).

mod typed;

use super::lower::{self, Call, Lowered, Mat, Shape, Src};
use super::{
    declined, intern, unpack_triangle, with_solver_buffers, DevBuf, DevTile, Device, DeviceOp, Factor,
    HostBlock, Solve,
};
use crate::config::{Config, GpuSelect};
use crate::error::Error;
use crate::kernels::{Diag, Side, Trans, Uplo};
use crate::scalar::{c32, c64};
use crate::tile::Kind;
use cudarc::cublas::sys as cb;
use cudarc::cusolver::sys as cs;
use cudarc::driver::sys as cu;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock};
use typed::CuElem;

/// Bytes of one pinned staging slot (a 1024×1024 f64 tile).
const SLOT_BYTES: usize = 8 << 20;

// ---------------------------------------------------------------------------------------------
// Device-independent logic (unit-tested without a GPU)

/// The CUDA ordinals `sel` picks among `count` devices, and the requested ordinals that do not
/// exist (reported, never an error: `HETLA_GPUS=0` on a CPU-only node runs on the CPU).
pub fn select(sel: &GpuSelect, count: usize) -> (Vec<usize>, Vec<usize>) {
    match sel {
        GpuSelect::All => ((0..count).collect(), Vec::new()),
        GpuSelect::None => (Vec::new(), Vec::new()),
        GpuSelect::Ordinals(v) => (
            v.iter().copied().filter(|&o| o < count).collect(),
            v.iter().copied().filter(|&o| o >= count).collect(),
        ),
    }
}

/// A 2-D copy as `cuMemcpy2D` describes it: `height` columns of `width` bytes, consecutive
/// columns `src_pitch` / `dst_pitch` bytes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy2D {
    pub width: usize,
    pub height: usize,
    pub src_pitch: usize,
    pub dst_pitch: usize,
}

impl Copy2D {
    /// Packed `m`×`n` tile of `sz`-byte elements into rows `r0..` of a block with leading
    /// dimension `ld` (gathering a stack); the offset of the destination is `r0·sz` bytes.
    pub fn tile_into_block(m: usize, n: usize, ld: usize, sz: usize) -> Copy2D {
        Copy2D { width: m * sz, height: n, src_pitch: (m * sz).max(1), dst_pitch: ld * sz }
    }
    /// The reverse of [`Copy2D::tile_into_block`].
    pub fn block_into_tile(m: usize, n: usize, ld: usize, sz: usize) -> Copy2D {
        Copy2D { width: m * sz, height: n, src_pitch: ld * sz, dst_pitch: (m * sz).max(1) }
    }
    /// Whether the copy moves nothing (CUDA rejects zero-width 2-D copies on some drivers).
    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }
}

/// The pieces of at most `SLOT_BYTES` that a transfer of `bytes` goes in through a pinned
/// staging slot: `(offset, length)` in the packed layout.
pub fn chunks(bytes: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..bytes).step_by(SLOT_BYTES).map(move |off| (off, SLOT_BYTES.min(bytes - off)))
}

/// The 8-byte words of a [`Call::Permute`]'s pointer scratch at device address `ptrs`
/// ([`lower::permute_ptrs`]): 1 (two words), then the addresses of that 1 (one per row), of the source
/// rows of the block at `a`, of the rows of `tmp` in order, and of the destination rows (row `r`
/// of a column-major block starts at its element `r`, whatever the leading dimension).
///
/// The elements are `sz` bytes, complex or not: the constant is 1 of that type (its real part's
/// bits in the first word, zeros after).
pub fn permute_words(
    ptrs: u64,
    a: u64,
    tmp: u64,
    moves: &[(usize, usize)],
    sz: usize,
    complex: bool,
) -> Vec<u64> {
    let row = |base: u64, r: usize| base + (sz * r) as u64;
    let mut w = Vec::with_capacity(lower::permute_ptrs(moves.len()));
    let part = if complex { sz / 2 } else { sz };
    w.push(if part == 4 { u64::from(1.0f32.to_bits()) } else { 1.0f64.to_bits() });
    w.push(0);
    w.extend(moves.iter().map(|_| ptrs));
    w.extend(moves.iter().map(|&(_, src)| row(a, src)));
    w.extend((0..moves.len()).map(|t| row(tmp, t)));
    w.extend(moves.iter().map(|&(dst, _)| row(a, dst)));
    w
}

/// Copies bytes `off..off + out.len()` of the packed layout of host tile `b` (columns of
/// `b.m·b.elem.bytes()` bytes, one after the other) into `out`.
///
/// # Safety
/// `b.ptr` must be readable for the tile's shape (`n` columns `ld·elem` bytes apart).
pub unsafe fn pack(b: &HostBlock, off: usize, out: &mut [u8]) {
    let col = b.m * b.elem.bytes();
    let mut p = off;
    while p < off + out.len() {
        let (j, i) = (p / col, p % col);
        let take = (col - i).min(off + out.len() - p);
        // SAFETY: column j < n, bytes i..i + take of it (the caller's guarantee); `out` has room.
        unsafe {
            std::ptr::copy_nonoverlapping(
                b.ptr.add(j * b.ld * b.elem.bytes() + i),
                out.as_mut_ptr().add(p - off),
                take,
            )
        };
        p += take;
    }
}

/// The reverse of [`pack`]: bytes `off..off + data.len()` of the packed layout into host tile `b`.
///
/// # Safety
/// `b.ptr` must be writable for the tile's shape.
pub unsafe fn unpack(data: &[u8], b: &HostBlock, off: usize) {
    let col = b.m * b.elem.bytes();
    let mut p = off;
    while p < off + data.len() {
        let (j, i) = (p / col, p % col);
        let take = (col - i).min(off + data.len() - p);
        // SAFETY: as in `pack`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr().add(p - off),
                b.ptr.add(j * b.ld * b.elem.bytes() + i),
                take,
            )
        };
        p += take;
    }
}

fn fill(u: Uplo) -> cb::cublasFillMode_t {
    match u {
        Uplo::Lower => cb::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
        Uplo::Upper => cb::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
    }
}
fn fill_solver(u: Uplo) -> cs::cublasFillMode_t {
    match u {
        Uplo::Lower => cs::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
        Uplo::Upper => cs::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
    }
}
fn side(s: Side) -> cb::cublasSideMode_t {
    match s {
        Side::Left => cb::cublasSideMode_t::CUBLAS_SIDE_LEFT,
        Side::Right => cb::cublasSideMode_t::CUBLAS_SIDE_RIGHT,
    }
}
fn diag(d: Diag) -> cb::cublasDiagType_t {
    match d {
        Diag::NonUnit => cb::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT,
        Diag::Unit => cb::cublasDiagType_t::CUBLAS_DIAG_UNIT,
    }
}

/// A cuSOLVER workspace in elements, as allocated: the library's query, at least 1 (a null
/// workspace is rejected), rounded up to 256 elements so nearby sizes reuse one buffer.
pub fn solver_work_elems(query: i32) -> usize {
    (query.max(1) as usize).div_ceil(256) * 256
}

/// An integer argument for cuBLAS (sizes beyond i32 would need the `_64` API).
fn ci(x: usize) -> i32 {
    i32::try_from(x).expect("hetla: a dimension exceeds the 32-bit cuBLAS API")
}

// ---------------------------------------------------------------------------------------------
// Errors

// Every failed call becomes a device failure naming the function and the error
// (`cuMemcpyHtoDAsync_v2 failed (CUDA_ERROR_LAUNCH_FAILED)`): the device then takes itself out of
// service ([`Cuda::disable`]) and the call is redone without it. Out of memory where hetla can
// make room (tile buffers, kernel workspace) is handled before it gets here.

fn ck(r: cu::CUresult, what: &str) -> Result<(), Error> {
    if r == cu::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(super::device_failure(&format!("{what} failed ({r:?})")))
    }
}
fn ckb(r: cb::cublasStatus_t, what: &str) -> Result<(), Error> {
    if r == cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(super::device_failure(&format!("{what} failed ({r:?})")))
    }
}
fn cks(r: cs::cusolverStatus_t, what: &str) -> Result<(), Error> {
    if r == cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(super::device_failure(&format!("{what} failed ({r:?})")))
    }
}
/// A cudarc `result` API error as a device failure of `what`.
fn ckr<T>(r: Result<T, cudarc::driver::DriverError>, what: &str) -> Result<T, Error> {
    r.map_err(|e| super::device_failure(&format!("{what} failed ({:?})", e.0)))
}

/// Makes `ctx` current on this thread for as long as the guard lives. On a thread of the
/// caller's (not one of hetla's, whose names start with `hetla`) the context that was current
/// before is made current again when the guard drops, also after an error: a program that uses
/// CUDA itself finds its own context current after every hetla call. hetla's own threads keep
/// the context set once.
struct CtxGuard {
    prev: cu::CUcontext,
    restore: bool,
}

impl CtxGuard {
    fn enter(ctx: cu::CUcontext) -> Result<CtxGuard, Error> {
        let mut prev = std::ptr::null_mut();
        // SAFETY: an out-parameter; then a context that lives for the process.
        unsafe {
            ck(cu::cuCtxGetCurrent(&mut prev), "cuCtxGetCurrent")?;
            if prev != ctx {
                ck(cu::cuCtxSetCurrent(ctx), "cuCtxSetCurrent")?;
            }
        }
        let ours = std::thread::current().name().is_some_and(|n| n.starts_with("hetla"));
        Ok(CtxGuard { prev, restore: prev != ctx && !ours })
    }
}

impl Drop for CtxGuard {
    fn drop(&mut self) {
        if self.restore {
            // SAFETY: the context the caller had current (or none); if it was destroyed meanwhile
            // that is the caller's doing, and the driver reports it to the caller's next call.
            unsafe { cu::cuCtxSetCurrent(self.prev) };
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Process-wide state: the driver, started GPUs, pooled per-session resources

/// One started GPU: its primary context and what is measured once.
struct Gpu {
    ordinal: usize,
    ctx: cu::CUcontext,
    total: usize,
    rate: f64,
    bandwidth: f64,
    /// Stream sets of finished sessions, reused by the next ones.
    lanes: Mutex<Vec<Lane>>,
    /// Taken out of service after a failure, for the rest of the process.
    disabled: std::sync::atomic::AtomicBool,
}

impl Gpu {
    /// Takes the GPU out of service after `e` (a device failure), saying so once on stderr:
    /// `hetla: cuda0 disabled: FUNCTION failed (ERROR_NAME)`. Its pooled lanes are released.
    fn disable(&self, e: &Error) {
        if self.disabled.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        say_disabled(self.ordinal, e);
        if let Ok(_ctx) = CtxGuard::enter(self.ctx) {
            for lane in self.lanes.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
                lane.destroy();
            }
        }
    }

    fn is_disabled(&self) -> bool {
        self.disabled.load(std::sync::atomic::Ordering::SeqCst)
    }
}

// SAFETY: a CUDA context handle may be made current on any thread; the driver API is thread-safe.
unsafe impl Send for Gpu {}
// SAFETY: as above; the mutable part (the lane pool) is behind a mutex.
unsafe impl Sync for Gpu {}

/// Streams, events, library handles and pinned staging of one session.
struct Lane {
    comp: cu::CUstream,
    cin: cu::CUstream,
    cout: cu::CUstream,
    /// Recorded on `cin` after every copy in; `comp` waits on it before each kernel.
    copied: cu::CUevent,
    /// Recorded on `comp` after every kernel; `cout` waits on it before each copy out.
    computed: cu::CUevent,
    blas: cb::cublasHandle_t,
    solver: cs::cusolverDnHandle_t,
    /// Two pinned slots for copies in, with the event of each slot's last transfer.
    stage_in: [(*mut u8, cu::CUevent); 2],
    next_slot: usize,
    /// Pinned slot for copies out.
    stage_out: *mut u8,
    /// Device scratch (gathered stacks, LARFB's W), POTRF workspace and devInfo.
    scratch: (cu::CUdeviceptr, usize),
    work: (cu::CUdeviceptr, usize),
    info: cu::CUdeviceptr,
}

// SAFETY: all handles are plain CUDA handles owned by the lane; a lane is used by one session at
// a time, behind its mutex.
unsafe impl Send for Lane {}

impl Lane {
    /// Creates the lane's resources in the current context; on failure, what was created is
    /// released again.
    fn new() -> Result<Lane, Error> {
        let mut lane = Lane {
            comp: std::ptr::null_mut(),
            cin: std::ptr::null_mut(),
            cout: std::ptr::null_mut(),
            copied: std::ptr::null_mut(),
            computed: std::ptr::null_mut(),
            blas: std::ptr::null_mut(),
            solver: std::ptr::null_mut(),
            stage_in: [(std::ptr::null_mut(), std::ptr::null_mut()); 2],
            next_slot: 0,
            stage_out: std::ptr::null_mut(),
            scratch: (0, 0),
            work: (0, 0),
            info: 0,
        };
        match lane.fill() {
            Ok(()) => Ok(lane),
            Err(e) => {
                lane.destroy();
                Err(e)
            }
        }
    }

    fn fill(&mut self) -> Result<(), Error> {
        use cudarc::driver::result as r;
        let stream = || ckr(r::stream::create(r::stream::StreamKind::NonBlocking), "cuStreamCreate");
        let event = || ckr(r::event::create(cu::CUevent_flags::CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        // SAFETY: a plain pinned host allocation, freed in `destroy`.
        let pinned = || {
            ckr(unsafe { r::malloc_host(SLOT_BYTES, cu::CU_MEMHOSTALLOC_PORTABLE) }, "cuMemHostAlloc")
                .map(|p| p as *mut u8)
        };
        self.comp = stream()?;
        self.cin = stream()?;
        self.cout = stream()?;
        self.copied = event()?;
        self.computed = event()?;
        // SAFETY: out-parameters of the library constructors; the streams were created above.
        unsafe {
            ckb(cb::cublasCreate_v2(&mut self.blas), "cublasCreate_v2")?;
            ckb(cb::cublasSetStream_v2(self.blas, self.comp as _), "cublasSetStream_v2")?;
            cks(cs::cusolverDnCreate(&mut self.solver), "cusolverDnCreate")?;
            cks(cs::cusolverDnSetStream(self.solver, self.comp as _), "cusolverDnSetStream")?;
            // A 4-byte device allocation for devInfo.
            ck(cu::cuMemAlloc_v2(&mut self.info, 4), "cuMemAlloc_v2")?;
        }
        for s in 0..2 {
            self.stage_in[s].1 = event()?;
            self.stage_in[s].0 = pinned()?;
        }
        self.stage_out = pinned()?;
        Ok(())
    }

    /// Releases every resource of the lane (those not created yet are null), in the current
    /// context, after draining its streams. Errors are ignored: this also cleans up after a
    /// failure.
    fn destroy(mut self) {
        // SAFETY: every handle is the lane's own and no longer used by anyone; the streams are
        // drained first so no queued work uses the memory freed after.
        unsafe {
            for s in [self.comp, self.cin, self.cout] {
                if !s.is_null() {
                    cu::cuStreamSynchronize(s);
                }
            }
            self.release_scratch();
            if self.info != 0 {
                cu::cuMemFree_v2(self.info);
            }
            if !self.blas.is_null() {
                cb::cublasDestroy_v2(self.blas);
            }
            if !self.solver.is_null() {
                cs::cusolverDnDestroy(self.solver);
            }
            for p in [self.stage_in[0].0, self.stage_in[1].0, self.stage_out] {
                if !p.is_null() {
                    cu::cuMemFreeHost(p as *mut _);
                }
            }
            for ev in [self.copied, self.computed, self.stage_in[0].1, self.stage_in[1].1] {
                if !ev.is_null() {
                    cu::cuEventDestroy_v2(ev);
                }
            }
            for s in [self.comp, self.cin, self.cout] {
                if !s.is_null() {
                    cu::cuStreamDestroy_v2(s);
                }
            }
        }
    }

    /// Copies `bytes` bytes to device address `dst` on `stream` through the two pinned in-slots,
    /// in slot-sized pieces, the slots alternating: `fill(off, slot)` writes bytes
    /// `off..off + slot.len()` into a slot once its previous transfer is done (so filling the next
    /// piece overlaps the DMA of the last one). Every byte goes through a pinned slot: an async
    /// copy from pageable memory would be staged by the driver and synchronous.
    ///
    /// # Safety
    /// `dst` must hold `bytes` bytes of device memory that no queued work uses unordered with
    /// `stream`.
    unsafe fn stage(
        &mut self,
        dst: u64,
        bytes: usize,
        stream: cu::CUstream,
        mut fill: impl FnMut(usize, &mut [u8]),
    ) -> Result<(), Error> {
        for (off, len) in chunks(bytes) {
            let (slot, ev) = self.stage_in[self.next_slot];
            self.next_slot ^= 1;
            // SAFETY: waiting for the slot's previous transfer makes it free to overwrite; `len`
            // ≤ SLOT_BYTES, the slot's size; the caller guarantees `dst` holds `off + len` bytes.
            unsafe {
                ck(cu::cuEventSynchronize(ev), "cuEventSynchronize")?;
                fill(off, std::slice::from_raw_parts_mut(slot, len));
                ck(
                    cu::cuMemcpyHtoDAsync_v2(dst + off as u64, slot as *const _, len, stream),
                    "cuMemcpyHtoDAsync_v2",
                )?;
                ck(cu::cuEventRecord(ev, stream), "cuEventRecord")?;
            }
        }
        Ok(())
    }

    /// Copies `words` to device address `dst` on the compute stream (kernels queued after it on
    /// that stream see them).
    ///
    /// # Safety
    /// `dst` must hold `words.len()` words of device memory that no queued work still uses.
    unsafe fn upload(&mut self, dst: u64, words: &[u64]) -> Result<(), Error> {
        // SAFETY: plain bytes of `words`; the caller's guarantee on `dst`.
        unsafe {
            let src = std::slice::from_raw_parts(words.as_ptr() as *const u8, words.len() * 8);
            self.stage(dst, src.len(), self.comp, |off, out| out.copy_from_slice(&src[off..off + out.len()]))
        }
    }

    /// Makes `slot` (the scratch or the POTRF workspace) a device buffer of at least `bytes`
    /// (grown, never shrunk, within a session). `reclaim` is asked to give memory back when the
    /// driver has none (true: try once more). On failure the slot is empty, never dangling.
    fn grow(
        comp: cu::CUstream,
        slot: &mut (cu::CUdeviceptr, usize),
        bytes: usize,
        mut reclaim: impl FnMut() -> bool,
    ) -> Result<(), Error> {
        if slot.1 >= bytes {
            return Ok(());
        }
        // SAFETY: the old buffer is only used by work on `comp`, which completes first.
        unsafe {
            ck(cu::cuStreamSynchronize(comp), "cuStreamSynchronize")?;
            if slot.1 > 0 {
                ck(cu::cuMemFree_v2(slot.0), "cuMemFree_v2")?;
                *slot = (0, 0);
            }
            let mut p = 0;
            let mut r = cu::cuMemAlloc_v2(&mut p, bytes);
            if r == cu::CUresult::CUDA_ERROR_OUT_OF_MEMORY && reclaim() {
                r = cu::cuMemAlloc_v2(&mut p, bytes);
            }
            if r == cu::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                return Err(super::out_of_memory());
            }
            ck(r, "cuMemAlloc_v2")?;
            *slot = (p, bytes);
            Ok(())
        }
    }

    /// Frees the session-sized scratch (the lane keeps only its fixed resources when pooled).
    fn release_scratch(&mut self) {
        if self.scratch.1 == 0 && self.work.1 == 0 {
            return;
        }
        // Only the compute stream uses the scratch; drained first also after a failed call
        // (found by the fake CUDA: a start-up measurement that failed after queueing a memset).
        // SAFETY: the lane's own stream.
        unsafe { cu::cuStreamSynchronize(self.comp) };
        for s in [&mut self.scratch, &mut self.work] {
            if s.1 > 0 {
                // SAFETY: the buffer is ours and no queued work uses it any more.
                unsafe { cu::cuMemFree_v2(s.0) };
                *s = (0, 0);
            }
        }
    }
}

struct Driver {
    count: usize,
    gpus: Mutex<HashMap<usize, Option<Arc<Gpu>>>>,
}

/// Prints a `HETLA_VERBOSE` line once per process per distinct message.
fn say_once(cfg: &Config, msg: String) {
    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());
    if !cfg.verbose {
        return;
    }
    let mut g = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !g.contains(&msg) {
        crate::error::say(format_args!("hetla: {msg}"));
        g.push(msg);
    }
}

/// The process that started the driver (0: not started yet).
static DRIVER_PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Whether the CUDA driver library can be loaded under one of the two names it has on Linux
/// (`libcuda.so.1`, its soname, and the development link `libcuda.so`). cudarc's own check tries
/// 17 names, Windows-style ones included, each a search of every library folder: on a machine
/// without CUDA that costs a process 1.2-1.5 ms at its first call (measured with
/// `bench/onecall.c`: 2.3-3.1 ms from the call to its tiles, 1.2-1.5 ms with `HETLA_GPUS=none`).
/// Where this finds the library, cudarc's check and loading follow as before.
fn driver_library_exists() -> bool {
    [c"libcuda.so.1", c"libcuda.so"].iter().any(|name| {
        // SAFETY: dlopen with a NUL-terminated name. A handle it returns is kept, never closed:
        // cudarc loads the same library next, and unloading the driver only to load it again
        // would cost a GPU machine what this saves the others.
        unsafe { !libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL).is_null() }
    })
}

/// Why CUDA cannot be used at all in this process, or the driver with its device count.
fn driver() -> &'static Result<Driver, String> {
    static D: OnceLock<Result<Driver, String>> = OnceLock::new();
    D.get_or_init(|| {
        DRIVER_PID.store(std::process::id(), std::sync::atomic::Ordering::Release);
        let r = catch_unwind(|| -> Result<usize, String> {
            if !driver_library_exists() {
                return Err("libcuda not found".into());
            }
            // SAFETY: the presence checks only try to dlopen the libraries.
            if !unsafe { cu::is_culib_present() } {
                return Err("libcuda not found".into());
            }
            // SAFETY: as above.
            if !unsafe { cb::is_culib_present() } {
                return Err("libcublas not found".into());
            }
            // SAFETY: as above.
            if !unsafe { cs::is_culib_present() } {
                return Err("libcusolver not found".into());
            }
            cudarc::driver::result::init().map_err(|e| format!("cuInit failed: {e}"))?;
            let n =
                cudarc::driver::result::device::get_count().map_err(|e| format!("cuDeviceGetCount: {e}"))?;
            Ok(n.max(0) as usize)
        });
        match r {
            Ok(Ok(0)) => Err("no device found by the driver".into()),
            Ok(Ok(count)) => Ok(Driver { count, gpus: Mutex::new(HashMap::new()) }),
            Ok(Err(e)) => Err(e),
            Err(p) => Err(format!("CUDA start-up panicked: {}", panic_text(&p))),
        }
    })
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Whether a device failure is the driver being out of (device or pinned) memory.
fn is_oom(e: &Error) -> bool {
    super::is_device_failure(e) && e.to_string().contains("CUDA_ERROR_OUT_OF_MEMORY")
}

/// The line of a GPU taken out of service at start-up (a started one says it in `Gpu::disable`).
fn say_disabled(ordinal: usize, e: &Error) {
    let what = match e {
        Error::Runtime(s) => s.strip_prefix("device failure: ").unwrap_or(s),
        _ => "failed",
    };
    crate::error::say(format_args!("hetla: cuda{ordinal} disabled: {what}"));
}

/// Starts GPU `ordinal`: primary context, one lane, the rate and bandwidth measurements. The
/// calling thread's current context is left as it was; on failure the lane is released.
fn start(ordinal: usize) -> Result<Gpu, Error> {
    use cudarc::driver::result as r;
    let dev = ckr(r::device::get(ordinal as i32), "cuDeviceGet")?;
    // SAFETY: `dev` is a valid device handle; the primary context is retained for the process.
    let ctx = ckr(unsafe { r::primary_ctx::retain(dev) }, "cuDevicePrimaryCtxRetain")?;
    let _ctx = CtxGuard::enter(ctx)?;
    // SAFETY: as above.
    let total = ckr(unsafe { r::device::total_mem(dev) }, "cuDeviceTotalMem_v2")?;
    let mut lane = Lane::new()?;
    let measured = measure_rate(&mut lane).and_then(|rate| Ok((rate, measure_bandwidth(&mut lane)?)));
    lane.release_scratch();
    let (rate, bandwidth) = match measured {
        Ok(m) => m,
        Err(e) => {
            lane.destroy();
            return Err(e);
        }
    };
    Ok(Gpu {
        ordinal,
        ctx,
        total,
        rate,
        bandwidth,
        lanes: Mutex::new(vec![lane]),
        disabled: Default::default(),
    })
}

/// DGEMM rate: products of n×n blocks on the compute stream after one warm-up, timed on the host
/// around a stream synchronisation. n doubles from 64 (less on a tiny device) until one product takes at least 2 ms
/// (a real GPU reaches 2048 in milliseconds), n reaches 2048, or three blocks would take more
/// than a quarter of the free memory: a device with little memory still starts, and a slow one
/// (the fake CUDA of the tests, whose kernels are host BLAS) is not made to run seconds of DGEMM.
fn measure_rate(lane: &mut Lane) -> Result<f64, Error> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: out-parameters.
    ck(unsafe { cu::cuMemGetInfo_v2(&mut free, &mut total) }, "cuMemGetInfo_v2")?;
    let mut n = 64usize;
    while n > 8 && 3 * n * n * 8 > free / 4 {
        n /= 2;
    }
    loop {
        let (total_s, reps) = time_gemm(lane, n)?;
        let per = total_s / reps as f64;
        let bigger = 2 * n;
        if per >= 2e-3 || bigger > 2048 || 3 * bigger * bigger * 8 > free / 4 {
            return Ok(2.0 * (n as f64).powi(3) / per.max(1e-12));
        }
        n = bigger;
    }
}

/// The seconds `reps` DGEMMs of n×n blocks take, and `reps`.
fn time_gemm(lane: &mut Lane, n: usize) -> Result<(f64, usize), Error> {
    Lane::grow(lane.comp, &mut lane.scratch, 3 * n * n * 8, || false)?;
    let (a, b, c) =
        (lane.scratch.0, lane.scratch.0 + (n * n * 8) as u64, lane.scratch.0 + (2 * n * n * 8) as u64);
    // SAFETY: the three n×n blocks lie in the scratch buffer just sized; it is zeroed first.
    unsafe {
        ck(cu::cuMemsetD8Async(lane.scratch.0, 0, 3 * n * n * 8, lane.comp), "cuMemsetD8Async")?;
        let gemm = || {
            ckb(
                cb::cublasDgemm_v2(
                    lane.blas,
                    cb::cublasOperation_t::CUBLAS_OP_N,
                    cb::cublasOperation_t::CUBLAS_OP_N,
                    ci(n),
                    ci(n),
                    ci(n),
                    &1.0,
                    a as *const f64,
                    ci(n),
                    b as *const f64,
                    ci(n),
                    &0.0,
                    c as *mut f64,
                    ci(n),
                ),
                "cublasDgemm_v2",
            )
        };
        gemm()?;
        ck(cu::cuStreamSynchronize(lane.comp), "cuStreamSynchronize")?;
        let t0 = std::time::Instant::now();
        let reps = 3;
        for _ in 0..reps {
            gemm()?;
        }
        ck(cu::cuStreamSynchronize(lane.comp), "cuStreamSynchronize")?;
        Ok((t0.elapsed().as_secs_f64(), reps))
    }
}

/// Host→device bandwidth: one copy from pinned memory into the lane's scratch, of 64 MiB or an
/// eighth of the free memory if that is less.
fn measure_bandwidth(lane: &mut Lane) -> Result<f64, Error> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: out-parameters.
    ck(unsafe { cu::cuMemGetInfo_v2(&mut free, &mut total) }, "cuMemGetInfo_v2")?;
    let bytes = (64usize << 20).min(free / 8).max(4096);
    // `grow` frees the old scratch when it must enlarge it, so the lane keeps the result.
    Lane::grow(lane.comp, &mut lane.scratch, bytes, || false)?;
    // SAFETY: pinned source and device destination of `bytes`; the source is freed here after the
    // copy completed (or after the stream was drained when it failed), the destination with the
    // lane's scratch.
    unsafe {
        let src = cudarc::driver::result::malloc_host(bytes, 0)
            .map_err(|e| Error::Runtime(format!("pinned: {e}")))?;
        let t0 = std::time::Instant::now();
        let r = ck(cu::cuMemcpyHtoDAsync_v2(lane.scratch.0, src, bytes, lane.cin), "cuMemcpyHtoDAsync_v2");
        let s = ck(cu::cuStreamSynchronize(lane.cin), "cuStreamSynchronize");
        let dt = t0.elapsed().as_secs_f64();
        cu::cuMemFreeHost(src);
        r.and(s)?;
        Ok(bytes as f64 / dt.max(1e-9))
    }
}

/// The CUDA devices `cfg.gpus` selects, started on first use and then reused by every call;
/// empty (CPU-only) when CUDA is unavailable, with one `HETLA_VERBOSE` line saying why.
pub fn open(cfg: &Config) -> Vec<Arc<dyn Device>> {
    if cfg.gpus == GpuSelect::None {
        return Vec::new();
    }
    // A forked child cannot use the CUDA state its parent created (the driver refuses; its
    // threads, streams and contexts are the parent's): it runs on the CPU.
    let pid = DRIVER_PID.load(std::sync::atomic::Ordering::Acquire);
    if pid != 0 && pid != std::process::id() {
        say_once(
            cfg,
            "no CUDA devices (CUDA was started before this process was forked); running on CPU".into(),
        );
        return Vec::new();
    }
    let drv = match driver() {
        Ok(d) => d,
        Err(why) => {
            say_once(cfg, format!("no CUDA devices ({why}); running on CPU"));
            return Vec::new();
        }
    };
    let (picked, missing) = select(&cfg.gpus, drv.count);
    if !missing.is_empty() {
        say_once(
            cfg,
            format!("HETLA_GPUS asks for CUDA devices {missing:?}, but there are {}; ignored", drv.count),
        );
    }
    let mut out: Vec<Arc<dyn Device>> = Vec::new();
    for o in picked {
        let gpu = {
            let mut g = drv.gpus.lock().unwrap_or_else(|e| e.into_inner());
            if let std::collections::hash_map::Entry::Vacant(slot) = g.entry(o) {
                match catch_unwind(|| start(o)) {
                    Ok(Ok(gpu)) => {
                        say_once(
                            cfg,
                            format!(
                                "cuda{o}: {:.1} GB, DGEMM {:.0} GFLOP/s, link {:.1} GB/s",
                                gpu.total as f64 / 1e9,
                                gpu.rate / 1e9,
                                gpu.bandwidth / 1e9
                            ),
                        );
                        slot.insert(Some(Arc::new(gpu)));
                    }
                    // Out of memory (device or pinned) may pass: the next call tries again.
                    Ok(Err(e)) if is_oom(&e) => {
                        say_once(cfg, format!("cuda{o}: {e}; not used for this call"))
                    }
                    Ok(Err(e)) => {
                        if super::is_device_failure(&e) {
                            say_disabled(o, &e);
                        }
                        say_once(cfg, format!("cuda{o} unusable ({e}); not used"));
                        slot.insert(None);
                    }
                    Err(p) => {
                        say_disabled(
                            o,
                            &super::device_failure(&format!("start-up panicked ({})", panic_text(&p))),
                        );
                        slot.insert(None);
                    }
                }
            }
            g.get(&o).cloned().flatten()
        };
        let Some(gpu) = gpu else { continue };
        if gpu.is_disabled() {
            continue;
        }
        match catch_unwind(AssertUnwindSafe(|| Cuda::session(gpu.clone()))) {
            Ok(Ok(d)) => out.push(Arc::new(d)),
            Ok(Err(e)) if is_oom(&e) => say_once(cfg, format!("cuda{o}: {e}; not used for this call")),
            Ok(Err(e)) => gpu.disable(&e),
            Err(p) => gpu.disable(&super::device_failure(&format!("session panicked ({})", panic_text(&p)))),
        }
    }
    if out.is_empty() && cfg.gpus != GpuSelect::None {
        say_once(cfg, "no usable CUDA device; running on CPU".into());
    }
    out
}

// ---------------------------------------------------------------------------------------------
// One session: the device of one sequence

/// A CUDA device as one sequence sees it (its own streams and staging, its buffers).
pub struct Cuda {
    gpu: Arc<Gpu>,
    name: &'static str,
    memory: usize,
    lane: Mutex<Option<Lane>>,
    /// Streams copied out of the lane so `sync` and `copy_out` need not wait for its lock.
    comp: cu::CUstream,
    cin: cu::CUstream,
    /// Freed buffers by size, reused before asking the driver (freed for real at the end).
    cache: Mutex<HashMap<usize, Vec<cu::CUdeviceptr>>>,
}

// SAFETY: CUDA handles are usable from any thread once the context is current (every method makes
// it so); mutable state is behind mutexes.
unsafe impl Send for Cuda {}
// SAFETY: as above.
unsafe impl Sync for Cuda {}

impl Cuda {
    fn session(gpu: Arc<Gpu>) -> Result<Cuda, Error> {
        let _ctx = CtxGuard::enter(gpu.ctx)?;
        let lane = match gpu.lanes.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            Some(l) => l,
            None => Lane::new()?,
        };
        let (mut free, mut total) = (0, 0);
        // SAFETY: out-parameters.
        if let Err(e) = ck(unsafe { cu::cuMemGetInfo_v2(&mut free, &mut total) }, "cuMemGetInfo_v2") {
            lane.destroy();
            return Err(e);
        }
        Ok(Cuda {
            name: intern(&format!("cuda{}", gpu.ordinal)),
            memory: free,
            comp: lane.comp,
            cin: lane.cin,
            lane: Mutex::new(Some(lane)),
            cache: Mutex::new(HashMap::new()),
            gpu,
        })
    }

    /// Makes the GPU's context current for a call (see [`CtxGuard`]); an error once the GPU is
    /// out of service.
    fn enter(&self) -> Result<CtxGuard, Error> {
        if self.gpu.is_disabled() {
            return Err(super::device_failure(&format!("{} is out of service", self.name)));
        }
        CtxGuard::enter(self.gpu.ctx)
    }

    /// Runs one device method: a panic in it becomes a device failure, and a device failure
    /// (anything but out of memory for a workspace) takes the GPU out of service.
    fn guard<T>(&self, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
        let r = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
            Err(super::device_failure(&format!("{} panicked ({})", self.name, panic_text(&p))))
        });
        if let Err(e) = &r {
            if super::is_device_failure(e) {
                self.gpu.disable(e);
            }
        }
        r
    }

    /// Copies the first `bytes` bytes of `src` out through the pinned out slot, in slot-sized
    /// pieces, each handed to `take(data, offset)` once it is on the host, after every kernel
    /// issued so far.
    ///
    /// # Safety
    /// `src` must hold `bytes` bytes; `take` writes only where its caller may.
    unsafe fn copy_out_with(
        &self,
        src: &DevBuf,
        bytes: usize,
        mut take: impl FnMut(&[u8], usize),
    ) -> Result<(), Error> {
        let _ctx = self.enter()?;
        let g = self.lane();
        let lane = g.as_ref().expect("a live session has its lane");
        // SAFETY: the out stream first waits for every kernel issued so far (the buffer's last
        // writer among them).
        ck(unsafe { cu::cuStreamWaitEvent(lane.cout, lane.computed, 0) }, "cuStreamWaitEvent")?;
        for (off, len) in chunks(bytes) {
            // SAFETY: the staging slot is only used under the lane's lock and holds SLOT_BYTES ≥
            // `len`; the copy is complete (stream synchronised) before the slot is read.
            unsafe {
                ck(
                    cu::cuMemcpyDtoHAsync_v2(lane.stage_out as *mut _, src.addr + off as u64, len, lane.cout),
                    "cuMemcpyDtoHAsync_v2",
                )?;
                ck(cu::cuStreamSynchronize(lane.cout), "cuStreamSynchronize")?;
                take(std::slice::from_raw_parts(lane.stage_out, len), off);
            }
        }
        Ok(())
    }

    /// [`Device::factor`] of a matrix of `T` in the buffers `a_dev` (the packed matrix) and
    /// `x_dev` (pivots or tau).
    ///
    /// # Safety
    /// As [`Device::factor`]; the buffers hold `a.bytes()` and `min(m, n)` auxiliary elements.
    unsafe fn factor_in<T: CuElem>(
        &self,
        f: Factor,
        a: &HostBlock,
        aux: *mut u8,
        (a_dev, x_dev): (&DevBuf, &DevBuf),
    ) -> Solve {
        let (m, n) = (a.m, a.n);
        let k = m.min(n);
        let sz = std::mem::size_of::<T>();
        // In, factored, INFO and the diagonal back: the caller's arrays are not written yet.
        let checked = self.guard(|| {
            // SAFETY: the caller guarantees `a` readable; `a_dev` holds its packed bytes.
            unsafe { self.copy_in(a, a_dev)? };
            let _ctx = self.enter()?;
            let mut g = self.lane();
            let lane = g.as_mut().expect("a live session has its lane");
            let (mn, pa) = ([ci(m), ci(n)], (a_dev.addr, ci(m.max(1))));
            let mut lwork = 0;
            // SAFETY: the queries only read their arguments; `pa` is the packed m×n matrix.
            let (r, what) = unsafe {
                match f {
                    Factor::Potrf(u) => {
                        T::potrf_buffer_size(lane.solver, fill_solver(u), mn[1], pa, &mut lwork)
                    }
                    Factor::Getrf => T::lu_qr_buffer_size(lane.solver, false, mn, pa, &mut lwork),
                    Factor::Geqrf => T::lu_qr_buffer_size(lane.solver, true, mn, pa, &mut lwork),
                }
            };
            cks(r, what)?;
            let elems = solver_work_elems(lwork);
            Lane::grow(lane.comp, &mut lane.work, elems * sz, || self.reclaim())?;
            let w = (lane.work.0, ci(elems));
            const DEV: cu::CUmemorytype = cu::CUmemorytype::CU_MEMORYTYPE_DEVICE;
            const HOST: cu::CUmemorytype = cu::CUmemorytype::CU_MEMORYTYPE_HOST;
            // SAFETY: the solver runs on the compute stream after the copies in (the event);
            // every pointer is one of this call's buffers or the lane's workspace (sized just
            // above) and devInfo; INFO and the k diagonal entries (m + 1 elements apart in the
            // packed matrix) come back into the pinned out slot (SLOT_BYTES ≥ 16·(k + 1)), read
            // once the stream is drained.
            unsafe {
                ck(cu::cuStreamWaitEvent(lane.comp, lane.copied, 0), "cuStreamWaitEvent")?;
                let (r, what) = match f {
                    Factor::Potrf(u) => T::potrf(lane.solver, fill_solver(u), mn[1], pa, w, lane.info),
                    Factor::Getrf => T::lu_qr(lane.solver, false, mn, pa, x_dev.addr, w, lane.info),
                    Factor::Geqrf => T::lu_qr(lane.solver, true, mn, pa, x_dev.addr, w, lane.info),
                };
                cks(r, what)?;
                ck(
                    cu::cuMemcpyDtoHAsync_v2(lane.stage_out as *mut _, lane.info, 4, lane.comp),
                    "cuMemcpyDtoHAsync_v2",
                )?;
                let diag = Copy2D { width: sz, height: k, src_pitch: (m + 1) * sz, dst_pitch: sz };
                Self::copy2d(diag, (DEV, a_dev.addr), (HOST, lane.stage_out as u64 + 16), lane.comp)?;
                ck(cu::cuStreamSynchronize(lane.comp), "cuStreamSynchronize")?;
                ck(cu::cuEventRecord(lane.computed, lane.comp), "cuEventRecord")?;
                let info = (lane.stage_out as *const i32).read_unaligned();
                let d = std::slice::from_raw_parts(lane.stage_out.add(16), k * sz);
                Ok(declined(info, &super::parts(T::KIND, d)))
            }
        });
        match checked {
            Err(e) if super::is_out_of_memory(&e) => return Solve::Declined("no-room"),
            Err(_) => return Solve::Declined("device-failed"),
            Ok(Some(why)) => return Solve::Declined(why),
            Ok(None) => {}
        }
        // The pivots or tau first: a failure there leaves A as it was (they are outputs only).
        if f.aux_elem(a.elem) > 0 {
            let x = HostBlock { ptr: aux, m: k, n: 1, ld: k, elem: f.aux_kind(a.elem) };
            // SAFETY: the caller guarantees `aux` writable for k elements.
            if unsafe { self.copy_out(x_dev, &x) }.is_err() {
                return Solve::Declined("device-failed");
            }
        }
        // A failure before the first piece is on the host leaves A as it was; one after it (a
        // matrix of more than one slot, SLOT_BYTES) leaves A partly written.
        let mut wrote = false;
        // SAFETY: the caller guarantees `a` writable; a Cholesky writes its triangle only.
        let r = self.guard(|| unsafe {
            self.copy_out_with(a_dev, a.bytes(), |data, off| {
                wrote = true;
                match f {
                    Factor::Potrf(u) => unpack_triangle(data, a, off, u),
                    _ => unpack(data, a, off),
                }
            })
        });
        match r {
            Ok(()) => Solve::Done,
            Err(_) if !wrote => Solve::Declined("device-failed"),
            Err(e) => Solve::Broken(e),
        }
    }

    fn lane(&self) -> std::sync::MutexGuard<'_, Option<Lane>> {
        self.lane.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives the cached free buffers back to the driver; false when there were none (or the
    /// streams could not be drained). A cached buffer may still be the destination of a queued
    /// copy in (a tile copied in for a task that then ran on the host, evicted before any kernel
    /// used it), so the streams drain first (found by the fake CUDA).
    fn reclaim(&self) -> bool {
        let cached: Vec<_> =
            self.cache.lock().unwrap_or_else(|e| e.into_inner()).drain().flat_map(|(_, v)| v).collect();
        if cached.is_empty() || self.sync().is_err() {
            return false;
        }
        for c in cached {
            // SAFETY: cached buffers are unused by the host, and the streams are drained.
            unsafe { cu::cuMemFree_v2(c) };
        }
        true
    }

    /// Issues one 2-D copy on `stream`.
    ///
    /// # Safety
    /// Source and destination must be valid for the copy's shape until it completes.
    unsafe fn copy2d(
        c: Copy2D,
        src: (cu::CUmemorytype, u64),
        dst: (cu::CUmemorytype, u64),
        stream: cu::CUstream,
    ) -> Result<(), Error> {
        if c.is_empty() {
            return Ok(());
        }
        // Every field spelled out: `mem::zeroed` of this struct is invalid (the memory-type
        // enums have no zero value; the fake CUDA's first run hit the abort it causes).
        let host = cu::CUmemorytype::CU_MEMORYTYPE_HOST;
        let d = cu::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: src.0,
            srcHost: if src.0 == host { src.1 as *const _ } else { std::ptr::null() },
            srcDevice: if src.0 == host { 0 } else { src.1 },
            srcArray: std::ptr::null_mut(),
            srcPitch: c.src_pitch,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: dst.0,
            dstHost: if dst.0 == host { dst.1 as *mut _ } else { std::ptr::null_mut() },
            dstDevice: if dst.0 == host { 0 } else { dst.1 },
            dstArray: std::ptr::null_mut(),
            dstPitch: c.dst_pitch,
            WidthInBytes: c.width,
            Height: c.height,
        };
        // SAFETY: the caller's guarantee.
        ck(unsafe { cu::cuMemcpy2DAsync_v2(&d, stream) }, "cuMemcpy2DAsync_v2")
    }

    /// [`Device::execute`] of an op on tiles of `T`: LASWP's pivots read back, the op lowered
    /// and run.
    fn execute_as<T: CuElem>(&self, lane: &mut Lane, op: &DeviceOp, args: &[DevTile]) -> Result<i32, Error> {
        let pivots = match *op {
            DeviceOp::Laswp { ipiv, ipiv_base, count, .. } => {
                let p = args[ipiv.first];
                assert!(
                    ipiv.count == 1 && p.elem == T::KIND && p.m >= count,
                    "LASWP pivots: column 0 of one tile of the matrix's type"
                );
                let sz = std::mem::size_of::<T>();
                let mut v = vec![T::zero(); count];
                // Through the pinned out slot (an async copy into pageable memory would be
                // synchronous), in slot-sized pieces; the compute stream (which waited for the
                // copies in) is drained before each piece is read.
                for (off, len) in chunks(count * sz) {
                    // SAFETY: the pivot tile holds at least `count` elements of T; the slot holds
                    // SLOT_BYTES ≥ `len` and is only used under the lane's lock; any bytes are a
                    // valid T (plain floats).
                    unsafe {
                        ck(
                            cu::cuMemcpyDtoHAsync_v2(
                                lane.stage_out as *mut _,
                                p.buf.addr + off as u64,
                                len,
                                lane.comp,
                            ),
                            "cuMemcpyDtoHAsync_v2",
                        )?;
                        ck(cu::cuStreamSynchronize(lane.comp), "cuStreamSynchronize")?;
                        std::ptr::copy_nonoverlapping(
                            lane.stage_out,
                            (v.as_mut_ptr() as *mut u8).add(off),
                            len,
                        );
                    }
                }
                // The pivot buffers hold LAPACK integers as `Scalar::from_index` stores them.
                v.iter().map(|&x| x.index() - ipiv_base).collect()
            }
            _ => Vec::new(),
        };
        let shapes: Vec<Shape> = args.iter().map(|t| Shape { m: t.m, n: t.n }).collect();
        let low = lower::lower(op, &shapes, &pivots, std::mem::size_of::<T>());
        self.run::<T>(lane, &low, args)
    }

    /// Runs the lowered calls on the compute stream, on elements of `T`; returns POTRF's INFO
    /// (0 otherwise).
    fn run<T: CuElem>(&self, lane: &mut Lane, low: &Lowered, args: &[DevTile]) -> Result<i32, Error> {
        const DEV: cu::CUmemorytype = cu::CUmemorytype::CU_MEMORYTYPE_DEVICE;
        let sz = std::mem::size_of::<T>();
        let (total, offs) = low.layout();
        // All device memory the calls need is found before the first is issued: running out
        // then leaves every operand as it was, and the runtime can evict and retry or run the
        // task on the host (`super::is_out_of_memory`).
        Lane::grow(lane.comp, &mut lane.scratch, total * sz, || self.reclaim())?;
        let base = lane.scratch.0;
        let addr = |m: Mat| -> u64 {
            let b = match m.src {
                Src::Arg(p) => args[p].buf.addr,
                Src::Slot(s) => base + (offs[s] * sz) as u64,
            };
            b + (m.off * sz) as u64
        };
        // A block as cuBLAS takes it: its address and leading dimension.
        let blk = |m: Mat| (addr(m), ci(m.ld));
        let op = |t: Trans| match t {
            Trans::No => cb::cublasOperation_t::CUBLAS_OP_N,
            Trans::Yes => typed::adjoint::<T>(),
            Trans::Transpose => cb::cublasOperation_t::CUBLAS_OP_T,
        };
        let h = lane.blas;
        let mut info = 0;
        let mut work_elems = 0;
        for c in &low.calls {
            if let Call::Potrf { uplo, n, a } = *c {
                let mut lwork = 0;
                // SAFETY: the query only reads its arguments (`a` lies in the sized scratch or
                // an operand).
                let (r, what) = unsafe {
                    T::potrf_buffer_size(lane.solver, fill_solver(uplo), ci(n), blk(a), &mut lwork)
                };
                cks(r, what)?;
                work_elems = work_elems.max(solver_work_elems(lwork));
            }
        }
        Lane::grow(lane.comp, &mut lane.work, work_elems * sz, || self.reclaim())?;
        for c in &low.calls {
            // SAFETY: every address is inside a resident operand or the scratch just sized by
            // the lowering's layout, in elements of `T` (the type of the op's tiles); sizes and
            // leading dimensions come from the lowering, whose tests check them against the host
            // kernels.
            unsafe {
                match *c {
                    Call::Gather { slot, tiles, ld } | Call::Scatter { slot, tiles, ld } => {
                        let mut r0 = 0;
                        for t in &args[tiles.first..tiles.first + tiles.count] {
                            let blk = base + ((offs[slot] + r0) * sz) as u64;
                            if matches!(c, Call::Gather { .. }) {
                                Self::copy2d(
                                    Copy2D::tile_into_block(t.m, t.n, ld, sz),
                                    (DEV, t.buf.addr),
                                    (DEV, blk),
                                    lane.comp,
                                )?;
                            } else {
                                Self::copy2d(
                                    Copy2D::block_into_tile(t.m, t.n, ld, sz),
                                    (DEV, blk),
                                    (DEV, t.buf.addr),
                                    lane.comp,
                                )?;
                            }
                            r0 += t.m;
                        }
                    }
                    Call::Gemm { ta, tb, m, n, k, alpha, a, b, beta, c } => {
                        let (r, what) = T::gemm(
                            h,
                            op(ta),
                            op(tb),
                            [ci(m), ci(n), ci(k)],
                            alpha,
                            blk(a),
                            blk(b),
                            beta,
                            blk(c),
                        );
                        ckb(r, what)?
                    }
                    Call::Syrk { uplo, trans, n, k, alpha, a, beta, c } => {
                        let (r, what) =
                            T::rank_k(h, fill(uplo), op(trans), [ci(n), ci(k)], alpha, blk(a), beta, blk(c));
                        ckb(r, what)?
                    }
                    Call::Trsm { side: s, uplo, trans, diag: d, m, n, alpha, a, b } => {
                        let sdtd = (side(s), fill(uplo), op(trans), diag(d));
                        let (r, what) = T::trsm(h, sdtd, [ci(m), ci(n)], alpha, blk(a), blk(b));
                        ckb(r, what)?
                    }
                    Call::Trmm { side: s, uplo, trans, diag: d, m, n, alpha, a, b, c } => {
                        let sdtd = (side(s), fill(uplo), op(trans), diag(d));
                        let (r, what) = T::trmm(h, sdtd, [ci(m), ci(n)], alpha, blk(a), blk(b), blk(c));
                        ckb(r, what)?
                    }
                    Call::Geam { m, n, alpha, a, beta, b, c } => {
                        let (r, what) = T::geam(h, [ci(m), ci(n)], alpha, blk(a), beta, blk(b), blk(c));
                        ckb(r, what)?
                    }
                    Call::Permute { n, a, tmp, ref moves, ptrs } => {
                        let p0 = addr(ptrs);
                        // `ptrs` is the op's own scratch, sized by the lowering.
                        lane.upload(p0, &permute_words(p0, addr(a), addr(tmp), moves, sz, T::COMPLEX))?;
                        // Rows are 1×n matrices (leading dimension: their block's); each product
                        // is 1·row, into the scratch rows, then back to the destinations.
                        let rows = moves.len();
                        let arr = |k: usize| p0 + (8 * (2 + k * rows)) as u64;
                        for (b, ldb, c, ldc) in
                            [(arr(1), a.ld, arr(2), tmp.ld), (arr(2), tmp.ld, arr(3), a.ld)]
                        {
                            let (r, what) =
                                T::gemm_rows(h, ci(n), arr(0), (b, ci(ldb)), (c, ci(ldc)), ci(rows));
                            ckb(r, what)?;
                        }
                    }
                    Call::Potrf { uplo, n, a } => {
                        let elems = lane.work.1 / sz;
                        let (r, what) = T::potrf(
                            lane.solver,
                            fill_solver(uplo),
                            ci(n),
                            blk(a),
                            (lane.work.0, ci(elems)),
                            lane.info,
                        );
                        cks(r, what)?;
                        // devInfo lives on the device: read it back after the kernel, through
                        // the pinned out slot (free: the lane's lock is held).
                        ck(
                            cu::cuMemcpyDtoHAsync_v2(lane.stage_out as *mut _, lane.info, 4, lane.comp),
                            "cuMemcpyDtoHAsync_v2",
                        )?;
                        ck(cu::cuStreamSynchronize(lane.comp), "cuStreamSynchronize")?;
                        info = (lane.stage_out as *const i32).read_unaligned();
                        if info < 0 {
                            return Err(Error::Runtime(format!("{what}: argument {} invalid", -info)));
                        }
                    }
                }
            }
        }
        Ok(info)
    }
}

impl Drop for Cuda {
    /// Frees the cached buffers and gives the lane back to the GPU's pool, or, when the GPU was
    /// taken out of service (or cannot be drained), releases the lane's resources instead.
    fn drop(&mut self) {
        let ctx = CtxGuard::enter(self.gpu.ctx);
        let lane = self.lane().take();
        // SAFETY: the session's own streams; afterwards no queued work uses its buffers.
        let drained = unsafe {
            [self.cin, self.comp, lane.as_ref().map_or(std::ptr::null_mut(), |l| l.cout)]
                .iter()
                .filter(|s| !s.is_null())
                .all(|&s| cu::cuStreamSynchronize(s) == cu::CUresult::CUDA_SUCCESS)
        };
        for (_, v) in self.cache.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            for p in v {
                // SAFETY: cached buffers are ours and unused (drained above).
                unsafe { cu::cuMemFree_v2(p) };
            }
        }
        if let Some(mut lane) = lane {
            if drained && ctx.is_ok() && !self.gpu.is_disabled() {
                lane.release_scratch();
                self.gpu.lanes.lock().unwrap_or_else(|e| e.into_inner()).push(lane);
            } else {
                lane.destroy();
            }
        }
    }
}

impl Device for Cuda {
    fn name(&self) -> &'static str {
        self.name
    }

    fn memory(&self) -> usize {
        self.memory
    }

    fn alloc(&self, bytes: usize) -> Option<DevBuf> {
        let bytes = bytes.max(1);
        if let Some(p) =
            self.cache.lock().unwrap_or_else(|e| e.into_inner()).get_mut(&bytes).and_then(|v| v.pop())
        {
            return Some(DevBuf { addr: p, bytes });
        }
        let _ctx = self.enter().ok()?;
        let mut p = 0;
        // SAFETY: an out-parameter.
        let mut r = unsafe { cu::cuMemAlloc_v2(&mut p, bytes) };
        // Out of memory: give the cached buffers back to the driver and try once more (then the
        // memory manager evicts, or the task runs on the host).
        if r == cu::CUresult::CUDA_ERROR_OUT_OF_MEMORY && self.reclaim() {
            // SAFETY: an out-parameter.
            r = unsafe { cu::cuMemAlloc_v2(&mut p, bytes) };
        }
        match r {
            cu::CUresult::CUDA_SUCCESS => Some(DevBuf { addr: p, bytes }),
            cu::CUresult::CUDA_ERROR_OUT_OF_MEMORY => None,
            // Any other error takes the GPU out of service; its tasks then run on the host and
            // the memory manager finds out when it next needs what the GPU held.
            _ => {
                self.gpu.disable(&ck(r, "cuMemAlloc_v2").unwrap_err());
                None
            }
        }
    }

    fn free(&self, buf: DevBuf) {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(buf.bytes.max(1))
            .or_default()
            .push(buf.addr);
    }

    unsafe fn copy_in(&self, src: &HostBlock, dst: &DevBuf) -> Result<(), Error> {
        self.guard(|| {
            assert!(dst.bytes >= src.bytes(), "device buffer too small for the tile");
            let _ctx = self.enter()?;
            let mut g = self.lane();
            let lane = g.as_mut().expect("a live session has its lane");
            // The packed layout of the tile, in slot-sized pieces.
            let cin = lane.cin;
            // SAFETY: the caller guarantees `src` readable for its shape; `dst` holds the packed
            // tile (asserted above) and is the caller's to write.
            unsafe { lane.stage(dst.addr, src.bytes(), cin, |off, out| pack(src, off, out))? };
            // SAFETY: plain event record on our stream.
            ck(unsafe { cu::cuEventRecord(lane.copied, lane.cin) }, "cuEventRecord")
        })
    }

    unsafe fn copy_out(&self, src: &DevBuf, dst: &HostBlock) -> Result<(), Error> {
        assert!(src.bytes >= dst.bytes(), "device buffer smaller than the host tile");
        // SAFETY: the caller guarantees `dst` writable for its shape and unshared.
        self.guard(|| unsafe { self.copy_out_with(src, dst.bytes(), |data, off| unpack(data, dst, off)) })
    }

    fn has_solver(&self) -> bool {
        true
    }

    unsafe fn factor(&self, f: Factor, a: &HostBlock, aux: *mut u8) -> Solve {
        // SAFETY: the caller's guarantees, passed on; the buffers are sized for `a`.
        with_solver_buffers(self, f, a, |buf, xbuf| unsafe {
            match a.elem {
                Kind::F64 => self.factor_in::<f64>(f, a, aux, (buf, xbuf)),
                Kind::F32 => self.factor_in::<f32>(f, a, aux, (buf, xbuf)),
                Kind::C64 => self.factor_in::<c64>(f, a, aux, (buf, xbuf)),
                Kind::C32 => self.factor_in::<c32>(f, a, aux, (buf, xbuf)),
                Kind::I32 => unreachable!("no factorization of an integer matrix"),
            }
        })
    }

    fn execute(&self, op: &DeviceOp, args: &[DevTile]) -> Result<i32, Error> {
        self.guard(|| {
            let _ctx = self.enter()?;
            let mut g = self.lane();
            let lane = g.as_mut().expect("a live session has its lane");
            // Kernels start after every copy in issued so far.
            // SAFETY: both handles belong to this lane.
            ck(unsafe { cu::cuStreamWaitEvent(lane.comp, lane.copied, 0) }, "cuStreamWaitEvent")?;
            // The op runs in the type of the tiles it writes.
            let info = match args[op.output().first].elem {
                Kind::F64 => self.execute_as::<f64>(lane, op, args)?,
                Kind::F32 => self.execute_as::<f32>(lane, op, args)?,
                Kind::C64 => self.execute_as::<c64>(lane, op, args)?,
                Kind::C32 => self.execute_as::<c32>(lane, op, args)?,
                Kind::I32 => unreachable!("no op writes integer tiles"),
            };
            // SAFETY: plain event record on our stream.
            ck(unsafe { cu::cuEventRecord(lane.computed, lane.comp) }, "cuEventRecord")?;
            Ok(info)
        })
    }

    fn sync(&self) -> Result<(), Error> {
        self.guard(|| {
            let _ctx = self.enter()?;
            // SAFETY: the session's own streams.
            unsafe {
                ck(cu::cuStreamSynchronize(self.cin), "cuStreamSynchronize")?;
                ck(cu::cuStreamSynchronize(self.comp), "cuStreamSynchronize")
            }
        })
    }

    fn gemm_rate(&self) -> f64 {
        self.gpu.rate
    }

    fn link_bandwidth(&self) -> f64 {
        self.gpu.bandwidth
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_from_hetla_gpus() {
        assert_eq!(select(&GpuSelect::All, 3), (vec![0, 1, 2], vec![]));
        assert_eq!(select(&GpuSelect::All, 0), (vec![], vec![]));
        assert_eq!(select(&GpuSelect::None, 4), (vec![], vec![]));
        assert_eq!(select(&GpuSelect::parse("2,0").unwrap(), 4), (vec![2, 0], vec![]));
        assert_eq!(select(&GpuSelect::parse("0,5").unwrap(), 2), (vec![0], vec![5]));
        assert_eq!(
            select(&GpuSelect::parse("0").unwrap(), 0),
            (vec![], vec![0]),
            "no GPU: asked-for ordinals are reported"
        );
    }

    #[test]
    fn permute_pointer_words() {
        // Rows 0 and 5 of a block at 0x1000 trade places through a scratch block at 0x9000.
        let w = permute_words(0x100, 0x1000, 0x9000, &[(0, 5), (5, 0)], 8, false);
        assert_eq!(w.len(), lower::permute_ptrs(2));
        assert_eq!((f64::from_bits(w[0]), w[1]), (1.0, 0));
        assert_eq!(w[2..], [0x100, 0x100, 0x1028, 0x1000, 0x9000, 0x9008, 0x1000, 0x1028]);
        // Single complex elements (8 bytes): the constant is (1.0f32, 0.0f32), rows 8 bytes apart.
        let w = permute_words(0x100, 0x1000, 0x9000, &[(0, 5), (5, 0)], 8, true);
        assert_eq!((w[0], w[1]), (u64::from(1.0f32.to_bits()), 0));
        assert_eq!(w[4..6], [0x1028, 0x1000]);
        // Single real (4 bytes) and double complex (16 bytes).
        let w = permute_words(0x100, 0x1000, 0x9000, &[(0, 5), (5, 0)], 4, false);
        assert_eq!((w[0], w[4], w[6]), (u64::from(1.0f32.to_bits()), 0x1014, 0x9000));
        assert_eq!(w[7], 0x9004);
        let w = permute_words(0x100, 0x1000, 0x9000, &[(0, 5), (5, 0)], 16, true);
        assert_eq!((f64::from_bits(w[0]), w[1], w[4], w[7]), (1.0, 0, 0x1050, 0x9010));
    }

    #[test]
    fn pitches_of_strided_copies() {
        // A tile of 4 rows into rows r0.. of a gathered block of 10 rows.
        assert_eq!(
            Copy2D::tile_into_block(4, 6, 10, 8),
            Copy2D { width: 32, height: 6, src_pitch: 32, dst_pitch: 80 }
        );
        assert_eq!(
            Copy2D::block_into_tile(4, 6, 10, 8),
            Copy2D { width: 32, height: 6, src_pitch: 80, dst_pitch: 32 }
        );
        assert!(Copy2D::tile_into_block(0, 6, 10, 8).is_empty());
        assert!(Copy2D::tile_into_block(4, 0, 10, 8).is_empty());
        assert!(!Copy2D::tile_into_block(4, 6, 10, 8).is_empty());
        // Double complex: 16 bytes an element.
        assert_eq!(
            Copy2D::tile_into_block(4, 6, 10, 16),
            Copy2D { width: 64, height: 6, src_pitch: 64, dst_pitch: 160 }
        );
    }

    /// Packing a strided host tile in pieces (as staging does, with any piece size) and
    /// unpacking it back moves exactly the tile: every element in order, nothing past row m.
    #[test]
    fn staging_pieces_move_exactly_the_tile() {
        let (m, n, ld) = (5usize, 4usize, 9usize);
        let host: Vec<f64> = (0..ld * n).map(|x| x as f64).collect();
        let b = HostBlock { ptr: host.as_ptr() as *mut u8, m, n, ld, elem: crate::tile::Kind::F64 };
        for piece in [1usize, 3, 8, 13, 40, 160, 1000] {
            let mut packed = vec![0u8; b.bytes()];
            let mut off = 0;
            while off < packed.len() {
                let len = piece.min(packed.len() - off);
                // SAFETY: `host` holds the tile's shape.
                unsafe { pack(&b, off, &mut packed[off..off + len]) };
                off += len;
            }
            let vals: Vec<f64> =
                packed.chunks(8).map(|x| f64::from_ne_bytes(x.try_into().unwrap())).collect();
            let want: Vec<f64> = (0..n).flat_map(|j| (0..m).map(move |i| (i + j * ld) as f64)).collect();
            assert_eq!(vals, want, "piece {piece}");
            let mut back = vec![f64::NAN; ld * n];
            let out = HostBlock { ptr: back.as_mut_ptr() as *mut u8, ..b };
            let mut off = 0;
            while off < packed.len() {
                let len = piece.min(packed.len() - off);
                // SAFETY: `back` holds the tile's shape.
                unsafe { unpack(&packed[off..off + len], &out, off) };
                off += len;
            }
            for j in 0..n {
                for i in 0..ld {
                    if i < m {
                        assert_eq!(back[i + j * ld], host[i + j * ld]);
                    } else {
                        assert!(back[i + j * ld].is_nan(), "row {i} (past m) must not be written");
                    }
                }
            }
        }
        let pieces: Vec<_> = chunks(2 * SLOT_BYTES + 5).collect();
        assert_eq!(pieces, vec![(0, SLOT_BYTES), (SLOT_BYTES, SLOT_BYTES), (2 * SLOT_BYTES, 5)]);
        assert_eq!(chunks(0).count(), 0);
    }

    #[test]
    fn cublas_parameter_mapping() {
        assert_eq!(typed::adjoint::<f64>(), cb::cublasOperation_t::CUBLAS_OP_T);
        assert_eq!(typed::adjoint::<f32>(), cb::cublasOperation_t::CUBLAS_OP_T);
        assert_eq!(typed::adjoint::<c32>(), cb::cublasOperation_t::CUBLAS_OP_C);
        assert_eq!(typed::adjoint::<c64>(), cb::cublasOperation_t::CUBLAS_OP_C);
        assert_eq!(fill(Uplo::Lower), cb::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER);
        assert_eq!(fill(Uplo::Upper), cb::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER);
        assert_eq!(fill_solver(Uplo::Lower) as u32, cb::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER as u32);
        assert_eq!(fill_solver(Uplo::Upper) as u32, cb::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER as u32);
        assert_eq!(side(Side::Left), cb::cublasSideMode_t::CUBLAS_SIDE_LEFT);
        assert_eq!(side(Side::Right), cb::cublasSideMode_t::CUBLAS_SIDE_RIGHT);
        assert_eq!(diag(Diag::Unit), cb::cublasDiagType_t::CUBLAS_DIAG_UNIT);
        assert_eq!(diag(Diag::NonUnit), cb::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT);
    }

    #[test]
    fn workspace_rules() {
        assert_eq!(solver_work_elems(0), 256, "never a null workspace");
        assert_eq!(solver_work_elems(-3), 256);
        assert_eq!(solver_work_elems(256), 256);
        assert_eq!(solver_work_elems(257), 512);
        const { assert!(SLOT_BYTES >= 1024 * 1024 * 8, "a 1024×1024 tile goes through pinned staging") };
    }

    /// Under `HETLA_TEST_GPUS` (the unit suite on the fake CUDA, or on a GPU) the devices must
    /// open, or that whole run would silently test the host only. Then a tile larger than a
    /// staging slot goes in and out in pieces, and a gathered stack goes through `execute`.
    #[test]
    fn devices_asked_for_by_the_test_run_open_and_move_large_tiles() {
        if std::env::var_os("HETLA_TEST_GPUS").is_none() {
            return; // the host-only runs; scripts/test.sh's unit-fakecuda steps set it
        }
        let cfg = Config::with_threads(1);
        let devs = open(&cfg);
        assert!(!devs.is_empty(), "HETLA_TEST_GPUS is set but no CUDA device opened");
        let d = &devs[0];
        // 1100 x 1000 doubles with ld 1103: 8.8 MB, more than one slot.
        let (m, n, ld) = (1100usize, 1000usize, 1103usize);
        let host: Vec<f64> = (0..ld * n).map(|x| x as f64 * 0.5).collect();
        let src = HostBlock { ptr: host.as_ptr() as *mut u8, m, n, ld, elem: crate::tile::Kind::F64 };
        assert!(src.bytes() > SLOT_BYTES);
        let buf = d.alloc(src.bytes()).expect("device memory for the test tile");
        let mut back = vec![-1.0f64; ld * n];
        let dst = HostBlock { ptr: back.as_mut_ptr() as *mut u8, ..src };
        // SAFETY: both host blocks are live vectors of the tile's shape; the copy out completes
        // before it returns, the copy in before (on the same device, ordered by its events).
        unsafe {
            d.copy_in(&src, &buf).unwrap();
            d.sync().unwrap();
            d.copy_out(&buf, &dst).unwrap();
        }
        for j in 0..n {
            for i in 0..ld {
                let want = if i < m { host[i + j * ld] } else { -1.0 };
                assert_eq!(back[i + j * ld], want, "element ({i}, {j})");
            }
        }
        d.free(buf);
    }

    /// On a machine without libcuda (this project's), opening devices is empty and says why,
    /// whatever HETLA_GPUS asks for; never a panic.
    #[test]
    fn open_without_cuda_is_cpu_only() {
        // SAFETY: only tries to dlopen libcuda.
        if unsafe { cu::is_culib_present() } {
            return; // a GPU machine: covered by bench/gpu.sh instead
        }
        for sel in [GpuSelect::All, GpuSelect::Ordinals(vec![0]), GpuSelect::None] {
            let mut cfg = Config::with_threads(1);
            cfg.gpus = sel;
            assert!(open(&cfg).is_empty());
        }
        assert_eq!(driver().as_ref().err().map(String::as_str), Some("libcuda not found"));
    }
}
