//! The last word on every answer, whatever the transport (HTTP POST or WebSocket): each error in
//! our contract, each answer within its byte cap.
//!
//! jsonrpsee makes a few errors itself, without `data.kind` / `data.remediation` and with codes
//! of its own that our table gives to other kinds: `-32008` for an answer over its response
//! limit, `-32601` for an unknown method on a WebSocket, `-32006` for too many subscriptions on
//! one connection, `-32010` for a batch over its length limit. [`Answers`], an RPC middleware,
//! sees every call's answer before it is sent and puts such errors into the contract.
//!
//! It also runs batches itself. jsonrpsee answers a batch whose answers together pass its limit
//! with one error for the whole batch, which a client cannot match to its calls (it read as "not
//! answered, retry"). Here the answers share one budget of [`MAX_ANSWER_BYTES`] in their order:
//! a call whose answer does not fit gets its own `result_too_large`, the others their answers.
//! Errors always fit (they are small).

use std::future::Future;
use std::sync::Arc;

use jsonrpsee::server::BatchResponseBuilder;
use jsonrpsee::server::middleware::rpc::{Batch, BatchEntry, MethodResponse, Notification, Request, RpcServiceT};
use jsonrpsee::types::error::{
    INVALID_PARAMS_CODE, INVALID_REQUEST_CODE, METHOD_NOT_FOUND_CODE, OVERSIZED_RESPONSE_CODE, PARSE_ERROR_CODE,
    TOO_MANY_SUBSCRIPTIONS_CODE,
};
use jsonrpsee::types::{ErrorObjectOwned, Id};
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::ErrorKind;

/// The most JSON one answer may hold (a batch's answers together, too). Larger results are
/// refused with `result_too_large` before they are sent (see the README's Limits).
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// Calls a batch may hold.
pub const MAX_BATCH: usize = 50;
/// jsonrpsee's own response limit, above every answer this layer lets through (an answer of
/// MAX_ANSWER_BYTES, its envelope, a batch's errors). jsonrpsee also takes it as the size of
/// the largest WebSocket message it reads: a larger one is the only error it sends without us
/// (`-32007 Request is too big`, a code no kind of ours has).
pub const TRANSPORT_LIMIT: usize = MAX_ANSWER_BYTES + 4 * 1024 * 1024;

/// The layer that wraps jsonrpsee's RPC service in [`Answers`].
#[derive(Clone)]
pub struct AnswersLayer {
    /// Every method's name, for an unknown one's suggestion.
    names: Arc<[String]>,
    /// MAX_BODY_BYTES: the largest params a call may send (HTTP bodies are capped before
    /// jsonrpsee; WebSocket messages are checked here).
    max_request_bytes: usize,
}

impl AnswersLayer {
    pub fn new(names: Arc<[String]>, max_request_bytes: usize) -> Self {
        Self { names, max_request_bytes }
    }
}

impl<S> tower::Layer<S> for AnswersLayer {
    type Service = Answers<S>;

    fn layer(&self, inner: S) -> Answers<S> {
        Answers { inner, names: self.names.clone(), max_request_bytes: self.max_request_bytes }
    }
}

#[derive(Clone)]
pub struct Answers<S> {
    inner: S,
    names: Arc<[String]>,
    max_request_bytes: usize,
}

/// jsonrpsee's RPC service, as this layer wraps it.
pub trait Inner:
    RpcServiceT<MethodResponse = MethodResponse, BatchResponse = MethodResponse, NotificationResponse = MethodResponse>
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<S> Inner for S where
    S: RpcServiceT<
            MethodResponse = MethodResponse,
            BatchResponse = MethodResponse,
            NotificationResponse = MethodResponse,
        > + Clone
        + Send
        + Sync
        + 'static
{
}

impl<S: Inner> RpcServiceT for Answers<S> {
    type MethodResponse = MethodResponse;
    type BatchResponse = MethodResponse;
    type NotificationResponse = MethodResponse;

    fn call<'a>(&self, request: Request<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let this = self.clone();
        async move { this.answer(request).await }
    }

    fn batch<'a>(&self, batch: Batch<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let this = self.clone();
        async move { this.answer_batch(batch).await }
    }

    fn notification<'a>(&self, n: Notification<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        self.inner.notification(n)
    }
}

impl<S: Inner> Answers<S> {
    async fn answer(&self, request: Request<'_>) -> MethodResponse {
        let id = request.id().into_owned();
        let method = request.method_name().to_owned();
        let size = request.params().as_str().map_or(0, str::len);
        if size > self.max_request_bytes {
            let why = format!(
                "the params of {method} are {size} bytes, more than MAX_BODY_BYTES ({} bytes)",
                self.max_request_bytes
            );
            return error(id, ErrorKind::PayloadTooLarge, why);
        }
        let answer = self.inner.call(request).await;
        self.in_contract(answer, id, &method)
    }

    /// Runs a batch's calls in order; their answers share one budget of MAX_ANSWER_BYTES.
    async fn answer_batch(&self, batch: Batch<'_>) -> MethodResponse {
        let entries: Vec<_> = batch.into_iter().collect();
        if entries.len() > MAX_BATCH {
            let why = format!(
                "a batch holds at most {MAX_BATCH} requests and this one has {}: split it (nothing in it was run)",
                entries.len()
            );
            return error(Id::Null, ErrorKind::InvalidRequest, why);
        }
        let mut answers = BatchResponseBuilder::new_with_limit(usize::MAX);
        let mut budget = MAX_ANSWER_BYTES;
        let mut notified = false;
        for entry in entries {
            let answer = match entry {
                Ok(BatchEntry::Call(request)) => {
                    let id = request.id().into_owned();
                    let method = request.method_name().to_owned();
                    let answer = self.answer(request).await;
                    let size = answer.as_json().get().len();
                    if answer.is_success() && size > budget {
                        let why = format!(
                            "the answer of {method} ({size} bytes) does not fit: this batch's answers together may \
                             hold {MAX_ANSWER_BYTES} bytes and {} are left; call it on its own",
                            budget
                        );
                        error(id, ErrorKind::ResultTooLarge, why)
                    } else {
                        budget = budget.saturating_sub(size);
                        answer
                    }
                }
                Ok(BatchEntry::Notification(n)) => {
                    notified = true;
                    self.inner.notification(n).await;
                    continue;
                }
                Err(refused) => {
                    let (err, id) = refused.into_parts();
                    self.in_contract(MethodResponse::error(id.clone(), err), id.into_owned(), "")
                }
            };
            // The builder has no limit of its own: the budget above is the limit.
            let _ = answers.append(answer);
        }
        if answers.is_empty() && notified {
            MethodResponse::notification()
        } else {
            MethodResponse::from_batch(answers.finish())
        }
    }

    fn in_contract(&self, answer: MethodResponse, id: Id<'static>, method: &str) -> MethodResponse {
        in_contract(answer, id, method, &self.names)
    }
}

/// `answer` with jsonrpsee's own errors put into our contract (a kind and a remediation, our
/// codes), and a success larger than MAX_ANSWER_BYTES refused.
fn in_contract(answer: MethodResponse, id: Id<'static>, method: &str, names: &[String]) -> MethodResponse {
    if answer.is_subscription() {
        return answer;
    }
    if answer.is_success() {
        let size = answer.as_json().get().len();
        if size <= MAX_ANSWER_BYTES + 1024 {
            return answer;
        }
        let why = format!("the answer of {method} is {size} bytes, more than an answer may hold ({MAX_ANSWER_BYTES})");
        return error(id, ErrorKind::ResultTooLarge, why).with_extensions(answer.extensions().clone());
    }
    let Some(wire) = wire_error(&answer) else { return answer };
    if wire.data.as_ref().is_some_and(|d| d.get("kind").is_some()) {
        return answer;
    }
    let (kind, why) = match wire.code {
        OVERSIZED_RESPONSE_CODE => (
            ErrorKind::ResultTooLarge,
            format!("the answer of {method} is more than an answer may hold ({MAX_ANSWER_BYTES} bytes)"),
        ),
        METHOD_NOT_FOUND_CODE => {
            let hint =
                super::suggest_method(method, names).map(|m| format!(" (did you mean {m}?)")).unwrap_or_default();
            (ErrorKind::MethodNotFound, format!("there is no method {method:?}{hint}; rpc.discover lists them all"))
        }
        INVALID_PARAMS_CODE => (ErrorKind::InvalidParams, wire.message),
        INVALID_REQUEST_CODE => (ErrorKind::InvalidRequest, wire.message),
        PARSE_ERROR_CODE => (ErrorKind::ParseError, wire.message),
        TOO_MANY_SUBSCRIPTIONS_CODE => (
            ErrorKind::CapacityExceeded,
            format!("{}: unsubscribe (events.unsubscribe) before subscribing again", wire.message),
        ),
        _ => (ErrorKind::InternalError, wire.message),
    };
    error(id, kind, why).with_extensions(answer.extensions().clone())
}

/// The error object of an error answer.
#[derive(Deserialize)]
struct WireError {
    code: i32,
    message: String,
    data: Option<Value>,
}

fn wire_error(answer: &MethodResponse) -> Option<WireError> {
    #[derive(Deserialize)]
    struct Wire {
        error: WireError,
    }
    serde_json::from_str::<Wire>(answer.as_json().get()).ok().map(|w| w.error)
}

/// An error answer of `kind` with our data.
fn error(id: Id<'static>, kind: ErrorKind, message: String) -> MethodResponse {
    let data = json!({ "kind": kind.as_str(), "remediation": kind.remediation() });
    MethodResponse::error(id, ErrorObjectOwned::owned(kind.code(), message, Some(data)))
}

/// Whether `value` as JSON is at most `cap` bytes, found without writing it out (and without
/// reading past the cap).
pub fn fits<T: serde::Serialize + ?Sized>(value: &T, cap: usize) -> bool {
    struct Counter {
        left: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.left = self.left.checked_sub(buf.len()).ok_or_else(|| std::io::Error::other("over the cap"))?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Counter { left: cap }, value).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_and_data(answer: &MethodResponse) -> (i64, Value) {
        let wire: Value = serde_json::from_str(answer.as_json().get()).unwrap();
        (wire["error"]["code"].as_i64().unwrap(), wire["error"]["data"].clone())
    }

    #[test]
    fn jsonrpsees_own_errors_get_our_kinds_and_codes() {
        let names: Vec<String> = vec!["page.text".into(), "rpc.discover".into()];
        let own = |code: i32, message: &str| {
            let object = ErrorObjectOwned::owned(code, message.to_owned(), Some("Exceeded max limit of 1"));
            in_contract(MethodResponse::error(Id::Number(1), object), Id::Number(1), "page.txt", &names)
        };
        let (code, data) = code_and_data(&own(OVERSIZED_RESPONSE_CODE, "Response is too big"));
        assert_eq!((code, data["kind"].as_str()), (-32023, Some("result_too_large")));
        let (code, data) = code_and_data(&own(METHOD_NOT_FOUND_CODE, "Method not found"));
        assert_eq!((code, data["kind"].as_str()), (-32601, Some("method_not_found")));
        let (code, data) = code_and_data(&own(TOO_MANY_SUBSCRIPTIONS_CODE, "Too many subscriptions on the connection"));
        assert_eq!((code, data["kind"].as_str()), (-32004, Some("capacity_exceeded")));
        // An error that is ours already passes as it is.
        let ours = crate::rpc::error::ApiError::invalid("selector", "bad").to_error_object();
        let answer = in_contract(MethodResponse::error(Id::Number(2), ours), Id::Number(2), "page.text", &names);
        assert_eq!(code_and_data(&answer).1["param"], "selector");
    }

    #[test]
    fn the_size_check_counts_json_bytes_escapes_included() {
        let text = json!({ "text": "a\"b" });
        let exact = text.to_string().len();
        assert!(fits(&text, exact));
        assert!(!fits(&text, exact - 1));
        assert!(fits(&json!(null), 4) && !fits(&json!(null), 3));
    }
}
