//! [`VARS`]: every environment variable the service reads, with its default and meaning, in the
//! order `--help` and the README list them.

/// The default allow-list: the local machine on any port, over http or https.
pub const DEFAULT_ALLOW_HOST_REGEX: &str = r"^https?://(localhost|127\.0\.0\.1)(:\d+)?/";

/// One environment variable the service reads.
pub struct EnvVar {
    pub name: &'static str,
    pub default: &'static str,
    pub meaning: &'static str,
}

/// Every variable the service reads, in the order `--help` and the README list them.
pub const VARS: &[EnvVar] = &[
    EnvVar { name: "PORT", default: "3337", meaning: "listen port (0 picks a free one)" },
    EnvVar { name: "HOST", default: "127.0.0.1", meaning: "bind address (the Docker image sets 0.0.0.0)" },
    EnvVar {
        name: "API_KEY",
        default: "(none)",
        meaning: "required x-api-key; when unset a random key is generated and printed once to stderr",
    },
    EnvVar {
        name: "ALLOW_HOST_REGEX",
        default: DEFAULT_ALLOW_HOST_REGEX,
        meaning: "URLs the browser may load, matched against the normalized URL of every request",
    },
    EnvVar {
        name: "BLOCK_PRIVATE_IPS",
        default: "false",
        meaning: "also refuse requests (and upstream proxies) whose host resolves to a loopback, private or link-local address",
    },
    EnvVar {
        name: "ALLOW_PROXY_REGEX",
        default: "(none)",
        meaning: "upstream proxies session.create may name, matched against http://host:port/; unset, none is allowed",
    },
    EnvVar {
        name: "REFUSE_PASSWORD_FILL",
        default: "false",
        meaning: "refuse page.fill and page.type into password fields",
    },
    EnvVar { name: "SESSION_TTL_MS", default: "120000", meaning: "idle time after which a session is closed" },
    EnvVar { name: "RATE_LIMIT_MAX", default: "120", meaning: "requests per minute per client IP" },
    EnvVar { name: "MAX_SESSIONS", default: "8", meaning: "concurrent sessions, warm ones included" },
    EnvVar {
        name: "QUEUE_TIMEOUT_MS",
        default: "0",
        meaning: "how long session.create waits for a free slot at MAX_SESSIONS (0: fail at once)",
    },
    EnvVar {
        name: "QUEUE_MAX",
        default: "32",
        meaning: "how many session.create calls may wait for a slot at once; more get capacity_exceeded",
    },
    EnvVar {
        name: "WARM_SESSIONS",
        default: "1",
        meaning: "blank sessions kept ready so session.create is instant (0 disables)",
    },
    EnvVar { name: "MAX_BODY_BYTES", default: "524288", meaning: "request body cap" },
    EnvVar {
        name: "READ_TIMEOUT_MS",
        default: "10000",
        meaning: "a request's headers must arrive within this time, and its body may not stall longer (else 408)",
    },
    EnvVar {
        name: "MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP",
        default: "32",
        meaning: "open connections per client IP that have not sent the API key yet; more are closed at once",
    },
    EnvVar {
        name: "MAX_CONNECTIONS",
        default: "512",
        meaning: "requests in flight and WebSockets open on /rpc together; one more is refused (503, rate_limited)",
    },
    EnvVar {
        name: "MAX_WEBSOCKETS_PER_IP",
        default: "16",
        meaning: "WebSockets one client IP may hold open on /rpc; one more is refused (429, rate_limited)",
    },
    EnvVar {
        name: "WS_IDLE_TIMEOUT_MS",
        default: "300000",
        meaning: "a WebSocket with no call running, no subscription open and no call for this long is closed",
    },
    EnvVar {
        name: "MCP_ALLOWED_HOSTS",
        default: "localhost,127.0.0.1,::1",
        meaning: "Host headers /mcp accepts (comma-separated host or host:port), against DNS rebinding",
    },
    EnvVar {
        name: "MCP_ALLOWED_ORIGINS",
        default: "(none)",
        meaning: "browser Origins /mcp accepts (comma-separated scheme://host:port); a request with any other Origin is refused",
    },
    EnvVar {
        name: "DOWNLOAD_MAX_BYTES",
        default: "104857600",
        meaning: "a download a page starts is cancelled once it grows past this many bytes",
    },
    EnvVar {
        name: "MAX_CALL_MS",
        default: "120000",
        meaning: "upper bound on any single call, whatever timeout it asks for",
    },
    EnvVar {
        name: "CHROME_PATH",
        default: "auto",
        meaning: "Chromium binary; else chromium, chromium-browser or google-chrome on PATH",
    },
    EnvVar { name: "HEADLESS", default: "true", meaning: "run Chromium headless" },
    EnvVar {
        name: "BROWSER_WS_ENDPOINT",
        default: "(none)",
        meaning: "attach to this running Chromium (ws://host:port/devtools/browser/<id>, or http://host:port) instead of launching one",
    },
    EnvVar {
        name: "ALLOW_UNGUARDED_BROWSER",
        default: "false",
        meaning: "use a BROWSER_WS_ENDPOINT browser started without the flags that guard egress (WebRTC UDP, QUIC, background traffic) instead of refusing it; /readyz and the log warn",
    },
    EnvVar {
        name: "EGRESS_PROXY_ADVERTISE",
        default: "127.0.0.1",
        meaning: "host a remote browser reaches this service's per-session egress proxies at; not loopback: they listen on every interface",
    },
    EnvVar {
        name: "REPLICA_ID",
        default: "(none)",
        meaning: "this replica's name (a StatefulSet pod's, text-browser-0); session ids then carry it and calls for other replicas' sessions are forwarded",
    },
    EnvVar {
        name: "PEER_URL_TEMPLATE",
        default: "(none)",
        meaning: "a replica's base URL with {replica} for its name, e.g. http://{replica}.text-browser:3337; only <stem>-<ordinal> names of this replica's StatefulSet below REPLICA_COUNT fill it",
    },
    EnvVar {
        name: "REPLICA_COUNT",
        default: "(none)",
        meaning: "with PEER_URL_TEMPLATE: the most replicas the StatefulSet runs (its autoscaler's maxReplicas)",
    },
    EnvVar {
        name: "PEER_SECRET",
        default: "(none)",
        meaning: "required with REPLICA_ID: a secret all replicas share and callers never see (not API_KEY), at least 16 characters; forwarded calls carry an HMAC made with it",
    },
    EnvVar {
        name: "PEERS",
        default: "(none)",
        meaning: "replicas' base URLs by name, name=http://host:port,… (before PEER_URL_TEMPLATE)",
    },
    EnvVar {
        name: "METRICS_API_KEY",
        default: "(none)",
        meaning: "when set, /metrics requires it as a bearer token or x-api-key",
    },
    EnvVar { name: "LOG_FORMAT", default: "json", meaning: "json or pretty" },
    EnvVar {
        name: "TEST_PANIC_METHOD",
        default: "(none)",
        meaning: "tests only, never in production: every call of this method panics, to prove a panic answers only its own call",
    },
];
