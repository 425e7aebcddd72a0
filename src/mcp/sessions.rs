//! MCP session ids that name their replica: rmcp's own session store, except that with
//! REPLICA_ID a new MCP session's id starts with the replica's name (`text-browser-1.<uuid>`), as
//! browser session ids do, so another replica that gets a request for it can forward it there
//! (see `http::forwarded`). Everything else is rmcp's `LocalSessionManager`, unchanged.

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker, create_local_session,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionManager};

pub struct ReplicaSessions {
    inner: LocalSessionManager,
    /// REPLICA_ID, when set.
    replica: Option<String>,
}

impl ReplicaSessions {
    pub fn new(inner: LocalSessionManager, replica: Option<String>) -> Self {
        Self { inner, replica }
    }
}

impl SessionManager for ReplicaSessions {
    type Error = LocalSessionManagerError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let Some(replica) = &self.replica else { return self.inner.create_session().await };
        let id: SessionId = format!("{replica}.{}", uuid::Uuid::new_v4().simple()).into();
        let (handle, worker) = create_local_session(id.clone(), self.inner.session_config.clone());
        self.inner.sessions.write().await.insert(id.clone(), handle);
        Ok((id, WorkerTransport::spawn(worker)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }
}
