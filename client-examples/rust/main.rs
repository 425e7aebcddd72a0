//! text-browser from Rust with jsonrpsee's HTTP client: the README scenario.
//!
//!   TB_URL=http://127.0.0.1:3337/rpc API_KEY=... APP_URL=http://127.0.0.1:3338 cargo run --example client

mod scenario;

#[tokio::main]
async fn main() {
    let tb_url = std::env::var("TB_URL").unwrap_or_else(|_| "http://127.0.0.1:3337/rpc".into());
    let app_url = std::env::var("APP_URL").unwrap_or_else(|_| "http://127.0.0.1:3338".into());
    let Ok(api_key) = std::env::var("API_KEY") else {
        eprintln!("set API_KEY to the key of the service");
        std::process::exit(2);
    };
    if let Err(failure) = scenario::run(&tb_url, &api_key, &app_url).await {
        eprintln!("{failure}");
        std::process::exit(1);
    }
}
