//! The IO domain: reading a stream Chromium opened for the service (a resource loaded with
//! `network::LoadNetworkResource`), in chunks, and closing it.

use serde::{Deserialize, Serialize};

use super::{Done, command};

/// The next chunk of the stream `handle`, at most `size` bytes.
#[derive(Debug, Clone, Serialize)]
pub struct Read<'a> {
    pub handle: &'a str,
    pub size: u32,
}
command!(Read<'a>, "IO.read", Chunk);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    #[serde(default)]
    pub base64_encoded: bool,
    #[serde(default)]
    pub data: String,
    /// The stream ended with this chunk.
    #[serde(default)]
    pub eof: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Close<'a> {
    pub handle: &'a str,
}
command!(Close<'a>, "IO.close", Done);
