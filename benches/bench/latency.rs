//! Each method's latency through HTTP JSON-RPC next to its raw floor, the two measured in turn
//! round by round so both see the same machine.

use serde_json::json;

use crate::floors::{Raw, dispose, open_page};
use crate::service::Service;
use crate::table::{Samples, Target, row, time};

/// Rounds thrown away first (connections, caches, JIT).
const WARMUP: usize = 3;

/// Times `$op` and `$floor` (expressions that make a future) in turn for `$rounds` rounds.
macro_rules! interleaved {
    ($rounds:expr, $op:expr, $floor:expr) => {{
        let (mut op, mut floor) = (Samples::default(), Samples::default());
        for round in 0..$rounds + WARMUP {
            let a = time($op).await;
            let b = time($floor).await;
            if round >= WARMUP {
                op.push(a);
                floor.push(b);
            }
        }
        (op, floor)
    }};
}

pub async fn report(svc: &Service, raw: &Raw, base: &str, rounds: usize) {
    let session = svc.session().await;
    let sid = session.as_str();
    let page = Visits { svc, raw, sid, base };
    page.visit("/").await;
    calls(&page, rounds).await;
    navigations(&page, rounds).await;
    page.visit("/form/").await;
    inputs(&page, rounds).await;
    for (what, path) in [("page.snapshot (fixtures page)", "/snapshot/"), ("page.snapshot (2,000 elements)", "/big/")] {
        page.visit(path).await;
        let (s, floor) = interleaved!(
            rounds,
            svc.ok("page.snapshot", json!({ "session_id": sid, "maxChars": 2_000_000 })),
            raw.call("Accessibility.getFullAXTree", json!({}))
        );
        row(what, &s, Some(floor.p50()), Target::None);
        println!("  floor: one Accessibility.getFullAXTree of the same page");
    }
    svc.ok("session.close", json!({ "session_id": sid })).await;

    sessions(svc, raw, rounds.min(20)).await;
}

/// The service's session and the raw page, both on the fixtures app at `base`.
struct Visits<'a> {
    svc: &'a Service,
    raw: &'a Raw,
    sid: &'a str,
    base: &'a str,
}

impl Visits<'_> {
    fn on(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Both go to `path`.
    async fn visit(&self, path: &str) {
        let url = self.on(path);
        self.svc.ok("page.goto", json!({ "session_id": self.sid, "url": url })).await;
        self.raw.goto(&url).await;
    }

    /// A call that reaches no session: the service's own cost.
    async fn noop(&self) -> Result<serde_json::Value, serde_json::Value> {
        self.svc.call("logs.pull", json!({ "session_id": "no-such-session" })).await
    }
}

/// The no-op call, and the calls that read the page, each against an evaluate and a no-op call.
async fn calls(page: &Visits<'_>, rounds: usize) {
    let (svc, raw, sid) = (page.svc, page.raw, page.sid);
    let (calls, evals) = interleaved!(rounds, page.noop(), raw.eval());
    row("no-op call (unknown session)", &calls, None, Target::None);
    row("raw Runtime.evaluate", &evals, None, Target::None);
    for (method, params) in [
        ("page.text", json!({ "session_id": sid })),
        ("page.evaluate", json!({ "session_id": sid, "expression": "1" })),
        ("page.content", json!({ "session_id": sid })),
        ("logs.pull", json!({ "session_id": sid })),
        ("network.pull", json!({ "session_id": sid })),
    ] {
        let (s, floor) = interleaved!(rounds, svc.ok(method, params.clone()), async {
            raw.eval().await;
            let _ = page.noop().await;
        });
        row(method, &s, Some(floor.p50()), Target::Ratio(1.5));
    }
}

/// page.goto and screenshots against their raw commands.
async fn navigations(page: &Visits<'_>, rounds: usize) {
    let (svc, raw, sid) = (page.svc, page.raw, page.sid);
    let home = page.on("/");
    let (s, floor) = interleaved!(
        rounds,
        svc.ok("page.goto", json!({ "session_id": sid, "url": home, "waitUntil": "load" })),
        raw.goto(&home)
    );
    row("page.goto (load)", &s, Some(floor.p50()), Target::Ratio(1.1));
    let (s, floor) = interleaved!(
        rounds.min(10),
        svc.ok("page.goto", json!({ "session_id": sid, "url": home, "waitUntil": "networkidle" })),
        raw.goto(&home)
    );
    row("page.goto (networkidle)", &s, Some(floor.p50()), Target::FloorPlus(520.0));
    for (what, full_page) in [("screenshot (viewport)", false), ("screenshot (full page)", true)] {
        let (s, floor) = interleaved!(
            rounds,
            svc.ok("screenshot", json!({ "session_id": sid, "fullPage": full_page })),
            raw.screenshot(full_page)
        );
        row(what, &s, Some(floor.p50()), Target::Ratio(1.1));
    }
}

/// Clicking, filling and typing against the raw input events.
async fn inputs(page: &Visits<'_>, rounds: usize) {
    let (svc, raw, sid) = (page.svc, page.raw, page.sid);
    let press = |kind: &str| json!({ "type": kind, "x": 5, "y": 5, "button": "left", "clickCount": 1 });
    let (s, floor) =
        interleaved!(rounds, svc.ok("page.click", json!({ "session_id": sid, "selector": "#save" })), async {
            raw.call("Input.dispatchMouseEvent", press("mousePressed")).await;
            raw.call("Input.dispatchMouseEvent", press("mouseReleased")).await;
        });
    row("page.click", &s, Some(floor.p50()), Target::Ms(15.0));
    let (s, floor) = interleaved!(
        rounds,
        svc.ok("page.fill", json!({ "session_id": sid, "selector": "#name", "value": "Ada" })),
        raw.call("Input.insertText", json!({ "text": "Ada" }))
    );
    row("page.fill", &s, Some(floor.p50()), Target::Ms(15.0));
    // Key by key into the same field (its input listener runs for each key).
    let (s, floor) = interleaved!(
        rounds,
        svc.ok("page.type", json!({ "session_id": sid, "selector": "#name", "text": "Ada" })),
        async {
            for key in ["A", "d", "a"] {
                raw.call("Input.dispatchKeyEvent", json!({ "type": "keyDown", "key": key, "text": key })).await;
                raw.call("Input.dispatchKeyEvent", json!({ "type": "keyUp", "key": key })).await;
            }
        }
    );
    row("page.type", &s, Some(floor.p50()), Target::Ms(15.0));
}

/// session.create from the warm pool, right after another create, and session.close, against
/// creating and disposing a context with its page.
async fn sessions(svc: &Service, raw: &Raw, rounds: usize) {
    let (mut warm, mut cold, mut close) = (Samples::default(), Samples::default(), Samples::default());
    let (mut create_floor, mut close_floor) = (Samples::default(), Samples::default());
    for _ in 0..rounds {
        svc.wait_for_warm().await;
        let mut id = None;
        warm.push(time(async { id = Some(svc.session().await) }).await);
        // The pool of one was just taken: the first round's create is made on demand and grows
        // the pool, so later rounds find a session ready.
        let mut second = None;
        cold.push(time(async { second = Some(svc.session().await) }).await);
        for sid in [id, second].into_iter().flatten() {
            close.push(time(svc.ok("session.close", json!({ "session_id": sid }))).await);
        }
        let mut context = None;
        create_floor.push(time(async { context = Some(open_page(&raw.chromium, None).await.0) }).await);
        let context = context.expect("a context");
        close_floor.push(time(dispose(&raw.chromium, &context)).await);
    }
    row("session.create (warm pool)", &warm, Some(create_floor.p50()), Target::Ms(20.0));
    row("session.create (right after another)", &cold, Some(create_floor.p50()), Target::None);
    row("session.close", &close, Some(close_floor.p50()), Target::None);
    println!("  floors: Target.createBrowserContext + createTarget; Target.disposeBrowserContext");
}
