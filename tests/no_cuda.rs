//! Whole-process test of start-up without CUDA (ARCHITECTURE.md, decision 5): on a machine without
//! `libcuda` the library must run CPU-only, say so once under `HETLA_VERBOSE`, and return
//! LAPACK's answer, whatever `HETLA_GPUS` asks for (`all` by default, an ordinal that does not
//! exist, `none`).
//!
//! The configuration is read from the environment once per process, so each case runs this test
//! binary again as a child process (`NO_CUDA_CHILD=1`, only the child test) with its own
//! environment, and the parent checks the child's stderr and result.

use hetla::abi;
use hetla::backend::lapack as bk;
use std::ffi::c_char;
use std::process::Command;

/// The child's work: one DPOTRF on the tile path, compared with the backend's factor.
fn child() {
    let n = 61usize;
    let lda = 64usize;
    let mut seed = 7u64;
    let mut g = vec![0.0f64; n * n];
    for x in g.iter_mut() {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *x = ((seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5;
    }
    let mut a = vec![-1.0f64; lda * n];
    for j in 0..n {
        for i in 0..n {
            a[i + j * lda] = (0..n).map(|l| g[i + l * n] * g[j + l * n]).sum::<f64>()
                + if i == j { n as f64 } else { 0.0 };
        }
    }
    let mut want = a.clone();
    let (ni, ldi) = (n as i32, lda as i32);
    let lower = b'L' as c_char;
    let (mut info, mut info_ref) = (-99, -99);
    // SAFETY: `a` and `want` are lda×n arrays; the character arguments have length 1.
    unsafe {
        abi::dpotrf_(&lower, &ni, a.as_mut_ptr(), &ldi, &mut info, 1);
        bk::dpotrf(&lower, &ni, want.as_mut_ptr(), &ldi, &mut info_ref, 1);
    }
    assert_eq!((info, info_ref), (0, 0));
    let mut diff = 0.0f64;
    for j in 0..n {
        for i in j..n {
            diff = diff.max((a[i + j * lda] - want[i + j * lda]).abs());
        }
        for i in n..lda {
            assert_eq!(a[i + j * lda], -1.0, "rows past N untouched");
        }
    }
    assert!(diff < 1e-10 * n as f64, "factor differs from the backend's by {diff}");
    println!("NO_CUDA_CHILD_OK");
}

#[test]
fn child_entry() {
    if std::env::var_os("NO_CUDA_CHILD").is_some() {
        child();
    }
}

/// Runs the child with `gpus` as HETLA_GPUS (unset for `None`); returns its stderr.
fn run(gpus: Option<&str>) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env("NO_CUDA_CHILD", "1")
        .env("HETLA_VERBOSE", "1")
        .env("HETLA_MIN_N", "0")
        .env("HETLA_NB", "16")
        .env("HETLA_NUM_THREADS", "2")
        .env_remove("HETLA_EMULATE_GPUS")
        .env_remove("HETLA_TRACE");
    match gpus {
        Some(g) => cmd.env("HETLA_GPUS", g),
        None => cmd.env_remove("HETLA_GPUS"),
    };
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success() && stdout.contains("NO_CUDA_CHILD_OK"), "child failed:\n{stdout}\n{stderr}");
    stderr
}

fn libcuda_present() -> bool {
    // SAFETY: only tries to dlopen libcuda.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

const NO_CUDA: &str = "hetla: no CUDA devices (libcuda not found); running on CPU";

#[test]
fn runs_cpu_only_without_libcuda_and_says_so_once() {
    for gpus in [None, Some("all"), Some("0"), Some("0,3")] {
        let err = run(gpus);
        let tiles =
            err.lines().filter(|l| l.starts_with("hetla: dpotrf ") && l.contains("path=tiles")).count();
        assert_eq!(tiles, 1, "HETLA_GPUS={gpus:?}: one verbose line of the tile path:\n{err}");
        if !libcuda_present() {
            assert!(!err.contains("dev=cuda"), "no CUDA device used:\n{err}");
            let said = err.lines().filter(|l| *l == NO_CUDA).count();
            assert_eq!(said, 1, "HETLA_GPUS={gpus:?}: the no-CUDA line once:\n{err}");
        }
    }
}

#[test]
fn hetla_gpus_none_does_not_even_look_for_cuda() {
    let err = run(Some("none"));
    assert!(!err.contains("CUDA"), "{err}");
    assert!(err.lines().any(|l| l.starts_with("hetla: dpotrf ") && l.contains("path=tiles")), "{err}");
}
