//! How a change's cause reads: who made it and what it was reacting to; and which request a page
//! error happened during.
//!
//! A cause's stack (kept by `causes`) reads as:
//!
//! - *by*: its innermost frame, `updateForm (/signup:61)`;
//! - *reacting to*: the user input the change followed in the same task (`input on #email`, noted by
//!   the watcher), or, for code running in a promise's continuation, the request whose answer it
//!   was handling (`response of GET /api/config 200`), or else the async boundary it came through
//!   (`setTimeout in poll (/app.js:12)`).
//!
//! A request is the one being handled when the code resumed after a promise (an `await`, a
//! `.then`) in a function that also started the request (the function is in the request's
//! initiator stack), and the request had been answered by then; of several, the latest answered.
//! Framework frames deeper in the stack are not matched: only the function the continuation
//! resumed and the ones that scheduled it.

use super::super::facts::path_of;
use super::super::origin::{origin_of, relative};
use super::super::records::{Outcome, Record, RequestRecord};
use super::super::stacks::{CodeLocation, Stack};
use super::super::timeline::Timeline;
use super::places::{Places, place_of};

/// How long after a request's answer code handling it still counts as handling it.
const HANDLING_MS: f64 = 30_000.0;
/// Characters of a URL shown in a reaction.
const URL_CHARS: usize = 80;

/// `updateForm (/signup:61)`: where the thing happened — its first frame of the app's own code; a
/// stack of library code alone (a framework's render) is named by its first frame, unless
/// `named_elsewhere` (its component names it).
pub fn by(stack: &Stack, places: &Places, named_elsewhere: bool) -> Option<String> {
    match places.first_app(stack.frames()) {
        Some((at, resolved)) => Some(place_of(at, &resolved)),
        None if named_elsewhere => None,
        None => stack.top().map(|at| places.place(at)),
    }
}

/// What code with `stack`, running at `at` (ms since the Unix epoch), was reacting to: `input on
/// #email` when the watcher noted one (`input`), else `response of GET /api/config 200`, else the
/// async boundary it came through.
pub fn reacting(
    stack: Option<&Stack>,
    input: Option<&str>,
    timeline: &Timeline,
    at: f64,
    places: &Places,
) -> Option<String> {
    if let Some(input) = input {
        return Some(input.to_owned());
    }
    let stack = stack?;
    if let Some(handled) = during(stack, timeline, at, false) {
        return Some(handled);
    }
    let parent = stack.parents().first()?;
    let boundary = parent.boundary.as_deref().unwrap_or("async");
    let frame = places.first_app(&parent.frames).map(|(at, resolved)| place_of(at, &resolved));
    Some(match frame.or_else(|| parent.frames.first().map(|at| places.place(at))) {
        Some(frame) => format!("{boundary} in {frame}"),
        None => boundary.to_owned(),
    })
}

/// The request whose answer code with `stack`, running at `at`, was handling: `response of GET
/// /api/deployments 200`, `failure of POST /api/orders (net::ERR_CONNECTION_REFUSED)` (its URL
/// without the origin of the code's script).
///
/// `reported_late`: the stack is of an unhandled rejection, which Chromium reports after the task
/// that threw, with the synchronous frames only. A frame further down the function that started
/// the request, in code that ran once the request was answered, is then the sign that it was
/// handling the answer (an `async` function resumed after its `await fetch`).
pub fn during(stack: &Stack, timeline: &Timeline, at: f64, reported_late: bool) -> Option<String> {
    handled(stack, timeline, at, reported_late).map(|r| handling(stack, r))
}

/// The request whose answer code with `stack` was handling at `at` (see [`during`]).
pub fn handled<'a>(stack: &Stack, timeline: &'a Timeline, at: f64, reported_late: bool) -> Option<&'a RequestRecord> {
    let truncated = reported_late && stack.parents().is_empty();
    if !truncated && !stack.after_promise() {
        return None;
    }
    // The function the continuation resumed (the outermost synchronous frame) and the places that
    // scheduled it (each async parent's innermost frame).
    let mut resumed: Vec<&CodeLocation> = stack.segments.first().and_then(|s| s.frames.last()).into_iter().collect();
    resumed.extend(stack.parents().iter().filter_map(|s| s.frames.first()));
    let started_here = |r: &RequestRecord| {
        if truncated {
            r.callers
                .frames()
                .any(|c| stack.frames().any(|f| !f.function.is_empty() && same_place(f, c) && f.line > c.line))
        } else {
            r.callers.frames().any(|c| resumed.iter().any(|f| same_place(f, c)))
        }
    };
    let mut best: Option<(f64, &RequestRecord)> = None;
    for entry in timeline.iter() {
        let Record::Request(r) = &entry.record else { continue };
        let Some(answered) = answered_at(r) else { continue };
        if answered > at + 1.0 || at - answered > HANDLING_MS || r.browser_own {
            continue;
        }
        if started_here(r) && best.is_none_or(|(t, _)| answered >= t) {
            best = Some((answered, r));
        }
    }
    best.map(|(_, r)| r)
}

/// How [`during`] names the request `r` (its URL without the origin of the code's script).
pub fn handling(stack: &Stack, r: &RequestRecord) -> String {
    let origin = stack.top().map(|f| origin_of(&f.url)).unwrap_or_default();
    let url = relative(&r.url, &origin);
    let url: String = if url.chars().count() > URL_CHARS {
        format!("{}…", url.chars().take(URL_CHARS - 1).collect::<String>())
    } else {
        url
    };
    match (r.status(), &r.end) {
        (Some(status), _) => format!("response of {} {url} {status}", r.method),
        (None, Some((_, Outcome::Failed(why)))) => format!("failure of {} {url} ({why})", r.method),
        _ => format!("end of {} {}", r.method, path_of(&r.url)),
    }
}

/// When a request's answer (or its failure) reached the page.
fn answered_at(r: &RequestRecord) -> Option<f64> {
    match (&r.response, &r.end) {
        (Some(answer), _) => Some(answer.at),
        (None, Some((at, Outcome::Failed(_)))) => Some(*at),
        _ => None,
    }
}

/// The same function of the same script (for code outside any function: the same line).
fn same_place(a: &CodeLocation, b: &CodeLocation) -> bool {
    a.url == b.url && a.function == b.function && (!a.function.is_empty() || a.line == b.line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::chromium::kinds::ResourceType;
    use crate::browser::page::watch::records::Answer;
    use serde_json::json;

    fn request(url: &str, callers: Stack, answered: f64, status: u16) -> RequestRecord {
        RequestRecord {
            id: url.into(),
            method: "GET".into(),
            url: url.into(),
            resource_type: ResourceType::Fetch,
            initiator: callers.top().cloned(),
            callers,
            posted: None,
            browser_own: false,
            response: Some(Answer { status, mime: "application/json".into(), at: answered }),
            end: Some((answered + 1.0, Outcome::Finished)),
            body_pending: false,
            body_unread: false,
            pulled: false,
        }
    }

    fn frame(function: &str, line: u64) -> serde_json::Value {
        json!({"functionName": function, "url": "http://app/deploy/app.js", "lineNumber": line - 1, "columnNumber": 0})
    }

    fn timeline_with(requests: Vec<RequestRecord>) -> Timeline {
        let mut t = Timeline::new(0.0);
        for r in requests {
            let at = r.response.as_ref().map_or(0.0, |a| a.at) - 50.0;
            t.push(at, Record::Request(Box::new(r)));
        }
        t
    }

    #[test]
    fn an_error_after_an_await_happened_during_the_latest_answer_its_function_asked_for() {
        let load = Stack::parse(&json!({"callFrames": [frame("loadDeployments", 10)]}));
        let other = Stack::parse(&json!({"callFrames": [frame("loadUser", 30)]}));
        let timeline = timeline_with(vec![
            request("http://app/api/deployments?page=1", load.clone(), 1000.0, 200),
            request("http://app/api/me", other, 1500.0, 200),
            request("http://app/api/deployments?page=2", load, 1600.0, 200),
        ]);
        // render ← loadDeployments (resumed after `await`), scheduled from init.
        let error = Stack::parse(&json!({"callFrames": [frame("render", 40), frame("loadDeployments", 12)],
                                         "parent": {"description": "await", "callFrames": [frame("init", 3)]}}));
        assert_eq!(
            during(&error, &timeline, 1700.0, false).as_deref(),
            Some("response of GET /api/deployments?page=2 200")
        );
        assert_eq!(
            during(&error, &timeline, 1550.0, false).as_deref(),
            Some("response of GET /api/deployments?page=1 200")
        );
        assert_eq!(during(&error, &timeline, 900.0, false), None, "nothing was answered yet");
    }

    #[test]
    fn an_unhandled_rejection_without_its_async_parents_is_matched_by_a_later_line_of_the_function() {
        let load = Stack::parse(&json!({"callFrames": [frame("showOlder", 14)]}));
        let timeline = timeline_with(vec![request("http://app/releases/older.json", load, 1000.0, 200)]);
        let thrown = Stack::parse(&json!({"callFrames": [frame("showOlder", 16)]}));
        assert_eq!(
            during(&thrown, &timeline, 1010.0, true).as_deref(),
            Some("response of GET /releases/older.json 200")
        );
        assert_eq!(during(&thrown, &timeline, 1010.0, false), None, "a synchronous stack reported in its task");
        let before = Stack::parse(&json!({"callFrames": [frame("showOlder", 12)]}));
        assert_eq!(during(&before, &timeline, 1010.0, true), None, "a line before the request ran before it");
        let elsewhere = Stack::parse(&json!({"callFrames": [frame("render", 40)]}));
        assert_eq!(during(&elsewhere, &timeline, 1010.0, true), None);
    }

    #[test]
    fn a_then_callback_is_matched_through_the_place_that_chained_it() {
        let load = Stack::parse(&json!({"callFrames": [frame("refresh", 20)]}));
        let timeline = timeline_with(vec![request("http://app/api/stats", load, 1000.0, 200)]);
        let error = Stack::parse(&json!({"callFrames": [frame("", 22)],
                                         "parent": {"description": "Promise.then", "callFrames": [frame("refresh", 22)]}}));
        assert_eq!(during(&error, &timeline, 1010.0, false).as_deref(), Some("response of GET /api/stats 200"));
    }

    #[test]
    fn code_run_by_an_input_event_reacts_to_the_input_not_to_a_request() {
        let check = Stack::parse(&json!({"callFrames": [frame("onEmail", 5)]}));
        let timeline = timeline_with(vec![request("http://app/api/check", check.clone(), 1000.0, 200)]);
        let change = Stack::parse(&json!({"callFrames": [frame("updateForm", 61), frame("onEmail", 7)]}));
        assert_eq!(during(&change, &timeline, 2000.0, false), None, "synchronous code handles no answer");
        assert_eq!(
            reacting(Some(&change), Some("input on #email"), &timeline, 2000.0, &Places::default()).as_deref(),
            Some("input on #email")
        );
        let timer = Stack::parse(&json!({"callFrames": [frame("tick", 9)],
                                         "parent": {"description": "setTimeout", "callFrames": [frame("poll", 12)]}}));
        assert_eq!(
            reacting(Some(&timer), None, &timeline, 2000.0, &Places::default()).as_deref(),
            Some("setTimeout in poll (/deploy/app.js:12)")
        );
        assert_eq!(by(&change, &Places::default(), false).as_deref(), Some("updateForm (/deploy/app.js:61)"));
    }
}
