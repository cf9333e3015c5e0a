//! Adapter choice: which graphics APIs (WGPU_BACKEND), which adapter (TREEFIX_ADAPTER, else
//! discrete before integrated before virtual before CPU), and the `accuracy info` listing.

use super::Gpu;
use crate::Error;
use crate::experiment::Backend;
use analysis::Algorithm;

/// One adapter as `accuracy info` lists it.
#[derive(Debug, Clone)]
pub struct AdapterReport {
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub timestamps: bool,
    pub compute: bool,
}

impl AdapterReport {
    fn of(adapter: &wgpu::Adapter) -> AdapterReport {
        AdapterReport {
            info: adapter.get_info(),
            limits: adapter.limits(),
            timestamps: adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY),
            compute: adapter
                .get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS),
        }
    }
}

/// `gpu: <adapter name> (<backend>, <driver>)`.
pub(crate) fn describe_info(info: &wgpu::AdapterInfo) -> String {
    format!("gpu: {}", adapter_label(info))
}

/// `<adapter name> (<backend>, <driver>)`.
fn adapter_label(info: &wgpu::AdapterInfo) -> String {
    let driver = match (info.driver.is_empty(), info.driver_info.is_empty()) {
        (false, false) => format!("{} {}", info.driver, info.driver_info),
        (false, true) => info.driver.clone(),
        (true, false) => info.driver_info.clone(),
        (true, true) => "unknown driver".into(),
    };
    format!("{} ({:?}, {driver})", info.name, info.backend)
}

/// Where `XDG_RUNTIME_DIR` should point when it is unset: Mesa's Vulkan driver prints
/// "XDG_RUNTIME_DIR is invalid" on every instance and device it creates without it (as in
/// containers and CI). A private directory under the temporary one, created with mode 0700;
/// `None` when the variable is set, or the directory cannot be made. The caller sets the
/// variable (the binary first thing in main, Python through `os.environ`): setting it here,
/// with other threads running, would race their reads of the environment.
pub fn missing_runtime_dir() -> Option<std::path::PathBuf> {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return None;
    }
    let dir = std::env::temp_dir().join("treefix-runtime");
    std::fs::create_dir_all(&dir).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).ok()?;
    }
    Some(dir)
}

fn instance() -> (wgpu::Instance, wgpu::Backends) {
    // Honours WGPU_BACKEND (e.g. `vulkan`, `metal`, `dx12`, `gl`) and wgpu's WGPU_* flags.
    let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    let backends = desc.backends;
    (wgpu::Instance::new(desc), backends)
}

/// The adapter-name filter: `TREEFIX_ADAPTER`, else wgpu's own `WGPU_ADAPTER_NAME`.
fn adapter_filter() -> Option<String> {
    ["TREEFIX_ADAPTER", "WGPU_ADAPTER_NAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|s| !s.is_empty()))
}

/// Every adapter wgpu sees (after WGPU_BACKEND), with the limits that matter here.
pub fn adapters() -> Vec<AdapterReport> {
    let (instance, backends) = instance();
    pollster::block_on(instance.enumerate_adapters(backends))
        .iter()
        .map(AdapterReport::of)
        .collect()
}

/// Rank for the default choice: discrete before integrated before virtual before CPU, and the
/// native APIs before GL.
fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let ty = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let api = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    };
    (ty, api)
}

/// The adapter to use: the first compute-capable one matching the filter, by rank.
pub(crate) fn choose() -> Result<wgpu::Adapter, Error> {
    let (instance, backends) = instance();
    let all = pollster::block_on(instance.enumerate_adapters(backends));
    if all.is_empty() {
        return Err(Error::Gpu(
            "no GPU adapter found (a machine without a GPU can use Mesa's lavapipe: apt-get install mesa-vulkan-drivers)".into(),
        ));
    }
    let names: Vec<String> = all.iter().map(|a| adapter_label(&a.get_info())).collect();
    let filter = adapter_filter();
    let mut candidates: Vec<wgpu::Adapter> = all
        .into_iter()
        .filter(|a| {
            filter
                .as_ref()
                .is_none_or(|f| a.get_info().name.to_lowercase().contains(&f.to_lowercase()))
        })
        .filter(|a| AdapterReport::of(a).compute)
        .collect();
    candidates.sort_by_key(|a| rank(&a.get_info()));
    candidates.into_iter().next().ok_or_else(|| {
        Error::Gpu(format!(
            "no compute-capable adapter matches TREEFIX_ADAPTER={:?}; adapters: {}",
            filter.unwrap_or_default(),
            names.join("; ")
        ))
    })
}

/// The `accuracy info` text about GPU adapters.
pub fn info_text() -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let filter = adapter_filter();
    let _ = writeln!(
        s,
        "GPU adapters (WGPU_BACKEND={}, TREEFIX_ADAPTER={}):",
        std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "<all>".into()),
        filter.as_deref().unwrap_or("<any>")
    );
    let list = adapters();
    if list.is_empty() {
        let _ = writeln!(
            s,
            "  none (on a machine without a GPU: apt-get install mesa-vulkan-drivers for lavapipe)"
        );
    }
    for a in &list {
        let l = &a.limits;
        let _ = writeln!(s, "  {}", adapter_label(&a.info));
        let _ = writeln!(
            s,
            "    type {:?}, compute shaders {}, timestamp queries {}",
            a.info.device_type,
            yes(a.compute),
            yes(a.timestamps)
        );
        let _ = writeln!(
            s,
            "    max_buffer_size {} B, max_storage_buffer_binding_size {} B, max_compute_workgroup_storage_size {} B",
            l.max_buffer_size,
            l.max_storage_buffer_binding_size,
            l.max_compute_workgroup_storage_size
        );
        let _ = writeln!(
            s,
            "    max_compute_workgroups_per_dimension {}, max_compute_invocations_per_workgroup {}, max_storage_buffers_per_shader_stage {}",
            l.max_compute_workgroups_per_dimension,
            l.max_compute_invocations_per_workgroup,
            l.max_storage_buffers_per_shader_stage
        );
    }
    match Gpu::new() {
        Ok(gpu) => {
            let _ = writeln!(s, "selected: {}", gpu.describe());
            let _ = writeln!(
                s,
                "largest tree, by each kernel's largest buffer within {} bytes:",
                gpu.max_binding()
            );
            for algo in Algorithm::ALL {
                let Some(kernel) = algo.gpu() else { continue };
                // The words per vertex of weights of one limb and of the most limbs (only
                // the exact scan's depend on the weights).
                let least = (kernel.words_per_vertex)(&[1.0]);
                let most = (kernel.words_per_vertex)(&[f32::from_bits(1), f32::MAX]);
                let line = if least == most {
                    format!(
                        "{} vertices ({least} words per vertex)",
                        gpu.max_vertices(least)
                    )
                } else {
                    format!(
                        "{} to {} vertices ({least} to {most} words per vertex, by the weights' scale)",
                        gpu.max_vertices(most),
                        gpu.max_vertices(least)
                    )
                };
                let _ = writeln!(s, "  {algo}: {line}");
            }
            let _ = writeln!(s, "kernel sizes: {}", gpu.sizes_text());
        }
        Err(e) => {
            let _ = writeln!(s, "selected: none ({e})");
        }
    }
    s
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
