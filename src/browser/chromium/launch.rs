//! Starting the Chromium process so that it never outlives the service.
//!
//! chromiumoxide can spawn Chromium itself, but gives no way to tie the child's life to ours: a
//! service killed with SIGKILL (or by the OOM killer) left its Chromium running with parent pid 1
//! and its profile directory on disk. So we spawn it ourselves:
//!
//! - on Linux the child asks the kernel for SIGKILL when its parent dies (`PR_SET_PDEATHSIG`).
//!   The kernel sends it when the *thread* that spawned the child ends, so every Chromium is
//!   spawned from one launcher thread that lives as long as the process;
//! - the profile directory holds the service's pid (see `browser::owned_dir`); a later start
//!   removes profile directories whose owner is gone;
//! - the DevTools address is read from Chromium's stderr, and chromiumoxide connects to it.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::Duration;

use crate::browser::error::BrowserError;
use crate::browser::owned_dir;
use crate::browser::process_state::{self, ProcessState};

/// The prefix of our profile directories in the temp dir.
const PROFILE_PREFIX: &str = "text-browser-profile-";
/// How long Chromium gets to say where DevTools listens.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The flags Puppeteer (and chromiumoxide) start Chromium with, then ours. `CDPScreenshotNewSurface`
/// (also enabled by Playwright) lets `Page.captureScreenshot` take a new surface instead of waiting
/// for the next frames: a viewport capture in 31–33 ms instead of 48–50.
pub(super) const DEFAULT_ARGS: &[&str] = &[
    "--disable-background-networking",
    "--enable-features=NetworkService,NetworkServiceInProcess,CDPScreenshotNewSurface",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-renderer-backgrounding",
    "--disable-sync",
    "--force-color-profile=srgb",
    "--metrics-recording-only",
    "--no-first-run",
    "--enable-automation",
    "--password-store=basic",
    "--use-mock-keychain",
    "--enable-blink-features=IdleDetection",
    "--lang=en_US",
    "--disable-extensions",
    "--no-sandbox",
    "--disable-setuid-sandbox",
    "--remote-debugging-port=0",
];

/// Added when running headless.
pub(super) const HEADLESS_ARGS: &[&str] = &["--headless", "--hide-scrollbars", "--mute-audio"];

/// A private user-data-dir, removed when dropped.
pub struct ProfileDir(PathBuf);

impl ProfileDir {
    /// Makes a fresh profile directory owned by this process, first removing (once per process)
    /// those whose owner died without cleaning up.
    pub fn create() -> Result<Self, BrowserError> {
        owned_dir::create(PROFILE_PREFIX)
            .map(Self)
            .map_err(|e| BrowserError::Unavailable(format!("cannot create a profile directory: {e}")))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ProfileDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running Chromium process: killed (and reaped) when dropped if still running.
pub struct ChildProcess {
    child: Mutex<Option<Child>>,
    pid: u32,
}

impl ChildProcess {
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Running, ending or gone, as /proc says (`None` where it cannot tell).
    pub fn state(&self) -> Option<ProcessState> {
        process_state::of(self.pid)
    }

    /// Waits up to `limit` for the process to exit by itself; kills it if it has not.
    pub async fn stop(&self, limit: Duration) {
        let Some(mut child) = self.child.lock().unwrap_or_else(|p| p.into_inner()).take() else { return };
        let _ = tokio::task::spawn_blocking(move || {
            let until = std::time::Instant::now() + limit;
            while std::time::Instant::now() < until {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        })
        .await;
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = child.kill();
            // Reap it off the caller's thread: waiting may take a moment.
            std::thread::spawn(move || {
                let _ = child.wait();
            });
        }
    }
}

/// Starts `executable` with our flags and `extra` ones in `profile`; returns the process and the
/// DevTools WebSocket URL it listens on.
pub async fn spawn(
    executable: &Path,
    profile: &ProfileDir,
    headless: bool,
    extra: &[String],
) -> Result<(ChildProcess, String), BrowserError> {
    let mut command = Command::new(executable);
    command.args(DEFAULT_ARGS).arg(format!("--user-data-dir={}", profile.path().display())).args(extra);
    if headless {
        command.args(HEADLESS_ARGS);
    }
    command.arg("about:blank").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    tie_to_this_process(&mut command);
    let mut child = launcher_spawn(command)
        .map_err(|e| BrowserError::Unavailable(format!("could not start {}: {e}", executable.display())))?;
    let pid = child.id();
    let stderr = child.stderr.take();
    let process = ChildProcess { child: Mutex::new(Some(child)), pid };
    let Some(stderr) = stderr else {
        return Err(BrowserError::Unavailable("Chromium's stderr was not captured".into()));
    };
    let found = tokio::time::timeout(START_TIMEOUT, tokio::task::spawn_blocking(move || devtools_url(stderr))).await;
    match found {
        Ok(Ok(Ok(url))) => Ok((process, url)),
        Ok(Ok(Err(output))) => Err(BrowserError::Unavailable(format!(
            "{} exited before it was ready; it said: {}",
            executable.display(),
            output.chars().rev().take(2000).collect::<String>().chars().rev().collect::<String>().trim()
        ))),
        Ok(Err(_)) | Err(_) => Err(BrowserError::Unavailable(format!(
            "{} did not start within {} s",
            executable.display(),
            START_TIMEOUT.as_secs()
        ))),
    }
}

/// Reads stderr until Chromium prints `DevTools listening on ws://…`; the rest of its output is
/// drained in the background (a full pipe would stall Chromium). On end of output: what it said.
fn devtools_url(stderr: impl Read + Send + 'static) -> Result<String, String> {
    let mut reader = BufReader::new(stderr);
    let mut said = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return Err(said),
            Ok(_) => {}
        }
        if let Some((_, url)) = line.rsplit_once("listening on ")
            && url.starts_with("ws")
        {
            let url = url.trim().to_owned();
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut reader, &mut std::io::sink());
            });
            return Ok(url);
        }
        said.push_str(&line);
    }
}

/// Asks the kernel to kill the child when the thread that spawns it (the launcher) dies.
#[cfg(target_os = "linux")]
fn tie_to_this_process(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl(PR_SET_PDEATHSIG) is async-signal-safe and touches no Rust state.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn tie_to_this_process(_command: &mut Command) {}

type SpawnRequest = (Command, mpsc::Sender<std::io::Result<Child>>);

/// Spawns `command` on the launcher thread, which lives as long as the process, so the parent
/// death signal fires when the process dies and not when some worker thread ends.
fn launcher_spawn(command: Command) -> std::io::Result<Child> {
    static LAUNCHER: OnceLock<Mutex<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    let launcher = LAUNCHER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("chromium-launcher".into())
            .spawn(move || {
                for (mut command, reply) in rx {
                    let _ = reply.send(command.spawn());
                }
            })
            // Infallible in practice: only when the OS cannot start one thread, at Chromium's launch.
            .expect("a thread can be started");
        Mutex::new(tx)
    });
    let (reply, answer) = mpsc::channel();
    launcher
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((command, reply))
        .map_err(|_| std::io::Error::other("the launcher thread is gone"))?;
    answer.recv().map_err(|_| std::io::Error::other("the launcher thread is gone"))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_devtools_url_is_found_in_chromiums_output() {
        let output = "[warning] noise\n\nDevTools listening on ws://127.0.0.1:4321/devtools/browser/abc\nmore\n";
        assert_eq!(devtools_url(std::io::Cursor::new(output)).unwrap(), "ws://127.0.0.1:4321/devtools/browser/abc");
        let failed = devtools_url(std::io::Cursor::new("cannot open display\n")).unwrap_err();
        assert!(failed.contains("cannot open display"));
    }
}
