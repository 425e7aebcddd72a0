//! DOWNLOAD_MAX_BYTES where the bytes pass: the body of an attachment held once it passes the cap.
//!
//! Chromium reports a download's progress about twice a second, so cancelling it on a report
//! (what the page's pump does) lets a fast download run hundreds of megabytes past the cap
//! before the cancel lands. The proxy sees every byte of a plain-http response, so for a response
//! that arrives as a download (`Content-Disposition: attachment`) it forwards at most one piece
//! past the cap and then holds: Chromium's next report shows the download over the cap, the pump
//! cancels it and Chromium drops the connection. A body still held after [`HOLD`] (a script's
//! `fetch` of a large attachment, which no pump cancels) fails as a broken connection, never as a
//! body that looks complete. (https is tunnelled: there only the pump's cancel applies.)

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::{Body, Bytes, Frame, SizeHint};
use hyper::header::{CONTENT_DISPOSITION, HeaderMap};

/// How long a body over the cap is held before it fails.
pub const HOLD: Duration = Duration::from_secs(10);

/// The error a held body ends with.
pub type CapError = Box<dyn std::error::Error + Send + Sync>;

/// Whether a response with `headers` is a download (the browser saves it rather than shows it).
pub fn is_attachment(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_DISPOSITION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("attachment"))
}

/// `body`, held once more than `cap` bytes of it have passed.
pub fn capped<B>(body: B, cap: u64) -> BoxBody<Bytes, CapError>
where
    B: Body<Data = Bytes> + Send + Sync + Unpin + 'static,
    B::Error: Into<CapError>,
{
    Capped { inner: body, sent: 0, cap, held: None }.boxed()
}

struct Capped<B> {
    inner: B,
    sent: u64,
    cap: u64,
    /// Set once the cap is passed: when the hold ends.
    held: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<B> Body for Capped<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<CapError>,
{
    type Data = Bytes;
    type Error = CapError;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, CapError>>> {
        if self.sent > self.cap {
            let held = self.held.get_or_insert_with(|| Box::pin(tokio::time::sleep(HOLD)));
            return match held.as_mut().poll(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(()) => Poll::Ready(Some(Err(format!(
                    "the download passed DOWNLOAD_MAX_BYTES ({} bytes) and was not cancelled",
                    self.cap
                )
                .into()))),
            };
        }
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    self.sent += data.len() as u64;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(err))) => Poll::Ready(Some(Err(err.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.sent <= self.cap && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{Full, StreamBody};

    #[test]
    fn only_an_attachment_is_a_download() {
        let mut headers = HeaderMap::new();
        assert!(!is_attachment(&headers));
        headers.insert(CONTENT_DISPOSITION, "inline".parse().unwrap());
        assert!(!is_attachment(&headers));
        headers.insert(CONTENT_DISPOSITION, "Attachment; filename=\"a.zip\"".parse().unwrap());
        assert!(is_attachment(&headers));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_past_the_cap_is_held_then_fails_and_one_under_it_passes_whole() {
        let pieces = (0..10).map(|_| Ok::<_, std::convert::Infallible>(Frame::data(Bytes::from(vec![0u8; 100]))));
        let mut body = capped(StreamBody::new(futures_util::stream::iter(pieces)), 250);
        let mut passed = 0;
        let ended = loop {
            match body.frame().await {
                Some(Ok(frame)) => passed += frame.into_data().map(|d| d.len()).unwrap_or_default(),
                Some(Err(err)) => break err.to_string(),
                None => panic!("a held body never looks complete"),
            }
        };
        assert_eq!(passed, 300, "one piece past the cap, then nothing");
        assert!(ended.contains("DOWNLOAD_MAX_BYTES (250 bytes)"), "{ended}");
        let small = capped(Full::new(Bytes::from_static(b"hello")), 250);
        assert_eq!(small.collect().await.unwrap().to_bytes(), Bytes::from_static(b"hello"));
    }
}
