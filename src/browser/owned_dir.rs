//! Temp directories this process owns — Chromium's profile, a page's uploads and downloads — each
//! marked with the owner's pid (`owner.pid`), so that a later start removes those whose owner is
//! gone. A service killed with SIGKILL (or by the OOM killer) runs no clean-up: without this its
//! directories, downloads included, would stay in the temp dir forever.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use super::process_state::{self, ProcessState};

/// The file in an owned directory naming the process that owns it.
pub const OWNER_FILE: &str = "owner.pid";

/// Makes `<temp dir>/<prefix><uuid>` owned by this process. The first time in this process for a
/// prefix, the directories of that prefix whose owner is gone are removed first.
pub fn create(prefix: &str) -> std::io::Result<PathBuf> {
    static SWEPT: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let first = SWEPT.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner()).insert(prefix.to_owned());
    if first {
        remove_stale(prefix);
    }
    let dir = std::env::temp_dir().join(format!("{prefix}{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(OWNER_FILE), std::process::id().to_string())?;
    Ok(dir)
}

/// Removes the directories of `prefix` whose owning process no longer exists (those without an
/// owner file are left alone: whose they are cannot be told).
fn remove_stale(prefix: &str) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let owner = std::fs::read_to_string(entry.path().join(OWNER_FILE)).ok();
        let owner: Option<u32> = owner.and_then(|pid| pid.trim().parse().ok());
        if owner.is_some_and(|pid| process_state::of(pid) != Some(ProcessState::Running)) {
            tracing::info!(dir = %entry.path().display(), "removing the directory of a service that is gone");
            remove(&entry.path());
        }
    }
}

/// Removes `dir`, trying again briefly while it keeps filling: the helper processes of a Chromium
/// whose service was killed can still be writing its profile for a moment after it died.
fn remove(dir: &std::path::Path) {
    for _ in 0..10 {
        if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    tracing::warn!(dir = %dir.display(), "could not remove the directory of a service that is gone");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_whose_owner_is_gone_is_removed_and_a_live_ones_kept() {
        let prefix = format!("text-browser-test-{}-", std::process::id());
        let stale = std::env::temp_dir().join(format!("{prefix}stale"));
        let unowned = std::env::temp_dir().join(format!("{prefix}unowned"));
        std::fs::create_dir_all(&stale).unwrap();
        std::fs::create_dir_all(&unowned).unwrap();
        // A pid far above pid_max on Linux: no process has it.
        std::fs::write(stale.join(OWNER_FILE), "4194305").unwrap();
        let mine = create(&prefix).unwrap();
        assert!(!stale.exists(), "the stale directory was removed");
        assert!(unowned.exists(), "one without an owner file is left alone");
        assert_eq!(std::fs::read_to_string(mine.join(OWNER_FILE)).unwrap(), std::process::id().to_string());
        let second = create(&prefix).unwrap();
        assert!(mine.exists(), "a directory whose owner lives is kept");
        for dir in [mine, second, unowned] {
            std::fs::remove_dir_all(dir).unwrap();
        }
    }
}
