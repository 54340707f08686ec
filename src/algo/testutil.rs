//! Helpers for the algorithm tests: seeded random matrices, residuals, guard checks.

use crate::config::Config;
use crate::kernels::Uplo;
use crate::scalar::Scalar;
use crate::tile::{Part, Raw};

/// `threads` workers, plus the emulated devices of [`on_devices`] when a test runs inside it.
pub fn cfg(threads: usize) -> Config {
    with_test_devices(Config::with_threads(threads))
}

/// Emulated devices every `cfg`/`with_test_devices` of this thread gets: (count, bytes each,
/// host share). Set by [`on_devices`]; `HETLA_TEST_EMULATE_GPUS=N` sets it for a whole test run
/// (with 16 MiB devices and a host share of 0.5), so the entire suite can run on devices.
#[derive(Clone, Copy, Debug)]
pub struct TestDevices {
    pub count: usize,
    pub mem: usize,
    pub host_share: f64,
}

thread_local! {
    static TEST_DEVICES: std::cell::Cell<Option<TestDevices>> = const { std::cell::Cell::new(None) };
}

fn test_devices() -> Option<TestDevices> {
    TEST_DEVICES.with(|d| d.get()).or_else(|| {
        let n: usize = std::env::var("HETLA_TEST_EMULATE_GPUS").ok()?.parse().ok()?;
        (n > 0).then_some(TestDevices { count: n, mem: 16 << 20, host_share: 0.5 })
    })
}

/// `c` with this thread's test devices, forced on whatever the cost model says.
pub fn with_test_devices(mut c: Config) -> Config {
    if let Some(d) = test_devices() {
        c.emulate_gpus = d.count;
        c.emulate_gpu_mem = d.mem;
        c.host_share = Some(d.host_share);
        c.device_force = true;
        // `HETLA_TEST_UPDATE_ALLOC=nrrp|cyclic`: the factorizations' update placement of the
        // api-level tests (as `HETLA_UPDATE_ALLOC` sets it for a program).
        if let Some(p) = std::env::var("HETLA_TEST_UPDATE_ALLOC")
            .ok()
            .and_then(|s| crate::runtime::alloc::UpdatePolicy::parse(&s))
        {
            c.update_alloc = p;
        }
    }
    c
}

/// Runs `f` with `devices` applied to every test configuration built on this thread.
pub fn on_devices(devices: TestDevices, f: impl FnOnce()) {
    struct Reset(Option<TestDevices>);
    impl Drop for Reset {
        fn drop(&mut self) {
            TEST_DEVICES.with(|d| d.set(self.0));
        }
    }
    let _reset = Reset(TEST_DEVICES.with(|d| d.replace(Some(devices))));
    f();
}

/// Runs `f` with 1, 2 and 3 emulated accelerators, once with every tile column on the devices
/// (host share 0) and once shared half and half with the host.
pub fn for_device_setups(f: impl Fn()) {
    for count in 1..=3 {
        for host_share in [0.0, 0.5] {
            on_devices(TestDevices { count, mem: 16 << 20, host_share }, &f);
        }
    }
}

/// Hybrid partitions (seeds 001 §3.1: B = big tile, s thin tiles of b, one wide tile of B − s·b)
/// every algorithm is also tested on: odd sizes, a wide tile narrower than b (12/2×5, 11/3×3), one
/// wider (13/1×4, 17/3×3), and s = 0 (all wide: uniform 9).
pub fn hybrid_parts() -> [Part; 5] {
    [
        Part::hybrid(12, 2, 5),
        Part::hybrid(13, 1, 4),
        Part::hybrid(17, 3, 3),
        Part::hybrid(11, 3, 3),
        Part::hybrid(9, 0, 1),
    ]
}

/// Runs `f(part)` for every partition of [`hybrid_parts`] with 1, 2 and 3 emulated accelerators
/// owning the wide tile columns (1-D cyclically) and the host the thin ones, as
/// `api::run_tiles_on_devices` places them.
pub fn for_hybrid_setups(f: impl Fn(Part)) {
    for part in hybrid_parts() {
        for count in 1..=3 {
            let host_share = crate::runtime::placement::column_share(&part);
            on_devices(TestDevices { count, mem: 16 << 20, host_share }, || f(part));
        }
    }
}

/// A small deterministic generator (xorshift64*), so every test input is reproducible.
pub struct Rng(u64);

/// Value stored outside the matrix proper (rows m..ld) to prove nothing writes there.
pub const GUARD: f64 = 777.25;

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Uniform in [-1, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    /// m×n random matrix in an ld×n array, guard values in rows m..ld.
    pub fn matrix(&mut self, m: usize, n: usize, ld: usize) -> Vec<f64> {
        let mut a = vec![GUARD; ld.max(1) * n.max(1)];
        for j in 0..n {
            for i in 0..m {
                a[i + j * ld] = self.next();
            }
        }
        a
    }
    /// [`Rng::matrix`] in element type `T`: one `next` per entry in the real types (so f64 gives
    /// the same values), the real then the imaginary part in the complex ones; [`guard`] in
    /// rows m..ld.
    pub fn values<T: Scalar>(&mut self, m: usize, n: usize, ld: usize) -> Vec<T> {
        let mut a = vec![guard::<T>(); ld.max(1) * n.max(1)];
        for j in 0..n {
            for i in 0..m {
                let re = self.next();
                a[i + j * ld] = if T::COMPLEX { T::from_parts(re, self.next()) } else { T::from_f64(re) };
            }
        }
        a
    }
    /// Symmetric positive definite n×n matrix (random symmetric plus n on the diagonal).
    pub fn spd(&mut self, n: usize, ld: usize) -> Vec<f64> {
        let mut a = vec![GUARD; ld.max(1) * n.max(1)];
        for j in 0..n {
            for i in j..n {
                let v = self.next();
                a[i + j * ld] = v;
                a[j + i * ld] = v;
            }
            a[j + j * ld] += n as f64;
        }
        a
    }
}

/// [`GUARD`] in element type `T` (−[`GUARD`] as the imaginary part of a complex one).
pub fn guard<T: Scalar>() -> T {
    T::from_parts(GUARD, -GUARD)
}

/// The real and imaginary parts of `x` as f64s, for a test's own arithmetic in any type.
pub fn parts<T: Scalar>(x: T) -> (f64, f64) {
    (x.re().into(), x.im().into())
}

pub fn eps() -> f64 {
    f64::EPSILON / 2.0
}

/// ‖A‖_F of the m×n matrix in an ld array (any element type, in f64).
pub fn fnorm<T: Scalar>(a: &[T], m: usize, n: usize, ld: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..n {
        for i in 0..m {
            let (re, im) = parts(a[i + j * ld]);
            s += re * re + im * im;
        }
    }
    s.sqrt()
}

/// ‖A − L·Lᵀ‖_F / (n·‖A‖_F·eps) (or Uᵀ·U), reading only the factor's triangle of `f`.
pub fn chol_residual(uplo: Uplo, n: usize, a: &[f64], f: &[f64], ld: usize) -> f64 {
    let l = |i: usize, j: usize| -> f64 {
        // Lower factor element (i, j), i >= j.
        match uplo {
            Uplo::Lower => f[i + j * ld],
            Uplo::Upper => f[j + i * ld],
        }
    };
    let mut r = vec![0.0; n * n];
    for j in 0..n {
        for i in j..n {
            let mut s = 0.0;
            for k in 0..=j {
                s += l(i, k) * l(j, k);
            }
            let d = a[i + j * ld] - s;
            r[i + j * n] = d;
            r[j + i * n] = d;
        }
    }
    fnorm(&r, n, n, n) / (n.max(1) as f64 * fnorm(a, n, n, ld).max(f64::MIN_POSITIVE) * eps())
}

/// Asserts that rows m..ld are unchanged and, when `tri` is given, that the triangle opposite it
/// (strictly) is unchanged.
pub fn assert_untouched_outside<T: Scalar>(
    before: &[T],
    after: &[T],
    m: usize,
    n: usize,
    ld: usize,
    tri: Option<Uplo>,
) {
    for j in 0..n {
        for i in 0..ld {
            let outside = i >= m
                || match tri {
                    Some(Uplo::Lower) => i < j,
                    Some(Uplo::Upper) => i > j,
                    None => false,
                };
            if outside {
                let ((br, bi), (ar, ai)) = (parts(before[i + j * ld]), parts(after[i + j * ld]));
                assert_eq!(
                    (br.to_bits(), bi.to_bits()),
                    (ar.to_bits(), ai.to_bits()),
                    "element ({i},{j}) outside the matrix was written"
                );
            }
        }
    }
}

/// INFO of the backend's dpotrf on a copy.
pub fn reference_potrf_info(uplo: Uplo, n: usize, a: &mut [f64]) -> i32 {
    let mut info = 0;
    // SAFETY: `a` holds an n×n matrix with leading dimension n.
    unsafe {
        crate::backend::lapack::dpotrf(
            crate::backend::lapack::ch(uplo.ch()),
            &(n as i32),
            a.as_mut_ptr(),
            &(n as i32),
            &mut info,
            1,
        )
    };
    info
}

/// The backend's DGEQRF on the m×n matrix `a` (leading dimension ld); `tau` gets min(m, n)
/// scalars.
pub fn reference_geqrf(m: usize, n: usize, a: &mut [f64], ld: usize, tau: &mut [f64]) {
    use crate::backend::lapack as bk;
    let (mi, ni, ldi) = (m as i32, n as i32, ld.max(1) as i32);
    let mut info = 0;
    let mut work = vec![0.0; n.max(1) * 64];
    // SAFETY: `a` holds ld×n elements, `tau` min(m, n), `work` more than DGEQRF's optimum N·NB.
    unsafe {
        bk::dgeqrf(
            &mi,
            &ni,
            a.as_mut_ptr(),
            &ldi,
            tau.as_mut_ptr(),
            work.as_mut_ptr(),
            &(work.len() as i32),
            &mut info,
        )
    };
    assert_eq!(info, 0);
}

/// The backend's DORMQR: C ← op(Q)·C or C·op(Q), Q from k reflectors stored in `a` and `tau`.
#[allow(clippy::too_many_arguments)]
pub fn reference_ormqr(
    side: u8,
    trans: u8,
    m: usize,
    n: usize,
    k: usize,
    a: &[f64],
    lda: usize,
    tau: &[f64],
    c: &mut [f64],
    ldc: usize,
) {
    use crate::backend::lapack::{self as bk, ch};
    let mut info = 0;
    let mut work = vec![0.0; (m.max(n) + 1) * 64];
    // SAFETY: `a` holds the reflectors (lda ≥ the side's dimension), `tau` k scalars, `c` an m×n
    // matrix with leading dimension ldc, `work` more than DORMQR's optimum.
    unsafe {
        bk::dormqr(
            ch(side),
            ch(trans),
            &(m as i32),
            &(n as i32),
            &(k as i32),
            a.as_ptr(),
            &(lda.max(1) as i32),
            tau.as_ptr(),
            c.as_mut_ptr(),
            &(ldc.max(1) as i32),
            work.as_mut_ptr(),
            &(work.len() as i32),
            &mut info,
            1,
            1,
        )
    };
    assert_eq!(info, 0);
}

/// For a QR factorization `f` (LAPACK format, leading dimension ld) of the m×n matrix `a`:
/// (‖A − Q·R‖_F / (‖A‖_F·max(m, n)·eps), ‖I − QᵀQ‖_F / (m·eps)), with the first min(m, n)
/// columns of Q formed by the backend's DORGQR.
pub fn qr_residuals(m: usize, n: usize, a: &[f64], f: &[f64], ld: usize, tau: &[f64]) -> (f64, f64) {
    use crate::backend::lapack as bk;
    let k = m.min(n);
    if k == 0 {
        return (0.0, 0.0);
    }
    let mut q = vec![0.0; m * k];
    for j in 0..k {
        for i in 0..m {
            q[i + j * m] = f[i + j * ld];
        }
    }
    let mut info = 0;
    let mut work = vec![0.0; k * 64];
    // SAFETY: `q` is m×k with leading dimension m, `tau` holds k scalars, `work` is large enough.
    unsafe {
        bk::dorgqr(
            &(m as i32),
            &(k as i32),
            &(k as i32),
            q.as_mut_ptr(),
            &(m as i32),
            tau.as_ptr(),
            work.as_mut_ptr(),
            &(work.len() as i32),
            &mut info,
        )
    };
    assert_eq!(info, 0);
    let mut d = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            let s: f64 = (0..=j.min(k - 1)).map(|l| q[i + l * m] * f[l + j * ld]).sum();
            d[i + j * m] = a[i + j * ld] - s;
        }
    }
    let res = fnorm(&d, m, n, m) / (fnorm(a, m, n, ld).max(f64::MIN_POSITIVE) * m.max(n) as f64 * eps());
    let mut o = vec![0.0; k * k];
    for j in 0..k {
        for i in 0..k {
            let s: f64 = (0..m).map(|l| q[l + i * m] * q[l + j * m]).sum();
            o[i + j * k] = if i == j { 1.0 - s } else { -s };
        }
    }
    (res, fnorm(&o, k, k, k) / (m as f64 * eps()))
}

/// The backend's DGETRF on a copy: (factors, ipiv, info).
pub fn reference_getrf<T: Scalar>(m: usize, n: usize, a: &[T], ld: usize) -> (Vec<T>, Vec<i32>, i32) {
    // Single-threaded: OpenBLAS 0.3.21's threaded DGETRF was seen writing into a neighbouring
    // allocation here (m = n = 1000, ld = 1001, 2 threads).
    let _blas = crate::backend::BlasThreadsGuard::new();
    let mut f = a.to_vec();
    let mut ipiv = vec![0i32; m.min(n).max(1)];
    let mut info = 0;
    // SAFETY: `f` holds an m×n matrix with leading dimension ld >= max(1, m), `ipiv` min(m,n)
    // entries.
    unsafe {
        crate::backend::lapack::getrf::<T>(
            &(m as i32),
            &(n as i32),
            f.as_mut_ptr(),
            &(ld as i32),
            ipiv.as_mut_ptr(),
            &mut info,
        )
    };
    ipiv.truncate(m.min(n));
    (f, ipiv, info)
}

/// LU's backward error ‖P·A − L·U‖₁ / (‖A‖₁·max(m, n)·ε) of the factors in `f` (L unit lower,
/// U upper, as ?GETRF leaves them) with LAPACK's interchanges `ipiv` (1-based), in any element
/// type (ε the type's): formed by BLAS in f64, or in double complex for the complex types.
pub fn lu_backward_error<T: Scalar>(m: usize, n: usize, a: &[T], f: &[T], ld: usize, ipiv: &[i32]) -> f64 {
    use crate::scalar::c64;
    let wide =
        |x: &[T]| -> Vec<c64> { x.iter().map(|&v| c64 { re: v.re().into(), im: v.im().into() }).collect() };
    let real = |x: &[T]| -> Vec<f64> { x.iter().map(|&v| v.re().into()).collect() };
    let e = if T::COMPLEX {
        lu_backward_in(m, n, &wide(a), &wide(f), ld, ipiv)
    } else {
        lu_backward_in(m, n, &real(a), &real(f), ld, ipiv)
    };
    e / T::eps()
}

/// ‖P·A − L·U‖₁ / (‖A‖₁·max(m, n)) in `U`'s arithmetic.
fn lu_backward_in<U: Scalar>(m: usize, n: usize, a: &[U], f: &[U], ld: usize, ipiv: &[i32]) -> f64 {
    use crate::kernels::{gemm, Trans};
    use crate::tile::{View, ViewMut};
    let k = m.min(n);
    let mut l = vec![U::zero(); m * k];
    let mut u = vec![U::zero(); k * n];
    for j in 0..k {
        l[j + j * m] = U::one();
        for i in j + 1..m {
            l[i + j * m] = f[i + j * ld];
        }
    }
    for j in 0..n {
        for i in 0..=j.min(k - 1) {
            u[i + j * k] = f[i + j * ld];
        }
    }
    // P·A, then P·A − L·U.
    let mut pa: Vec<U> =
        (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).map(|(i, j)| a[i + j * ld]).collect();
    for (r, &p) in ipiv.iter().enumerate() {
        let p = p as usize - 1;
        for j in 0..n {
            pa.swap(r + j * m, p + j * m);
        }
    }
    if k > 0 {
        gemm(
            Trans::No,
            Trans::No,
            U::from_f64(-1.0),
            View::from_slice(&l, m, k, m),
            View::from_slice(&u, k, n, k.max(1)),
            U::one(),
            ViewMut::from_slice(&mut pa, m, n, m),
        );
    }
    let norm1 = |x: &[U], lda: usize| {
        (0..n).map(|j| (0..m).map(|i| x[i + j * lda].abs().into()).sum::<f64>()).fold(0.0, f64::max)
    };
    norm1(&pa, m) / (norm1(a, ld).max(f64::MIN_POSITIVE) * m.max(n) as f64)
}

/// Growth factor max|U| / max|A| of LU factors `f` (U in the upper trapezoid).
pub fn lu_growth<T: Scalar>(m: usize, n: usize, a: &[T], f: &[T], ld: usize) -> f64 {
    let amax = (0..n).flat_map(|j| (0..m).map(move |i| a[i + j * ld].abs().into())).fold(0.0, f64::max);
    let umax =
        (0..n).flat_map(|j| (0..=j.min(m - 1)).map(move |i| f[i + j * ld].abs().into())).fold(0.0, f64::max);
    umax / amax.max(f64::MIN_POSITIVE)
}

/// X·Y − I of the n×n matrices `x` and `y` (leading dimension n), formed in twice the
/// working precision (Ogita, Rump and Oishi's Dot2: each product split exactly by Dekker's
/// TwoProduct, each sum by TwoSum, the errors summed apart). An inverse's residual formed in
/// plain double carries rounding of the size it measures, correlated with the inverse's own
/// where the same kernel formed both (the backend's DTRTRI measured by its own DGEMM looked twice
/// as good as it is). With `tri`, X is that triangle (zero outside it, which is then not read).
/// [`norm1`] of it is what the inverses' tests compare.
pub fn inverse_residual(n: usize, x: &[f64], y: &[f64], tri: Option<Uplo>) -> Vec<f64> {
    // Veltkamp's split: v = hi + lo exactly, each with at most 26 significant bits, so that
    // products of halves are exact.
    let split = |v: f64| {
        let c = 134_217_729.0 * v; // 2^27 + 1
        let hi = c - (c - v);
        (hi, v - hi)
    };
    let (xh, xl): (Vec<f64>, Vec<f64>) = x[..n * n].iter().map(|&v| split(v)).unzip();
    let (mut hi, mut lo) = (vec![0.0; n], vec![0.0; n]);
    let mut r = vec![0.0; n * n];
    for j in 0..n {
        hi.fill(0.0);
        lo.fill(0.0);
        for k in 0..n {
            let t = y[k + j * n];
            if t == 0.0 {
                continue;
            }
            let (th, tl) = split(t);
            let rows = match tri {
                Some(Uplo::Upper) => 0..k + 1,
                Some(Uplo::Lower) => k..n,
                None => 0..n,
            };
            let c = k * n;
            let (xs, xhs, xls) = (&x[c + rows.start..c + rows.end], &xh[c..c + n], &xl[c..c + n]);
            let (xhs, xls) = (&xhs[rows.clone()], &xls[rows.clone()]);
            let (h, l) = (&mut hi[rows.clone()], &mut lo[rows]);
            for i in 0..xs.len() {
                let p = xs[i] * t;
                let pe = ((xhs[i] * th - p) + xhs[i] * tl + xls[i] * th) + xls[i] * tl;
                let s = h[i] + p;
                let z = s - h[i];
                l[i] += ((h[i] - (s - z)) + (p - z)) + pe;
                h[i] = s;
            }
        }
        for i in 0..n {
            r[i + j * n] = (hi[i] - if i == j { 1.0 } else { 0.0 }) + lo[i];
        }
    }
    r
}

/// ‖A‖₁ (the largest column sum) of the n×n matrix `a` (leading dimension n).
pub fn norm1(n: usize, a: &[f64]) -> f64 {
    (0..n).map(|j| a[j * n..(j + 1) * n].iter().map(|x| x.abs()).sum::<f64>()).fold(0.0, f64::max)
}

/// ‖A‖∞ (the largest row sum) of the n×n matrix `a` (leading dimension n).
pub fn norm_inf(n: usize, a: &[f64]) -> f64 {
    (0..n).map(|i| (0..n).map(|j| a[i + j * n].abs()).sum::<f64>()).fold(0.0, f64::max)
}

/// An n×n orthogonal matrix (leading dimension n): Q of the backend's QR of a random matrix.
pub fn orthogonal(n: usize, rng: &mut Rng) -> Vec<f64> {
    let mut q = rng.matrix(n, n, n);
    let mut tau = vec![0.0; n];
    reference_geqrf(n, n, &mut q, n, &mut tau);
    let mut work = vec![0.0; 64 * n.max(1)];
    let raw = |v: &mut [f64]| {
        // SAFETY: the arrays below are as large as DORGQR reads and writes for these arguments.
        unsafe { crate::tile::Raw::new(v.as_mut_ptr()) }
    };
    let (ni, lw) = (n as i32, work.len() as i32);
    let info =
        crate::backend::forward::dorgqr(ni, ni, ni, raw(&mut q), ni, raw(&mut tau), raw(&mut work), lw);
    assert_eq!(info, 0);
    q
}

/// Q₁·diag(σ)·Q₂ᵀ (leading dimension n), σ from 1 down to 1/κ geometrically: a matrix of
/// condition κ; symmetric positive definite when `spd` (Q₂ = Q₁).
pub fn with_condition(n: usize, kappa: f64, spd: bool, rng: &mut Rng) -> Vec<f64> {
    use crate::kernels::{gemm, Trans};
    use crate::tile::{View, ViewMut};
    let q1 = orthogonal(n, rng);
    let q2 = if spd { q1.clone() } else { orthogonal(n, rng) };
    let mut qs = q1.clone();
    for j in 0..n {
        let s = kappa.powf(-(j as f64) / (n.max(2) - 1) as f64);
        qs[j * n..(j + 1) * n].iter_mut().for_each(|x| *x *= s);
    }
    let mut a = vec![0.0; n * n];
    gemm(
        Trans::No,
        Trans::Yes,
        1.0,
        View::from_slice(&qs, n, n, n),
        View::from_slice(&q2, n, n, n),
        0.0,
        ViewMut::from_slice(&mut a, n, n, n),
    );
    if spd {
        for j in 0..n {
            for i in j + 1..n {
                a[j + i * n] = a[i + j * n];
            }
        }
    }
    a
}

/// Accuracy parity with the backend: per case, hetla's residual over the backend's on the same
/// input, one ratio per seed. [`Parity::check`] asserts what the inverses promise: the median
/// over seeds at most 2 and no ratio above 4.
#[derive(Default)]
pub struct Parity(Vec<(String, Vec<(f64, f64)>)>);

impl Parity {
    /// One seed's residuals of `case`: hetla's and the backend's.
    pub fn add(&mut self, case: String, hetla: f64, backend: f64) {
        match self.0.iter_mut().find(|(c, _)| *c == case) {
            Some((_, v)) => v.push((hetla, backend)),
            None => self.0.push((case, vec![(hetla, backend)])),
        }
    }

    pub fn check(&self) {
        let mut bad = Vec::new();
        for (case, v) in &self.0 {
            // A floor of ε: a residual that rounds to nothing is no worse than one of ε.
            let mut r: Vec<f64> = v.iter().map(|&(h, b)| h.max(f64::EPSILON) / b.max(f64::EPSILON)).collect();
            r.sort_by(f64::total_cmp);
            let (med, max) = (r[r.len() / 2], r[r.len() - 1]);
            assert!(med.is_finite() && max.is_finite(), "{case}: residuals {v:?}");
            if med > 2.0 || max > 4.0 {
                let pairs: Vec<String> = v.iter().map(|(h, b)| format!("{h:.2e}/{b:.2e}")).collect();
                bad.push(format!(
                    "{case}: median ratio {med:.2}, largest {max:.2} (hetla/backend: {})",
                    pairs.join(", ")
                ));
            }
        }
        assert!(bad.is_empty(), "less accurate than the backend:\n{}", bad.join("\n"));
    }
}

/// A random m×n matrix in an ld×(n + 2) array, `pad` in rows m..ld and in the two columns
/// after it (guard bands).
pub fn rand<T: Scalar>(rng: &mut Rng, m: usize, n: usize, ld: usize, pad: T) -> Vec<T> {
    let mut b = vec![pad; ld * (n + 2)];
    for j in 0..n {
        for i in 0..m {
            let re = rng.next();
            b[i + j * ld] = T::from_parts(re, rng.next());
        }
    }
    b
}

/// ‖x − y‖_F / ‖y‖_F over whole arrays (entries equal on both sides add nothing).
pub fn rel<T: Scalar>(x: &[T], y: &[T]) -> f64 {
    let (mut d, mut s) = (0.0f64, 0.0f64);
    for (x, y) in x.iter().zip(y) {
        let (xr, xi, yr, yi): (f64, f64, f64, f64) =
            (x.re().into(), x.im().into(), y.re().into(), y.im().into());
        d += (xr - yr).powi(2) + (xi - yi).powi(2);
        s += yr * yr + yi * yi;
    }
    (d / s.max(f64::MIN_POSITIVE)).sqrt()
}

/// Every entry of `got` outside the n×cols matrix (rows n..ld, the columns after it) and,
/// with `tri`, outside its `tri` triangle is the given one's, bit for bit.
pub fn same_outside<T: Scalar>(
    given: &[T],
    got: &[T],
    n: usize,
    cols: usize,
    ld: usize,
    tri: Option<Uplo>,
) -> bool {
    (0..given.len()).all(|p| {
        let (i, j) = (p % ld, p / ld);
        let inside = i < n
            && j < cols
            && match tri {
                None => true,
                Some(Uplo::Lower) => i >= j,
                Some(Uplo::Upper) => i <= j,
            };
        let ((gr, gi), (r, i)) = (parts(given[p]), parts(got[p]));
        inside || (gr.to_bits(), gi.to_bits()) == (r.to_bits(), i.to_bits())
    })
}

/// The vector as a caller's array for an api entry point (tests).
pub fn raw<T: crate::tile::Elem>(v: &mut [T]) -> Raw<T> {
    // SAFETY: the tests pass dimensions within the vector (the arrays plus their guard bands),
    // which is `Raw::new`'s contract.
    unsafe { Raw::new(v.as_mut_ptr()) }
}
