//! The `text-browser` binary: flags, configuration, logging, then the application until a signal.

use std::process::ExitCode;

use text_browser::config::{self, Config};
use text_browser::startup::{self, Application};
use text_browser::{rpc, telemetry};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {}
        Some("-h" | "--help") => {
            print!("{}", config::help_text());
            return ExitCode::SUCCESS;
        }
        Some("-V" | "--version") => {
            println!("text-browser {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Some("--openrpc") => {
            print!("{}", rpc::openrpc::file_text(&rpc::openrpc::document(&rpc::all_methods())));
            return ExitCode::SUCCESS;
        }
        Some("--chromium-flags") => {
            // What to start a pool browser with (BROWSER_WS_ENDPOINT): the flags we launch with.
            for flag in text_browser::browser::Chromium::recommended_args(true) {
                println!("{flag}");
            }
            return ExitCode::SUCCESS;
        }
        Some("--mcp-tools") => {
            let methods = rpc::all_methods();
            let toolbox = text_browser::mcp::Toolbox::new(&methods, &rpc::openrpc::document(&methods));
            println!("{}", serde_json::json!({ "tools": toolbox.tools }));
            return ExitCode::SUCCESS;
        }
        Some("--agent-instructions") => {
            return match rpc::instructions::markdown(&rpc::all_methods()) {
                Ok(block) => {
                    print!("{block}");
                    ExitCode::SUCCESS
                }
                Err(why) => {
                    eprintln!("text-browser: {why}");
                    ExitCode::FAILURE
                }
            };
        }
        Some("--readme-methods") => {
            print!("{}", rpc::reference::markdown(&rpc::all_methods()));
            return ExitCode::SUCCESS;
        }
        Some(other) => {
            eprintln!(
                "text-browser: unknown argument {other:?}; configuration is by environment variables (see --help)"
            );
            return ExitCode::from(2);
        }
    }
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(err) => {
            eprintln!("text-browser: configuration error: {err}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(config.log_format);
    if config.api_key_generated {
        eprintln!(
            "WARNING: API_KEY is not set; generated a key for this run only. Send it as the x-api-key header:\n  {}",
            config.api_key.expose()
        );
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("text-browser: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let app = match Application::build(config).await {
            Ok(app) => app,
            Err(err) => {
                tracing::error!(error = %err, "start-up failed");
                eprintln!("text-browser: start-up failed: {err}");
                return ExitCode::FAILURE;
            }
        };
        match app.run_until_stopped(startup::shutdown_signal()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                tracing::error!(error = %err, "server error");
                ExitCode::FAILURE
            }
        }
    })
}
