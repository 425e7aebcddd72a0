//! `events.subscribe` (WebSocket only): what a session's page does, pushed as it happens — console
//! messages, page errors, finished requests, dialogs, navigations, downloads, popups, a crash —
//! as `events.event` notifications, until `events.unsubscribe`, the connection closing, or the
//! session ending (a last notification says why: `{"kind": "end", "reason": "closed"}`).
//!
//! Backpressure: the page publishes into a bounded broadcast feed and never waits for anyone
//! (see `browser::page::watch::views::live`). A subscriber's own task forwards to its connection; one that
//! does not keep up loses events, and the next notification it gets says how many (`dropped`).

use std::time::Duration;

use jsonrpsee::RpcModule;
use jsonrpsee::core::server::{PendingSubscriptionSink, SendTimeoutError, SubscriptionSink};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

use super::RpcContext;
use super::error::ApiError;
use super::params;
use crate::browser::{CloseReason, LiveEvent, LiveKind, LiveMaps};
use crate::replica::{Outcome, Owner, ReplicaError, Transport};

pub const SUBSCRIBE: &str = "events.subscribe";
pub const NOTIFICATION: &str = "events.event";
pub const UNSUBSCRIBE: &str = "events.unsubscribe";
pub const SUMMARY: &str = "Stream what a session's page does as it happens (WebSocket on /rpc only).";
pub const NOTIFICATION_DOC: &str = "One per event, in the order things happened, with `tab` (and, after losses, \
    `dropped`: how many were lost before it). The last is {\"kind\": \"end\", \"reason\", \"dropped\"} once the \
    session or tab is gone (reason: closed, expired, shutdown, browser_lost, tab_closed).";

/// How long one notification may wait for room on a slow connection before it counts as dropped.
const SEND_PATIENCE: Duration = Duration::from_millis(100);
/// How long an event is held so that one which happened earlier but reached us later goes first.
const REORDER_WINDOW: Duration = Duration::from_millis(100);
/// How long an event waits, at most, for its script's source map (fetched from when it arrived)
/// before it is sent with its location as served, marked so.
const MAP_WAIT: Duration = Duration::from_secs(1);

/// Streams what the page does from now on as `events.event` notifications: console messages,
/// page errors, requests (answered or failed), dialogs, navigations, downloads, popups, a crash.
/// A subscriber that falls behind loses the oldest and is told how many; it ends with the session.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeParams {
    /// The session, from session.create.
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// The tab to watch (default the active one).
    #[serde(rename = "tab_id")]
    pub tab_id: Option<String>,
    /// Only these kinds (default all): console, pageerror, network, dialog, navigation, download,
    /// popup, crash.
    pub kinds: Option<Vec<LiveKind>>,
    /// Only errors: console errors, page errors, failed requests, crashes (default false).
    pub only_errors: Option<bool>,
}

/// Registers `events.subscribe` / `events.unsubscribe` on the module.
pub fn register(module: &mut RpcModule<RpcContext>) {
    module
        .register_subscription(SUBSCRIBE, NOTIFICATION, UNSUBSCRIBE, |raw, pending, ctx, extensions| async move {
            if let Err(err) = ctx.calls.admit(&extensions) {
                return pending.reject(err.to_error_object()).await;
            }
            let p = match parse(raw.as_str()) {
                Ok(p) => p,
                Err(err) => return pending.reject(err.to_error_object()).await,
            };
            if let Some(err) = elsewhere(&ctx, &p.session_id) {
                return pending.reject(err.to_error_object()).await;
            }
            // A WebSocket with a subscription open is not idle.
            let _busy = extensions.get::<std::sync::Arc<super::Activity>>().map(super::Activity::busy);
            stream(ctx, p, pending).await;
        })
        // Infallible: registered once, at start-up, under names nothing else uses.
        .expect("the events methods are registered once");
}

/// `wrong_replica` for a session another replica holds. Calls are forwarded, subscriptions are
/// not: a stream relayed through a second replica would end with that replica too, and reorder
/// and drop events twice; the owner's URL (data.ownerUrl) is where to open the WebSocket.
fn elsewhere(ctx: &RpcContext, session_id: &str) -> Option<ApiError> {
    let forwarder = ctx.replicas.as_ref()?;
    let Owner::Peer(owner) = forwarder.topology().owner(session_id) else { return None };
    forwarder.count(Transport::Subscription, Outcome::WrongReplica);
    Some(ApiError::Replica(ReplicaError::wrong(
        &owner,
        format!(
            "events.subscribe streams only from the replica holding the session, and this is {}; \
             open the WebSocket at data.ownerUrl",
            forwarder.topology().me()
        ),
    )))
}

fn parse(raw: Option<&str>) -> Result<SubscribeParams, ApiError> {
    let known = params::names::<SubscribeParams>();
    let value = params::object(raw, &known)?;
    params::block(&value)
}

async fn stream(ctx: std::sync::Arc<RpcContext>, p: SubscribeParams, pending: PendingSubscriptionSink) {
    // Watching never waits for the session's turn: a subscription taken while a long call runs
    // sees what that call makes the page do.
    let (tab, mut events, lifeline) = match ctx.sessions.watch_tab(&p.session_id, p.tab_id.as_deref()) {
        Ok((page, lifeline)) => ((page.tab_id(), page.live_maps()), page.live_events(), lifeline),
        Err(err) => return pending.reject(ApiError::from(err).to_error_object()).await,
    };
    let (tab, maps) = tab;
    let Ok(sink) = pending.accept().await else { return };
    let only_errors = p.only_errors.unwrap_or(false);
    let wanted = |event: &LiveEvent| {
        (!only_errors || event.error) && p.kinds.as_ref().is_none_or(|kinds| kinds.contains(&event.kind))
    };
    let mut dropped = 0u64;
    // Events wait here for REORDER_WINDOW, oldest first by when they happened: CDP's event types
    // reach us on separate channels, so a response and the console error the page logs on reading
    // it can arrive swapped.
    let mut held: Vec<(Instant, LiveEvent)> = Vec::new();
    loop {
        let due = held.first().map(|(arrived, _)| *arrived + REORDER_WINDOW);
        let event = tokio::select! {
            received = events.recv() => received,
            _ = sink.closed() => return,
            // Chromium died: the session went with it, whatever its page's feed says.
            _ = lifeline.lost() => {
                for (_, event) in std::mem::take(&mut held) {
                    if !forward(&sink, event, (&tab, &maps), &mut dropped).await {
                        return;
                    }
                }
                end(&sink, &tab, CloseReason::BrowserLost.as_str(), dropped).await;
                return;
            }
            _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                let now = Instant::now();
                while held.first().is_some_and(|(arrived, _)| *arrived + REORDER_WINDOW <= now) {
                    let (_, event) = held.remove(0);
                    if !forward(&sink, event, (&tab, &maps), &mut dropped).await {
                        return;
                    }
                }
                continue;
            }
        };
        match event {
            Ok(mut event) if wanted(&event) => {
                // Its script's map fetched while it is held (not waited for here).
                maps.read(&mut event, Instant::now()).await;
                // After every held event that happened no later (stable for equal times).
                let place = held.partition_point(|(_, e)| e.at <= event.at);
                held.insert(place, (Instant::now(), event));
            }
            Ok(_) => {}
            Err(RecvError::Lagged(lost)) => dropped += lost,
            Err(RecvError::Closed) => {
                for (_, event) in std::mem::take(&mut held) {
                    if !forward(&sink, event, (&tab, &maps), &mut dropped).await {
                        return;
                    }
                }
                let reason = match ctx.sessions.close_reason(&p.session_id) {
                    // The browser this session lived in went away (whether or not that is recorded yet).
                    _ if !lifeline.is_alive() => CloseReason::BrowserLost.as_str(),
                    Some(reason) => reason.as_str(),
                    None if ctx.sessions.is_open(&p.session_id) => "tab_closed",
                    None => "closed",
                };
                end(&sink, &tab, reason, dropped).await;
                return;
            }
        }
    }
}

/// The last notification: why the subscription ended.
async fn end(sink: &SubscriptionSink, tab: &str, reason: &str, dropped: u64) {
    let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let last = json!({ "kind": "end", "at": at, "tab": tab, "reason": reason, "dropped": dropped });
    let _ = sink.send_timeout(raw(&last), SEND_PATIENCE * 10).await;
}

/// Sends one event, its location read through the maps, with the count of those lost before it;
/// false once the subscriber is gone.
async fn forward(
    sink: &SubscriptionSink,
    mut event: LiveEvent,
    (tab, maps): (&str, &LiveMaps),
    dropped: &mut u64,
) -> bool {
    maps.read(&mut event, Instant::now() + MAP_WAIT).await;
    let mut message = serde_json::to_value(&event).unwrap_or(Value::Null);
    message["tab"] = json!(tab);
    if *dropped > 0 {
        message["dropped"] = json!(*dropped);
    }
    match sink.send_timeout(raw(&message), SEND_PATIENCE).await {
        Ok(()) => *dropped = 0,
        Err(SendTimeoutError::Timeout(_)) => *dropped += 1,
        Err(SendTimeoutError::Closed(_)) => return false,
    }
    true
}

fn raw(value: &Value) -> Box<serde_json::value::RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned())
}
