//! Facts the service derives from the timeline, one line each, for the answers they apply to:
//!
//! - *out of order*: fetch/XHR requests to one endpoint (method + path, any query) whose answers
//!   the page read, that finished in another order than they started and differ (query or body) —
//!   the one that finished last, its start rank, its end, and the DOM change its answer caused (the
//!   render an agent would otherwise hunt for: see [`change_after`]);
//! - *sent twice*: identical requests (method, URL, body) from one action — how many, their
//!   statuses (two listeners of one click both ran: a double charge);
//! - *serial chain*: three or more requests from one script location, each started in code that
//!   resumed after the one before it was answered (an `await`, a `.then`) — count, total time,
//!   initiator; requests a caller paced (a key a second) follow each other without being one;
//! - *endpoints*: a path with its ids made a template (`/api/items/{id}/owner`), so that many
//!   requests group by what they ask for.
//!
//! Pure functions of records and times (ms since the Unix epoch); `origin` is the time the
//! answer counts from (a document's start, an action's start).

use std::collections::HashMap;

use super::causes::CauseStore;
use super::cdp_events::CodeLocation;
use super::dom::DomChange;
use super::inputs::FieldInput;
use super::records::{DomRecord, Outcome, RequestRecord};
use crate::browser::chromium::kinds::ResourceType;

/// A request with its times: started, and ended (or answered, for a body never read).
#[derive(Debug, Clone, Copy)]
pub struct Span<'a> {
    pub request: &'a RequestRecord,
    pub start: f64,
    pub end: Option<f64>,
}

/// Requests that follow each other within this much count as one after another.
const CHAIN_SLACK_MS: f64 = 2.0;
/// A DOM change this soon after a response ended followed it, whatever code made it.
const FOLLOWS_MS: f64 = 100.0;
/// Up to this long after a response ended, a DOM change made by code reading an answer of the same
/// caller followed it too (a loaded machine runs the page's code late).
const LATE_MS: f64 = 2000.0;
/// Chains shorter than this are not news.
const MIN_CHAIN: usize = 3;

/// `GET /api/items/{id}`: method and path template, the key requests are grouped by.
pub fn endpoint(method: &str, url: &str) -> String {
    format!("{method} {}", path_template(&path_of(url)))
}

/// A URL's path (the URL itself when it has none).
pub fn path_of(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| url.to_owned(), |u| u.path().to_owned())
}

/// The path with its id-like segments (numbers, UUIDs, long hex or mixed tokens) as `{id}`.
pub fn path_template(path: &str) -> String {
    path.split('/').map(|segment| if is_id(segment) { "{id}" } else { segment }).collect::<Vec<_>>().join("/")
}

fn is_id(segment: &str) -> bool {
    let digits = segment.chars().filter(char::is_ascii_digit).count();
    !segment.is_empty()
        && (digits == segment.len()
            || (segment.len() >= 8 && segment.chars().all(|c| c.is_ascii_hexdigit() || c == '-') && digits > 0)
            || (segment.len() >= 16 && digits >= 4 && segment.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')))
}

/// `+1512 ms` style offset from `origin`.
pub fn offset(at: f64, origin: f64) -> String {
    format!("+{} ms", (at - origin).round() as i64)
}

/// `850 ms` or `6.2 s`.
pub fn duration(ms: f64) -> String {
    if ms < 1000.0 { format!("{} ms", ms.round() as i64) } else { format!("{:.1} s", ms / 1000.0) }
}

/// `loadItems (/items:81)`: a script location with its path (the page's own origin left out).
pub fn place(at: &CodeLocation) -> String {
    let path = path_of(&at.url);
    let spot = if at.line == 0 { path } else { format!("{path}:{}", at.line) };
    if at.function.is_empty() { spot } else { format!("{} ({spot})", at.function) }
}

/// 1st, 2nd, 3rd, 4th …
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The DOM change that followed the answer of `span` (of a request that ended): one made from the
/// moment its headers arrived (the page may read a body before the browser reports it finished)
/// until [`FOLLOWS_MS`] after it ended — or until [`LATE_MS`] after, when code reading an answer of
/// the same caller made it (`causes` hold their stacks). The one the element still shows comes
/// first, else the earliest; with how long after the end, and whether the element has not changed
/// since.
pub fn change_after<'a>(
    doms: &[&'a DomRecord],
    span: &Span,
    causes: &CauseStore,
) -> Option<(&'a DomRecord, f64, bool)> {
    let end = span.end?;
    let from = span.request.response.as_ref().map_or(end, |answer| answer.at.min(end)) - 2.0;
    let follows = |dom: &DomRecord, t: f64| {
        t >= from
            && (t <= end + FOLLOWS_MS
                || (t <= end + LATE_MS
                    && dom.recent.iter().find(|c| c.at == t).is_some_and(|c| reads(causes, span.request, dom, c))))
    };
    let changes: Vec<(&DomRecord, f64)> = doms
        .iter()
        .flat_map(|dom| dom.times.iter().map(move |t| (*dom, *t)))
        .filter(|(dom, t)| follows(dom, *t))
        .collect();
    let earliest = |shown: bool| {
        changes
            .iter()
            .filter(|(dom, t)| !shown || *t >= dom.last_at())
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(dom, t)| (*dom, (t - end).max(0.0), *t >= dom.last_at()))
    };
    earliest(true).or_else(|| earliest(false))
}

/// Whether `change` (of `dom`) was made by code that resumed after a promise (or an XHR's callback)
/// scheduled where `request` was started: code reading an answer of the same caller.
fn reads(causes: &CauseStore, request: &RequestRecord, dom: &DomRecord, change: &DomChange) -> bool {
    causes.first_of(dom.document, &change.causes).is_some_and(|stack| {
        stack.after_promise() && stack.resumed().any(|f| request.callers.frames().any(|c| f.same_place(c)))
    })
}

/// The same request: method, URL and body.
pub fn identical(a: &RequestRecord, b: &RequestRecord) -> bool {
    a.method == b.method && a.url == b.url && a.posted == b.posted
}

/// A request whose answer the page's code read: a fetch or an XHR whose body it took.
fn consumed(span: &Span) -> bool {
    let r = span.request;
    matches!(r.resource_type, ResourceType::Fetch | ResourceType::Xhr)
        && !r.is_noise()
        && !r.body_unread
        && !matches!(r.end, Some((_, Outcome::BodyNotRead)))
}

/// One line per endpoint whose requests the page read in another order than it started them,
/// among requests that differ: the later answer then wins over the one asked for last (`causes`:
/// the stacks behind DOM changes, see [`change_after`]).
pub fn out_of_order(spans: &[Span], doms: &[&DomRecord], causes: &CauseStore, origin: f64) -> Vec<String> {
    let mut by_endpoint: HashMap<String, Vec<&Span>> = HashMap::new();
    for span in spans.iter().filter(|s| s.end.is_some() && consumed(s)) {
        by_endpoint.entry(format!("{} {}", span.request.method, path_of(&span.request.url))).or_default().push(span);
    }
    let mut facts: Vec<(f64, String)> = Vec::new();
    for (key, mut group) in by_endpoint {
        if group.len() < 2 {
            continue;
        }
        group.sort_by(|a, b| a.start.total_cmp(&b.start));
        let end = |s: &Span| s.end.unwrap_or_default();
        // Those that finished after one started later and asking for something else.
        let overtaken = |i: usize| {
            group[i + 1..].iter().any(|later| end(later) < end(group[i]) && !identical(later.request, group[i].request))
        };
        let Some((rank, last)) = (0..group.len())
            .filter(|&i| overtaken(i))
            .map(|i| (i, group[i]))
            .max_by(|a, b| end(a.1).total_cmp(&end(b.1)))
        else {
            continue;
        };
        let end = last.end.unwrap_or_default();
        let name = match url::Url::parse(&last.request.url).ok().and_then(|u| u.query().map(str::to_owned)) {
            Some(query) if !query.is_empty() => format!("?{}", shorten(&query, 40)),
            _ => "the request".to_owned(),
        };
        let after = match change_after(doms, last, causes) {
            Some((dom, dt, last)) => format!(
                "; {} changed {} ms later{}",
                dom.change.element,
                dt.round() as i64,
                if last { " and not since: the page shows this answer" } else { "" }
            ),
            None => "; no DOM change followed".to_owned(),
        };
        let line = format!(
            "{key} ×{} finished out of order: {name} started {}, finished last at {}{after}",
            group.len(),
            ordinal(rank + 1),
            offset(end, origin),
        );
        facts.push((end, line));
    }
    facts.sort_by(|a, b| a.0.total_cmp(&b.0));
    facts.into_iter().map(|(_, line)| line).collect()
}

/// Identical requests (method, URL, body) sent more than once among `spans` (one action's):
/// `POST /api/orders ×2 from one click, identical bodies, both 201`, with how many there were.
pub fn sent_twice(spans: &[Span], action: &str) -> Vec<(String, usize)> {
    let mut groups: Vec<Vec<&Span>> = Vec::new();
    for span in spans.iter().filter(|s| s.request.is_data() && !s.request.browser_own) {
        match groups.iter_mut().find(|g| identical(g[0].request, span.request)) {
            Some(group) => group.push(span),
            None => groups.push(vec![span]),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.len() > 1)
        .map(|group| {
            let r = group[0].request;
            let what = if r.posted.is_some() { "identical bodies" } else { "identical" };
            let outcome = |s: &&Span| {
                s.request
                    .status()
                    .map(|s| s.to_string())
                    .or_else(|| s.request.failure().map(str::to_owned))
                    .unwrap_or_else(|| "pending".into())
            };
            let outcomes: Vec<String> = group.iter().map(outcome).collect();
            let all = if outcomes.iter().all(|o| *o == outcomes[0]) {
                format!("{} {}", if group.len() == 2 { "both" } else { "all" }, outcomes[0])
            } else {
                outcomes.join(", ")
            };
            (format!("{} {} ×{} from one {action}, {what}, {all}", r.method, r.url, group.len()), group.len())
        })
        .collect()
}

/// Methods that write: their bodies are shown in effects and set against what the session filled.
pub fn is_write(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH" | "DELETE")
}

/// What a write's body sent, field by field: its JSON object's scalar fields (and those of the
/// objects in it), or its form fields.
fn sent_values(body: &str) -> Vec<(String, String)> {
    let scalar = |value: &serde_json::Value| match value {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(fields)) => {
            let mut out = Vec::new();
            for (key, value) in &fields {
                match value {
                    serde_json::Value::Object(inner) => {
                        out.extend(inner.iter().filter_map(|(k, v)| Some((k.clone(), scalar(v)?))));
                    }
                    other => out.extend(scalar(other).map(|v| (key.clone(), v))),
                }
            }
            out
        }
        Ok(_) => Vec::new(),
        Err(_) if body.contains('=') && !body.contains(char::is_whitespace) => {
            url::form_urlencoded::parse(body.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
        }
        Err(_) => Vec::new(),
    }
}

/// A name as fields and body keys are matched: letters and digits, lower case (`Due date`,
/// `due-date` and `dueDate` are one).
fn matchable(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// The values `span`'s write sent that differ from what the session put into a field of the same
/// name (its name, id or label) before it was sent: `PUT /api/tasks/WEB-107 sent due "2026-03-13";
/// input "Due date" was filled with "2026-03-20" at +1532` (`at`: a field's time as the line gives
/// it, ms since its document started).
pub fn stale_values(span: &Span, fields: &[&FieldInput], at: impl Fn(f64) -> i64) -> Vec<String> {
    let r = span.request;
    let Some(body) = r.posted.as_deref().filter(|_| is_write(&r.method)) else { return Vec::new() };
    let mut lines = Vec::new();
    for (key, sent) in sent_values(body) {
        let wanted = matchable(&key);
        let field = fields.iter().rev().find(|f| {
            f.at <= span.start && [&f.name, &f.id, &f.label].iter().any(|n| !n.is_empty() && matchable(n) == wanted)
        });
        let Some(field) = field.filter(|f| f.value != sent) else { continue };
        let named = if !field.label.is_empty() {
            format!("input {}", serde_json::Value::from(field.label.trim()))
        } else if !field.id.is_empty() {
            format!("input #{}", field.id)
        } else {
            format!("input name=\"{}\"", field.name)
        };
        lines.push(format!(
            "{} {} sent {key} {}; {named} was filled with {} at +{}",
            r.method,
            r.url,
            serde_json::Value::from(sent),
            serde_json::Value::from(field.value.as_str()),
            at(field.at)
        ));
    }
    lines
}

/// A run of requests from one script location, each started after the one before it was
/// answered, by code that resumed once it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    pub count: usize,
    /// First start to last end, ms.
    pub total_ms: f64,
    pub start: f64,
    /// `GET /api/items/{id}/owner`, or "requests" when they differ.
    pub what: String,
    pub initiator: String,
}

impl Chain {
    /// `24 × GET /api/items/{id}/owner from loadItems (/items:81) ran one after another: 6.2 s,
    /// 258 ms each`.
    pub fn line(&self) -> String {
        format!(
            "{} × {} from {} ran one after another: {}, {} each",
            self.count,
            self.what,
            self.initiator,
            duration(self.total_ms),
            duration(self.total_ms / self.count as f64)
        )
    }
}

/// Every serial chain of [`MIN_CHAIN`] or more requests, longest first.
pub fn chains(spans: &[Span]) -> Vec<Chain> {
    let mut by_initiator: HashMap<String, Vec<&Span>> = HashMap::new();
    for span in spans.iter().filter(|s| !s.request.is_noise()) {
        if let Some(at) = &span.request.initiator
            && at.line > 0
        {
            by_initiator.entry(format!("{}:{}:{}", at.url, at.line, at.function)).or_default().push(span);
        }
    }
    let mut found = Vec::new();
    for group in by_initiator.values_mut() {
        group.sort_by(|a, b| a.start.total_cmp(&b.start));
        let mut run: Vec<&Span> = Vec::new();
        for span in group.iter().copied() {
            let follows = run.last().is_some_and(|prev| {
                prev.end.is_some_and(|end| span.start >= end - CHAIN_SLACK_MS) && awaited(span.request, prev.request)
            });
            if !follows {
                push_chain(&mut found, &run);
                run.clear();
            }
            run.push(span);
        }
        push_chain(&mut found, &run);
    }
    found.sort_by(|a: &Chain, b| b.count.cmp(&a.count).then(a.start.total_cmp(&b.start)));
    found
}

/// Whether `next` was started by code that resumed after `prev` was answered: in a continuation
/// (an `await`, a `.then`, an XHR's callback) of the function that started `prev`. A request
/// started from a listener the user's next key ran was not, however soon it followed.
fn awaited(next: &RequestRecord, prev: &RequestRecord) -> bool {
    next.callers.after_promise() && next.callers.resumed().any(|f| prev.callers.frames().any(|c| f.same_place(c)))
}

fn push_chain(found: &mut Vec<Chain>, run: &[&Span]) {
    if run.len() < MIN_CHAIN {
        return;
    }
    let (first, last) = (run[0], run[run.len() - 1]);
    let Some(end) = last.end else { return };
    let endpoints: Vec<String> = run.iter().map(|s| endpoint(&s.request.method, &s.request.url)).collect();
    let what = if endpoints.iter().all(|e| *e == endpoints[0]) { endpoints[0].clone() } else { "requests".into() };
    let initiator = first.request.initiator.as_ref().map(place).unwrap_or_default();
    found.push(Chain { count: run.len(), total_ms: end - first.start, start: first.start, what, initiator });
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max - 1).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::chromium::kinds::ResourceType;
    use crate::browser::page::watch::records::{Answer, Outcome};
    use crate::browser::page::watch::stacks::Stack;
    use serde_json::json;

    /// A request `function` started after an `await` in it (a loop awaiting one by one).
    fn request(url: &str, initiator: Option<(&str, u32)>) -> RequestRecord {
        let callers = initiator.map(|(function, line)| {
            let frame = json!({"functionName": function, "url": "http://app/items/", "lineNumber": line - 1, "columnNumber": 4});
            Stack::parse(&json!({"callFrames": [frame], "parent": {"description": "await", "callFrames": [frame]}}))
        });
        RequestRecord {
            id: url.into(),
            method: "GET".into(),
            url: url.into(),
            resource_type: ResourceType::Fetch,
            initiator: initiator.map(|(function, line)| CodeLocation {
                url: "http://app/items/".into(),
                line,
                column: 5,
                function: function.into(),
            }),
            callers: callers.unwrap_or_default(),
            posted: None,
            browser_own: false,
            response: Some(Answer { status: 200, mime: "application/json".into(), at: 0.0 }),
            end: Some((0.0, Outcome::Finished)),
            body_pending: false,
            body_unread: false,
            pulled: false,
            redirected_to: None,
            wire: None,
        }
    }

    #[test]
    fn ids_in_paths_become_a_template() {
        assert_eq!(path_template("/api/items/17/owner"), "/api/items/{id}/owner");
        assert_eq!(path_template("/api/users/3f2a9c1e-77aa-4c1b-9d2e-0a1b2c3d4e5f"), "/api/users/{id}");
        assert_eq!(path_template("/api/search"), "/api/search");
        assert_eq!(endpoint("GET", "http://h/api/items/9?x=1"), "GET /api/items/{id}");
    }

    #[test]
    fn requests_that_finish_out_of_order_name_the_last_one_and_the_render_after_it() {
        let records: Vec<RequestRecord> =
            ["t", "te", "tea"].iter().map(|q| request(&format!("http://app/api/search?q={q}"), None)).collect();
        // "t" starts first and ends last.
        let spans = vec![
            Span { request: &records[0], start: 1000.0, end: Some(2512.0) },
            Span { request: &records[1], start: 1100.0, end: Some(1300.0) },
            Span { request: &records[2], start: 1200.0, end: Some(1350.0) },
        ];
        let render = DomRecord::new(DomChange::replaced_children("#results", 2513.0, 1), 0);
        let facts = out_of_order(&spans, &[&render], &CauseStore::default(), 1000.0);
        assert_eq!(
            facts,
            vec![
                "GET /api/search ×3 finished out of order: ?q=t started 1st, finished last at +1512 ms; \
                 #results changed 1 ms later and not since: the page shows this answer"
                    .to_owned()
            ]
        );
        let in_order = vec![spans[1], spans[2]];
        assert!(out_of_order(&in_order, &[], &CauseStore::default(), 0.0).is_empty());
        // Two loads of a static file answer the same: never "out of order".
        let icons: Vec<RequestRecord> = (0..2)
            .map(|_| RequestRecord { resource_type: ResourceType::Image, ..request("http://app/favicon.svg", None) })
            .collect();
        let twice = vec![
            Span { request: &icons[0], start: 1000.0, end: Some(1300.0) },
            Span { request: &icons[1], start: 1100.0, end: Some(1200.0) },
        ];
        assert!(out_of_order(&twice, &[&render], &CauseStore::default(), 1000.0).is_empty());
    }

    /// The type-ahead's five searches, "t" answered last (at 1910, its headers at 1880): the render
    /// of its answer is named however late a loaded renderer ran it.
    fn searches(records: &[RequestRecord]) -> Vec<Span<'_>> {
        let ends = [1910.0, 1678.0, 1655.0, 1400.0, 1428.0];
        records
            .iter()
            .zip(ends)
            .enumerate()
            .map(|(i, (r, end))| Span { request: r, start: 1073.0 + 80.0 * i as f64, end: Some(end) })
            .collect()
    }

    fn search_records() -> Vec<RequestRecord> {
        ["t", "ta", "tab", "tabl", "table"]
            .iter()
            .map(|q| request(&format!("http://app/api/search?q={q}"), Some(("", 23))))
            .collect()
    }

    #[test]
    fn a_render_the_page_made_before_the_browser_reported_the_answer_finished_follows_it() {
        let mut records = search_records();
        records[0].response.as_mut().unwrap().at = 1880.0;
        let spans = searches(&records);
        let render = DomRecord::new(DomChange::replaced_children("#results", 1891.0, 12), 0);
        let facts = out_of_order(&spans, &[&render], &CauseStore::default(), 1000.0);
        assert_eq!(
            facts,
            vec![
                "GET /api/search ×5 finished out of order: ?q=t started 1st, finished last at +910 ms; \
                 #results changed 0 ms later and not since: the page shows this answer"
                    .to_owned()
            ]
        );
        // Before its headers arrived, no change can be its answer's.
        let early = DomRecord::new(DomChange::replaced_children("#results", 1850.0, 12), 0);
        let facts = out_of_order(&spans, &[&early], &CauseStore::default(), 1000.0);
        assert!(facts[0].ends_with("; no DOM change followed"), "{facts:?}");
    }

    #[test]
    fn a_late_render_follows_an_answer_only_when_code_reading_that_callers_answers_made_it() {
        let records = search_records();
        let spans = searches(&records);
        // 126 ms after the end: a loaded renderer ran `.then(render)` late.
        let mut change = DomChange::replaced_children("#results", 2036.0, 12);
        change.causes = vec![7];
        let render = DomRecord::new(change, 0);
        let unknown = out_of_order(&spans, &[&render], &CauseStore::default(), 1000.0);
        assert!(unknown[0].ends_with("; no DOM change followed"), "a late change of unknown cause: {unknown:?}");
        let frame = |function: &str, line: u32| json!({"functionName": function, "url": "http://app/items/", "lineNumber": line - 1, "columnNumber": 0});
        let stack = |description: &str| {
            Stack::parse(
                &json!({"callFrames": [frame("render", 15)], "parent": {"description": description, "callFrames": [frame("", 23)]}}),
            )
        };
        let mut causes = CauseStore::default();
        causes.announced(0, 7, 2036.0);
        causes.resolved(0, 7, Some(stack("Promise.then")));
        let read = out_of_order(&spans, &[&render], &causes, 1000.0);
        assert!(
            read[0].ends_with("; #results changed 126 ms later and not since: the page shows this answer"),
            "{read:?}"
        );
        // A timer's change as late is not the answer's.
        let mut timer = CauseStore::default();
        timer.announced(0, 7, 2036.0);
        timer.resolved(0, 7, Some(stack("setTimeout")));
        let timed = out_of_order(&spans, &[&render], &timer, 1000.0);
        assert!(timed[0].ends_with("; no DOM change followed"), "{timed:?}");
    }

    #[test]
    fn identical_requests_or_answers_nobody_read_are_never_out_of_order() {
        let orders: Vec<RequestRecord> = (0..2)
            .map(|_| RequestRecord {
                method: "POST".into(),
                posted: Some(r#"{"sku":"sencha"}"#.into()),
                ..request("http://app/api/orders", None)
            })
            .collect();
        let spans = vec![
            Span { request: &orders[0], start: 1000.0, end: Some(1300.0) },
            Span { request: &orders[1], start: 1001.0, end: Some(1200.0) },
        ];
        assert!(
            out_of_order(&spans, &[], &CauseStore::default(), 1000.0).is_empty(),
            "the same order twice is no race"
        );
        assert_eq!(
            sent_twice(&spans, "click"),
            vec![("POST http://app/api/orders ×2 from one click, identical bodies, both 200".to_owned(), 2)]
        );
        let icons: Vec<RequestRecord> = ["a", "b"]
            .iter()
            .map(|v| RequestRecord {
                resource_type: ResourceType::Image,
                ..request(&format!("http://app/favicon.svg?v={v}"), None)
            })
            .collect();
        let spans = vec![
            Span { request: &icons[0], start: 1000.0, end: Some(1300.0) },
            Span { request: &icons[1], start: 1001.0, end: Some(1200.0) },
        ];
        assert!(
            out_of_order(&spans, &[], &CauseStore::default(), 1000.0).is_empty(),
            "the browser's icons are read by no code"
        );
    }

    #[test]
    fn requests_awaited_one_by_one_from_one_place_are_a_chain() {
        let records: Vec<RequestRecord> =
            (1..=5).map(|i| request(&format!("http://app/api/items/{i}/owner"), Some(("loadItems", 81)))).collect();
        let spans: Vec<Span> = records
            .iter()
            .enumerate()
            .map(|(i, r)| Span {
                request: r,
                start: 100.0 + i as f64 * 250.0,
                end: Some(100.0 + i as f64 * 250.0 + 240.0),
            })
            .collect();
        let found = chains(&spans);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].line(),
            "5 × GET /api/items/{id}/owner from loadItems (/items/:81) ran one after another: 1.2 s, 248 ms each"
        );
        // Started together (Promise.all): no chain.
        let parallel: Vec<Span> = records.iter().map(|r| Span { request: r, start: 100.0, end: Some(340.0) }).collect();
        assert!(chains(&parallel).is_empty());
    }

    #[test]
    fn a_write_that_sent_another_value_than_the_field_filled_is_a_fact() {
        let put = RequestRecord {
            method: "PUT".into(),
            posted: Some(
                r#"{"key":"WEB-107","due":"2026-03-13","title":"Fix it","meta":{"dueDate":"2026-03-13"}}"#.into(),
            ),
            ..request("http://app/api/tasks/WEB-107", None)
        };
        let span = Span { request: &put, start: 2000.0, end: Some(2100.0) };
        let due = FieldInput {
            at: 1500.0,
            name: "due".into(),
            id: "due-date".into(),
            label: "Due date ".into(),
            value: "2026-03-20".into(),
        };
        let title = FieldInput {
            at: 1400.0,
            name: "title".into(),
            id: String::new(),
            label: String::new(),
            value: "Fix it".into(),
        };
        let later = FieldInput { at: 2500.0, name: "key".into(), ..title.clone() };
        let lines = stale_values(&span, &[&due, &title, &later], |t| (t - 1000.0) as i64);
        assert_eq!(
            lines,
            vec![
                r#"PUT http://app/api/tasks/WEB-107 sent due "2026-03-13"; input "Due date" was filled with "2026-03-20" at +500"#,
                r#"PUT http://app/api/tasks/WEB-107 sent dueDate "2026-03-13"; input "Due date" was filled with "2026-03-20" at +500"#,
            ],
            "the title sent as filled is no fact, nor a field filled after the write"
        );
        let form = RequestRecord { posted: Some("due=2026-03-13&title=Fix+it".into()), ..put.clone() };
        let span = Span { request: &form, start: 2000.0, end: None };
        assert_eq!(stale_values(&span, &[&due, &title], |_| 0).len(), 1, "a form body too");
        let get = RequestRecord { method: "GET".into(), ..put };
        assert!(stale_values(&Span { request: &get, start: 2000.0, end: None }, &[&due], |_| 0).is_empty());
    }

    #[test]
    fn requests_a_typist_paced_follow_each_other_without_being_a_chain() {
        let typed: Vec<RequestRecord> = (1..=5)
            .map(|i| {
                let frame = json!({"functionName": "lookUp", "url": "http://app/people/search.js", "lineNumber": 4, "columnNumber": 2});
                RequestRecord {
                    callers: Stack::parse(&json!({"callFrames": [frame]})),
                    ..request(&format!("http://app/people/api/search?q={i}"), Some(("lookUp", 5)))
                }
            })
            .collect();
        let spans: Vec<Span> = typed
            .iter()
            .enumerate()
            .map(|(i, r)| Span { request: r, start: 100.0 + i as f64 * 250.0, end: Some(140.0 + i as f64 * 250.0) })
            .collect();
        assert!(chains(&spans).is_empty(), "each started from a key's listener, not after an answer");
    }
}
