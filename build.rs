//! Generates include/hetla.h from the exported functions with cbindgen. The header is committed;
//! tests/header.rs fails when the committed copy differs from what this produces.
//!
//! It also sets `HETLA_SOURCE_ID`, a hash of the sources under `src/`, which keys the cache of
//! learned break-even sizes (`api::tune`): decisions measured with other code are not reused.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rustc-env=HETLA_SOURCE_ID={:016x}", source_id(std::path::Path::new(&dir).join("src")));
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=HETLA_UPDATE_HEADER");
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("hetla.h");
    match cbindgen::generate(&dir) {
        Ok(b) => {
            b.write_to_file(&out);
            // The committed copy is refreshed only on request, so that tests/header.rs can catch a
            // stale one: `HETLA_UPDATE_HEADER=1 cargo build`.
            if std::env::var_os("HETLA_UPDATE_HEADER").is_some() {
                b.write_to_file(std::path::Path::new(&dir).join("include/hetla.h"));
            }
        }
        Err(e) => println!("cargo:warning=cbindgen failed: {e}"),
    }
}

/// FNV-1a over every file under `dir` (relative path and contents, in sorted order).
fn source_id(dir: std::path::PathBuf) -> u64 {
    fn walk(d: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(d) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&dir, &mut files);
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in files {
        let name = f.strip_prefix(&dir).unwrap_or(&f).to_string_lossy().into_owned();
        for b in name.bytes().chain(std::fs::read(&f).unwrap_or_default()) {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
