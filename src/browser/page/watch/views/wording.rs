//! How the watch's typed notes read (`notes`): one line each for a dialog and its answer, a
//! download, a popup, a note, the caller's action, a socket's opening, frames and close, a message
//! between windows, a cookie set, refused or withheld, and the text a live event carries. The only
//! place these lines are worded; `logs`, `effects`, `lines`, `sockets`, `messages`, `wire` and
//! `live` show them.

use super::super::exchanged::{
    Found, FrameGroup, FrameNote, MessageNote, Shape, SocketNote, SocketWhat, StorageNote, StorageWhat,
};
use super::super::notes::{
    ActionNote, ActionTarget, ChooserNote, DialogAnswer, DialogNote, DownloadNote, Note, RequestOutcome,
};
use super::super::wire::{SetCookie, SetOutcome, Withheld};
use crate::browser::chromium::kinds::{DialogKind, DownloadState};
use crate::browser::page::route_table::AuthAnswer;

/// `confirm("Delete project?") accepted (armed)`; `file chooser answered with a.csv (armed)`;
/// `HTTP Basic authentication for … answered with httpCredentials (ann)`.
pub fn dialog(note: &DialogNote) -> String {
    match note {
        DialogNote::Dialog { kind, message, answer } => dialog_answer(kind, message, answer),
        DialogNote::Chooser(ChooserNote::Armed { names }) => {
            format!("file chooser answered with {} (armed)", names.join(", "))
        }
        DialogNote::Chooser(ChooserNote::NotForFileInput) => "file chooser not for a file input: nothing chosen".into(),
        DialogNote::Chooser(ChooserNote::Unarmed) => {
            "file chooser opened with no fileChooser.arm: nothing chosen".into()
        }
        DialogNote::Auth { scheme, url, realm, answer } => {
            let asked = format!("HTTP {scheme} authentication for {url} (realm {realm:?})");
            match answer {
                AuthAnswer::Provided(user) => format!("{asked} answered with httpCredentials ({user})"),
                AuthAnswer::Cancelled(why) => format!("{asked} cancelled: {why}"),
            }
        }
    }
}

/// The line for an answered dialog: `confirm("Delete project?") accepted (armed)`.
fn dialog_answer(kind: &DialogKind, message: &str, answer: &DialogAnswer) -> String {
    let verdict = match (*kind == DialogKind::BeforeUnload, answer.accept) {
        (true, true) => "accepted: the page was left",
        (true, false) => "dismissed: the page stayed and the navigation was cancelled",
        (false, true) => "accepted",
        (false, false) => "dismissed",
    };
    let how = if answer.armed { "armed" } else { "default: no dialog.arm" };
    let with = match (&answer.prompt_text, answer.accept && *kind == DialogKind::Prompt) {
        (Some(text), true) => format!(" with {}", serde_json::Value::from(text.as_str())),
        _ => String::new(),
    };
    format!("{kind}({}) {verdict}{with} ({how})", serde_json::Value::from(message))
}

/// `download report.csv started`, `download report.csv finished: 1024 bytes`.
pub fn download(note: &DownloadNote) -> String {
    match note {
        DownloadNote::Started { name } => format!("download {name} started"),
        DownloadNote::Ended { name, bytes, state, over_cap, cap } => {
            let how = match state {
                DownloadState::Completed => format!("finished: {bytes} bytes"),
                DownloadState::Canceled if *over_cap => {
                    format!("cancelled at {bytes} bytes: larger than DOWNLOAD_MAX_BYTES ({cap} bytes)")
                }
                DownloadState::Canceled => "cancelled".to_owned(),
                other => other.to_string(),
            };
            format!("download {name} {how}")
        }
    }
}

/// How a popup reads in effects and logs.
pub fn popup(tab: &str, url: &str) -> String {
    format!("popup opened as tab {tab}: {url} (its errors and requests are its own: pass tab_id)")
}

/// `page.click e5`.
pub fn action(note: &ActionNote) -> String {
    match &note.target {
        Some(ActionTarget::On(target)) => format!("{} {target}", note.method),
        Some(ActionTarget::Into(target)) => format!("{} into {target}", note.method),
        None => note.method.clone(),
    }
}

pub fn note(note: &Note) -> String {
    match note {
        Note::LoadedBeforeAdoption { requests, api_calls } => {
            let requests = if *requests == 1 { "the request".to_owned() } else { format!("the {requests} requests") };
            let mut text = format!(
                "this tab loaded before the session adopted it: its console messages and errors so far are in these \
                 logs, but {requests} it made so far are not in network.pull (page.reload with this tab_id records \
                 them)"
            );
            if !api_calls.is_empty() {
                // `GET`-less `url → status`.
                let calls: Vec<String> = api_calls
                    .iter()
                    .map(|call| match call.status {
                        Some(status) => format!("{} → {status}", call.url),
                        None => call.url.clone(),
                    })
                    .collect();
                text.push_str(&format!("; its API calls: {}", calls.join(", ")));
            }
            text
        }
    }
}

/// `POST /api/orders → 422`, `GET /x → net::ERR_CONNECTION_REFUSED`.
pub fn request(method: &str, url: &str, outcome: &RequestOutcome) -> String {
    match outcome {
        RequestOutcome::Status(status) => format!("{method} {url} → {status}"),
        RequestOutcome::Failed(why) => format!("{method} {url} → {why}"),
        RequestOutcome::Cancelled => format!("{method} {url} → cancelled (the page navigated away)"),
    }
}

/// `socket /ops/socket open (101) ← (/ops/board.js:18)`, `← error frame {op: "error"} on
/// /ops/socket (131 B; {op: string, …})`, `← 52 × {type: "quote"} on /feed (12 KB)`, `socket
/// /feed closed …`; `url` as shown (relative), `place` the opening script's line as shown.
pub fn socket(note: &SocketNote, url: &str, place: Option<String>) -> String {
    let on = if note.stream { format!("stream {url}") } else { url.to_owned() };
    let by = place.map(|p| format!(" ← {p}")).unwrap_or_default();
    match &note.what {
        SocketWhat::Opened { status: Some(101), .. } => format!("socket {url} open (101){by}"),
        SocketWhat::Opened { status: Some(status), .. } => format!("socket {url} answered {status}{by}"),
        SocketWhat::Opened { status: None, .. } => format!("socket {url} opening (no handshake answer yet){by}"),
        SocketWhat::Frame(frame) => format!("{} on {on} ({})", frame_text(frame), frame_size(frame)),
        SocketWhat::Frames(group) => frames(group, &on),
        SocketWhat::Error(message) => format!("socket {url} error: {message}"),
        SocketWhat::Closed { left: true } => format!("socket {url} closed with its document"),
        SocketWhat::Closed { left: false } => {
            format!("socket {url} closed (the browser reports no close code nor reason)")
        }
    }
}

/// `→ {op: "subscribe", topic: "incidents:eu-west"}`, `← error frame {op: "error", code: …}`,
/// `← message deploy {service: string}`, `← "hello"`, `← binary frame`.
pub fn frame_text(frame: &FrameNote) -> String {
    let arrow = if frame.sent { "→" } else { "←" };
    let what = match (&frame.event, frame.error_like) {
        (Some(event), _) => format!("message {event} "),
        (None, true) => "error frame ".into(),
        (None, false) => String::new(),
    };
    let shown = match &frame.shape {
        Shape::Json { tags, outline } if tags.is_empty() => outline.clone(),
        Shape::Json { tags, .. } => tags_text(tags),
        Shape::Text(head) => serde_json::Value::from(head.as_str()).to_string(),
        Shape::Binary => "binary frame".into(),
    };
    format!("{arrow} {what}{shown}")
}

/// `46 B; {op: string, topic: string}`: a frame's size, and its outline when its tags were shown.
fn frame_size(frame: &FrameNote) -> String {
    match &frame.shape {
        Shape::Json { tags, outline } if !tags.is_empty() => format!("{}; {outline}", bytes(frame.bytes as u64)),
        _ => bytes(frame.bytes as u64),
    }
}

fn tags_text(tags: &[(String, String)]) -> String {
    let parts: Vec<String> = tags.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// `← 52 × {type: "quote"} on /feed (12 KB)`; frames counted unread say so.
fn frames(group: &FrameGroup, on: &str) -> String {
    let arrow = if group.sent { "→" } else { "←" };
    match &group.key {
        Some(key) => format!("{arrow} {} × {key} on {on} ({})", group.count, bytes(group.bytes)),
        None => format!(
            "{arrow} {} frames on {on} ({}; not read one by one past the first)",
            group.count,
            bytes(group.bytes)
        ),
    }
}

fn bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

/// `the server answered → {op: "subscribe", …} on /ops/socket with an error frame {op: "error",
/// code: "unknown_topic"} 3 ms later`: an error answer and the frame the page had sent before it.
pub fn socket_error(sent: Option<&FrameNote>, error: &FrameNote, url: &str, ms: i64) -> String {
    let answer = frame_text(error).replacen("← error frame ", "", 1);
    match sent {
        Some(sent) => {
            format!("the server answered {} on {url} with an error frame {answer} {ms} ms later", frame_text(sent))
        }
        None => format!("{url} sent an error frame {answer}"),
    }
}

/// What a listener a message was dispatched to started, as far as the timeline tells.
#[derive(Debug, Clone, PartialEq)]
pub enum Started {
    /// No request and no DOM change ran through it.
    Nothing,
    /// Requests and changes that ran through it (`GET /api/slots`, `a change of #status`), the
    /// first few, and how many more.
    Things(Vec<String>, usize),
    /// Not known: a change's cause is still being read, or the listener can be told by nothing.
    Unknown,
}

/// `message from iframe#scheduler (/support/scheduler/) at http://h:1 to http://h:1: {type:
/// "scheduler:ready"} ({type: string, height: number}); onSchedulerMessage (/support/embed.js:7)
/// started nothing` (`to`: the page's origin; `listeners`: each as shown, with what it started).
pub fn message(note: &MessageNote, to: &str, listeners: &[(String, Started)]) -> String {
    let from = if note.from.is_empty() { "a window" } else { note.from.as_str() };
    let ports = match note.ports {
        0 => String::new(),
        1 => ", with 1 port".into(),
        n => format!(", with {n} ports"),
    };
    let unread = match note.unread {
        0 => String::new(),
        n => format!(" ({n} messages before it not read: over 20 a second)"),
    };
    let ran: Vec<String> = listeners
        .iter()
        .map(|(listener, started)| match started {
            Started::Nothing => format!("{listener} started nothing"),
            Started::Things(things, 0) => format!("{listener} started {}", things.join(", ")),
            Started::Things(things, more) => format!("{listener} started {} and {more} more", things.join(", ")),
            Started::Unknown => format!("{listener} ran (what it started is not known)"),
        })
        .collect();
    let ran = if ran.is_empty() { "no message listener on the window".into() } else { ran.join("; ") };
    format!("message from {from} at {} to {to}: {}{ports}{unread}; {ran}", note.origin, message_text(&note.shape))
}

/// `the message {type: "scheduler:ready"} from http://h:1 (iframe#scheduler) reached
/// onSchedulerMessage (/support/embed.js:7), which started nothing: no request, no DOM change`.
pub fn message_ignored(note: &MessageNote, listeners: &[(String, Started)]) -> String {
    let names: Vec<&str> = listeners.iter().map(|(listener, _)| listener.as_str()).collect();
    let shown = match &note.shape {
        Shape::Json { tags, outline } if tags.is_empty() => outline.clone(),
        Shape::Json { tags, .. } => tags_text(tags),
        other => message_text(other),
    };
    let which = if names.len() == 1 { "which" } else { "each of which" };
    format!(
        "the message {shown} from {} ({}) reached {}, {which} started nothing: no request, no DOM change",
        note.origin,
        note.from,
        names.join(", ")
    )
}

/// `{type: "scheduler:ready"} ({type: string, height: number})`; the outline alone without tags.
fn message_text(shape: &Shape) -> String {
    match shape {
        Shape::Json { tags, outline } if tags.is_empty() => outline.clone(),
        Shape::Json { tags, outline } => format!("{} ({outline})", tags_text(tags)),
        Shape::Text(head) => serde_json::Value::from(head.as_str()).to_string(),
        Shape::Binary => "binary data".into(),
    }
}

/// `localStorage readerPrefs = {size: string, theme: string} by /reader/settings.js:5`,
/// `localStorage reader-prefs → null (never written) by loadPrefs (/reader/prefs.js:6)`,
/// `sessionStorage cart removed`, `localStorage cleared`; `by`: the calling line, placed.
pub fn storage(note: &StorageNote, by: Option<&str>) -> String {
    let area = if note.local { "localStorage" } else { "sessionStorage" };
    let what = match &note.what {
        StorageWhat::Set { key, value } => format!("{area} {key} = {value}"),
        StorageWhat::Removed { key } => format!("{area} {key} removed"),
        StorageWhat::Cleared => format!("{area} cleared"),
        StorageWhat::Read { key, found, .. } => {
            let key = key.as_deref().unwrap_or("(a key read with side effects: not evaluated)");
            let found = match found {
                Found::Value => "→ found",
                Found::Null => "→ null (removed)",
                Found::NeverWritten => "→ null (never written)",
                Found::Unknown => "read",
            };
            format!("{area} {key} {found}")
        }
        StorageWhat::More(n) => format!("… {n} more storage calls (not kept one by one past 32 a second)"),
        StorageWhat::Unfollowed(budget) => {
            format!("storage calls past {budget} in this document not followed (each pauses the page)")
        }
    };
    match by {
        Some(by) => format!("{what} by {by}"),
        None => what,
    }
}

/// `loadPrefs (/reader/prefs.js:6) read localStorage reader-prefs, which nothing in this session
/// wrote (null); it wrote the similar key readerPrefs (by /reader/settings.js:5)`.
pub fn storage_misread(local: bool, key: &str, by: &str, similar: &str, written_by: Option<&str>) -> String {
    let area = if local { "localStorage" } else { "sessionStorage" };
    let written_by = written_by.map(|at| format!(" (by {at})")).unwrap_or_default();
    format!(
        "{by} read {area} {key}, which nothing in this session wrote (null); it wrote the similar key {similar}{written_by}"
    )
}

/// `cookie portal_sid set (HttpOnly, SameSite=Lax, session cookie, Path=/portal/api, defaulted from
/// /portal/api/session)`; `cookie c refused: SameSite=None without Secure (SameSiteNoneInsecure)`;
/// `cookie sid deleted (Max-Age=0)`.
pub fn set_cookie(set: &SetCookie) -> String {
    let name = &set.name;
    if let SetOutcome::Refused(reasons) = &set.outcome {
        let why: Vec<String> = reasons.iter().map(|r| format!("{} ({r})", refused_why(r))).collect();
        return format!("cookie {name} refused: {}", why.join("; "));
    }
    if set.outcome == SetOutcome::Deleted {
        return format!("cookie {name} deleted ({})", set.expiry.as_deref().unwrap_or("expired"));
    }
    let mut parts: Vec<String> = Vec::new();
    parts.extend(set.http_only.then(|| "HttpOnly".to_owned()));
    parts.extend(set.secure.then(|| "Secure".to_owned()));
    parts.extend(set.same_site.as_ref().map(|s| format!("SameSite={s}")));
    parts.extend(set.domain.as_ref().map(|d| format!("Domain={d}")));
    parts.push(set.expiry.clone().unwrap_or_else(|| "session cookie".into()));
    parts.push(match &set.path_defaulted_from {
        Some(from) => format!("Path={}, defaulted from {from}", set.path),
        None => format!("Path={}", set.path),
    });
    format!("cookie {name} set ({})", parts.join(", "))
}

/// Why the browser refused a `Set-Cookie` line, from Chromium's reason.
fn refused_why(reason: &str) -> &'static str {
    match reason {
        "SecureOnly" => "Secure, set over an insecure connection",
        "SameSiteStrict" | "SameSiteLax" | "SameSiteUnspecifiedTreatedAsLax" => "set by a cross-site answer",
        "SameSiteNoneInsecure" => "SameSite=None without Secure",
        "UserPreferences" => "the browser's cookie settings block it",
        "ThirdPartyPhaseout" | "ThirdPartyBlockedInFirstPartySet" => "third-party cookies are blocked",
        "SyntaxError" => "the line does not parse",
        "SchemeNotSupported" => "this URL's scheme takes no cookies",
        "OverwriteSecure" => "it would overwrite a Secure cookie over an insecure connection",
        "InvalidDomain" => "its Domain does not cover the host that set it",
        "InvalidPrefix" => "its __Secure-/__Host- prefix rules are not met",
        "NameValuePairExceedsMaxSize" => "its name and value exceed 4,096 bytes",
        "DisallowedCharacter" => "it holds a character cookies may not",
        "NoCookieContent" => "it is empty",
        _ => "refused by the browser",
    }
}

/// `not sent: portal_sid — its Path /portal/api does not cover /portal/home` (`url`: the
/// request's).
pub fn withheld(cookie: &Withheld, url: &str) -> String {
    let parsed = url::Url::parse(url).ok();
    let path = parsed.as_ref().map_or("/", |u| u.path());
    let host = parsed.as_ref().and_then(|u| u.host_str()).unwrap_or_default();
    let why: Vec<String> = cookie
        .reasons
        .iter()
        .map(|reason| match reason.as_str() {
            "NotOnPath" => format!("its Path {} does not cover {path}", cookie.path),
            "DomainMismatch" => format!("its Domain {} does not match {host}", cookie.domain),
            "SecureOnly" => "it is Secure and the request is not".into(),
            "SameSiteStrict" => "it is SameSite=Strict and the request is cross-site".into(),
            "SameSiteLax" => "it is SameSite=Lax and the request is a cross-site subrequest".into(),
            "SameSiteUnspecifiedTreatedAsLax" => {
                "it has no SameSite (Lax by default) and the request is a cross-site subrequest".into()
            }
            "SameSiteNoneInsecure" => "it is SameSite=None without Secure".into(),
            "UserPreferences" => "the browser's cookie settings block it".into(),
            "ThirdPartyPhaseout" | "ThirdPartyBlockedInFirstPartySet" => "third-party cookies are blocked".into(),
            "PortMismatch" => "it was set on another port".into(),
            "SchemeMismatch" => "it was set over another scheme".into(),
            other => format!("the browser says {other}"),
        })
        .collect();
    format!("not sent: {} — {}", cookie.name, why.join("; "))
}
