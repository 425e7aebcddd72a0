//! The supervisor: notices Chromium dying (its CDP connection ends the moment the process exits,
//! is killed or crashes), starts a new one and swaps it into the session manager. Sessions of the
//! old one are reported lost (`browser_unavailable`); new sessions work as soon as the new
//! Chromium is up. A failed launch is retried every second; the task stops on shutdown.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::chromium::Chromium;
use super::janitor::stopped;
use super::manager::SessionManager;

const RETRY_AFTER: Duration = Duration::from_secs(1);

pub async fn run(
    manager: Arc<SessionManager>,
    executable: PathBuf,
    headless: bool,
    mut shutdown: watch::Receiver<bool>,
) {
    'watching: loop {
        let chromium = manager.chromium();
        tokio::select! {
            _ = chromium.closed() => {}
            _ = stopped(&mut shutdown) => break,
        }
        drop(chromium);
        if *shutdown.borrow() {
            break;
        }
        tracing::error!("Chromium died; starting a new one");
        loop {
            let launched = tokio::select! {
                launched = Chromium::launch(&executable, headless) => launched,
                _ = stopped(&mut shutdown) => break 'watching,
            };
            match launched {
                Ok(chromium) => {
                    manager.replace_browser(chromium);
                    break;
                }
                Err(err) => {
                    tracing::error!(error = %err, "starting Chromium again failed; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(RETRY_AFTER) => {}
                        _ = stopped(&mut shutdown) => break 'watching,
                    }
                }
            }
        }
    }
    tracing::debug!("supervisor stopped");
}
