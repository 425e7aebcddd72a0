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
use super::super::stacks::{CodeLocation, MAX_FRAMES, MAX_SEGMENTS, Stack};
use super::super::timeline::Timeline;
use super::places::{Places, place_of};

/// How long after a request's answer code handling it still counts as handling it.
const HANDLING_MS: f64 = 30_000.0;
/// How far the page's clock (a change's time) and the network's (an answer's) may disagree: an
/// answer stamped this much after the code that handled it still counts.
const CLOCK_SKEW_MS: f64 = 25.0;
/// Requests started this close together count as started together when their stacks cannot tell
/// (see [`together`]).
const TOGETHER_MS: f64 = 50.0;
/// Characters of a URL shown in a reaction.
const URL_CHARS: usize = 80;

/// Which requests a reaction may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Among {
    /// Any the timeline holds (a page's history: the timeline, page.inspect, page errors).
    Any,
    /// Only the requests after this timeline entry (an action's own, after its mark): a change
    /// in an action's effects is never credited to an earlier call's response. Among these few,
    /// any frame of the code's async parents may be the one that started the request, so a render
    /// a framework's scheduler ran for a state the response's handler set is credited to it.
    Since(u64),
}

/// `updateForm (/signup:61)`: where the thing happened — its first frame of the app's own code; a
/// stack of library code alone (a framework's render) is named by its package (`react-dom`, or its
/// first frame where no package is known), unless `named_elsewhere` (its component names it).
pub fn by(stack: &Stack, places: &Places, named_elsewhere: bool) -> Option<String> {
    match places.first_app(stack.frames()) {
        Some((at, resolved)) => Some(place_of(at, &resolved)),
        None if named_elsewhere => None,
        None => stack.top().map(|at| places.cause(at)),
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
    among: Among,
) -> Option<String> {
    if let Some(input) = input {
        return Some(input.to_owned());
    }
    let stack = stack?;
    let answers = handled(stack, timeline, at, false, among);
    if !answers.is_empty() {
        return Some(handling(stack, &answers));
    }
    let parent = stack.parents().first()?;
    let boundary = parent.boundary.as_deref().unwrap_or("async");
    let frame = places.first_app(&parent.frames).map(|(at, resolved)| place_of(at, &resolved));
    Some(match frame.or_else(|| parent.frames.first().map(|at| places.cause(at))) {
        Some(frame) => format!("{boundary} in {frame}"),
        None => boundary.to_owned(),
    })
}

/// The requests whose answers code with `stack` was handling at `at`, named by [`handling`]:
/// `response of GET /api/deployments 200`, `failure of POST /api/orders (net::ERR_CONNECTION_REFUSED)`,
/// `responses of GET /api/a 200 and GET /api/b 200` for code that awaited several started together
/// (`Promise.all`). The latest
/// answered that the code's function started, with those started [`together`] with it and
/// answered by then; none when nothing fits.
///
/// `reported_late`: the stack is of an unhandled rejection, which Chromium reports after the task
/// that threw, with the synchronous frames only. A frame further down the function that started
/// the request, in code that ran once the request was answered, is then the sign that it was
/// handling the answer (an `async` function resumed after its `await fetch`).
pub fn handled<'a>(
    stack: &Stack,
    timeline: &'a Timeline,
    at: f64,
    reported_late: bool,
    among: Among,
) -> Vec<&'a RequestRecord> {
    // An action's own requests: code with no async parent (an `async` function an event called,
    // resumed after its `await`) further down the function that started one, once it was
    // answered, was handling it, as for a rejection reported late.
    let own = matches!(among, Among::Since(_));
    let truncated = (reported_late || own) && stack.parents().is_empty();
    if !truncated && !stack.after_promise() {
        return Vec::new();
    }
    let mut resumed: Vec<&CodeLocation> = stack.resumed().collect();
    if let Among::Since(_) = among {
        resumed.extend(stack.parents().iter().flat_map(|s| s.frames.iter()));
    }
    let started_here = |r: &RequestRecord| {
        if truncated {
            r.callers
                .frames()
                .any(|c| stack.frames().any(|f| !f.function.is_empty() && f.same_place(c) && f.line > c.line))
        } else {
            r.callers.frames().any(|c| resumed.iter().any(|f| f.same_place(c)))
        }
    };
    let since = match among {
        Among::Any => 0,
        Among::Since(seq) => seq,
    };
    // (started, answered, request) of every request the code's function started and that was
    // answered by `at`.
    let candidates: Vec<(f64, f64, &RequestRecord)> = timeline
        .since(since)
        .filter_map(|entry| {
            let Record::Request(r) = &entry.record else { return None };
            let answered = answered_at(r)?;
            // A redirect hop's answer is never what the page's code read.
            let fits = answered <= at + CLOCK_SKEW_MS && at - answered <= HANDLING_MS && !r.browser_own && !r.is_hop();
            (fits && started_here(r)).then_some((entry.at, answered, &**r))
        })
        .collect();
    // Behind a shared fetch wrapper, those whose callers share most of the code's stack (through
    // its async parents: the component's call that led to it), not a later call's.
    let most = candidates.iter().map(|(_, _, r)| shared_frames(stack, &r.callers)).max().unwrap_or(0);
    let candidates: Vec<(f64, f64, &RequestRecord)> =
        candidates.into_iter().filter(|(_, _, r)| shared_frames(stack, &r.callers) == most).collect();
    let Some(&(started, answered, latest)) = candidates.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Vec::new();
    };
    let latest = Life { started, answered, callers: &latest.callers };
    candidates
        .into_iter()
        .filter(|&(started, answered, r)| together(&latest, &Life { started, answered, callers: &r.callers }))
        .map(|(_, _, r)| r)
        .collect()
}

/// A request's life, for [`together`]: when it started and was answered (ms since the Unix
/// epoch), and the stack that started it.
struct Life<'a> {
    started: f64,
    answered: f64,
    callers: &'a Stack,
}

/// Whether two requests were started together (`Promise.all([fetch(a), fetch(b)])`), so code that
/// handled the later answer awaited both: their lives overlap (each started before the other was
/// answered) and their stacks are one run of a function calling at two places ([`one_run`]). A
/// property of the code, not of the clock: a starved renderer stretches the starts but not the
/// stacks. Only where the stacks cannot tell (unknown, one call site, an anonymous function) do
/// starts within [`TOGETHER_MS`] count.
fn together(a: &Life, b: &Life) -> bool {
    let overlap = a.started <= b.answered && b.started <= a.answered;
    match one_run(a.callers, b.callers) {
        Some(one) => one && overlap,
        None => (a.started - b.started).abs() <= TOGETHER_MS,
    }
}

/// One step of a stack read outward: a frame, the async boundary into the next segment, where
/// frames may have been cut (a segment or a chain at its cap), or its real end.
#[derive(PartialEq)]
enum Step<'a> {
    Frame(&'a CodeLocation),
    Boundary(Option<&'a str>),
    Cut,
    End,
}

fn steps(stack: &Stack) -> Vec<Step<'_>> {
    let mut steps = Vec::new();
    for (i, segment) in stack.segments.iter().enumerate() {
        if i > 0 {
            steps.push(Step::Boundary(segment.boundary.as_deref()));
        }
        steps.extend(segment.frames.iter().map(Step::Frame));
        if segment.frames.len() >= MAX_FRAMES {
            steps.push(Step::Cut);
        }
    }
    steps.push(if stack.segments.len() >= MAX_SEGMENTS { Step::Cut } else { Step::End });
    steps
}

/// Whether two initiator stacks are one run of a function that called at two places: somewhere
/// the same named function stands at two lines, and outward from there the stacks agree frame
/// for frame, async boundaries included, as far as both were kept. `Some(false)` when they part
/// elsewhere (two functions, one after an `await` the other was not behind); `None` when they
/// cannot tell: a stack is unknown, they are the same call site (a loop, or the same code run
/// twice), or they part in an anonymous function.
fn one_run(a: &Stack, b: &Stack) -> Option<bool> {
    if a.is_empty() || b.is_empty() || a == b {
        return None;
    }
    let (a, b) = (steps(a), steps(b));
    let agree_outward = |i: usize, j: usize| {
        (1..)
            .map(|k| (a.get(i + k), b.get(j + k)))
            .find_map(|pair| match pair {
                (Some(Step::Cut), _) | (_, Some(Step::Cut)) | (Some(Step::End), Some(Step::End)) => Some(true),
                (Some(x), Some(y)) if x == y => None,
                _ => Some(false),
            })
            .unwrap_or(false)
    };
    let mut anonymous = false;
    for (i, step) in a.iter().enumerate() {
        let Step::Frame(at) = step else { continue };
        for (j, step) in b.iter().enumerate() {
            let Step::Frame(other) = step else { continue };
            let parted = at.url == other.url
                && at.function == other.function
                && (at.line, at.column) != (other.line, other.column);
            if parted && agree_outward(i, j) {
                if !at.function.is_empty() {
                    return Some(true);
                }
                anonymous = true;
            }
        }
    }
    (!anonymous).then_some(false)
}

/// How many of `stack`'s functions (through its async parents) are among `callers`' too.
fn shared_frames(stack: &Stack, callers: &Stack) -> usize {
    stack.frames().filter(|f| !f.function.is_empty() && callers.frames().any(|c| f.same_place(c))).count()
}

/// How [`handled`]'s requests `answers` read (their URLs without the origin of the code's
/// script): `response of GET /api/a 200`, `responses of GET /api/a 200 and GET /api/b 200`.
pub fn handling(stack: &Stack, answers: &[&RequestRecord]) -> String {
    let origin = stack.top().map(|f| origin_of(&f.url)).unwrap_or_default();
    let named: Vec<String> = answers
        .iter()
        .map(|r| {
            let url = relative(&r.url, &origin);
            let url: String = if url.chars().count() > URL_CHARS {
                format!("{}…", url.chars().take(URL_CHARS - 1).collect::<String>())
            } else {
                url
            };
            match (r.status(), &r.end) {
                (Some(status), _) => format!("{} {url} {status}", r.method),
                (None, Some((_, Outcome::Failed(why)))) => format!("{} {url} ({why})", r.method),
                _ => format!("{} {}", r.method, path_of(&r.url)),
            }
        })
        .collect();
    let failed = |r: &&RequestRecord| r.status().is_none() && matches!(r.end, Some((_, Outcome::Failed(_))));
    let noun = match answers {
        [one] if failed(one) => "failure of",
        [one] if one.status().is_none() => "end of",
        [_] => "response of",
        _ if answers.iter().all(failed) => "failures of",
        _ => "responses of",
    };
    match named.as_slice() {
        [] => String::new(),
        [one] => format!("{noun} {one}"),
        [rest @ .., last] => format!("{noun} {} and {last}", rest.join(", ")),
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
            redirected_to: None,
            wire: None,
        }
    }

    /// What [`handled`] says of code with `stack` at `at`, among all requests.
    fn during(stack: &Stack, timeline: &Timeline, at: f64, reported_late: bool) -> Option<String> {
        let answers = handled(stack, timeline, at, reported_late, Among::Any);
        (!answers.is_empty()).then(|| handling(stack, &answers))
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
    fn behind_a_shared_fetch_wrapper_the_request_the_erring_call_sent_is_named_not_a_later_one() {
        let wrapper = |caller: &str, handler: &str| {
            Stack::parse(&json!({"callFrames": [frame("request", 14), frame(caller, 25), frame(handler, 18)]}))
        };
        let mut post = request("http://app/api/claims", wrapper("submitClaim", "submit"), 1000.0, 422);
        post.method = "POST".into();
        let timeline =
            timeline_with(vec![post, request("http://app/api/claims", wrapper("listClaims", "load"), 1200.0, 200)]);
        // Thrown in the wrapper once the POST's answer was read, through the form's call.
        let error = Stack::parse(&json!({"callFrames": [frame("request", 21)],
            "parent": {"description": "await", "callFrames": [frame("submitClaim", 25), frame("submit", 18)]}}));
        assert_eq!(during(&error, &timeline, 1300.0, true).as_deref(), Some("response of POST /api/claims 422"));
        let listing = Stack::parse(&json!({"callFrames": [frame("request", 21)],
            "parent": {"description": "await", "callFrames": [frame("listClaims", 25), frame("load", 18)]}}));
        assert_eq!(during(&listing, &timeline, 1300.0, true).as_deref(), Some("response of GET /api/claims 200"));
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
    fn a_render_that_awaited_requests_started_together_names_them_all_and_no_earlier_ones() {
        let refresh = Stack::parse(&json!({"callFrames": [frame("refresh", 3)]}));
        let mut timeline = Timeline::new(0.0);
        let mut push = |url: &str, started: f64, answered: f64| {
            let mut r = request(url, refresh.clone(), answered, 200);
            r.id = format!("{url}@{started}").as_str().into();
            timeline.push(started, Record::Request(Box::new(r)));
        };
        push("http://app/team/api/members", 100.0, 230.0);
        push("http://app/team/api/members", 1000.0, 1130.0);
        push("http://app/team/api/projects", 1001.0, 1045.0);
        let render = Stack::parse(&json!({"callFrames": [frame("refresh", 7)],
                                          "parent": {"description": "await", "callFrames": [frame("refresh", 3)]}}));
        assert_eq!(
            reacting(Some(&render), None, &timeline, 1135.0, &Places::default(), Among::Any).as_deref(),
            Some("responses of GET /team/api/members 200 and GET /team/api/projects 200")
        );
        assert_eq!(
            reacting(Some(&render), None, &timeline, 1135.0, &Places::default(), Among::Since(2)).as_deref(),
            Some("response of GET /team/api/projects 200"),
            "an action that began after the members were asked for"
        );
        assert_eq!(
            reacting(Some(&render), None, &timeline, 1135.0, &Places::default(), Among::Since(9)).as_deref(),
            Some("await in refresh (/deploy/app.js:3)"),
            "none of the action's own: the boundary, never an earlier call's response"
        );
    }

    #[test]
    fn requests_one_run_started_at_two_places_are_together_however_far_apart_a_busy_renderer_stamped_them() {
        // `await Promise.all([fetch(members), fetch(projects)])` in refresh: lines 4 and 5 of one
        // run, stamped 120 ms apart by a starved renderer.
        let at = |line| Stack::parse(&json!({"callFrames": [frame("refresh", line), frame("onClick", 20)]}));
        let mut timeline = Timeline::new(0.0);
        for (url, line, started, answered) in
            [("http://app/api/members", 4, 1000.0, 1300.0), ("http://app/api/projects", 5, 1120.0, 1180.0)]
        {
            let mut r = request(url, at(line), answered, 200);
            r.id = url.into();
            timeline.push(started, Record::Request(Box::new(r)));
        }
        let render = Stack::parse(&json!({"callFrames": [frame("refresh", 7)],
                                          "parent": {"description": "await", "callFrames": [frame("onClick", 20)]}}));
        assert_eq!(
            reacting(Some(&render), None, &timeline, 1310.0, &Places::default(), Among::Any).as_deref(),
            Some("responses of GET /api/members 200 and GET /api/projects 200")
        );
    }

    #[test]
    fn requests_of_unrelated_code_or_one_after_the_other_are_not_together_however_close() {
        let life = |started, answered, callers| Life { started, answered, callers };
        let clicked = Stack::parse(&json!({"callFrames": [frame("refresh", 4), frame("onClick", 20)]}));
        let polled = Stack::parse(&json!({"callFrames": [frame("poll", 12)],
                                          "parent": {"description": "setTimeout", "callFrames": [frame("schedule", 3)]}}));
        assert!(!together(&life(1000.0, 1100.0, &clicked), &life(1005.0, 1090.0, &polled)), "a click's and a timer's");
        // `const a = await fetch(a); const b = await fetch(b)`: b's run came after a's answer.
        let first = Stack::parse(&json!({"callFrames": [frame("load", 4)]}));
        let then = Stack::parse(&json!({"callFrames": [frame("load", 5)],
                                        "parent": {"description": "await", "callFrames": [frame("onClick", 20)]}}));
        assert!(!together(&life(1000.0, 1002.0, &first), &life(1003.0, 1030.0, &then)), "awaited one after the other");
        let second = Stack::parse(&json!({"callFrames": [frame("load", 5)]}));
        assert!(together(&life(1000.0, 1300.0, &first), &life(1200.0, 1250.0, &second)), "one run, lives overlapping");
        assert!(!together(&life(1000.0, 1100.0, &first), &life(1200.0, 1250.0, &second)), "two runs: no overlap");
        // Stacks that cannot tell (the same call site, none at all): the starts' window.
        let none = Stack::default();
        assert!(together(&life(1000.0, 1300.0, &first), &life(1030.0, 1250.0, &first)));
        assert!(!together(&life(1000.0, 1300.0, &none), &life(1120.0, 1250.0, &none)));
    }

    #[test]
    fn in_an_actions_effects_an_async_function_resumed_without_a_parent_credits_what_it_awaited() {
        // `async function refresh() { await Promise.all([fetch(a), fetch(b)]); render }`, called by
        // a click: the continuation's stack has no async parent.
        let started = Stack::parse(&json!({"callFrames": [frame("refresh", 3)]}));
        let mut timeline = Timeline::new(0.0);
        for (url, at, answered) in
            [("http://app/api/members", 1000.0, 1130.0), ("http://app/api/projects", 1001.0, 1045.0)]
        {
            let mut r = request(url, started.clone(), answered, 200);
            r.id = url.into();
            timeline.push(at, Record::Request(Box::new(r)));
        }
        let render = Stack::parse(&json!({"callFrames": [frame("refresh", 7)]}));
        assert_eq!(
            reacting(Some(&render), None, &timeline, 1135.0, &Places::default(), Among::Since(0)).as_deref(),
            Some("responses of GET /api/members 200 and GET /api/projects 200")
        );
        assert_eq!(
            reacting(Some(&render), None, &timeline, 1135.0, &Places::default(), Among::Any),
            None,
            "not across the history"
        );
        let before = Stack::parse(&json!({"callFrames": [frame("refresh", 2)]}));
        assert_eq!(
            reacting(Some(&before), None, &timeline, 1135.0, &Places::default(), Among::Since(0)),
            None,
            "above the fetch"
        );
    }

    #[test]
    fn in_an_actions_effects_a_frame_deep_in_a_schedulers_parent_credits_the_request_it_started() {
        let submit = Stack::parse(&json!({"callFrames": [frame("submitClaim", 40)]}));
        let mut timeline = Timeline::new(0.0);
        let post = RequestRecord { method: "POST".into(), ..request("http://app/api/claims", submit, 1000.0, 422) };
        timeline.push(900.0, Record::Request(Box::new(post)));
        // render ← postMessage by the scheduler, called from submitClaim's continuation, which a
        // library's promise queue ran (the stack's depth ends before the await itself).
        let render = Stack::parse(&json!({"callFrames": [frame("renderRoot", 900)],
            "parent": {"description": "postMessage", "callFrames": [frame("schedule", 10), frame("setState", 20), frame("submitClaim", 44)],
                "parent": {"description": "Promise.then", "callFrames": [frame("flushQueue", 70)]}}}));
        assert_eq!(
            reacting(Some(&render), None, &timeline, 1010.0, &Places::default(), Among::Since(0)).as_deref(),
            Some("response of POST /api/claims 422")
        );
        assert_eq!(
            reacting(Some(&render), None, &timeline, 1010.0, &Places::default(), Among::Any).as_deref(),
            Some("postMessage in schedule (/deploy/app.js:10)"),
            "across the whole history only the places that resumed count"
        );
    }

    #[test]
    fn code_run_by_an_input_event_reacts_to_the_input_not_to_a_request() {
        let check = Stack::parse(&json!({"callFrames": [frame("onEmail", 5)]}));
        let timeline = timeline_with(vec![request("http://app/api/check", check.clone(), 1000.0, 200)]);
        let change = Stack::parse(&json!({"callFrames": [frame("updateForm", 61), frame("onEmail", 7)]}));
        assert_eq!(during(&change, &timeline, 2000.0, false), None, "synchronous code handles no answer");
        assert_eq!(
            reacting(Some(&change), Some("input on #email"), &timeline, 2000.0, &Places::default(), Among::Any)
                .as_deref(),
            Some("input on #email")
        );
        let timer = Stack::parse(&json!({"callFrames": [frame("tick", 9)],
                                         "parent": {"description": "setTimeout", "callFrames": [frame("poll", 12)]}}));
        assert_eq!(
            reacting(Some(&timer), None, &timeline, 2000.0, &Places::default(), Among::Any).as_deref(),
            Some("setTimeout in poll (/deploy/app.js:12)")
        );
        assert_eq!(by(&change, &Places::default(), false).as_deref(), Some("updateForm (/deploy/app.js:61)"));
    }
}
