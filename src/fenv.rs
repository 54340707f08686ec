//! The caller's floating-point environment across a hetla call (ARCHITECTURE.md, "The caller's
//! floating-point environment").
//!
//! The rule: after an exported call, the calling thread's exception flags are the flags it had on
//! entry and the flags the call's *numerical work* raised, on whatever thread that work ran; its
//! control settings (rounding mode, flush-to-zero and denormals-are-zero, exception masks, the x87
//! control word) are the ones it had on entry; and every piece of numerical work runs under those
//! control settings, so a worker computes as the caller would have. Numerical work is:
//!
//! * a task body ([`under`], from `runtime::pool::run_job`) and a device op on a device's
//!   management thread, on any thread, under the sequence's control (the settings of the thread
//!   that created it, [`control`]); the flags it raises go to its sequence and from there to the
//!   calling thread ([`note`], when the sequence drains);
//! * what the calling thread hands to the backend itself (a forwarded call, DGELS's norm and
//!   scaling, an inline op, a device's solver): [`numeric`].
//!
//! Everything else hetla does (argument checks, task generation, timing, learning, cost models,
//! verbose lines) is bookkeeping, and the flags it raises are dropped at the boundary
//! ([`Boundary`]): such code is compiled under the assumption that nobody observes the flags, so
//! the compiler may for instance compare bytes that are not a double at all as a double (one
//! such comparison raised DE in every tiled call, see `Op::reads_output`).
//!
//! On x86_64 the state is MXCSR (flags, DAZ, masks, rounding, FTZ) and the x87 status and control
//! words, read and written with `stmxcsr`/`ldmxcsr`/`fnstsw`/`fnstcw`/`fldcw`/`fnclex`/
//! `fnstenv`/`fldenv`; the denormal-operand flag (DE), which C's `fetestexcept` does not report
//! but gfortran does, is kept like the others. Elsewhere it is C's `<fenv.h>` (see `portable`).

use std::cell::Cell;

/// Exception flags raised on a thread. On x86_64, `sse` holds MXCSR's bits 0..5 and `x87` the x87
/// status word's bits 0..5 (IE, DE, ZE, OE, UE, PE in both); elsewhere `sse` holds `<fenv.h>`'s
/// bits and `x87` is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    sse: u32,
    x87: u32,
}

impl Flags {
    /// No flag.
    pub const NONE: Flags = Flags { sse: 0, x87: 0 };

    /// Whether no flag is set.
    pub fn is_empty(self) -> bool {
        self.sse == 0 && self.x87 == 0
    }

    /// The flags set in either `self` or `o`.
    pub fn union(self, o: Flags) -> Flags {
        Flags { sse: self.sse | o.sse, x87: self.x87 | o.x87 }
    }

    /// The flags of both units as one set of bits in the x86 layout (IE 0x01, DE 0x02, ZE 0x04,
    /// OE 0x08, UE 0x10, PE 0x20) on x86_64, `<fenv.h>`'s bits elsewhere.
    pub fn bits(self) -> u32 {
        self.sse | self.x87
    }
}

/// The control settings numerical work runs under (see the module's docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control(arch::Ctl);

/// The calling thread's control settings.
pub fn control() -> Control {
    Control(arch::get_control())
}

/// Whether the calling thread's arithmetic is an accelerator's: round to nearest, subnormals kept
/// (no flush-to-zero, no denormals-are-zero). A CUDA device computes that way whatever the host
/// thread says, so a call made under another rounding mode or FTZ/DAZ keeps off such devices
/// (`device::open`): its work runs on host threads, under the caller's settings.
pub fn device_arithmetic() -> bool {
    arch::ieee_default()
}

/// The exception flags raised on the calling thread.
pub fn flags() -> Flags {
    arch::get_flags()
}

thread_local! {
    /// The flags the numerical work of the exported call running on this thread has raised so
    /// far (its own [`numeric`] regions and its sequences' tasks).
    static RAISED: Cell<Flags> = const { Cell::new(Flags::NONE) };
}

/// Counts `f` as raised by the numerical work of the exported call running on this thread.
pub fn note(f: Flags) {
    if !f.is_empty() {
        RAISED.with(|r| r.set(r.get().union(f)));
    }
}

/// Calls `work` through a pointer the optimiser cannot see through: Rust code is compiled as if
/// nobody read or set the floating-point environment, so arithmetic the compiler can see may be
/// moved across the instructions that do (computed before the control settings are loaded, or
/// after the flags are read). An opaque call is done where it stands.
#[inline]
fn opaque<R>(work: impl FnOnce() -> R) -> R {
    let mut work = Some(work);
    let mut out = None;
    let mut call = || out = work.take().map(|w| w());
    let call: &mut dyn FnMut() = std::hint::black_box(&mut call);
    call();
    out.expect("the work ran")
}

/// Runs `work`, numerical work on the calling thread: the flags it raises count as the call's
/// ([`note`]) and stay raised; flags raised before it stay too.
pub fn numeric<R>(work: impl FnOnce() -> R) -> R {
    let before = arch::get_flags();
    arch::clear_flags();
    let r = opaque(work);
    let raised = arch::get_flags();
    note(raised);
    if !before.is_empty() {
        arch::set_flags(before.union(raised));
    }
    r
}

/// Runs `work`, a task's numerical work, under `ctl` (its sequence's control) on whatever thread
/// this is, and returns the flags it raised; the thread's own control settings and flags are
/// what they were before, whatever `work` did to them.
pub fn under<R>(ctl: Control, work: impl FnOnce() -> R) -> (R, Flags) {
    let own = arch::get_control();
    let own_flags = arch::get_flags();
    if own != ctl.0 {
        arch::set_control(ctl.0);
    }
    arch::clear_flags();
    let r = opaque(work);
    let raised = arch::get_flags();
    if arch::get_control() != own {
        arch::set_control(own);
    }
    if raised != own_flags {
        arch::set_flags(own_flags);
    }
    (r, raised)
}

/// The floating-point side of an exported call (`abi::guard`): created on entry, it keeps the
/// caller's flags and control and clears the flags; dropped on exit, it leaves the control as it
/// was and the flags as the entry's plus those the call's numerical work raised ([`note`]),
/// dropping whatever hetla's bookkeeping raised in between. Calls nest (the backend calling an
/// exported symbol inside a forwarded call): each level keeps its own account.
pub struct Boundary {
    entry: Flags,
    control: arch::Ctl,
    outer: Flags,
}

impl Boundary {
    /// An exported call starts on this thread.
    pub fn enter() -> Self {
        let entry = arch::get_flags();
        let control = arch::get_control();
        arch::clear_flags();
        let outer = RAISED.with(|r| r.replace(Flags::NONE));
        Boundary { entry, control, outer }
    }
}

impl Drop for Boundary {
    fn drop(&mut self) {
        let raised = RAISED.with(|r| r.replace(self.outer));
        if arch::get_control() != self.control {
            arch::set_control(self.control);
        }
        arch::set_flags(self.entry.union(raised));
    }
}

/// Sets the calling thread to the default environment (round to nearest, no FTZ/DAZ, every
/// exception masked, no flag; elsewhere than x86_64 only the flags are cleared): a worker thread
/// starts this way, whatever the thread that created it had set.
pub fn reset_thread() {
    arch::reset();
}

#[cfg(target_arch = "x86_64")]
use x86 as arch;

/// MXCSR as it is, and loading it whole: for the runtime's tests.
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) use x86::{load_mxcsr, raw_mxcsr};

#[cfg(not(target_arch = "x86_64"))]
use portable as arch;

/// MXCSR and the x87 unit, by their own instructions.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Flags;
    use std::arch::asm;

    /// MXCSR's six exception flags (bits 0..5); the rest is control.
    const MX_FLAGS: u32 = 0x3f;
    /// The x87 status word's six exception flags.
    const SW_FLAGS: u16 = 0x3f;
    /// MXCSR at power-up: every exception masked, round to nearest, no FTZ/DAZ.
    const MX_DEFAULT: u32 = 0x1f80;
    /// The x87 control word at `fninit`: every exception masked, 64-bit precision, nearest.
    const CW_DEFAULT: u16 = 0x037f;

    /// The control bits of MXCSR (flags cleared) and the x87 control word.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Ctl {
        mxcsr: u32,
        cw: u16,
    }

    fn stmxcsr() -> u32 {
        let mut v: u32 = 0;
        // SAFETY: STMXCSR stores the 4-byte MXCSR into `v`, a valid, writable u32 on this stack
        // frame; it changes no register and no flag. SSE is part of the x86_64 baseline.
        unsafe { asm!("stmxcsr [{}]", in(reg) &mut v, options(nostack, preserves_flags)) };
        v
    }

    fn ldmxcsr(v: u32) {
        // SAFETY: LDMXCSR loads MXCSR from `v`, a valid u32; every value we load was read from
        // MXCSR (reserved bits 16..31 zero) with only flag bits (0..5) changed, or is the
        // power-up default, so it cannot fault. Setting flag bits never traps by itself.
        unsafe { asm!("ldmxcsr [{}]", in(reg) &v, options(nostack, preserves_flags, readonly)) };
    }

    fn fnstsw() -> u16 {
        let sw: u16;
        // SAFETY: FNSTSW AX copies the x87 status word into AX; it reads no memory and does not
        // wait for pending x87 exceptions.
        unsafe { asm!("fnstsw ax", out("ax") sw, options(nomem, nostack, preserves_flags)) };
        sw
    }

    fn fnstcw() -> u16 {
        let mut cw: u16 = 0;
        // SAFETY: FNSTCW stores the 2-byte x87 control word into `cw`, a valid, writable u16.
        unsafe { asm!("fnstcw [{}]", in(reg) &mut cw, options(nostack, preserves_flags)) };
        cw
    }

    fn fldcw(cw: u16) {
        // SAFETY: FLDCW loads the x87 control word from `cw`, a value read by FNSTCW (or the
        // FNINIT default); any 16-bit value is a valid control word.
        unsafe { asm!("fldcw [{}]", in(reg) &cw, options(nostack, preserves_flags, readonly)) };
    }

    fn fnclex() {
        // SAFETY: FNCLEX clears the x87 exception flags (and the busy/summary bits) and touches
        // nothing else; it does not wait for pending exceptions.
        unsafe { asm!("fnclex", options(nomem, nostack, preserves_flags)) };
    }

    /// Sets the x87 exception flags to exactly `bits` (0..5).
    fn set_x87(bits: u16) {
        fnclex();
        if bits == 0 {
            return;
        }
        // The 28-byte environment of 64-bit mode: control word at 0, status word at 4, ...
        let mut env = [0u32; 7];
        // SAFETY: FNSTENV writes the 28-byte x87 environment into `env` (28 bytes, writable) and
        // then masks every x87 exception; FLDENV loads it back (control word included, so the
        // masks are the caller's again) with the status word's flags set to `bits`. Neither
        // traps: an unmasked flag set this way traps at the next x87 arithmetic instruction,
        // exactly as the flag raised by the work it stands for would have.
        unsafe {
            asm!("fnstenv [{}]", in(reg) env.as_mut_ptr(), options(nostack, preserves_flags));
            env[1] |= u32::from(bits & SW_FLAGS);
            asm!("fldenv [{}]", in(reg) env.as_ptr(), options(nostack, preserves_flags, readonly));
        }
    }

    pub fn get_control() -> Ctl {
        Ctl { mxcsr: stmxcsr() & !MX_FLAGS, cw: fnstcw() }
    }

    /// MXCSR's rounding (bits 13-14), FTZ (15) and DAZ (6); the x87 rounding (bits 10-11).
    const MX_ARITH: u32 = 0xe040;
    const CW_ROUND: u16 = 0x0c00;

    /// Whether the calling thread rounds to nearest and keeps subnormals, as an accelerator's
    /// double arithmetic does.
    pub fn ieee_default() -> bool {
        let c = get_control();
        c.mxcsr & MX_ARITH == 0 && c.cw & CW_ROUND == 0
    }

    /// Loads `c`, keeping MXCSR's flags as they are.
    pub fn set_control(c: Ctl) {
        ldmxcsr(c.mxcsr | (stmxcsr() & MX_FLAGS));
        if fnstcw() != c.cw {
            fldcw(c.cw);
        }
    }

    pub fn get_flags() -> Flags {
        Flags { sse: stmxcsr() & MX_FLAGS, x87: u32::from(fnstsw() & SW_FLAGS) }
    }

    pub fn clear_flags() {
        let m = stmxcsr();
        if m & MX_FLAGS != 0 {
            ldmxcsr(m & !MX_FLAGS);
        }
        if fnstsw() & SW_FLAGS != 0 {
            fnclex();
        }
    }

    /// Sets the flags to exactly `f`.
    pub fn set_flags(f: Flags) {
        let m = stmxcsr();
        if m & MX_FLAGS != f.sse {
            ldmxcsr((m & !MX_FLAGS) | (f.sse & MX_FLAGS));
        }
        if u32::from(fnstsw() & SW_FLAGS) != f.x87 {
            set_x87(f.x87 as u16);
        }
    }

    pub fn reset() {
        ldmxcsr(MX_DEFAULT);
        fnclex();
        if fnstcw() != CW_DEFAULT {
            fldcw(CW_DEFAULT);
        }
    }

    #[cfg(test)]
    pub(crate) fn raw_mxcsr() -> u32 {
        stmxcsr()
    }

    #[cfg(test)]
    pub(crate) fn load_mxcsr(v: u32) {
        ldmxcsr(v)
    }
}

/// C's `<fenv.h>`, for targets other than x86_64 (and compiled on x86_64 for its tests): the
/// control is the whole `fenv_t` (`fegetenv`: rounding mode and, where the target has them,
/// flush-to-zero and trap enables), the flags `fetestexcept`'s.
#[cfg(any(not(target_arch = "x86_64"), test))]
mod portable {
    use super::Flags;
    use std::ffi::c_int;

    /// `FE_ALL_EXCEPT` of the C library on this target; 0 where it is not known here (the flags
    /// are then left alone, the control settings are still carried).
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    const ALL: c_int = 0x3d;
    #[cfg(any(target_arch = "aarch64", target_arch = "arm", target_arch = "riscv64"))]
    const ALL: c_int = 0x1f;
    #[cfg(any(target_arch = "powerpc64", target_arch = "powerpc"))]
    const ALL: c_int = 0x3e00_0000;
    #[cfg(target_arch = "s390x")]
    const ALL: c_int = 0xf8;
    #[cfg(target_arch = "loongarch64")]
    const ALL: c_int = 0x1f_0000;
    #[cfg(not(any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64",
        target_arch = "powerpc64",
        target_arch = "powerpc",
        target_arch = "s390x",
        target_arch = "loongarch64"
    )))]
    const ALL: c_int = 0;

    /// Room for any C library's `fenv_t` (32 bytes on x86_64 glibc, 8 or fewer elsewhere).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    #[repr(C, align(16))]
    pub struct Ctl([u64; 16]);

    extern "C" {
        fn fegetenv(envp: *mut Ctl) -> c_int;
        fn fesetenv(envp: *const Ctl) -> c_int;
        fn fetestexcept(excepts: c_int) -> c_int;
        fn feclearexcept(excepts: c_int) -> c_int;
        fn feraiseexcept(excepts: c_int) -> c_int;
        fn fegetround() -> c_int;
    }

    /// Whether the calling thread rounds to nearest, as an accelerator's double arithmetic does
    /// (only `fegetround` reads the rounding mode portably; FE_TONEAREST is 0 on the targets
    /// Rust supports).
    pub fn ieee_default() -> bool {
        // SAFETY: fegetround only reads the floating-point control.
        unsafe { fegetround() == 0 }
    }

    pub fn get_control() -> Ctl {
        let mut c = Ctl([0; 16]);
        // SAFETY: fegetenv writes one fenv_t, which fits in `c` (zeroed first, so the bytes past
        // it compare equal between two reads).
        unsafe { fegetenv(&mut c) };
        c
    }

    /// Loads `c`'s control settings, keeping the flags as they are (fesetenv also installs the
    /// flags `c` was read with).
    pub fn set_control(c: Ctl) {
        let f = get_flags();
        // SAFETY: `c` holds an fenv_t written by fegetenv.
        unsafe { fesetenv(&c) };
        set_flags(f);
    }

    pub fn get_flags() -> Flags {
        // SAFETY: fetestexcept only reads the floating-point status.
        Flags { sse: unsafe { fetestexcept(ALL) } as u32, x87: 0 }
    }

    pub fn clear_flags() {
        // SAFETY: feclearexcept only clears status flags.
        unsafe { feclearexcept(ALL) };
    }

    /// Sets the flags to exactly `f`. feraiseexcept traps where the caller unmasked a trap for
    /// one of them, as the work that raised it would have.
    pub fn set_flags(f: Flags) {
        clear_flags();
        if f.sse != 0 {
            // SAFETY: raising flags the C library itself reported on this target.
            unsafe { feraiseexcept(f.sse as c_int & ALL) };
        }
    }

    /// Clears the flags; the control settings stay as the thread was created with them
    /// (`FE_DFL_ENV` is spelled differently by different C libraries).
    pub fn reset() {
        clear_flags();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` with the calling thread's environment restored afterwards (the test harness's
    /// threads run other tests next).
    fn keeping_env<R>(f: impl FnOnce() -> R) -> R {
        let (c, fl) = (control(), flags());
        let r = f();
        arch::set_control(c.0);
        arch::set_flags(fl);
        r
    }

    /// Something that raises INEXACT (1/3), out of the optimiser's sight.
    fn inexact() -> f64 {
        opaque(|| std::hint::black_box(1.0) / std::hint::black_box(3.0))
    }

    #[cfg(target_arch = "x86_64")]
    const PE: u32 = 0x20;
    #[cfg(target_arch = "x86_64")]
    const DE: u32 = 0x02;

    /// A denormal operand: raises DE (x86) and nothing else when compared.
    #[cfg(target_arch = "x86_64")]
    fn denormal_compare() -> bool {
        opaque(|| std::hint::black_box(f64::from_bits(1)) == std::hint::black_box(0.0))
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn boundary_keeps_entry_and_numeric_flags_and_drops_bookkeeping() {
        keeping_env(|| {
            arch::set_flags(Flags::NONE);
            // Entry flags: DE on x87 (as if the caller had raised it), nothing on SSE.
            arch::set_flags(Flags { sse: 0, x87: DE });
            {
                let _b = Boundary::enter();
                assert!(flags().is_empty(), "the call starts with clear flags");
                assert!(!denormal_compare()); // bookkeeping: DE on SSE
                assert_eq!(flags().sse & DE, DE);
                let x = numeric(inexact); // numerical: PE
                assert!(x > 0.0);
                assert_eq!(flags().sse, DE | PE, "numeric keeps the flags before it");
                assert!(inexact() > 0.0); // bookkeeping PE again: already numerical, kept
            }
            assert_eq!(flags(), Flags { sse: PE, x87: DE });
        });
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn nested_boundaries_keep_their_own_accounts() {
        keeping_env(|| {
            arch::set_flags(Flags::NONE);
            {
                let _outer = Boundary::enter();
                numeric(|| {
                    // A forwarded call whose backend calls an exported symbol again.
                    let _inner = Boundary::enter();
                    assert!(!denormal_compare());
                    numeric(inexact);
                });
                assert!(!denormal_compare());
            }
            assert_eq!(flags(), Flags { sse: PE, x87: 0 });
        });
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn under_applies_the_control_and_restores_the_thread() {
        keeping_env(|| {
            // The caller: round toward zero, FTZ and DAZ.
            let caller = 0x1f80 | (3 << 13) | 0x8000 | 0x40;
            x86::load_mxcsr(caller);
            let ctl = control();
            // A worker with the default settings and a flag of its own.
            x86::load_mxcsr(0x1f80 | DE);
            let (seen, raised) = under(ctl, || (x86::raw_mxcsr(), inexact()));
            assert_eq!(seen.0, caller, "the work ran under the caller's control, flags clear");
            assert_eq!(raised.sse, PE);
            assert_eq!(x86::raw_mxcsr(), 0x1f80 | DE, "the worker's own settings and flags are back");
        });
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn rounding_follows_the_control() {
        // 1 + 2^-53 is halfway between 1 and its successor: nearest gives 1, upward the successor.
        let sum = || opaque(|| std::hint::black_box(1.0f64) + std::hint::black_box(f64::EPSILON / 2.0));
        keeping_env(|| {
            let nearest = control();
            x86::load_mxcsr(x86::raw_mxcsr() | (2 << 13)); // round up
            let upward = control();
            arch::set_control(nearest.0);
            assert_eq!(under(upward, sum).0, 1.0 + f64::EPSILON);
            assert_eq!(sum(), 1.0);
        });
    }

    /// The `<fenv.h>` implementation other targets use, exercised here on x86_64's C library.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn portable_fenv_round_trips() {
        keeping_env(|| {
            portable::clear_flags();
            assert_eq!(portable::get_flags(), Flags::NONE);
            let c0 = portable::get_control();
            inexact();
            assert_eq!(portable::get_flags().sse, PE);
            x86::load_mxcsr(x86::raw_mxcsr() | (1 << 13)); // round down
            let down = portable::get_control();
            portable::set_control(c0);
            assert_eq!(x86::raw_mxcsr() & (3 << 13), 0, "nearest again");
            assert_eq!(portable::get_flags().sse, PE, "set_control keeps the flags");
            portable::set_flags(Flags::NONE);
            portable::set_control(down);
            assert_eq!(x86::raw_mxcsr() & (3 << 13), 1 << 13);
            assert_eq!(portable::get_flags(), Flags::NONE);
            inexact();
            portable::reset();
            assert_eq!(portable::get_flags(), Flags::NONE);
        });
    }

    /// A device computes as a thread that rounds to nearest and keeps subnormals: any other
    /// rounding mode, FTZ or DAZ, or x87 rounding, says no.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn device_arithmetic_is_nearest_without_ftz_or_daz() {
        keeping_env(|| {
            let base = x86::raw_mxcsr();
            assert!(device_arithmetic() && portable::ieee_default());
            for (bits, what) in
                [(1 << 13, "down"), (2 << 13, "up"), (3 << 13, "zero"), (1 << 15, "FTZ"), (1 << 6, "DAZ")]
            {
                x86::load_mxcsr(base | bits);
                assert!(!device_arithmetic(), "{what}");
                x86::load_mxcsr(base);
            }
            assert!(device_arithmetic());
            // C's fesetround sets both units; glibc's fegetround reads the x87 one.
            extern "C" {
                fn fesetround(mode: std::ffi::c_int) -> std::ffi::c_int;
            }
            const FE_DOWNWARD: std::ffi::c_int = 0x400;
            // SAFETY: fesetround only changes the rounding mode, restored by `keeping_env`.
            unsafe { fesetround(FE_DOWNWARD) };
            assert!(!device_arithmetic() && !portable::ieee_default(), "x87 and MXCSR round down");
        });
    }
}
