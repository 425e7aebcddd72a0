//! The reducer's tests: events applied with plain calls, the state read back.

use super::*;
use crate::browser::chromium::kinds::{DialogKind, Milestone, ResourceType};
use crate::browser::page::adoption::PopupLog;
use crate::browser::page::watch::cdp_events::RequestStart;
use crate::browser::page::watch::nav::DocumentFailure;
use crate::browser::page::watch::records::{Entry, Outcome, RequestRecord};
use crate::browser::page::watch::views::wording;
use crate::egress::failures::{BLOCKED_BY_POLICY, Failures};

struct Harness {
    reducer: Reducer,
    store: Store,
    out: Outbox,
}

impl Harness {
    fn new() -> Self {
        Self::with(Env::default())
    }

    fn with(env: Env) -> Self {
        let reducer = Reducer::new("main".into(), env, Now::read());
        Self { reducer, store: Store::new(0.0), out: Outbox::default() }
    }

    fn apply(&mut self, event: PageEvent) {
        self.reducer.apply(&mut self.store, event, Now::read(), &mut self.out);
    }

    /// Hands the popups filed to the session's log, as the pump does.
    fn hand_popups(&mut self, log: &PopupLog) {
        for target in self.out.popups.drain(..) {
            log.opened(target.into());
        }
    }

    fn requests(&self) -> Vec<&RequestRecord> {
        self.store
            .timeline
            .iter()
            .filter_map(|e: &Entry| if let Record::Request(r) = &e.record { Some(&**r) } else { None })
            .collect()
    }

    fn in_flight(&self) -> usize {
        self.reducer.requests.in_flight()
    }
}

fn lifecycle(loader: &str, name: &str) -> PageEvent {
    PageEvent::Lifecycle {
        frame_id: "main".into(),
        loader_id: loader.into(),
        milestone: Milestone::parse(name),
        timestamp: 0.0,
    }
}

fn started(id: &str) -> PageEvent {
    PageEvent::RequestStarted(RequestStart {
        request_id: id.into(),
        loader_id: "L1".into(),
        frame_id: Some("other".into()),
        resource_type: ResourceType::Fetch,
        url: "http://x/".into(),
        method: "GET".into(),
        ..Default::default()
    })
}

fn response(id: &str, status: u16) -> PageEvent {
    PageEvent::ResponseReceived {
        request_id: id.into(),
        frame_id: None,
        resource_type: ResourceType::Fetch,
        status,
        mime_type: "application/json".into(),
        failure: None,
        refreshes: false,
        at: None,
        timestamp: 0.0,
        headers: Vec::new(),
    }
}

fn failed(id: &str, why: &str) -> PageEvent {
    PageEvent::RequestFailed { request_id: id.into(), error_text: why.into(), timestamp: 1.0 }
}

#[test]
fn an_event_stream_stops_counting_as_in_flight_once_answered() {
    let mut h = Harness::new();
    h.apply(PageEvent::RequestStarted(RequestStart {
        request_id: "feed".into(),
        loader_id: "L1".into(),
        resource_type: ResourceType::EventSource,
        url: "http://x/deploys".into(),
        method: "GET".into(),
        ..Default::default()
    }));
    h.apply(started("data"));
    assert_eq!(h.in_flight(), 2);
    h.apply(PageEvent::ResponseReceived {
        request_id: "feed".into(),
        frame_id: None,
        resource_type: ResourceType::EventSource,
        status: 200,
        mime_type: "text/event-stream".into(),
        failure: None,
        refreshes: false,
        at: None,
        timestamp: 0.0,
        headers: Vec::new(),
    });
    assert_eq!(h.in_flight(), 1, "open by design: networkidle does not wait for its end");
    assert!(h.out.answered.is_empty(), "nor does an unread body's grace apply");
}

#[test]
fn a_failed_main_document_request_is_remembered() {
    let mut h = Harness::new();
    h.apply(PageEvent::RequestStarted(RequestStart {
        request_id: "D1".into(),
        loader_id: "D1".into(),
        frame_id: Some("main".into()),
        resource_type: ResourceType::Document,
        url: "http://x/".into(),
        ..Default::default()
    }));
    assert_eq!(h.reducer.nav().document_requests, 1);
    h.apply(failed("D1", "net::ERR_CONNECTION_REFUSED"));
    assert_eq!(h.reducer.nav().failure_of("D1"), Some(&DocumentFailure::Network("net::ERR_CONNECTION_REFUSED".into())));
    assert_eq!(h.in_flight(), 0);
}

fn document_started(id: &str) -> PageEvent {
    PageEvent::RequestStarted(RequestStart {
        request_id: id.into(),
        loader_id: id.into(),
        frame_id: Some("main".into()),
        resource_type: ResourceType::Document,
        url: "http://127.0.0.1:9/".into(),
        ..Default::default()
    })
}

#[test]
fn the_old_documents_late_milestone_does_not_cut_off_the_navigation_under_way() {
    let mut h = Harness::new();
    h.apply(document_started("D1"));
    // The initial about:blank's last milestones, reported after the navigation's request began.
    h.apply(lifecycle("BLANK", "networkAlmostIdle"));
    h.apply(lifecycle("BLANK", "networkIdle"));
    assert_eq!(h.in_flight(), 1, "the navigation's request is still under way");
    h.apply(failed("D1", "net::ERR_CONNECTION_REFUSED"));
    assert_eq!(
        h.reducer.nav().failure_of("D1"),
        Some(&DocumentFailure::Network("net::ERR_CONNECTION_REFUSED".into())),
        "how the navigation ended is kept"
    );
    // Chromium's error page commits under the request's id.
    h.apply(lifecycle("D1", "init"));
    h.apply(lifecycle("D1", "load"));
    assert_eq!(h.reducer.nav().loader_id, "D1");
    assert!(h.reducer.nav().loaded);
    assert!(matches!(h.requests()[0].end, Some((_, Outcome::Failed(_)))));
}

#[test]
fn a_replaced_documents_late_milestone_does_not_bring_it_back() {
    let mut h = Harness::new();
    h.apply(lifecycle("L1", "init"));
    h.apply(lifecycle("L2", "init"));
    h.apply(lifecycle("L2", "DOMContentLoaded"));
    h.apply(lifecycle("L1", "networkIdle"));
    h.apply(lifecycle("L1", "load"));
    let nav = h.reducer.nav();
    assert_eq!(nav.loader_id, "L2");
    assert!(nav.dom_content_loaded && !nav.loaded, "L1's load is not L2's");
}

#[test]
fn a_redirect_hop_reported_after_its_chain_ended_is_not_in_flight() {
    let mut h = Harness::new();
    h.apply(started("R1"));
    h.apply(PageEvent::RequestFinished { request_id: "R1".into(), timestamp: 1.0 });
    h.apply(started("R1"));
    assert_eq!(h.in_flight(), 0, "the chain already ended");
    assert_eq!(h.requests().len(), 1);
}

#[test]
fn a_new_loader_resets_the_load_flags_and_starts_a_time_frame() {
    let mut h = Harness::new();
    h.apply(lifecycle("L1", "init"));
    h.apply(lifecycle("L1", "load"));
    assert!(h.reducer.nav().loaded);
    h.apply(lifecycle("L2", "init"));
    let nav = h.reducer.nav().clone();
    assert_eq!(nav.loader_id, "L2");
    assert!(!nav.loaded && !nav.dom_content_loaded);
    assert!(nav.replaced("L1") && !nav.replaced("L2"));
    assert!(h.store.timeline.iter().any(|e| matches!(e.record, Record::Milestone(Milestone::Load))));
}

#[test]
fn subframe_lifecycle_is_ignored() {
    let mut h = Harness::new();
    h.apply(PageEvent::Lifecycle {
        frame_id: "child".into(),
        loader_id: "X".into(),
        milestone: Milestone::Load,
        timestamp: 0.0,
    });
    assert!(!h.reducer.nav().loaded);
}

#[test]
fn the_main_frames_latest_world_is_the_one_helpers_use_and_a_child_frames_is_not() {
    let mut h = Harness::new();
    assert_eq!(h.reducer.nav().world, None);
    h.apply(PageEvent::WorldCreated { frame_id: "main".into(), context_id: 3 });
    h.apply(PageEvent::WorldCreated { frame_id: "child".into(), context_id: 4 });
    assert_eq!(h.reducer.nav().world, Some(3));
    // The next document's world replaces it; the commit alone does not clear it.
    h.apply(lifecycle("L2", "init"));
    assert_eq!(h.reducer.nav().world, Some(3));
    h.apply(PageEvent::WorldCreated { frame_id: "main".into(), context_id: 5 });
    assert_eq!(h.reducer.nav().world, Some(5));
}

#[test]
fn in_flight_counts_requests_even_when_the_end_arrives_first() {
    let mut h = Harness::new();
    h.apply(started("a"));
    h.apply(started("b"));
    assert_eq!(h.in_flight(), 2);
    h.apply(PageEvent::RequestFinished { request_id: "a".into(), timestamp: 1.0 });
    h.apply(failed("c", "x"));
    h.apply(started("c"));
    h.apply(failed("b", "x"));
    assert_eq!(h.in_flight(), 0);
}

#[test]
fn requests_cut_off_by_a_new_document_end_as_cancelled_and_stop_counting() {
    let mut h = Harness::new();
    h.apply(lifecycle("L1", "init"));
    h.apply(started("slow"));
    h.apply(started("answered"));
    h.apply(response("answered", 204));
    assert_eq!(h.in_flight(), 2);
    h.apply(lifecycle("L2", "init"));
    assert_eq!(h.in_flight(), 0);
    let requests = h.requests();
    assert!(matches!(requests[0].end, Some((_, Outcome::Cancelled))));
    assert!(!requests[0].is_error());
    assert!(matches!(requests[1].end, Some((_, Outcome::BodyNotRead))));
    assert_eq!(requests[1].status(), Some(204));
}

#[test]
fn an_answer_whose_body_is_aborted_is_no_failure() {
    let mut h = Harness::new();
    h.apply(started("r"));
    h.apply(response("r", 200));
    h.apply(failed("r", "aborted"));
    let r = h.requests()[0];
    assert!(matches!(r.end, Some((_, Outcome::BodyNotRead))));
    assert!(!r.is_error());
    assert_eq!(h.store.timeline.counts(), (0, 0, 0));
}

#[test]
fn an_unread_body_stops_counting_as_in_flight_once_its_grace_has_passed() {
    let mut h = Harness::new();
    h.apply(started("buy"));
    h.apply(response("buy", 200));
    assert_eq!(h.out.answered, vec!["buy".to_owned()]);
    assert_eq!(h.in_flight(), 1);
    h.reducer.grace_passed(&mut h.store, &"buy".into(), Now::read());
    assert_eq!(h.in_flight(), 0);
    let r = h.requests()[0];
    assert!(r.is_answered() && r.body_unread && r.end.is_none());
    // When the body ends after all, it is filed as finished.
    h.apply(PageEvent::RequestFinished { request_id: "buy".into(), timestamp: 2.0 });
    assert!(matches!(h.requests()[0].end, Some((_, Outcome::Finished))));
}

#[test]
fn a_fetch_aborted_by_the_page_itself_stays_a_failure() {
    let mut h = Harness::new();
    h.apply(started("q"));
    h.apply(failed("q", "aborted"));
    assert_eq!(h.requests()[0].failure(), Some("aborted"));
}

#[test]
fn a_request_the_egress_proxy_refused_is_reported_as_blocked_by_policy() {
    let mut log = Failures::default();
    log.record("x", 80, Some("http://x/"), BLOCKED_BY_POLICY, "http://x/ does not match".into());
    let mut h = Harness::new();
    h.reducer.egress_failures(log);
    h.apply(started("r"));
    h.apply(failed("r", "net::ERR_FAILED"));
    assert_eq!(h.requests()[0].failure(), Some(BLOCKED_BY_POLICY));
}

#[test]
fn a_request_the_egress_proxy_answered_for_stays_refused_when_its_end_follows() {
    let mut h = Harness::new();
    h.apply(started("r"));
    h.apply(PageEvent::ResponseReceived {
        request_id: "r".into(),
        frame_id: None,
        resource_type: ResourceType::Image,
        status: 403,
        mime_type: "text/plain".into(),
        failure: Some(BLOCKED_BY_POLICY.into()),
        refreshes: false,
        at: None,
        timestamp: 0.0,
        headers: Vec::new(),
    });
    h.apply(PageEvent::RequestFinished { request_id: "r".into(), timestamp: 1.0 });
    assert_eq!(h.requests()[0].failure(), Some(BLOCKED_BY_POLICY));
    assert!(h.out.commands.is_empty(), "no body to capture");
}

#[test]
fn a_finished_data_request_asks_for_its_body_and_files_it() {
    let mut h = Harness::new();
    h.apply(started("r"));
    h.apply(response("r", 422));
    h.apply(PageEvent::RequestFinished { request_id: "r".into(), timestamp: 1.0 });
    assert_eq!(h.out.commands, vec![Command::CaptureBody { request_id: "r".into() }]);
    assert!(h.requests()[0].body_pending);
    h.reducer.found(&mut h.store, Finding::Body { request_id: "r".into(), body: Some("{\"e\":1}".into()) });
    assert!(!h.requests()[0].body_pending);
    assert_eq!(&*h.store.bodies.get("r").unwrap().text, "{\"e\":1}");
    assert_eq!(h.store.timeline.counts(), (0, 0, 1));
}

#[test]
fn a_popup_is_noted_once_with_its_url_whichever_announcement_comes_first() {
    let popups = PopupLog::default();
    let mut h = Harness::new();
    h.apply(PageEvent::PopupOpened { target_id: "AAAABBBBCCCC".into(), url: String::new() });
    h.apply(PageEvent::WindowOpened { url: "http://x/a".into() });
    h.apply(PageEvent::WindowOpened { url: "http://x/b".into() });
    h.apply(PageEvent::PopupOpened { target_id: "DDDDEEEEFFFF".into(), url: "about:blank".into() });
    let noted: Vec<(String, String)> =
        h.store
            .timeline
            .iter()
            .filter_map(|e| {
                if let Record::Popup { tab, url } = &e.record { Some((tab.clone(), url.clone())) } else { None }
            })
            .collect();
    assert_eq!(noted, vec![("aaaabbbb".into(), "http://x/a".into()), ("ddddeeee".into(), "http://x/b".into())]);
    h.hand_popups(&popups);
    assert_eq!(popups.take(), vec!["AAAABBBBCCCC".to_owned(), "DDDDEEEEFFFF".to_owned()]);
}

#[test]
fn a_dialog_is_answered_by_command_and_filed_and_leaving_a_page_is_accepted() {
    let mut h = Harness::new();
    h.apply(PageEvent::DialogOpening {
        kind: DialogKind::BeforeUnload,
        message: String::new(),
        default_prompt: String::new(),
    });
    // Unarmed, "Leave site?" is accepted: dismissing it would cancel the navigation that asked.
    assert_eq!(h.out.commands, vec![Command::AnswerDialog { accept: true, prompt_text: None }]);
    // The note as logs.pull and effects word it.
    assert!(h.store.timeline.iter().any(|e| matches!(&e.record, Record::Dialog(note) if {
        let t = wording::dialog(note);
        t.starts_with("beforeunload") && t.contains("the page was left")
    })));
}

#[test]
fn each_redirect_hop_is_its_own_entry_with_the_cookies_it_set_and_those_withheld() {
    use crate::browser::page::watch::cdp_events::Redirect;
    use serde_json::json;
    let mut h = Harness::new();
    let hop = |url: &str, method: &str, timestamp: f64, redirect: Option<u16>| {
        PageEvent::RequestStarted(RequestStart {
            request_id: "L9".into(),
            loader_id: "L9".into(),
            frame_id: Some("main".into()),
            resource_type: ResourceType::Document,
            url: url.into(),
            method: method.into(),
            timestamp,
            redirect: redirect.map(|status| Redirect { status, mime: String::new(), headers: Vec::new() }),
            ..Default::default()
        })
    };
    let extra = |method: &str, params: serde_json::Value| PageEvent::parse(method, params).expect("parsed");
    h.apply(hop("http://h/portal/api/session", "POST", 1.0, None));
    h.apply(hop("http://h/portal/home", "GET", 1.1, Some(303)));
    // The first hop's ExtraInfo events come after the second hop started, as Chromium sends them.
    h.apply(extra(
        "Network.requestWillBeSentExtraInfo",
        json!({"requestId":"L9","headers":{"Content-Type":"application/x-www-form-urlencoded"},
               "connectTiming":{"requestTime":1.0},"associatedCookies":[]}),
    ));
    h.apply(extra(
        "Network.responseReceivedExtraInfo",
        json!({"requestId":"L9","statusCode":303,
               "headers":{"Location":"/portal/home","Set-Cookie":"portal_sid=s3cr3t1; HttpOnly\nportal_lang=en; Path=/"}}),
    ));
    h.apply(extra(
        "Network.requestWillBeSentExtraInfo",
        json!({"requestId":"L9","headers":{"Cookie":"portal_lang=en"},"connectTiming":{"requestTime":1.1},
               "associatedCookies":[
                 {"cookie":{"name":"portal_sid","value":"s3cr3t1","path":"/portal/api","domain":"h"},"blockedReasons":["NotOnPath"]},
                 {"cookie":{"name":"portal_lang","value":"en","path":"/","domain":"h"},"blockedReasons":[]}]}),
    ));
    h.apply(hop("http://h/portal/signin/?next=%2Fportal%2Fhome", "GET", 1.2, Some(302)));
    let requests = h.requests();
    let shown: Vec<_> = requests.iter().map(|r| (r.method.as_str(), r.status(), r.redirected_to.as_deref())).collect();
    assert_eq!(
        shown,
        vec![
            ("POST", Some(303), Some("http://h/portal/home")),
            ("GET", Some(302), Some("http://h/portal/signin/?next=%2Fportal%2Fhome")),
            ("GET", None, None)
        ]
    );
    let set = &requests[0].wire.as_ref().expect("the sign-in's cookies").set;
    assert_eq!((set[0].name.as_str(), set[0].path.as_str()), ("portal_sid", "/portal/api"));
    assert_eq!(set[0].path_defaulted_from.as_deref(), Some("/portal/api/session"));
    let home = requests[1].wire.as_ref().expect("home's cookies");
    assert_eq!(home.cookies_sent, vec!["portal_lang".to_owned()]);
    assert_eq!(
        (home.withheld[0].name.as_str(), home.withheld[0].reasons.clone()),
        ("portal_sid", vec!["NotOnPath".into()])
    );
    assert_eq!(home.sent_headers.list, vec![("Cookie".to_owned(), "portal_lang=…".to_owned())]);
    assert!(!format!("{requests:?}").contains("s3cr3t1"), "no cookie value is kept");
    assert_eq!(h.in_flight(), 1, "one request, on its third hop");
}
