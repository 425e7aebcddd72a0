//! The supervisor: notices Chromium dying (its CDP connection ends the moment the process exits,
//! is killed or crashes), starts a new one and hands it to its [`Host`] (the session manager),
//! which reports the old one's sessions lost. New sessions work as soon as the new Chromium is up.
//! A failed launch is retried every second; the task stops on shutdown.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::process::Chromium;

const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Who owns the current Chromium and takes a replacement when it dies.
pub trait Host: Send + Sync {
    /// The Chromium in use now.
    fn chromium(&self) -> Arc<Chromium>;
    /// Puts `replacement` in place of a Chromium that died.
    fn replace_browser(&self, replacement: Chromium);
}

/// How to start a Chromium like the first one.
#[derive(Debug, Clone)]
pub struct Launch {
    pub executable: PathBuf,
    pub headless: bool,
}

pub async fn run(host: Arc<dyn Host>, launch: Launch, shutdown: CancellationToken) {
    'watching: loop {
        let chromium = host.chromium();
        tokio::select! {
            _ = chromium.closed() => {}
            _ = shutdown.cancelled() => break,
        }
        drop(chromium);
        if shutdown.is_cancelled() {
            break;
        }
        tracing::error!("Chromium died; starting a new one");
        loop {
            let launched = tokio::select! {
                launched = Chromium::launch(&launch.executable, launch.headless) => launched,
                _ = shutdown.cancelled() => break 'watching,
            };
            match launched {
                Ok(chromium) => {
                    host.replace_browser(chromium);
                    break;
                }
                Err(err) => {
                    tracing::error!(error = %err, "starting Chromium again failed; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(RETRY_AFTER) => {}
                        _ = shutdown.cancelled() => break 'watching,
                    }
                }
            }
        }
    }
    tracing::debug!("supervisor stopped");
}
