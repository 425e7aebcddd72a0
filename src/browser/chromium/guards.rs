//! The launch flags that guard egress outside a session's browser context, and whether a browser
//! we attach to (BROWSER_WS_ENDPOINT, a pool) was started with them. Each session's context goes
//! through its own egress proxy; these flags close what does not: WebRTC's UDP (sent straight
//! from the browser process, past any proxy), QUIC, the browser's own background traffic, and
//! the default context. Launch flags cannot be set over CDP, so a browser without them is refused
//! (or, with ALLOW_UNGUARDED_BROWSER, used with a warning in the log and `/readyz`).

/// A guarding flag (`--name` matches it with any value) and what is open without it.
pub struct Guard {
    pub flag: &'static str,
    pub without: &'static str,
}

/// Every flag that guards egress outside a session's context.
pub const GUARDS: &[Guard] = &[
    Guard {
        flag: "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        without: "a page's WebRTC sends UDP (STUN, TURN, media) past the egress proxy",
    },
    Guard {
        flag: "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        without: "in a Chromium without Chrome's browser layer (the headless shell), a page's WebRTC sends UDP \
                  past the egress proxy",
    },
    Guard { flag: "--disable-quic", without: "requests may go over QUIC (UDP)" },
    Guard {
        flag: "--proxy-server",
        without: "traffic outside the sessions' contexts (the default context) goes out directly",
    },
    Guard {
        flag: "--disable-background-networking",
        without: "the browser makes requests of its own (field trials, safe browsing, suggestions)",
    },
    Guard { flag: "--disable-component-update", without: "the browser downloads components" },
];

/// The guards `arguments` (a browser's command line) lacks.
pub fn missing(arguments: &[String]) -> Vec<&'static Guard> {
    GUARDS
        .iter()
        .filter(|guard| {
            !arguments.iter().any(|arg| {
                arg == guard.flag || (!guard.flag.contains('=') && arg.starts_with(&format!("{}=", guard.flag)))
            })
        })
        .collect()
}

/// What a browser whose command line is `arguments` lacks of the guards, one line each.
pub fn lacking(arguments: &[String]) -> Vec<String> {
    missing(arguments).into_iter().map(|g| format!("{} is missing: {}", g.flag, g.without)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_without_the_webrtc_policy_lacks_that_guard() {
        let mut args: Vec<String> = GUARDS.iter().map(|g| g.flag.to_owned()).collect();
        args.push("--proxy-server=http://127.0.0.1:9".into());
        assert!(missing(&args).is_empty(), "--proxy-server with a value counts");
        args.retain(|a| !a.starts_with("--webrtc-ip-handling-policy") && !a.starts_with("--proxy-server"));
        let lacking: Vec<&str> = missing(&args).iter().map(|g| g.flag).collect();
        assert_eq!(lacking, ["--webrtc-ip-handling-policy=disable_non_proxied_udp", "--proxy-server"]);
        let other_policy = [args, vec!["--webrtc-ip-handling-policy=default".to_owned()]].concat();
        assert_eq!(missing(&other_policy).len(), 2, "only the closed policy guards");
        let chrome_only: Vec<String> =
            GUARDS.iter().map(|g| g.flag.to_owned()).filter(|f| !f.starts_with("--force-webrtc")).collect();
        let lacking: Vec<&str> = missing(&chrome_only).iter().map(|g| g.flag).collect();
        assert_eq!(lacking, ["--force-webrtc-ip-handling-policy=disable_non_proxied_udp"], "content's own switch too");
    }
}
