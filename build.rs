//! Compiles every WGSL file of `shaders/` into the binary: `SHADER_FILES`, (name without
//! `.wgsl`, source) by name, read by `src/gpu/shaders.rs`. A stage a recipe names is found
//! there; no list of files is kept by hand.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join("shaders");
    println!("cargo::rerun-if-changed=shaders");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("shaders/ exists")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            Some(name.strip_suffix(".wgsl")?.to_string())
        })
        .collect();
    names.sort();
    let mut out = String::from("pub(crate) const SHADER_FILES: &[(&str, &str)] = &[\n");
    for name in names {
        let path = dir.join(format!("{name}.wgsl"));
        let _ = writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    out.push_str("];\n");
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("shader_files.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
