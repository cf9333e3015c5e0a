//! The limits this system exposes, each read where it can be.

use super::{Available, Source};
#[cfg(target_os = "linux")]
use std::path::{Path, PathBuf};

pub(super) fn all() -> Vec<Available> {
    let mut out = Vec::new();
    #[cfg(target_os = "linux")]
    {
        out.extend(cgroup());
        out.extend(mem_available());
    }
    #[cfg(unix)]
    out.extend(address_space());
    out
}

/// `RLIMIT_AS` less the address space in use: the mappings that are not data (the
/// binary, libraries, stacks' guard) and the data pages touched. Data reserved and not
/// touched yet (the allocator reserves an arena of up to 1 GiB at its first allocation) is
/// counted as available: the allocations to come land there first.
#[cfg(unix)]
fn address_space() -> Option<Available> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let kb = |f: &str| status_kb(f).unwrap_or(0);
    let used = (kb("VmSize:").saturating_sub(kb("VmData:")) + kb("RssAnon:")) * 1024;
    // rlim_t is u64 on Linux and macOS, not on every Unix.
    #[allow(clippy::unnecessary_cast)]
    let limit = r.rlim_cur as u64;
    Some(Available {
        bytes: limit.saturating_sub(used),
        source: Source::AddressSpace,
    })
}

#[cfg(all(unix, not(target_os = "linux")))]
fn status_kb(_: &str) -> Option<u64> {
    None
}

/// A `kB` field of /proc/self/status.
#[cfg(target_os = "linux")]
fn status_kb(field: &str) -> Option<u64> {
    kb_field(&std::fs::read_to_string("/proc/self/status").ok()?, field)
}

#[cfg(target_os = "linux")]
fn kb_field(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(field))?;
    line[field.len()..].split_whitespace().next()?.parse().ok()
}

#[cfg(target_os = "linux")]
fn mem_available() -> Option<Available> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    Some(Available {
        bytes: kb_field(&text, "MemAvailable:")? * 1024,
        source: Source::MemAvailable,
    })
}

/// The tightest room of the process's cgroup and its ancestors (v2, else v1).
#[cfg(target_os = "linux")]
fn cgroup() -> Option<Available> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let v2 = membership.lines().find_map(|l| l.strip_prefix("0::"));
    let v1 = membership.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then_some(path)
    });
    if let Some(path) = v2 {
        if let Some(dir) = cgroup_dir(&mounts, path, |fs, _| fs == "cgroup2") {
            let room = room(&dir, "memory.max", "memory.current", "inactive_file");
            if room.is_some() {
                return room.map(|bytes| Available {
                    bytes,
                    source: Source::CgroupV2,
                });
            }
        }
    }
    let path = v1?;
    let dir = cgroup_dir(&mounts, path, |fs, opts| {
        fs == "cgroup" && opts.split(',').any(|o| o == "memory")
    })?;
    room(
        &dir,
        "memory.limit_in_bytes",
        "memory.usage_in_bytes",
        "total_inactive_file",
    )
    .map(|bytes| Available {
        bytes,
        source: Source::CgroupV1,
    })
}

/// The directory of cgroup `path` under the hierarchy's mount (its mount root removed);
/// the mount point itself where that directory is not visible (a cgroup namespace).
#[cfg(target_os = "linux")]
fn cgroup_dir(mounts: &str, path: &str, wanted: impl Fn(&str, &str) -> bool) -> Option<PathBuf> {
    for line in mounts.lines() {
        let (left, right) = line.split_once(" - ")?;
        let l: Vec<&str> = left.split(' ').collect();
        let r: Vec<&str> = right.split(' ').collect();
        if l.len() < 5 || r.len() < 3 || !wanted(r[0], r[2]) {
            continue;
        }
        let (root, mount) = (l[3], Path::new(l[4]));
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .trim_start_matches('/');
        let dir = mount.join(rel);
        return Some(if dir.is_dir() {
            dir
        } else {
            mount.to_path_buf()
        });
    }
    None
}

/// min over `dir` and its ancestors with a limit of limit − (usage − inactive page cache).
#[cfg(target_os = "linux")]
fn room(dir: &Path, limit: &str, usage: &str, inactive: &str) -> Option<u64> {
    let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).ok();
    let mut best: Option<u64> = None;
    let mut d = Some(dir);
    while let Some(here) = d {
        // "max" (v2) and 2^63 rounded to pages (v1) mean no limit.
        let max = read(here, limit).and_then(|s| s.trim().parse::<u64>().ok());
        if let Some(max) = max.filter(|&m| m < 1 << 60) {
            let used = read(here, usage)
                .and_then(|s| s.trim().parse::<u64>().ok())
                .unwrap_or(0);
            let cache = read(here, "memory.stat")
                .and_then(|s| {
                    s.lines().find_map(|l| {
                        let (k, v) = l.split_once(' ')?;
                        (k == inactive).then(|| v.trim().parse::<u64>().ok())?
                    })
                })
                .unwrap_or(0);
            let free = max.saturating_sub(used.saturating_sub(cache));
            best = Some(best.map_or(free, |b| b.min(free)));
        }
        d = here.parent().filter(|p| p.join(limit).exists());
    }
    best
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn fields_of_proc_files() {
        let text = "MemTotal:       24684092 kB\nMemAvailable:   23364560 kB\n";
        assert_eq!(kb_field(text, "MemAvailable:"), Some(23364560));
        assert_eq!(kb_field(text, "VmSize:"), None);
    }

    #[test]
    fn a_cgroup_directory_under_its_mount() {
        let top = std::env::temp_dir().join(format!("treefix-mount-{}", std::process::id()));
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        let mounts = format!(
            "35 31 0:32 / {0} rw,relatime - cgroup cgroup rw,memory\n\
             41 31 0:37 /a {0} rw,relatime - cgroup2 cgroup2 rw\n",
            top.display()
        );
        let v1 = |path: &str| {
            cgroup_dir(&mounts, path, |fs, o| {
                fs == "cgroup" && o.split(',').any(|x| x == "memory")
            })
        };
        assert_eq!(v1("/a/b"), Some(top.join("a/b")));
        // Not visible here (a cgroup namespace): the mount point stands for it.
        assert_eq!(v1("/elsewhere"), Some(top.clone()));
        // The mount's root is removed from the path.
        let v2 = cgroup_dir(&mounts, "/a/a/b", |fs, _| fs == "cgroup2");
        std::fs::remove_dir_all(&top).unwrap();
        assert_eq!(v2, Some(top.join("a/b")));
    }

    #[test]
    fn a_limit_less_what_is_used() {
        let dir = std::env::temp_dir().join(format!("treefix-cgroup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("memory.max"), "4000000000\n").unwrap();
        std::fs::write(dir.join("memory.current"), "1500000000\n").unwrap();
        std::fs::write(dir.join("memory.stat"), "anon 1\ninactive_file 500000000\n").unwrap();
        let r = room(&dir, "memory.max", "memory.current", "inactive_file");
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(r, Some(3_000_000_000));
    }
}
