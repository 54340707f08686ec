//! The emulated accelerator (`HETLA_EMULATE_GPUS=N`, `HETLA_EMULATE_GPU_MEM` bytes each): a
//! device whose memory is an arena it manages itself, with a hard capacity, explicit copies in
//! and out, and kernels that are the host's BLAS run on its own copies by its own management
//! thread (ARCHITECTURE.md, decision 5).
//!
//! It is a testing device and documented as such: it gains no speed (its "kernels" compete with
//! the host workers for the same cores), but it exercises everything the runtime does for a real
//! GPU except the CUDA calls: placement, per-device queues, the memory manager with its
//! allocation failures and evictions, the coherence of host and device copies, and the
//! transfers, which really move bytes between two memories.
//!
//! The arena is one zeroed allocation of the device's memory size (pages are only touched when
//! used). Allocation is first-fit over a sorted free list with coalescing, in 64-byte units, so
//! fragmentation can make an allocation fail even when enough bytes are free in total, as on a
//! real device.

use super::{
    declined, host_core_rate, intern, unpack_triangle, with_solver_buffers, DevBuf, DevTile, Device,
    DeviceOp, Factor, HostBlock, Solve, Tiles,
};
use crate::backend::forward;
use crate::error::Error;
use crate::graph::op::{OpElem, Operands};
use crate::kernels::Uplo;
use crate::scalar::{c32, c64, Scalar};
use crate::tile::Raw;
use crate::tile::{Elem, Kind, RawBlock, View, ViewMut};
use std::alloc::Layout;
use std::sync::Mutex;

/// Allocation granule of the arena in bytes.
const GRANULE: usize = 64;

/// Nominal host↔device bandwidth the cost model assumes for an emulated device (a PCIe 3 x16
/// link's order of magnitude), so that calls are placed as they would be with a real GPU.
pub(crate) const EMULATED_LINK_BW: f64 = 8e9;

pub struct Emulated {
    name: &'static str,
    size: usize,
    /// Start of the arena (64-byte aligned) inside the allocation `alloc` of `layout`.
    base: *mut u8,
    alloc: *mut u8,
    layout: Layout,
    /// Free extents (offset, length) in bytes, sorted by offset, never adjacent.
    free: Mutex<Vec<(usize, usize)>>,
}

// SAFETY: `base` points into an allocation owned by this value for its whole life. The allocator
// state is behind a mutex; distinct buffers never overlap, and the memory manager guarantees that
// a buffer is used by one copy or one kernel at a time, so threads never race on arena bytes.
unsafe impl Send for Emulated {}
// SAFETY: as above.
unsafe impl Sync for Emulated {}

impl Emulated {
    /// Emulated device number `index` with `bytes` of memory.
    pub fn new(index: usize, bytes: usize) -> Self {
        let size = bytes.max(GRANULE) / GRANULE * GRANULE;
        // The allocation has the system allocator's natural alignment so that zeroing it is a
        // lazy `calloc` (pages are only touched when used: a 256 MiB device costs nothing until
        // filled); the arena starts at the first GRANULE boundary inside it.
        let layout = Layout::from_size_align(size + GRANULE, 16).expect("arena layout");
        // SAFETY: the layout has a non-zero size.
        let alloc = unsafe { std::alloc::alloc_zeroed(layout) };
        if alloc.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Emulated {
            name: intern(&format!("emu{index}")),
            size,
            base: alloc.wrapping_add(alloc.align_offset(GRANULE)),
            alloc,
            layout,
            free: Mutex::new(vec![(0, size)]),
        }
    }

    /// Bytes currently free in the arena (tests).
    pub fn free_bytes(&self) -> usize {
        self.free.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|f| f.1).sum()
    }

    fn at(&self, buf: &DevBuf) -> *mut u8 {
        assert!(buf.addr as usize + buf.bytes <= self.size, "buffer outside the arena");
        self.base.wrapping_add(buf.addr as usize)
    }

    /// A read-only block over operand `t` of `args`: the tile itself when it is one tile, else a
    /// gathered copy of the stack (kept in `scratch`).
    fn block<T: Elem>(&self, args: &[DevTile], t: Tiles, scratch: &mut Vec<T>) -> RawBlock<T> {
        let tiles = &args[t.positions()];
        if tiles.len() == 1 {
            let d = tiles[0];
            assert_eq!(d.elem, T::KIND, "operand of another type than the op's");
            return RawBlock { ptr: self.at(&d.buf) as *mut T, m: d.m, n: d.n, ld: d.m.max(1) };
        }
        let n = tiles[0].n;
        let m: usize = tiles.iter().map(|d| d.m).sum();
        assert!(
            tiles.iter().all(|d| d.n == n && d.elem == T::KIND),
            "a stack must be one tile column of one type"
        );
        scratch.clear();
        scratch.extend(T::zeroed(m * n));
        let mut r0 = 0;
        for d in tiles {
            let src = self.at(&d.buf) as *const T;
            for j in 0..n {
                // SAFETY: the tile buffer holds d.m×n packed elements of T (checked by the memory
                // manager when it was allocated, its type asserted above), and the scratch holds
                // m×n with rows r0..r0+d.m free.
                unsafe {
                    std::ptr::copy_nonoverlapping(src.add(j * d.m), scratch.as_mut_ptr().add(r0 + j * m), d.m)
                };
            }
            r0 += d.m;
        }
        RawBlock { ptr: scratch.as_mut_ptr(), m, n, ld: m.max(1) }
    }

    /// Writable view of operand `t` (in place, or gathered into `scratch`; then [`Self::scatter`]
    /// writes it back after the kernel).
    fn output<'s, T: Elem>(&'s self, args: &[DevTile], t: Tiles, scratch: &'s mut Vec<T>) -> ViewMut<'s, T> {
        let b = self.block(args, t, scratch);
        // SAFETY: the operand's buffers are locked for the running task, which the dependency
        // lists give exclusive access to its outputs; a kernel's operands are distinct tiles, so
        // no input view aliases this one.
        unsafe { b.view_mut() }
    }

    /// Writes a gathered stack back into its tiles (no-op for a single tile, used in place).
    fn scatter<T: Elem>(&self, args: &[DevTile], t: Tiles, scratch: &[T]) {
        let tiles = &args[t.positions()];
        if tiles.len() == 1 {
            return;
        }
        let m: usize = tiles.iter().map(|d| d.m).sum();
        let mut r0 = 0;
        for d in tiles {
            let dst = self.at(&d.buf) as *mut T;
            for j in 0..d.n {
                // SAFETY: the reverse of the gather in `block`, same bounds.
                unsafe {
                    std::ptr::copy_nonoverlapping(scratch.as_ptr().add(r0 + j * m), dst.add(j * d.m), d.m)
                };
            }
            r0 += d.m;
        }
    }

    /// [`Device::factor`] of a matrix of `T`: the host's LAPACK (the backend) on this device's
    /// copy, as a GPU's vendor solver would run on its own: the same copies in and out, the same
    /// rules for what comes back.
    ///
    /// # Safety
    /// As [`Device::factor`], with `a` holding elements of `T`.
    unsafe fn factor_as<T: Scalar>(&self, f: Factor, a: &HostBlock, aux: *mut u8) -> Solve {
        with_solver_buffers(self, f, a, |buf, xbuf| {
            let (m, n) = (a.m, a.n);
            let k = m.min(n);
            // SAFETY: the caller guarantees `a` readable; `buf` holds its packed bytes.
            unsafe { self.copy_in(a, buf).expect("emulated copies do not fail") };
            let (d, x) = (self.at(buf) as *mut T, self.at(xbuf));
            let (mi, ni, ld) = (m as i32, n as i32, m.max(1) as i32);
            // SAFETY: `d` holds the packed m×n matrix (leading dimension m) and `x` k elements
            // of the auxiliary output, both inside the arena and this call's own buffers.
            let info = unsafe {
                match f {
                    Factor::Potrf(u) => {
                        let c = if u == Uplo::Lower { b'L' } else { b'U' };
                        forward::potrf(c, ni, Raw::new(d), ld)
                    }
                    Factor::Getrf => forward::getrf(mi, ni, Raw::new(d), ld, Raw::new(x as *mut i32)),
                    Factor::Geqrf => {
                        let mut q = T::zero();
                        let tau = Raw::new(x as *mut T);
                        forward::geqrf(mi, ni, Raw::new(d), ld, tau, Raw::new(&mut q), -1);
                        let lwork: f64 = q.re().into();
                        let mut work = vec![T::zero(); (lwork as usize).max(1)];
                        let lw = work.len() as i32;
                        forward::geqrf(mi, ni, Raw::new(d), ld, tau, Raw::new(work.as_mut_ptr()), lw)
                    }
                }
            };
            // SAFETY: diagonal entries of the packed matrix.
            let diag: Vec<T> = (0..k).map(|i| unsafe { *d.add(i * m + i) }).collect();
            // SAFETY: the bytes of `diag`'s k plain elements.
            let bytes = unsafe { std::slice::from_raw_parts(diag.as_ptr() as *const u8, k * a.elem.bytes()) };
            if let Some(why) = declined(info, &super::parts(a.elem, bytes)) {
                return Solve::Declined(why);
            }
            // SAFETY: the caller guarantees `a` writable and `aux` writable for k elements; the
            // buffers hold what is copied.
            unsafe {
                match f {
                    Factor::Potrf(u) => {
                        unpack_triangle(std::slice::from_raw_parts(d as *const u8, a.bytes()), a, 0, u)
                    }
                    _ => self.copy_out(buf, a).expect("emulated copies do not fail"),
                }
                std::ptr::copy_nonoverlapping(x, aux, k * f.aux_elem(a.elem));
            }
            Solve::Done
        })
    }

    /// [`Device::execute`] for ops on elements of `T`: the host's math on this device's copies.
    fn run<T: OpElem>(&self, op: &DeviceOp, args: &[DevTile]) -> i32 {
        let mut scratch = Vec::new();
        let out = self.output::<T>(args, op.output(), &mut scratch);
        let info = op.compute(&mut EmuOperands { dev: self, args, ty: std::marker::PhantomData }, out);
        self.scatter(args, op.output(), &scratch);
        info
    }
}

/// The operands of a running kernel: each of its tiles, in place in the arena, one piece each.
struct EmuOperands<'e, T> {
    dev: &'e Emulated,
    args: &'e [DevTile],
    ty: std::marker::PhantomData<T>,
}

impl<'e, T: Scalar> Operands<'e, T> for EmuOperands<'e, T> {
    fn input(&mut self, t: Tiles) -> Vec<View<'e, T>> {
        self.args[t.positions()]
            .iter()
            .map(|d| {
                assert_eq!(d.elem, T::KIND, "operand of another type than the op's");
                let b = RawBlock { ptr: self.dev.at(&d.buf) as *mut T, m: d.m, n: d.n, ld: d.m.max(1) };
                // SAFETY: the buffer holds d.m×d.n packed elements of T (the memory manager
                // allocated it for this tile, its type asserted above) and is locked for the
                // running task, which the dependency lists give shared read access to its
                // inputs; inputs are other tiles than the output.
                unsafe { b.view() }
            })
            .collect()
    }

    fn output(&mut self, _: Tiles) -> crate::tile::ViewMut<'e, T> {
        unreachable!("ops with a second output run on the host only (DeviceOp::on_device)")
    }
}

impl Drop for Emulated {
    fn drop(&mut self) {
        // SAFETY: `alloc` was allocated with `layout` in `new` and is freed once, here.
        unsafe { std::alloc::dealloc(self.alloc, self.layout) }
    }
}

impl Device for Emulated {
    fn name(&self) -> &'static str {
        self.name
    }

    fn memory(&self) -> usize {
        self.size
    }

    fn alloc(&self, bytes: usize) -> Option<DevBuf> {
        let need = bytes.max(1).div_ceil(GRANULE) * GRANULE;
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let i = free.iter().position(|&(_, len)| len >= need)?;
        let (off, len) = free[i];
        if len == need {
            free.remove(i);
        } else {
            free[i] = (off + need, len - need);
        }
        Some(DevBuf { addr: off as u64, bytes })
    }

    fn free(&self, buf: DevBuf) {
        let len = buf.bytes.max(1).div_ceil(GRANULE) * GRANULE;
        let off = buf.addr as usize;
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let i = free.partition_point(|&(o, _)| o < off);
        debug_assert!(i == free.len() || free[i].0 >= off + len, "double free in the emulated arena");
        free.insert(i, (off, len));
        // Coalesce with the next extent, then with the previous one.
        if i + 1 < free.len() && free[i].0 + free[i].1 == free[i + 1].0 {
            free[i].1 += free[i + 1].1;
            free.remove(i + 1);
        }
        if i > 0 && free[i - 1].0 + free[i - 1].1 == free[i].0 {
            free[i - 1].1 += free[i].1;
            free.remove(i);
        }
    }

    unsafe fn copy_in(&self, src: &HostBlock, dst: &DevBuf) -> Result<(), Error> {
        assert!(dst.bytes >= src.bytes(), "device buffer too small for the tile");
        let col = src.m * src.elem.bytes();
        let d = self.at(dst);
        for j in 0..src.n {
            // SAFETY: the caller guarantees `src` readable for its shape; `dst` holds m·n·elem
            // bytes (asserted) inside the arena (checked by `at`).
            unsafe {
                std::ptr::copy_nonoverlapping(src.ptr.add(j * src.ld * src.elem.bytes()), d.add(j * col), col)
            };
        }
        Ok(())
    }

    unsafe fn copy_out(&self, src: &DevBuf, dst: &HostBlock) -> Result<(), Error> {
        assert!(src.bytes >= dst.bytes(), "device buffer smaller than the host tile");
        let col = dst.m * dst.elem.bytes();
        let s = self.at(src);
        for j in 0..dst.n {
            // SAFETY: the caller guarantees `dst` writable for its shape and unshared; `src`
            // holds m·n·elem bytes inside the arena.
            unsafe {
                std::ptr::copy_nonoverlapping(s.add(j * col), dst.ptr.add(j * dst.ld * dst.elem.bytes()), col)
            };
        }
        Ok(())
    }

    fn execute(&self, op: &DeviceOp, args: &[DevTile]) -> Result<i32, Error> {
        // The op's math is the host's ([`crate::graph::op`]), run on this device's copies, in
        // the type of the tiles it writes.
        Ok(match args[op.output().first].elem {
            Kind::F64 => self.run::<f64>(op, args),
            Kind::F32 => self.run::<f32>(op, args),
            Kind::C64 => self.run::<c64>(op, args),
            Kind::C32 => self.run::<c32>(op, args),
            Kind::I32 => unreachable!("no op writes integer tiles"),
        })
    }

    fn sync(&self) -> Result<(), Error> {
        // Every copy and kernel above completes before it returns.
        Ok(())
    }

    fn has_solver(&self) -> bool {
        true
    }

    unsafe fn factor(&self, f: Factor, a: &HostBlock, aux: *mut u8) -> Solve {
        // SAFETY: the caller's guarantees, passed on; the type is the block's.
        unsafe {
            match a.elem {
                Kind::F64 => self.factor_as::<f64>(f, a, aux),
                Kind::F32 => self.factor_as::<f32>(f, a, aux),
                Kind::C64 => self.factor_as::<c64>(f, a, aux),
                Kind::C32 => self.factor_as::<c32>(f, a, aux),
                Kind::I32 => unreachable!("no factorization of an integer matrix"),
            }
        }
    }

    fn gemm_rate(&self) -> f64 {
        // The kernels are one host core's BLAS.
        host_core_rate()
    }

    fn link_bandwidth(&self) -> f64 {
        EMULATED_LINK_BW
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_has_a_hard_capacity_and_coalesces() {
        let d = Emulated::new(0, 64 * 10);
        let a = d.alloc(64 * 4).unwrap();
        let b = d.alloc(64 * 4).unwrap();
        assert!(d.alloc(64 * 3).is_none(), "only 2 granules are left");
        let c = d.alloc(100).unwrap();
        assert!(d.alloc(1).is_none());
        d.free(a);
        d.free(c);
        assert!(d.alloc(64 * 5).is_none(), "a's 4 and c's 2 granules are not adjacent");
        d.free(b);
        assert_eq!(d.free_bytes(), 640);
        let all = d.alloc(640).unwrap();
        assert_eq!(all.addr, 0);
    }

    #[test]
    fn copies_round_trip_a_strided_tile() {
        let d = Emulated::new(1, 1 << 16);
        let (m, n, ld) = (5, 3, 8);
        let mut host: Vec<f64> = (0..ld * n).map(|x| x as f64).collect();
        let blk = HostBlock { ptr: host.as_mut_ptr() as *mut u8, m, n, ld, elem: crate::tile::Kind::F64 };
        let buf = d.alloc(blk.bytes()).unwrap();
        // SAFETY: `host` outlives the calls and holds ld·n elements.
        unsafe { d.copy_in(&blk, &buf).unwrap() };
        let mut back = vec![-1.0; ld * n];
        let blk2 = HostBlock { ptr: back.as_mut_ptr() as *mut u8, ..blk };
        // SAFETY: as above.
        unsafe { d.copy_out(&buf, &blk2).unwrap() };
        for j in 0..n {
            for i in 0..ld {
                let want = if i < m { host[i + j * ld] } else { -1.0 };
                assert_eq!(back[i + j * ld], want);
            }
        }
    }
}
