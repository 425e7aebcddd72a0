//! A page's events of one kind from chromiumoxide's typed listener, as raw JSON ([`RawEvent`]): the
//! one form the page layer reads them in, whichever way an event came (typed here, or unparsed
//! through `event_routes`), so its own lenient parser decides what a field means.

use futures_util::StreamExt;
use futures_util::stream::BoxStream;

use super::RawEvent;
use super::cdp::map_cdp_error;
use crate::browser::error::BrowserError;

/// A chromiumoxide event type a page can be listened to for.
pub trait Listened:
    chromiumoxide::cdp::IntoEventKind + chromiumoxide::types::MethodType + serde::Serialize + Unpin + Send + Sync + 'static
{
}

impl<T> Listened for T where
    T: chromiumoxide::cdp::IntoEventKind
        + chromiumoxide::types::MethodType
        + serde::Serialize
        + Unpin
        + Send
        + Sync
        + 'static
{
}

/// The page's `T` events from now on, each as its method and params.
pub async fn listen<T: Listened>(page: &chromiumoxide::Page) -> Result<BoxStream<'static, RawEvent>, BrowserError> {
    let method = T::method_id().to_string();
    let listener = page.event_listener::<T>().await.map_err(|e| map_cdp_error(&method, e))?;
    Ok(listener
        .filter_map(move |event| {
            let params = serde_json::to_value(&*event).ok();
            std::future::ready(params.map(|params| RawEvent { method: method.clone(), params }))
        })
        .boxed())
}
