//! Integration tests: the real service, real Chromium, the fixtures app. One binary, so one
//! shared service (see `helpers`).

mod helpers;

mod abuse;
mod actions;
mod answers;
mod assertions;
mod cli;
mod client_examples;
mod conformance;
mod connections;
mod contract;
mod dialogs;
mod document;
mod egress;
mod emulation;
mod errors;
mod events;
mod evidence;
mod exchange;
mod framework_apps;
mod gestures;
mod http_layers;
mod inspect;
mod limits;
mod mcp;
mod navigation;
mod pool;
mod reading;
mod remote_browser;
mod replicas;
mod resilience;
mod routes;
mod secrets;
mod sessions;
mod signals;
mod snapshot;
mod storage;
mod tabs;
mod timeline;
mod why;
