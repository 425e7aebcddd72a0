//! How the watch's typed notes read (`notes`): one line each for a dialog and its answer, a
//! download, a popup, a note, the caller's action, and the text a live event carries. The only
//! place these lines are worded; `logs`, `effects`, `lines` and `live` show them.

use super::super::notes::{
    ActionNote, ActionTarget, ChooserNote, DialogAnswer, DialogNote, DownloadNote, Note, RequestOutcome,
};
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
