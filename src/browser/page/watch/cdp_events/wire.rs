//! What went over the wire with a request besides its body: the headers of each hop as sent and
//! as answered, the cookies the browser sent or withheld (with Chromium's reasons), and the
//! `Set-Cookie` lines it refused. Read from `Network.requestWillBeSentExtraInfo` and
//! `Network.responseReceivedExtraInfo` (chromiumoxide 0.9 fails to parse most of the first: those
//! come raw), and the headers `requestWillBeSent` and `responseReceived` carry (without `Cookie`
//! and `Set-Cookie`). Values are read here as Chromium gives them and masked by the `wire`
//! sub-reducer before anything is stored; `headersText` (the raw header block) is never read, and
//! a cookie's value is never taken.

use serde_json::Value;

use super::PageEvent;
use super::fields::{headers, request_id};
use crate::browser::chromium::ids::RequestId;

pub use super::fields::HeaderList;

/// One hop's extra information, paired with its hop by the `wire` sub-reducer (CDP gives no hop
/// index: a chain's hops share their request id).
#[derive(Debug, Clone, PartialEq)]
pub enum WireEvent {
    /// Every header the hop was sent with (`Cookie` included) and every cookie of its host the
    /// browser considered, sent or withheld.
    Sent {
        request_id: RequestId,
        headers: HeaderList,
        cookies: Vec<CookieConsidered>,
        /// When the hop was sent (CDP monotonic seconds): its `requestWillBeSent`'s timestamp.
        request_time: Option<f64>,
    },
    /// Every header of the hop's answer (`Set-Cookie` included) and the lines the browser refused.
    Answered { request_id: RequestId, status: u16, headers: HeaderList, refused: Vec<RefusedLine> },
}

/// A cookie the browser considered for a request: sent when `blocked` is empty.
#[derive(Debug, Clone, PartialEq)]
pub struct CookieConsidered {
    pub name: String,
    pub path: String,
    pub domain: String,
    /// Chromium's reasons for withholding it (`NotOnPath`, `SameSiteLax` …).
    pub blocked: Vec<String>,
}

/// A `Set-Cookie` line the browser refused, with Chromium's reasons (`SameSiteNoneInsecure` …).
#[derive(Debug, Clone, PartialEq)]
pub struct RefusedLine {
    pub line: String,
    pub reasons: Vec<String>,
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
}

/// Parses the two ExtraInfo events; `None` for anything else.
pub fn parse(method: &str, params: &Value) -> Option<PageEvent> {
    let request_id: RequestId = request_id(params)?;
    let event = match method {
        "Network.requestWillBeSentExtraInfo" => WireEvent::Sent {
            request_id,
            headers: headers(params.get("headers")),
            cookies: params
                .get("associatedCookies")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| {
                    let cookie = c.get("cookie")?;
                    let field = |name: &str| cookie.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
                    Some(CookieConsidered {
                        name: field("name"),
                        path: field("path"),
                        domain: field("domain"),
                        blocked: strings(c.get("blockedReasons")),
                    })
                })
                .collect(),
            request_time: params.pointer("/connectTiming/requestTime").and_then(Value::as_f64),
        },
        "Network.responseReceivedExtraInfo" => WireEvent::Answered {
            request_id,
            status: params.get("statusCode").and_then(Value::as_u64).and_then(|s| u16::try_from(s).ok())?,
            headers: headers(params.get("headers")),
            refused: params
                .get("blockedCookies")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|b| RefusedLine {
                    line: b.get("cookieLine").and_then(Value::as_str).unwrap_or_default().to_owned(),
                    reasons: strings(b.get("blockedReasons")),
                })
                .collect(),
        },
        _ => return None,
    };
    Some(PageEvent::Wire(event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_hops_cookies_are_read_sent_and_withheld_without_their_values() {
        let sent = parse(
            "Network.requestWillBeSentExtraInfo",
            &json!({"requestId":"L1","headers":{"Cookie":"portal_lang=en","Accept":"text/html"},
                "connectTiming":{"requestTime":2599.6},
                "associatedCookies":[
                  {"cookie":{"name":"portal_sid","value":"abc","path":"/portal/api","domain":"h"},"blockedReasons":["NotOnPath"]},
                  {"cookie":{"name":"portal_lang","value":"en","path":"/","domain":"h"},"blockedReasons":[]}]}),
        );
        let Some(PageEvent::Wire(WireEvent::Sent { cookies, headers, request_time, .. })) = sent else {
            panic!("{sent:?}")
        };
        assert_eq!(request_time, Some(2599.6));
        assert_eq!(headers.len(), 2);
        assert_eq!((cookies[0].name.as_str(), cookies[0].blocked.clone()), ("portal_sid", vec!["NotOnPath".into()]));
        assert!(cookies[1].blocked.is_empty());
        assert!(!format!("{cookies:?}").contains("abc"), "a cookie's value is never taken");
    }

    #[test]
    fn an_answers_set_cookie_lines_are_one_header_each_and_refused_lines_keep_their_reasons() {
        let answered = parse(
            "Network.responseReceivedExtraInfo",
            &json!({"requestId":"L1","statusCode":303,"headersText":"HTTP/1.1 303 …",
                "headers":{"location":"/portal/home","set-cookie":"a=1; HttpOnly\nb=2; Path=/"},
                "blockedCookies":[{"blockedReasons":["SameSiteNoneInsecure"],"cookieLine":"c=3; SameSite=None"}]}),
        );
        let Some(PageEvent::Wire(WireEvent::Answered { status, headers, refused, .. })) = answered else {
            panic!("{answered:?}")
        };
        assert_eq!(status, 303);
        assert_eq!(headers.iter().filter(|(n, _)| n == "set-cookie").count(), 2);
        assert_eq!(refused[0].reasons, vec!["SameSiteNoneInsecure".to_owned()]);
    }
}
