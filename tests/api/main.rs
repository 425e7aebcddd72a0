//! Integration tests: the real service, real Chromium, the fixtures app. One binary, so one
//! shared service (see `helpers`).

mod helpers;

mod actions;
mod client_examples;
mod conformance;
mod contract;
mod egress;
mod errors;
mod evidence;
mod http_layers;
mod inspect;
mod navigation;
mod pool;
mod reading;
mod resilience;
mod sessions;
mod signals;
mod snapshot;
