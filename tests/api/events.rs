//! events.subscribe over WebSocket: what a page does arrives as it happens, in order and
//! timestamped; a subscriber that stops reading holds up nobody and learns what it lost; the end of
//! the session ends the subscription with its reason.

use std::time::{Duration, Instant};

use async_tungstenite::tungstenite::Message;
use serde_json::{Value, json};

use crate::helpers::{Socket, next_json, page, shared, subscribe_on, websocket};

/// A WebSocket on /rpc subscribed to `params` (plus the session); returns it once subscribed.
async fn subscribe(params: Value) -> Socket {
    let mut ws = websocket(shared()).await;
    subscribe_on(&mut ws, params).await;
    ws
}

/// The next `events.event` notification's payload.
async fn next_event(ws: &mut Socket) -> Value {
    let message = next_json(ws).await;
    assert_eq!(message["method"], "events.event", "{message}");
    message["params"]["result"].clone()
}

#[tokio::test]
async fn a_subscriber_gets_console_and_network_events_in_order_with_timestamps() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/invoices/"), "waitUntil": "load" })).await;
    let mut ws = subscribe(json!({ "session_id": sid, "kinds": ["console", "network"] })).await;
    let script = "console.log('paying'); fetch('/api/invoices/17/pay', { method: 'POST' }) \
                  .then((r) => console.error('declined', r.status)); 1";
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": script })).await;
    let events = [next_event(&mut ws).await, next_event(&mut ws).await, next_event(&mut ws).await];
    let seen: Vec<(&str, bool)> =
        events.iter().map(|e| (e["kind"].as_str().unwrap(), e["error"].as_bool().unwrap())).collect();
    assert_eq!(seen, vec![("console", false), ("network", true), ("console", true)], "{events:?}");
    assert_eq!(events[0]["text"], "paying");
    assert!(events[1]["text"].as_str().unwrap().starts_with("POST ") && events[1]["status"] == 422, "{events:?}");
    assert_eq!(events[2]["text"], "declined 422");
    let at: Vec<u64> = events.iter().map(|e| e["at"].as_u64().unwrap()).collect();
    assert!(at[0] > 1_700_000_000_000 && at.windows(2).all(|w| w[0] <= w[1]), "{at:?}");
    assert!(events.iter().all(|e| e["tab"].as_str().is_some_and(|t| t.len() == 8)), "{events:?}");

    // onlyErrors leaves out the rest.
    let mut errors_only = subscribe(json!({ "session_id": sid, "onlyErrors": true })).await;
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "console.log('fine'); console.error('bad'); 1" }))
        .await;
    let event = next_event(&mut errors_only).await;
    assert_eq!((event["kind"].as_str(), event["text"].as_str()), (Some("console"), Some("bad")), "{event}");
}

#[tokio::test]
async fn a_bad_subscription_is_refused_with_the_param_named() {
    let mut ws = websocket(shared()).await;
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "events.subscribe",
                          "params": { "session_id": "nope", "kinds": ["console", "sparks"] } });
    ws.send(Message::text(request.to_string())).await.unwrap();
    let answer = next_json(&mut ws).await;
    assert_eq!(answer["error"]["data"]["param"], "kinds", "{answer}");
    let request =
        json!({ "jsonrpc": "2.0", "id": 2, "method": "events.subscribe", "params": { "session_id": "nope" } });
    ws.send(Message::text(request.to_string())).await.unwrap();
    let answer = next_json(&mut ws).await;
    assert_eq!(answer["error"]["data"]["kind"], "session_not_found", "{answer}");
}

#[tokio::test]
async fn closing_the_tab_or_the_session_ends_the_subscription_with_the_reason() {
    let svc = shared();
    let sid = svc.session().await;
    let opened = svc.ok("tabs.open", json!({ "session_id": sid })).await;
    let mut on_tab = subscribe(json!({ "session_id": sid, "tab_id": opened["tab_id"] })).await;
    svc.ok("tabs.close", json!({ "session_id": sid, "tab_id": opened["tab_id"] })).await;
    let last = next_event(&mut on_tab).await;
    assert_eq!((last["kind"].as_str(), last["reason"].as_str()), (Some("end"), Some("tab_closed")), "{last}");

    let mut ws = subscribe(json!({ "session_id": sid })).await;
    svc.ok("session.close", json!({ "session_id": sid })).await;
    let last = next_event(&mut ws).await;
    assert_eq!((last["kind"].as_str(), last["reason"].as_str()), (Some("end"), Some("closed")), "{last}");
}

#[tokio::test]
async fn a_subscriber_that_never_reads_holds_up_nobody_and_learns_how_many_it_lost() {
    let svc = shared();
    let flooded = svc.session().await;
    let other = svc.session().await;
    for sid in [&flooded, &other] {
        svc.ok("page.goto", json!({ "session_id": sid, "url": page("/invoices/"), "waitUntil": "load" })).await;
    }
    let stuck = subscribe(json!({ "session_id": flooded, "kinds": ["console"] })).await;
    let quick = |sid: String| async move {
        let started = Instant::now();
        shared().ok("page.evaluate", json!({ "session_id": sid, "expression": "1 + 1" })).await;
        started.elapsed()
    };
    let mut before = Vec::new();
    for _ in 0..5 {
        before.push(quick(other.to_string()).await);
    }
    // 60 000 console lines (megabytes of notifications) at a subscriber that reads none of them.
    let flood = "for (let i = 0; i < 60000; i++) console.log('line ' + i); 1";
    let flooding =
        tokio::spawn(shared().call("page.evaluate", json!({ "session_id": flooded.to_string(), "expression": flood })));
    let mut during = Vec::new();
    for _ in 0..5 {
        during.push(quick(other.to_string()).await);
    }
    flooding.await.unwrap().expect("the flooded page's own call returns");
    let text = svc.ok("page.text", json!({ "session_id": flooded, "selector": "h1" })).await;
    assert_eq!(text["text"], "Invoices", "the flooded session still answers");
    before.sort();
    during.sort();
    eprintln!("another session's calls: median {:?} before, {:?} during the flood", before[2], during[2]);
    assert!(during[2] < Duration::from_secs(2), "another session's calls were held up: {during:?}");

    // Reading now: the subscriber gets what fitted, then an event saying how many it lost.
    let mut stuck = stuck;
    let dropped = loop {
        let event = next_event(&mut stuck).await;
        if let Some(dropped) = event["dropped"].as_u64() {
            break dropped;
        }
    };
    assert!(dropped > 0, "it lost some and was told");
}

#[tokio::test]
async fn a_subscription_taken_during_a_long_evaluate_starts_at_once_and_sees_what_it_does() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    let long =
        "new Promise((resolve) => setTimeout(() => { console.log('halfway'); setTimeout(resolve, 1500); }, 2500))";
    let evaluating = svc.call("page.evaluate", json!({ "session_id": sid, "expression": long, "timeout": 30000 }));
    tokio::pin!(evaluating);
    let subscribing = async {
        // The evaluate holds the session's turn; subscribing must not wait for it.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let asked = Instant::now();
        let mut ws = subscribe(json!({ "session_id": sid, "kinds": ["console"] })).await;
        let took = asked.elapsed();
        (next_event(&mut ws).await, took)
    };
    let ((event, took), evaluated) = tokio::join!(subscribing, &mut evaluating);
    assert!(evaluated.is_ok(), "{evaluated:?}");
    assert!(took < Duration::from_secs(2), "subscribed in {took:?}, not after the evaluate");
    assert_eq!(event["text"], "halfway", "{event}");
}
