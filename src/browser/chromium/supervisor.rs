//! The supervisor: notices the browser going away (its CDP connection ends the moment the process
//! exits, is killed or crashes, or a remote browser's connection breaks), tells its [`Host`] (the
//! session manager) at once so the sessions on it are reported lost, then starts or reconnects a
//! new one and hands it over. New sessions work as soon as the new browser is up. Attempts back off
//! from 250 ms to 10 s; the task stops on shutdown.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::process::Chromium;
use crate::browser::error::BrowserError;

const FIRST_RETRY: Duration = Duration::from_millis(250);
const MAX_RETRY: Duration = Duration::from_secs(10);

/// Who owns the current Chromium and takes a replacement when it dies.
pub trait Host: Send + Sync {
    /// The Chromium in use now.
    fn chromium(&self) -> Arc<Chromium>;
    /// The Chromium in use went away: its sessions are gone with it.
    fn browser_lost(&self);
    /// Puts `replacement` in place of a Chromium that died.
    fn replace_browser(&self, replacement: Chromium);
}

/// Where the browser comes from.
#[derive(Debug, Clone)]
pub enum BrowserSource {
    /// Start Chromium ourselves (CHROME_PATH, HEADLESS).
    Launch { executable: PathBuf, headless: bool },
    /// Attach to a running browser (BROWSER_WS_ENDPOINT); one without the flags that guard
    /// egress only with `allow_unguarded` (ALLOW_UNGUARDED_BROWSER).
    Attach { endpoint: String, allow_unguarded: bool },
}

impl BrowserSource {
    pub async fn start(&self) -> Result<Chromium, BrowserError> {
        match self {
            Self::Launch { executable, headless } => Chromium::launch(executable, *headless).await,
            Self::Attach { endpoint, allow_unguarded } => Chromium::attach(endpoint, *allow_unguarded).await,
        }
    }
}

pub async fn run(host: Arc<dyn Host>, source: BrowserSource, shutdown: CancellationToken) {
    loop {
        let chromium = host.chromium();
        tokio::select! {
            _ = chromium.closed() => {}
            _ = shutdown.cancelled() => break,
        }
        drop(chromium);
        if shutdown.is_cancelled() {
            break;
        }
        host.browser_lost();
        match &source {
            BrowserSource::Launch { .. } => tracing::error!("Chromium died; starting a new one"),
            BrowserSource::Attach { .. } => tracing::error!("the connection to the browser broke; reconnecting"),
        }
        if !restart(&host, &source, &shutdown).await {
            break;
        }
    }
    tracing::debug!("supervisor stopped");
}

/// Starts a browser from `source` until one starts (waiting longer after each failure) and hands
/// it to `host`; false when shutdown came first.
async fn restart(host: &Arc<dyn Host>, source: &BrowserSource, shutdown: &CancellationToken) -> bool {
    let mut wait = FIRST_RETRY;
    loop {
        let started = tokio::select! {
            started = source.start() => started,
            _ = shutdown.cancelled() => return false,
        };
        match started {
            Ok(chromium) => {
                host.replace_browser(chromium);
                return true;
            }
            Err(err) => {
                tracing::error!(error = %err, retry_ms = wait.as_millis() as u64, "no browser yet; retrying");
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = shutdown.cancelled() => return false,
                }
                wait = (wait * 2).min(MAX_RETRY);
            }
        }
    }
}
