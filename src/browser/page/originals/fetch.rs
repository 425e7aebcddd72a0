//! Fetching one script's source map: the script's text from the browser's own copy, the map it
//! names, and — for a map that is not inline — the map itself, loaded through the page's network
//! stack (`Network.loadNetworkResource`, as DevTools loads maps), so through the session's egress
//! proxy and its allow-list, and outside the page's own network events (a map fetch is never in
//! `network.pull`, the timeline or the HAR). Read in chunks and refused past [`MAX_MAP_BYTES`].

use std::sync::Arc;

use base64::Engine;
use tokio::time::Instant;

use super::discover;
use crate::browser::chromium::cdp;
use crate::browser::chromium::ids::FrameId;
use crate::browser::chromium::protocol::io::{Close, Read};
use crate::browser::chromium::protocol::network::{LoadNetworkResource, LoadOptions};
use crate::browser::page::source_map::{MAX_MAP_BYTES, Mapped, ScriptText, SourceMap, Unmapped, Why};
use crate::browser::page::watch::sources;
use crate::egress::failures::{BLOCKED_BY_POLICY, FAILURE_HEADER};

/// Bytes read from a map's stream per round trip.
const CHUNK: u32 = 1024 * 1024;

/// What fetching a script's map came to.
#[derive(Debug)]
pub enum Fetched {
    Mapped(Arc<Mapped>),
    Unmapped(Unmapped),
    /// The script's text could not be read now (the page went on to another document): ask again
    /// when an answer names the script again.
    Unavailable,
}

/// `script_url`'s map (named by its `SourceMap` header when it was served with one), with the
/// script's text, fetched by the page `page` (main frame `frame`).
pub async fn map_of(
    page: &chromiumoxide::Page,
    frame: &FrameId,
    (script_url, header): (&str, Option<&str>),
    deadline: Instant,
) -> Fetched {
    let Some(text) = sources::fetch(page, frame, script_url, deadline).await else { return Fetched::Unavailable };
    let Some(map_url) = discover::map_reference(header, &text).and_then(|r| discover::map_url(r, script_url)) else {
        return Fetched::Unmapped(Unmapped::NoMap);
    };
    let unreadable = |why: String| Unmapped::NotFetched { map_url: shown_url(&map_url), why: Why::Unreadable(why) };
    let parsed = if map_url.starts_with("data:") {
        SourceMap::from_data_url(&map_url, script_url).map(|map| (map, None))
    } else {
        match load(page, frame, &map_url, deadline).await {
            Ok(json) => SourceMap::parse(&json, &map_url).map(|map| (map, Some(map_url.clone()))),
            Err(why) => return Fetched::Unmapped(Unmapped::NotFetched { map_url, why }),
        }
    };
    match parsed {
        Ok((map, kept_url)) => Fetched::Mapped(Arc::new(Mapped::new(map, ScriptText::new(text), kept_url))),
        Err(e) => Fetched::Unmapped(unreadable(e.to_string())),
    }
}

/// A map URL as an answer names it: a `data:` URL by its start only.
fn shown_url(map_url: &str) -> String {
    if map_url.starts_with("data:") { "an inline data: map".to_owned() } else { map_url.to_owned() }
}

/// The body at `url`, loaded through the page's network stack.
async fn load(page: &chromiumoxide::Page, frame: &FrameId, url: &str, deadline: Instant) -> Result<Vec<u8>, Why> {
    let options = LoadOptions { disable_cache: false, include_credentials: false };
    let loaded = cdp::send(page, LoadNetworkResource { frame_id: frame.as_str(), url, options }, deadline)
        .await
        .map_err(|e| Why::Failed(e.to_string()))?
        .resource;
    if !loaded.success {
        let failure = loaded.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(FAILURE_HEADER));
        return Err(match (failure.and_then(|(_, v)| v.as_str()), loaded.http_status_code) {
            (Some(BLOCKED_BY_POLICY), _) => Why::OutsideAllowList,
            (Some(why), _) => Why::Failed(why.to_owned()),
            (None, Some(status)) if status >= 400 => Why::Status(status),
            _ => Why::Failed(loaded.net_error_name.unwrap_or_else(|| "no answer".to_owned())),
        });
    }
    let stream = loaded.stream.ok_or_else(|| Why::Failed("no body".to_owned()))?;
    let body = read(page, &stream, deadline).await;
    let _ = cdp::send(page, Close { handle: &stream }, deadline).await;
    body
}

/// The whole stream `handle`, refused past [`MAX_MAP_BYTES`].
async fn read(page: &chromiumoxide::Page, handle: &str, deadline: Instant) -> Result<Vec<u8>, Why> {
    let mut body = Vec::new();
    loop {
        let chunk =
            cdp::send(page, Read { handle, size: CHUNK }, deadline).await.map_err(|e| Why::Failed(e.to_string()))?;
        if chunk.base64_encoded {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(chunk.data.as_bytes())
                .map_err(|_| Why::Unreadable("a chunk that is not base64".to_owned()))?;
            body.extend_from_slice(&bytes);
        } else {
            body.extend_from_slice(chunk.data.as_bytes());
        }
        if body.len() > MAX_MAP_BYTES {
            return Err(Why::Unreadable(format!("more than the {MAX_MAP_BYTES} bytes read of a map")));
        }
        if chunk.eof {
            return Ok(body);
        }
    }
}
