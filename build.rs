//! Generates include/hetla.h from the exported functions with cbindgen. The header is committed;
//! tests/header.rs fails when the committed copy differs from what this produces.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=src/abi");
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
