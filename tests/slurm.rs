//! `scripts/slurm/local-cluster.sh` on a real Slurm: a one-node cluster runs a 4-shard sweep
//! through `scripts/slurm/sweep.sh`, and the merged results.csv and nodes-sample.csv equal an
//! unsharded run's bytes. Without Slurm (or without root) the test is reported as ignored, with
//! the reason, in cargo's summary; with TREEFIX_REQUIRE_SLURM=1 (CI) that is a failure.
//! A custom harness (libtest-mimic): the built-in one cannot decide at run time to ignore.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The script's own deadline, and ours a little later (it must never hang CI).
const SCRIPT_TIMEOUT_S: u64 = 300;
const TEST_TIMEOUT: Duration = Duration::from_secs(SCRIPT_TIMEOUT_S + 60);

fn main() {
    let args = Arguments::from_args();
    let trial = Trial::ignorable_test("local_cluster_runs_a_sharded_sweep", local_cluster);
    libtest_mimic::run(&args, vec![trial]).exit();
}

/// `cmd` on PATH or in the sbin directories where Debian installs the daemons.
fn installed(cmd: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .any(|d| d.join(cmd).is_file())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn local_cluster() -> Result<Completion, Failed> {
    let required = std::env::var("TREEFIX_REQUIRE_SLURM").is_ok_and(|v| v == "1");
    let missing: Vec<&str> = ["slurmctld", "slurmd", "munged", "sbatch"]
        .into_iter()
        .filter(|c| !installed(c))
        .collect();
    let unmet = if !missing.is_empty() {
        Some(format!(
            "{} not installed (apt-get install slurm-wlm munge)",
            missing.join(", ")
        ))
    } else if !is_root() {
        Some("needs root: slurmd runs the jobs as root".to_string())
    } else {
        None
    };
    if let Some(reason) = unmet {
        return if required {
            Err(format!("TREEFIX_REQUIRE_SLURM=1, but Slurm cannot run here: {reason}").into())
        } else {
            Ok(Completion::ignored_with(reason))
        };
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join("slurm-local-cluster.log");
    let out = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut child = Command::new(root.join("scripts/slurm/local-cluster.sh"))
        .arg("--binary")
        .arg(env!("CARGO_BIN_EXE_accuracy"))
        .env("TREEFIX_SLURM_TIMEOUT", SCRIPT_TIMEOUT_S.to_string())
        .stdin(Stdio::null())
        .stdout(out.try_clone().map_err(|e| e.to_string())?)
        .stderr(out)
        .spawn()
        .map_err(|e| format!("local-cluster.sh: {e}"))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if start.elapsed() > TEST_TIMEOUT {
            // TERM lets the script stop its daemons; KILL if it does not end.
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            std::thread::sleep(Duration::from_secs(20));
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    match status {
        Some(s) if s.success() => {
            if let Some(pass) = text.lines().find(|l| l.contains("PASS")) {
                println!("{pass}");
            }
            Ok(Completion::Completed)
        }
        Some(s) => Err(format!("local-cluster.sh failed ({s}):\n{text}").into()),
        None => {
            Err(format!("local-cluster.sh still running after {TEST_TIMEOUT:?}:\n{text}").into())
        }
    }
}
