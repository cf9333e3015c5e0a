//! The WGSL of `shaders/`, every file compiled in by `build.rs`, and what a pipeline's module
//! is made of: the generated structs of [`super::types`], `common.wgsl`, a variant's prelude
//! ([`super::variants`]), then the stage file, each of its `// @include <name>.wgsl` lines
//! replaced by that file. What the host needs of a module (its bindings by variable name and
//! access, its overrides, its entry points) it reads from the compiler's parse of it (naga),
//! so the WGSL is the one place they are written. [`Sizes`] are the pipeline-overridable
//! constants.

use super::types::WGSL_STRUCTS;
use analysis::algorithms::Stage;
use analysis::scan_plan;

include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));

/// The source of `shaders/{name}.wgsl`.
pub(crate) fn file(name: &str) -> Option<&'static str> {
    SHADER_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, source)| *source)
}

/// A line that stands for the file it names.
const INCLUDE: &str = "// @include ";

/// The files `source` includes.
fn includes(source: &str) -> impl Iterator<Item = &str> {
    source
        .lines()
        .filter_map(|l| l.strip_prefix(INCLUDE)?.trim().strip_suffix(".wgsl"))
}

/// The module of `stage` compiled after `prelude`: the WGSL a pipeline is built from.
pub(crate) fn module_source(stage: Stage, prelude: &str) -> Result<String, String> {
    let missing = |name: &str| format!("shaders/{name}.wgsl does not exist");
    let body = file(stage.name()).ok_or_else(|| missing(stage.name()))?;
    let common = file("common").ok_or_else(|| missing("common"))?;
    let mut source = format!("{WGSL_STRUCTS}\n{common}\n{prelude}\n");
    for line in body.lines() {
        match includes(line).next() {
            Some(name) => source.push_str(file(name).ok_or_else(|| missing(name))?),
            None => source.push_str(line),
        }
        source.push('\n');
    }
    Ok(source)
}

/// How a stage binds one buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Uniform,
    Read,
    ReadWrite,
}

/// One `@group(0) @binding(i) var<…> name: …;` of a module, binding i its place in
/// [`Reflection::slots`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slot {
    pub name: String,
    pub access: Access,
}

/// What the host reads of a module.
#[derive(Debug)]
pub(crate) struct Reflection {
    /// Bindings 0, 1, … of group 0.
    pub slots: Vec<Slot>,
    /// The pipeline-overridable constants it declares.
    pub overrides: Vec<String>,
    /// Its entry points.
    pub entries: Vec<String>,
}

/// Parses `source` (naga) and reads its bindings, overrides and entry points; an error with
/// the compiler's message, or where the bindings are not group 0's 0, 1, ….
pub(crate) fn reflect(source: &str) -> Result<Reflection, String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let mut slots = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        let name = var.name.clone().unwrap_or_default();
        let access = match var.space {
            naga::AddressSpace::Uniform => Access::Uniform,
            naga::AddressSpace::Storage { access } => {
                if access.contains(naga::StorageAccess::STORE) {
                    Access::ReadWrite
                } else {
                    Access::Read
                }
            }
            other => return Err(format!("`{name}`: a binding in {other:?}")),
        };
        if binding.group != 0 {
            return Err(format!("`{name}`: group {}, not 0", binding.group));
        }
        slots.push((binding.binding, Slot { name, access }));
    }
    slots.sort_by_key(|(b, _)| *b);
    if let Some((i, (b, slot))) = slots.iter().enumerate().find(|(i, (b, _))| *b != *i as u32) {
        return Err(format!("`{}` at binding {b}, not {i}", slot.name));
    }
    Ok(Reflection {
        slots: slots.into_iter().map(|(_, s)| s).collect(),
        overrides: module
            .overrides
            .iter()
            .filter_map(|(_, o)| o.name.clone())
            .collect(),
        entries: module.entry_points.iter().map(|e| e.name.clone()).collect(),
    })
}

/// Workgroup, tile and capacity sizes, passed to the shaders as pipeline-overridable
/// constants (the scan's from `analysis::scan_plan`, the others from the device's limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sizes {
    /// Invocations per workgroup of every kernel (the scan plan's WORKGROUP_SIZE).
    pub wg: u32,
    /// Items per invocation of the scan plan.
    pub items: u32,
    /// Elements per scan tile (wg × items).
    pub tile: u32,
    /// Vertices a narrow-level window holds in workgroup memory (4 arrays of this many words).
    pub narrow_cap: u32,
    /// Widest level walked by the narrow-level kernel (one workgroup); wider ones get a
    /// dispatch of their own.
    pub narrow_level: u32,
    /// Out-degree from which a vertex of a wide level is gathered by a whole workgroup.
    pub gather_min_degree: u32,
    /// Children one workgroup gathers per dispatch (more continue in the next dispatch).
    pub gather_chunk: u32,
    /// Loop iterations one invocation may run in a dispatch (u64::MAX: no limit). Mesa's
    /// llvmpipe silently ends an invocation after 65 535 loop iterations in all; the host
    /// splits narrow-level runs to stay below this.
    pub loop_budget: u64,
}

impl Sizes {
    /// The sizes for a device with `limits`; `cpu` marks a software adapter (llvmpipe).
    pub fn for_device(limits: &wgpu::Limits, cpu: bool) -> Sizes {
        let wg = scan_plan::WORKGROUP_SIZE as u32;
        // Four arrays of narrow_cap words, a multiple of the workgroup size, at most 4096.
        let words = limits.max_compute_workgroup_storage_size / 16;
        let narrow_cap = (words / wg * wg).clamp(wg, 4096);
        Sizes {
            wg,
            items: scan_plan::ITEMS_PER_THREAD as u32,
            tile: scan_plan::TILE as u32,
            narrow_cap,
            narrow_level: wg,
            gather_min_degree: wg,
            // A chunk costs invocation 0 about chunk / 16 loop iterations on llvmpipe; a real
            // GPU adds 2^24 children in a few tens of ms, below any watchdog.
            gather_chunk: if cpu { 1 << 16 } else { 1 << 24 },
            loop_budget: if cpu { 60_000 } else { u64::MAX },
        }
    }

    /// The overridable constants, by name.
    pub fn constants(&self) -> [(&'static str, f64); 6] {
        [
            ("WG", self.wg as f64),
            ("ITEMS", self.items as f64),
            ("TILE", self.tile as f64),
            ("NARROW_CAP", self.narrow_cap as f64),
            ("GATHER_MIN_DEGREE", self.gather_min_degree as f64),
            ("GATHER_STAGE", (2 * self.wg) as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::variants::{VARIANTS, Variant};
    use super::*;
    use analysis::algorithms::{Algorithm, GpuKernel, Step};
    use std::collections::BTreeSet;

    fn kernels() -> impl Iterator<Item = &'static GpuKernel> {
        Algorithm::ALL.into_iter().filter_map(|a| a.gpu())
    }

    /// Every stage a recipe names, bench's copy, and the store where no scatter runs.
    fn stages() -> BTreeSet<Stage> {
        let mut stages: BTreeSet<Stage> = kernels().flat_map(|k| k.stages()).collect();
        stages.insert(Stage::COPY);
        stages.insert(Stage::STORE);
        stages
    }

    /// Every arithmetic the GPU computes in.
    fn arithmetics() -> Vec<generators::Arithmetic> {
        use generators::Precision::{Bf16, F16, F32};
        [
            (F32, F32),
            (F16, F16),
            (F16, F32),
            (Bf16, Bf16),
            (Bf16, F32),
        ]
        .map(|(s, a)| generators::Arithmetic::new(s, a).unwrap())
        .to_vec()
    }

    /// Parses and validates `source` with naga, as the device's compiler would.
    fn validate(source: &str) -> Result<(), String> {
        let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .map(|_| ())
        .map_err(|e| e.emit_to_string(source))
    }

    /// Every module the host can build compiles: in every arithmetic, each stage of a scan
    /// recipe after every row of the variants table (at 1 and at the most limbs), the others
    /// after the arithmetic alone; each names the
    /// entry points its recipes dispatch; each binds exactly one uniform, at binding 0 (the
    /// one a per-dispatch uniform is read from), and declares the workgroup size override.
    #[test]
    fn every_variant_of_every_stage_compiles() {
        let scan: BTreeSet<Stage> = kernels()
            .filter(|k| Variant::of(k.layout).is_some())
            .flat_map(|k| k.stages())
            .filter(|&s| s != Stage::PERMUTE)
            .collect();
        let limbs = [1, generators::fixed::MAX_GPU_WORDS as u32];
        let mut modules = 0;
        for stage in stages() {
            let sums: Vec<String> = match scan.contains(&stage) {
                true => VARIANTS
                    .iter()
                    .flat_map(|r| {
                        limbs.map(|limbs| {
                            let v = Variant {
                                storage: r.storage,
                                word: r.word,
                                read: r.read,
                                limbs,
                            };
                            v.prelude().expect("a row's prelude")
                        })
                    })
                    .collect(),
                false => vec![String::new()],
            };
            let arithmetic = arithmetics()
                .into_iter()
                .map(super::super::arithmetic::prelude);
            let preludes: Vec<String> = arithmetic
                .flat_map(|a| sums.iter().map(move |s| format!("{a}{s}")))
                .collect();
            for prelude in preludes {
                let source = module_source(stage, &prelude).unwrap();
                validate(&source).unwrap_or_else(|e| panic!("{stage}: {e}"));
                let r = reflect(&source).unwrap_or_else(|e| panic!("{stage}: {e}"));
                let uniforms: Vec<usize> = (0..r.slots.len())
                    .filter(|&i| r.slots[i].access == Access::Uniform)
                    .collect();
                assert_eq!(uniforms, [0], "{stage}");
                assert!(r.overrides.iter().any(|o| o == "WG"), "{stage}");
                for k in kernels() {
                    for step in k.recipe {
                        let Step::Run {
                            stage: s, entry, ..
                        } = *step
                        else {
                            continue;
                        };
                        for op in analysis::Op::ALL {
                            if let Some(e) = entry.for_op(op).filter(|_| s == stage) {
                                assert!(r.entries.iter().any(|x| x == e), "{stage}: no {e}");
                            }
                        }
                    }
                }
                modules += 1;
            }
        }
        assert!(modules > stages().len(), "{modules}");
    }

    /// Every stage file opens with a one-line purpose comment that names its CPU twin (or says
    /// it has none), and so does every prelude.
    #[test]
    fn stage_files_name_their_twin() {
        let preludes = ["sum_f32", "sum_float_float", "sum_exact", "round_narrow"];
        let names = stages().into_iter().map(|s| s.name()).chain(preludes);
        for name in names {
            let first = file(name).unwrap().lines().next().unwrap();
            assert!(first.starts_with("// "), "{name}");
            assert!(
                first.contains("CPU twin") || first.contains("no CPU twin"),
                "{name}: {first}"
            );
        }
    }

    /// No file of `shaders/` is left unused: each is a stage, a prelude of the variants
    /// table or of the arithmetic, `common`, or included by a stage.
    #[test]
    fn every_shader_file_is_used() {
        let stages = stages();
        let sources = || stages.iter().map(|s| file(s.name()).unwrap());
        let included: BTreeSet<&str> = sources().flat_map(includes).collect();
        for (name, _) in SHADER_FILES {
            let prelude = VARIANTS.iter().any(|r| {
                let v = Variant {
                    storage: r.storage,
                    word: r.word,
                    read: r.read,
                    limbs: 1,
                };
                v.prelude().unwrap().contains(file(name).unwrap())
            });
            let arithmetic = super::super::arithmetic::prelude(generators::Arithmetic::F32);
            let used = stages.contains(&Stage::named(name))
                || prelude
                || arithmetic.contains(file(name).unwrap())
                || *name == "common"
                || included.contains(name);
            assert!(used, "shaders/{name}.wgsl is used by nothing");
        }
    }
}
