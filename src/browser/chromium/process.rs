//! The one shared Chromium process: launch (`launch` starts the process so it dies with us), the
//! CDP handler pump, and clean shutdown.
//!
//! chromiumoxide's `Handler` must be polled for the life of the browser. Our pump does that, and
//! also rescues events chromiumoxide could not parse (protocol drift): their raw text is routed to
//! the owning page's watch by CDP session id. When the connection breaks, Chromium is gone:
//! `alive` turns false so callers get `browser_unavailable` instead of hanging, and the supervisor
//! starts a new one.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::target::{CreateTargetParams, TargetId};
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::HandlerConfig;
use chromiumoxide::{Browser, Handler, Page};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::cdp::{self, Raw};
use super::event_routes::EventRoutes;
use super::guards;
use super::ids;
use super::launch::{self, ChildProcess, ProfileDir};
use crate::browser::error::BrowserError;
use crate::browser::process_state::ProcessState;

/// Flags for a quiet, closed-network, container-friendly Chromium (see README "Security notes"),
/// on top of the usual automation flags (`launch`).
const CHROMIUM_ARGS: &[&str] = &[
    "--disable-component-update",
    "--disable-quic",
    "--disable-gpu",
    "--mute-audio",
    "--hide-scrollbars",
    "--disable-site-isolation-trials",
    // page.back / page.forward load the page again (its requests and errors are seen) rather
    // than restoring a frozen copy.
    "--disable-back-forward-cache",
    // WebRTC sends UDP (STUN, TURN, media) straight from the browser, past the egress proxy: a
    // page's RTCPeerConnection reached hosts the allow-list refuses. With this policy WebRTC uses
    // no UDP that is not proxied (and an HTTP proxy carries none), gathers no host candidates, and
    // reaches TURN servers only over TCP through the session's proxy, where ALLOW_HOST_REGEX
    // judges it like any tunnel. It is the browser process's setting, so neither a page nor an
    // evaluated script can change it. Chrome reads the first switch; a Chromium without Chrome's
    // browser layer (Debian's headless shell) reads only the second, content's own.
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
];

/// Hidden omnibox-popup WebUI targets double the memory of every context in Chromium ≥ 150.
/// Site isolation is off so cross-origin iframes live in their page's renderer: one CDP session
/// then sees (and page.snapshot and refs reach) every frame. Sessions stay apart by context.
/// DeferRendererTasksAfterInput holds a page's tasks back after an input event until the next
/// frame has rendered: every action then waited a frame (8–16 ms, half a click) before the page ran
/// what the click queued (a `setTimeout(fetch)`) and the service could report it. Without it the
/// tasks run in their order, as before the feature; frames render as usual.
const DISABLED_FEATURES: &str = "WebUIOmniboxPopup,WebUIOmniboxAimPopup,Translate,MediaRouter,IsolateOrigins,\
     site-per-process,DeferRendererTasksAfterInput";

/// A proxy address nothing listens on (the discard port), for traffic outside any session.
const NOWHERE_PROXY: &str = "http://127.0.0.1:9";

/// How often `page_of` looks again for a popup chromiumoxide is still attaching to.
const ATTACH_POLL: Duration = Duration::from_millis(10);

pub struct Chromium {
    /// Read-locked for calls (they run in parallel); write-locked only to stop the process.
    browser: tokio::sync::RwLock<Browser>,
    routes: Arc<EventRoutes>,
    alive: watch::Receiver<bool>,
    pump: Mutex<Option<JoinHandle<()>>>,
    /// Forwards download and popup events to their pages (see `browser_events`).
    forwarder: Mutex<Option<JoinHandle<()>>>,
    /// The process, when this service launched it; `None` for a browser it attached to.
    launched: Option<Launched>,
    /// The browser runs on this machine, so it reads and writes the files this service does
    /// (uploads, downloads).
    local: bool,
    /// What a browser we attached to lacks of the flags that guard egress (used anyway only with
    /// ALLOW_UNGUARDED_BROWSER), one line each, for `/readyz`.
    unguarded: Vec<String>,
}

/// A Chromium process of ours and its profile directory.
struct Launched {
    process: ChildProcess,
    /// Declared after `process`: removed once the process is gone.
    _profile: ProfileDir,
}

/// How long attaching to a remote browser may take before it counts as unreachable.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(10);

impl Chromium {
    /// The flags this service starts Chromium with: the quiet, closed-network set. A browser pool
    /// that BROWSER_WS_ENDPOINT points at should be started with them too (launch flags cannot be
    /// set over CDP).
    pub fn recommended_args(headless: bool) -> Vec<String> {
        let mut args: Vec<String> = launch::DEFAULT_ARGS.iter().map(|a| a.to_string()).collect();
        args.extend(Self::service_args());
        if headless {
            args.extend(launch::HEADLESS_ARGS.iter().map(|a| a.to_string()));
        }
        args
    }

    fn service_args() -> Vec<String> {
        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|a| a.to_string()).collect();
        args.push(format!("--disable-features={DISABLED_FEATURES}"));
        // Sessions' contexts each get their own egress proxy. Anything outside them (the default
        // context) is pointed at a closed port, loopback included: it reaches nothing.
        args.push(format!("--proxy-server={NOWHERE_PROXY}"));
        args.push("--proxy-bypass-list=<-loopback>".into());
        args
    }

    /// Attaches to a running browser over CDP (BROWSER_WS_ENDPOINT). A `ws://…/devtools/browser/<id>`
    /// URL names one browser process; when it no longer answers (the browser was restarted), the
    /// same host and port are asked for the current one (`/json/version`). A browser started
    /// without the flags that guard egress (`guards`) is refused, unless `allow_unguarded`
    /// (ALLOW_UNGUARDED_BROWSER): then it is used, and the log and `/readyz` say what it lacks.
    pub async fn attach(endpoint: &str, allow_unguarded: bool) -> Result<Self, BrowserError> {
        let mut chromium = match Self::connect(endpoint, None).await {
            Err(err) if endpoint.contains("/devtools/browser/") => {
                let Some(http) = devtools_http(endpoint) else { return Err(err) };
                Self::connect(&http, None).await.map_err(|_| err)?
            }
            attached => attached?,
        };
        let lacking = match chromium.command_line().await {
            Ok(arguments) => guards::lacking(&arguments),
            Err(e) => vec![format!(
                "it does not tell its command line (Browser.getBrowserCommandLine: {e}; start it with --enable-automation)"
            )],
        };
        if lacking.is_empty() {
            return Ok(chromium);
        }
        let what = format!(
            "the browser at {} was not started with the flags that guard egress outside a session: {}",
            redact(endpoint),
            lacking.join("; ")
        );
        if !allow_unguarded {
            chromium.shutdown().await;
            return Err(BrowserError::Unavailable(format!(
                "{what}. Start it with the flags `text-browser --chromium-flags` prints, or set \
                 ALLOW_UNGUARDED_BROWSER=true to use it anyway"
            )));
        }
        tracing::warn!(lacking = %lacking.join("; "), "attached to a browser without the flags that guard egress (ALLOW_UNGUARDED_BROWSER)");
        chromium.unguarded = lacking;
        Ok(chromium)
    }

    /// The browser's command line (Chromium tells it only when started with `--enable-automation`).
    async fn command_line(&self) -> Result<Vec<String>, BrowserError> {
        let answer = self.call("Browser.getBrowserCommandLine", json!({}), Instant::now() + ATTACH_TIMEOUT).await?;
        let arguments = answer["arguments"].as_array().map(Vec::as_slice).unwrap_or_default();
        Ok(arguments.iter().filter_map(|a| a.as_str().map(str::to_owned)).collect())
    }

    /// What this browser lacks of the flags that guard egress (an attached one used under
    /// ALLOW_UNGUARDED_BROWSER), one line each; empty when it has them all.
    pub fn unguarded(&self) -> &[String] {
        &self.unguarded
    }

    pub async fn launch(executable: &Path, headless: bool) -> Result<Self, BrowserError> {
        let profile = ProfileDir::create()?;
        let (process, url) = launch::spawn(executable, &profile, headless, &Self::service_args()).await?;
        tracing::info!(pid = process.pid(), executable = %executable.display(), "chromium started");
        Self::connect(&url, Some(Launched { process, _profile: profile })).await
    }

    /// Connects to the browser at `url`, which this service launched (`launched`) or not.
    async fn connect(url: &str, launched: Option<Launched>) -> Result<Self, BrowserError> {
        let config = HandlerConfig {
            ignore_invalid_messages: false,
            viewport: None,
            // Our own deadlines bound every call; this only has to be longer than any of them.
            request_timeout: Duration::from_secs(3600),
            ..HandlerConfig::default()
        };
        let what = match &launched {
            Some(launched) => format!("the Chromium it started (pid {})", launched.process.pid()),
            None => format!("the browser at {}", redact(url)),
        };
        let connecting = tokio::time::timeout(ATTACH_TIMEOUT, Browser::connect_with_config(url, config));
        let (browser, handler) = match connecting.await {
            Ok(Ok(connected)) => connected,
            Ok(Err(e)) => return Err(BrowserError::Unavailable(format!("could not connect to {what}: {e}"))),
            Err(_) => {
                return Err(BrowserError::Unavailable(format!(
                    "{what} did not answer within {} s",
                    ATTACH_TIMEOUT.as_secs()
                )));
            }
        };
        let routes = Arc::new(EventRoutes::default());
        let (alive_tx, alive) = watch::channel(true);
        let pump = tokio::spawn(pump_handler(handler, routes.clone(), alive_tx));
        let forwarder = super::browser_events::forward(&browser, routes.clone()).await?;
        if launched.is_none() {
            tracing::info!(endpoint = %redact(url), "attached to a running browser");
        }
        let local = launched.is_some() || on_this_machine(url);
        Ok(Self {
            browser: tokio::sync::RwLock::new(browser),
            routes,
            alive,
            pump: Mutex::new(Some(pump)),
            forwarder: Mutex::new(Some(forwarder)),
            launched,
            local,
            unguarded: Vec::new(),
        })
    }

    /// Opens a page (target) with `params`.
    pub async fn new_page(&self, params: CreateTargetParams, deadline: Instant) -> Result<Page, BrowserError> {
        let browser = self.browser.read().await;
        tokio::time::timeout_at(deadline, browser.new_page(params))
            .await
            .map_err(|_| BrowserError::Timeout("Chromium did not open a page in time".into()))?
            .map_err(|e| cdp::map_cdp_error("Target.createTarget", e))
    }

    /// The page of a target Chromium opened by itself (a popup), once chromiumoxide has attached
    /// to it: it attaches on its own as soon as the target is announced, so this waits for that.
    pub async fn page_of(&self, target_id: &ids::TargetId, deadline: Instant) -> Result<Page, BrowserError> {
        loop {
            let found = {
                let browser = self.browser.read().await;
                browser.get_page(TargetId::new(target_id.as_str())).await
            };
            match found {
                Ok(page) => return Ok(page),
                Err(CdpError::NotFound) if Instant::now() + ATTACH_POLL < deadline => {
                    tokio::time::sleep(ATTACH_POLL).await;
                }
                Err(CdpError::NotFound) => {
                    return Err(BrowserError::Timeout(format!("Chromium did not attach tab {target_id} in time")));
                }
                Err(e) => return Err(cdp::map_cdp_error("Target.attachToTarget", e)),
            }
        }
    }

    pub(in crate::browser) fn routes(&self) -> &Arc<EventRoutes> {
        &self.routes
    }

    pub fn pid(&self) -> Option<u32> {
        self.launched.as_ref().map(|l| l.process.pid())
    }

    /// Whether the process of a Chromium we launched runs, is ending (killed a moment ago, its
    /// connection not closed yet) or is gone; `None` for a browser we attached to (or where /proc
    /// cannot tell): only a round trip can prove that one answers.
    pub fn process_state(&self) -> Option<ProcessState> {
        self.launched.as_ref().and_then(|l| l.process.state())
    }

    /// Whether the browser shares this machine's file system: one we launched, or one we reach
    /// on loopback. Uploads and downloads pass files through it by path.
    pub fn shares_files(&self) -> bool {
        self.local
    }

    pub fn is_alive(&self) -> bool {
        *self.alive.borrow()
    }

    /// Resolves when the CDP connection ends (Chromium exited or crashed).
    pub async fn closed(&self) {
        self.lifeline().lost().await
    }

    /// A cheap handle that says whether this Chromium is still up, for what lives in it (a
    /// session) to notice at once when it dies.
    pub fn lifeline(&self) -> Lifeline {
        Lifeline(self.alive.clone())
    }

    /// Sends a browser-level command (Target.*, Storage.*) with a deadline.
    pub async fn call(&self, method: &'static str, params: Value, deadline: Instant) -> Result<Value, BrowserError> {
        if !self.is_alive() {
            return Err(BrowserError::Unavailable("the Chromium process has exited".into()));
        }
        let browser = self.browser.read().await;
        let _timer = crate::metrics::CDP_DURATION.with_label_values(&[method]).start_timer();
        match tokio::time::timeout_at(deadline, browser.execute(Raw::new(method, params))).await {
            Ok(Ok(resp)) => Ok(resp.result),
            Ok(Err(err)) => Err(cdp::map_cdp_error(method, err)),
            Err(_) => Err(cdp::deadline_passed(method)),
        }
    }

    /// Sends a browser-level [`cdp::Command`] with a deadline and reads its answer.
    pub async fn send<C: cdp::Command>(&self, command: C, deadline: Instant) -> Result<C::Answer, BrowserError> {
        let answer = self.call(C::METHOD, cdp::params_of(&command)?, deadline).await?;
        cdp::answer_of::<C>(answer)
    }

    /// Asks a Chromium of ours to exit and waits briefly for it (a process still running then is
    /// killed); a browser we attached to is only disconnected from (it is not ours to stop).
    pub async fn shutdown(&self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        if let Some(launched) = &self.launched {
            if self.is_alive() {
                let _ = self.call("Browser.close", Value::Object(Default::default()), deadline).await;
            }
            let _ = tokio::time::timeout_at(deadline, self.closed()).await;
            launched.process.stop(deadline.saturating_duration_since(Instant::now())).await;
        }
        if let Some(pump) = self.pump.lock().unwrap_or_else(|p| p.into_inner()).take() {
            pump.abort();
        }
        if let Some(forwarder) = self.forwarder.lock().unwrap_or_else(|p| p.into_inner()).take() {
            forwarder.abort();
        }
        match self.pid() {
            Some(pid) => tracing::info!(pid, "chromium stopped"),
            None => tracing::info!("disconnected from the browser"),
        }
    }
}

/// `http://host:port` of a `ws://host:port/devtools/browser/<id>` URL: where Chromium says which
/// browser listens now.
fn devtools_http(endpoint: &str) -> Option<String> {
    let url = url::Url::parse(endpoint).ok()?;
    let scheme = if url.scheme() == "wss" { "https" } else { "http" };
    Some(format!("{scheme}://{}:{}", url.host_str()?, url.port_or_known_default()?))
}

/// Whether an endpoint URL names this machine (loopback).
fn on_this_machine(url: &str) -> bool {
    let Some(host) = url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned)) else { return false };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// An endpoint URL for logs and errors, without its query (browser pools take tokens there).
fn redact(url: &str) -> String {
    match url.split_once('?') {
        Some((base, _)) => format!("{base}?…"),
        None => url.to_owned(),
    }
}

/// Whether one Chromium is still up (see [`Chromium::lifeline`]).
#[derive(Clone)]
pub struct Lifeline(watch::Receiver<bool>);

impl Lifeline {
    pub fn is_alive(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once that Chromium is gone (at once if it already is).
    pub async fn lost(&self) {
        let mut alive = self.0.clone();
        // An error means the pump is gone without saying so: the browser is gone too.
        let _ = alive.wait_for(|up| !*up).await;
    }
}

/// Polls the CDP handler for the life of the browser. Message errors are not fatal; a broken
/// connection is: chromiumoxide reports it as an error and keeps its stream open, so the pump ends
/// there (dropping the handler fails every command still waiting for an answer).
async fn pump_handler(mut handler: Handler, routes: Arc<EventRoutes>, alive: watch::Sender<bool>) {
    while let Some(item) = handler.next().await {
        match item {
            Ok(()) => {}
            Err(CdpError::InvalidMessage(text, _)) => routes.dispatch_raw(&text),
            Err(err @ (CdpError::Ws(_) | CdpError::Io(_))) => {
                tracing::error!(error = %err, "the connection to Chromium broke");
                break;
            }
            Err(err) => tracing::debug!(error = %err, "cdp handler error"),
        }
    }
    tracing::warn!("the connection to Chromium ended");
    alive.send_replace(false);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_we_launch_with_hold_every_guard() {
        assert_eq!(guards::lacking(&Chromium::recommended_args(true)), Vec::<String>::new());
    }

    #[test]
    fn a_browser_url_is_found_again_at_its_devtools_port_and_tokens_stay_out_of_logs() {
        assert_eq!(devtools_http("ws://10.0.0.5:9222/devtools/browser/ab-12").as_deref(), Some("http://10.0.0.5:9222"));
        assert_eq!(devtools_http("wss://pool.example/devtools/browser/x").as_deref(), Some("https://pool.example:443"));
        assert_eq!(redact("ws://pool:3000/?token=s3cret"), "ws://pool:3000/?…");
        assert_eq!(redact("ws://h:1/devtools/browser/x"), "ws://h:1/devtools/browser/x");
        assert!(on_this_machine("ws://127.0.0.1:9222/devtools/browser/x"));
        assert!(on_this_machine("ws://[::1]:9222/"));
        assert!(on_this_machine("http://localhost:9222"));
        assert!(!on_this_machine("ws://browserless:3000/?token=x"));
        assert!(!on_this_machine("ws://10.0.0.7:9222/devtools/browser/x"));
    }
}
