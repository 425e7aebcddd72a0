//! The floors: the same work each method does, done with raw chromiumoxide calls on a Chromium of
//! our own (launched exactly as the service launches its own), measured in the same run.

use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use serde_json::{Value, json};
use text_browser::browser::Chromium;
use text_browser::browser::cdp;
use text_browser::config::Config;
use tokio::time::Instant;

pub struct Raw {
    pub chromium: Chromium,
    /// A page in a context of its own, with no proxy.
    pub page: Page,
}

fn deadline() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

impl Raw {
    pub async fn start() -> Self {
        let config = Config::from_env().expect("configuration");
        let executable = config.chrome_executable().expect("Chromium is installed (bash .ci/setup)");
        let chromium = Chromium::launch(&executable, true).await.expect("Chromium starts");
        let page = open_page(&chromium, None).await.1;
        // The service's default viewport, so screenshots compare the same number of pixels.
        let metrics = json!({ "width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false });
        cdp::call(&page, "Emulation.setDeviceMetricsOverride", metrics, deadline()).await.expect("a viewport");
        Self { chromium, page }
    }

    /// One command to the page.
    pub async fn call(&self, method: &'static str, params: Value) -> Value {
        cdp::call(&self.page, method, params, deadline()).await.unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// The evaluate round trip every reading method is held to.
    pub async fn eval(&self) {
        self.call("Runtime.evaluate", json!({ "expression": "1", "returnByValue": true })).await;
    }

    /// `Page.navigate` and the load event (chromiumoxide's goto).
    pub async fn goto(&self, url: &str) {
        self.page.goto(url).await.expect("navigates");
    }

    /// A viewport PNG, or the whole page as the service takes it (layout metrics, then a clip).
    pub async fn screenshot(&self, full_page: bool) {
        let mut params = json!({ "format": "png" });
        if full_page {
            let metrics = self.call("Page.getLayoutMetrics", json!({})).await;
            let size = &metrics["cssContentSize"];
            params["clip"] = json!({ "x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1 });
            params["captureBeyondViewport"] = json!(true);
        }
        self.call("Page.captureScreenshot", params).await;
    }
}

/// A fresh browser context with one about:blank page; traffic through `proxy`, or direct.
pub async fn open_page(chromium: &Chromium, proxy: Option<&str>) -> (String, Page) {
    // "direct://" overrides the launch-time proxy that sends traffic outside sessions nowhere.
    let mut params = json!({ "disposeOnDetach": true, "proxyServer": "direct://" });
    if let Some(server) = proxy {
        params["proxyServer"] = json!(server);
        params["proxyBypassList"] = json!("<-loopback>");
    }
    let created = chromium.call("Target.createBrowserContext", params, deadline()).await.expect("a context");
    let context = created["browserContextId"].as_str().map(str::to_owned).unwrap_or_default();
    let target = CreateTargetParams::builder()
        .url("about:blank")
        .browser_context_id(BrowserContextId::new(context.clone()))
        .build()
        .expect("target params");
    (context.clone(), chromium.new_page(target, deadline()).await.expect("a page"))
}

pub async fn dispose(chromium: &Chromium, context: &str) {
    chromium
        .call("Target.disposeBrowserContext", json!({ "browserContextId": context }), deadline())
        .await
        .expect("disposes");
}
